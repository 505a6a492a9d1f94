//! Piece kinds and coloured pieces.
//!
//! `PieceType` numbering (as in YaneuraOu, so that promotion is one bit):
//! ```text
//!  1 pawn    2 lance    3 knight    4 silver    5 bishop    6 rook    7 gold    8 king
//!  9 +pawn  10 +lance  11 +knight  12 +silver  13 horse    14 dragon
//! ```
//! A promotable kind (1..=6) promotes by setting bit 3 (`| 8`); a promoted kind (9..=14) demotes by
//! clearing it (`& 7`). Gold and king do not promote. The kinds that can be held in hand are 1..=7.
//!
//! `Piece` packs a colour and a kind in one byte, `colour << 4 | kind`: black pawn 1, white pawn 17.
//! Zero never occurs, so `Option<Piece>` is one byte and an empty square is `None`.

use super::Color;
use std::fmt;
use std::num::NonZeroU8;

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
#[repr(u8)]
pub enum PieceType {
    Pawn = 1,
    Lance = 2,
    Knight = 3,
    Silver = 4,
    Bishop = 5,
    Rook = 6,
    Gold = 7,
    King = 8,
    ProPawn = 9,
    ProLance = 10,
    ProKnight = 11,
    ProSilver = 12,
    Horse = 13,
    Dragon = 14,
}

impl PieceType {
    /// Every kind, in numbering order.
    pub const ALL: [PieceType; 14] = [
        PieceType::Pawn,
        PieceType::Lance,
        PieceType::Knight,
        PieceType::Silver,
        PieceType::Bishop,
        PieceType::Rook,
        PieceType::Gold,
        PieceType::King,
        PieceType::ProPawn,
        PieceType::ProLance,
        PieceType::ProKnight,
        PieceType::ProSilver,
        PieceType::Horse,
        PieceType::Dragon,
    ];
    /// The kinds a hand can hold, in numbering order (pawn .. gold): the first seven kinds.
    pub const HAND: [PieceType; 7] = match Self::ALL.first_chunk() {
        Some(hand) => *hand,
        None => unreachable!(),
    };
    /// One past the largest kind number: the size of arrays indexed by kind.
    pub const NUM: usize = 15;

    /// The kind of each 4-bit code (the kind numbers above; 0 and 15 never occur and map to a
    /// kind only so that a masked lookup needs neither a bounds check nor a branch).
    const OF_NIBBLE: [PieceType; 16] = {
        let mut t = [PieceType::Pawn; 16];
        let mut i = 1;
        while i <= 14 {
            t[i] = PieceType::ALL[i - 1];
            i += 1;
        }
        t[15] = PieceType::Dragon;
        t
    };
    /// `promote` and `unpromote` of each kind, by kind number (one load each).
    const PROMOTED: [PieceType; 16] = {
        let mut t = PieceType::OF_NIBBLE;
        let mut i = 1;
        while i <= 6 {
            t[i] = PieceType::ALL[(i | 8) - 1];
            i += 1;
        }
        t
    };
    const UNPROMOTED: [PieceType; 16] = {
        let mut t = PieceType::OF_NIBBLE;
        let mut i = 9;
        while i <= 14 {
            t[i] = PieceType::ALL[(i & 7) - 1];
            i += 1;
        }
        t
    };

    /// The kind whose number is `n & 15`, for callers that know `n & 15` is in 1..=14.
    #[inline(always)]
    pub const fn from_nibble(n: u8) -> PieceType {
        PieceType::OF_NIBBLE[(n & 15) as usize]
    }

    /// The kind with this number (1..=14).
    #[inline(always)]
    pub const fn from_u8(n: u8) -> Option<PieceType> {
        if n >= 1 && n <= 14 {
            Some(PieceType::ALL[n as usize - 1])
        } else {
            None
        }
    }

    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Whether the kind can promote (pawn, lance, knight, silver, bishop, rook).
    #[inline(always)]
    pub const fn can_promote(self) -> bool {
        (self as u8) <= 6
    }

    #[inline(always)]
    pub const fn is_promoted(self) -> bool {
        (self as u8) >= 9
    }

    /// The promoted kind; kinds that cannot promote are returned unchanged.
    #[inline(always)]
    pub const fn promote(self) -> PieceType {
        PieceType::PROMOTED[self as usize & 15]
    }

    /// The unpromoted kind (what a captured piece becomes in hand). King stays king.
    #[inline(always)]
    pub const fn unpromote(self) -> PieceType {
        PieceType::UNPROMOTED[self as usize & 15]
    }

    /// Whether the kind moves like a gold (gold and the four promoted minor pieces).
    #[inline(always)]
    pub const fn moves_like_gold(self) -> bool {
        matches!(
            self,
            PieceType::Gold
                | PieceType::ProPawn
                | PieceType::ProLance
                | PieceType::ProKnight
                | PieceType::ProSilver
        )
    }

    /// The upper-case SFEN letters of the kind (`+P` for a promoted pawn).
    pub const fn sfen(self) -> &'static str {
        match self {
            PieceType::Pawn => "P",
            PieceType::Lance => "L",
            PieceType::Knight => "N",
            PieceType::Silver => "S",
            PieceType::Bishop => "B",
            PieceType::Rook => "R",
            PieceType::Gold => "G",
            PieceType::King => "K",
            PieceType::ProPawn => "+P",
            PieceType::ProLance => "+L",
            PieceType::ProKnight => "+N",
            PieceType::ProSilver => "+S",
            PieceType::Horse => "+B",
            PieceType::Dragon => "+R",
        }
    }

    /// The unpromoted kind named by an SFEN letter of either case.
    pub fn from_sfen_letter(c: char) -> Option<PieceType> {
        Some(match c.to_ascii_uppercase() {
            'P' => PieceType::Pawn,
            'L' => PieceType::Lance,
            'N' => PieceType::Knight,
            'S' => PieceType::Silver,
            'B' => PieceType::Bishop,
            'R' => PieceType::Rook,
            'G' => PieceType::Gold,
            'K' => PieceType::King,
            _ => return None,
        })
    }

    /// A readable English name.
    pub const fn name(self) -> &'static str {
        match self {
            PieceType::Pawn => "pawn",
            PieceType::Lance => "lance",
            PieceType::Knight => "knight",
            PieceType::Silver => "silver",
            PieceType::Bishop => "bishop",
            PieceType::Rook => "rook",
            PieceType::Gold => "gold",
            PieceType::King => "king",
            PieceType::ProPawn => "promoted pawn",
            PieceType::ProLance => "promoted lance",
            PieceType::ProKnight => "promoted knight",
            PieceType::ProSilver => "promoted silver",
            PieceType::Horse => "horse",
            PieceType::Dragon => "dragon",
        }
    }
}

/// A piece of one colour: `colour << 4 | kind` (see the module docs).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Piece(NonZeroU8);

impl Piece {
    /// One past the largest piece code: the size of arrays indexed by piece.
    pub const NUM: usize = 31;

    #[inline(always)]
    pub const fn new(c: Color, pt: PieceType) -> Piece {
        match NonZeroU8::new(((c as u8) << 4) | pt as u8) {
            Some(n) => Piece(n),
            None => unreachable!(),
        }
    }

    #[inline(always)]
    pub const fn color(self) -> Color {
        if self.0.get() & 16 == 0 {
            Color::Black
        } else {
            Color::White
        }
    }

    /// The promoted piece of a piece whose kind can promote (pawn, lance, knight, silver, bishop,
    /// rook, unpromoted): one bit, as promoted kinds are numbered 8 above theirs.
    #[inline(always)]
    pub const fn promoted(self) -> Piece {
        debug_assert!(self.piece_type().can_promote());
        match NonZeroU8::new(self.0.get() | 8) {
            Some(n) => Piece(n),
            None => unreachable!(),
        }
    }

    #[inline(always)]
    pub const fn piece_type(self) -> PieceType {
        // The low four bits are a kind number (1..=14) by construction.
        PieceType::from_nibble(self.0.get())
    }

    /// The piece code (1..=30), for indexing tables.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0.get() as usize
    }

    /// The SFEN spelling: upper case for black, lower case for white, `+` for promoted.
    pub fn sfen(self) -> String {
        let s = self.piece_type().sfen();
        match self.color() {
            Color::Black => s.to_string(),
            Color::White => s.to_ascii_lowercase(),
        }
    }
}

impl fmt::Debug for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.sfen())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promotion_is_one_bit() {
        for pt in PieceType::ALL {
            if pt.can_promote() {
                assert_eq!(pt.promote() as u8, pt as u8 | 8);
                assert_eq!(pt.promote().unpromote(), pt);
                assert!(pt.promote().is_promoted());
            } else {
                assert_eq!(pt.promote(), pt);
            }
        }
        assert_eq!(PieceType::Dragon.unpromote(), PieceType::Rook);
        assert_eq!(PieceType::King.unpromote(), PieceType::King);
        for c in Color::ALL {
            for pt in PieceType::ALL.into_iter().filter(|pt| pt.can_promote()) {
                assert_eq!(Piece::new(c, pt).promoted(), Piece::new(c, pt.promote()));
            }
        }
    }

    #[test]
    fn pieces_pack_colour_and_kind() {
        for c in Color::ALL {
            for pt in PieceType::ALL {
                let p = Piece::new(c, pt);
                assert_eq!(p.color(), c);
                assert_eq!(p.piece_type(), pt);
                assert!(p.index() < Piece::NUM);
            }
        }
        assert_eq!(Piece::new(Color::White, PieceType::Pawn).index(), 17);
        assert_eq!(Piece::new(Color::White, PieceType::Horse).sfen(), "+b");
    }
}
