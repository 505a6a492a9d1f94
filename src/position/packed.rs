//! YaneuraOu's packed position (`PackedSfen`): a position in exactly 256 bits, the key field of
//! the `PackedSfenValue` training records most shogi engines read and write.
//!
//! The bits fill the 32 bytes from byte 0, each byte from its least significant bit; a value of
//! several bits is written least significant bit first. In order:
//!
//! 1. the side to move, 1 bit (0 black, 1 white);
//! 2. the black king's square, then the white king's, 7 bits each (square index as in
//!    [`Square`]: `file * 9 + rank`, 0 = 1a);
//! 3. every square in index order, the kings' squares skipped: an empty square is `0`; a piece
//!    is its kind's code, then (except gold) a promotion bit, then its colour bit;
//! 4. the hands, black's then white's, kinds in the order pawn, lance, knight, silver, gold,
//!    bishop, rook, one entry per piece: the kind's code without its first bit (always 1 on the
//!    board), a promotion bit of 0 (except gold), the colour bit;
//! 5. the pieces in neither (the "piece box", for positions with pieces removed), in the same
//!    kind order: the hand code with the promotion bit set to 1 and colour 0; gold, which has no
//!    promotion bit, is written as a white promoted silver in hand.
//!
//! Kind codes, bits in stream order: empty `0`, pawn `10`, lance `1100`, knight `1101`, silver
//! `1110`, gold `11110`, bishop `111110`, rook `111111`. With a standard set of 40 pieces the total
//! is exactly 256 bits wherever the pieces are (a piece off the board is one bit shorter, and its
//! square one bit longer). Positions with more pieces of a kind than a game has cannot be packed.

use super::{PieceLimits, Position, SfenError};
use crate::types::{Color, Hand, Piece, PieceType, Square};
use std::fmt;

/// A packed position: 32 bytes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct PackedSfen(pub [u8; 32]);

/// Why a position could not be packed or unpacked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PackError {
    /// The position has more pieces of a kind than a game has (only standard sets pack).
    TooManyPieces(PieceType),
    /// A king is missing: YaneuraOu marks it with square 81, but a full set of the other pieces
    /// then needs 257 bits, so such positions are neither written nor read.
    MissingKing,
    /// The bits do not describe a board: they run past 256 bits, end before it, name a king
    /// square beyond 81, or hold more pieces of a kind than a game has.
    Malformed(&'static str),
    /// The bits describe a board that breaks a rule of the game.
    Illegal(SfenError),
}

impl fmt::Display for PackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PackError::TooManyPieces(pt) => {
                write!(f, "more {}s than a game has: cannot pack", pt.name())
            }
            PackError::MissingKing => write!(f, "a king is missing: cannot pack"),
            PackError::Malformed(why) => write!(f, "malformed packed position: {why}"),
            PackError::Illegal(e) => write!(f, "packed position is not legal: {e}"),
        }
    }
}

impl std::error::Error for PackError {}

/// The order kinds take in the hands and the piece box.
const HAND_ORDER: [PieceType; 7] = [
    PieceType::Pawn,
    PieceType::Lance,
    PieceType::Knight,
    PieceType::Silver,
    PieceType::Gold,
    PieceType::Bishop,
    PieceType::Rook,
];

/// (code, length) of an unpromoted kind on the board, the code read least significant bit first.
fn board_code(pt: PieceType) -> (u32, u32) {
    match pt {
        PieceType::Pawn => (0x01, 2),
        PieceType::Lance => (0x03, 4),
        PieceType::Knight => (0x0b, 4),
        PieceType::Silver => (0x07, 4),
        PieceType::Gold => (0x0f, 5),
        PieceType::Bishop => (0x1f, 6),
        PieceType::Rook => (0x3f, 6),
        _ => unreachable!("kings are stored as squares, promoted kinds as their base kind"),
    }
}

/// Writes bits into the 32 bytes.
struct BitWriter {
    data: [u8; 32],
    cursor: usize,
}

impl BitWriter {
    fn bit(&mut self, b: bool) -> Result<(), PackError> {
        if self.cursor >= 256 {
            return Err(PackError::Malformed("more than 256 bits"));
        }
        if b {
            self.data[self.cursor / 8] |= 1 << (self.cursor % 8);
        }
        self.cursor += 1;
        Ok(())
    }

    fn bits(&mut self, value: u32, n: u32) -> Result<(), PackError> {
        (0..n).try_for_each(|i| self.bit(value >> i & 1 != 0))
    }
}

/// Reads bits from the 32 bytes; reading past the end is an error, not a panic.
struct BitReader<'a> {
    data: &'a [u8; 32],
    cursor: usize,
}

impl BitReader<'_> {
    fn bit(&mut self) -> Result<bool, PackError> {
        if self.cursor >= 256 {
            return Err(PackError::Malformed("the pieces run past 256 bits"));
        }
        let b = self.data[self.cursor / 8] >> (self.cursor % 8) & 1 != 0;
        self.cursor += 1;
        Ok(b)
    }

    fn bits(&mut self, n: u32) -> Result<u32, PackError> {
        let mut v = 0;
        for i in 0..n {
            v |= (self.bit()? as u32) << i;
        }
        Ok(v)
    }

    /// A kind code after its leading 1: the number of further 1s before a 0 (at most five) picks
    /// the kind; pawn has no further bit, lance/knight/silver one more bit after `10`.
    fn kind_after_leading_one(&mut self) -> Result<PieceType, PackError> {
        Ok(if !self.bit()? {
            PieceType::Pawn
        } else if !self.bit()? {
            if self.bit()? {
                PieceType::Knight
            } else {
                PieceType::Lance
            }
        } else if !self.bit()? {
            PieceType::Silver
        } else if !self.bit()? {
            PieceType::Gold
        } else if !self.bit()? {
            PieceType::Bishop
        } else {
            PieceType::Rook
        })
    }

    fn color(&mut self) -> Result<Color, PackError> {
        Ok(if self.bit()? { Color::White } else { Color::Black })
    }
}

impl PackedSfen {
    /// The side to move (bit 0).
    pub fn side_to_move(&self) -> Color {
        if self.0[0] & 1 != 0 {
            Color::White
        } else {
            Color::Black
        }
    }
}

impl Position {
    /// Packs the position (the move number is not part of it).
    pub fn to_packed(&self) -> Result<PackedSfen, PackError> {
        // Pieces of each kind neither on the board nor in a hand: they go to the piece box.
        let mut left = [0i32; PieceType::NUM];
        for pt in HAND_ORDER {
            left[pt.index()] = Hand::max_count(pt) as i32
                - self.hand(Color::Black).count(pt) as i32
                - self.hand(Color::White).count(pt) as i32;
        }
        for sq in Square::ALL {
            if let Some(pc) = self.piece_on(sq).filter(|pc| pc.piece_type() != PieceType::King) {
                left[pc.piece_type().unpromote().index()] -= 1;
            }
        }
        if let Some(&pt) = HAND_ORDER.iter().find(|pt| left[pt.index()] < 0) {
            return Err(PackError::TooManyPieces(pt));
        }
        let mut w = BitWriter { data: [0; 32], cursor: 0 };
        w.bit(self.side_to_move() == Color::White)?;
        for c in Color::ALL {
            let k = self.king_square(c).ok_or(PackError::MissingKing)?;
            w.bits(k.index() as u32, 7)?;
        }
        for sq in Square::ALL {
            match self.piece_on(sq) {
                None => w.bit(false)?,
                Some(pc) if pc.piece_type() == PieceType::King => {}
                Some(pc) => {
                    let base = pc.piece_type().unpromote();
                    let (code, len) = board_code(base);
                    w.bits(code, len)?;
                    if base != PieceType::Gold {
                        w.bit(pc.piece_type().is_promoted())?;
                    }
                    w.bit(pc.color() == Color::White)?;
                }
            }
        }
        for c in Color::ALL {
            for pt in HAND_ORDER {
                let (code, len) = board_code(pt);
                for _ in 0..self.hand(c).count(pt) {
                    w.bits(code >> 1, len - 1)?;
                    if pt != PieceType::Gold {
                        w.bit(false)?;
                    }
                    w.bit(c == Color::White)?;
                }
            }
        }
        for pt in HAND_ORDER {
            for _ in 0..left[pt.index()] {
                if pt == PieceType::Gold {
                    // A white promoted silver in hand: silver's hand code, promotion 1, colour 1.
                    let (code, len) = board_code(PieceType::Silver);
                    w.bits(code >> 1, len - 1)?;
                    w.bits(0b11, 2)?;
                } else {
                    let (code, len) = board_code(pt);
                    w.bits(code >> 1, len - 1)?;
                    w.bits(0b01, 2)?;
                }
            }
        }
        debug_assert_eq!(w.cursor, 256, "a standard set packs into exactly 256 bits");
        Ok(PackedSfen(w.data))
    }

    /// Unpacks a position, with `game_ply` as its move number (0 is taken as 1). Input that is
    /// not a legal position packed by the rules above is rejected with the reason.
    pub fn from_packed(packed: &PackedSfen, game_ply: u32) -> Result<Position, PackError> {
        let mut r = BitReader { data: &packed.0, cursor: 0 };
        let side = r.color()?;
        let mut board: [Option<Piece>; 81] = [None; 81];
        for c in Color::ALL {
            let sq = r.bits(7)? as usize;
            match sq {
                0..=80 if board[sq].is_some() => {
                    return Err(PackError::Malformed("both kings on one square"))
                }
                0..=80 => board[sq] = Some(Piece::new(c, PieceType::King)),
                81 => return Err(PackError::MissingKing),
                _ => return Err(PackError::Malformed("a king square beyond 81")),
            }
        }
        // Pieces of each kind seen so far (board, hands and box), to reject impossible counts.
        let mut seen = [0u32; PieceType::NUM];
        let mut count = |pt: PieceType| {
            seen[pt.index()] += 1;
            if seen[pt.index()] > Hand::max_count(pt) {
                Err(PackError::Malformed("more pieces of a kind than a game has"))
            } else {
                Ok(())
            }
        };
        for slot in board.iter_mut() {
            if slot.is_some() || !r.bit()? {
                continue;
            }
            let base = r.kind_after_leading_one()?;
            let promoted = base != PieceType::Gold && r.bit()?;
            let c = r.color()?;
            count(base)?;
            *slot = Some(Piece::new(c, if promoted { base.promote() } else { base }));
        }
        let mut hands = [Hand::EMPTY; 2];
        while r.cursor < 256 {
            // A hand code is the board code without its leading 1.
            let pt = r.kind_after_leading_one()?;
            let in_box = pt != PieceType::Gold && r.bit()?;
            let c = r.color()?;
            if in_box {
                // A white promoted silver is a gold in the box.
                count(if pt == PieceType::Silver && c == Color::White { PieceType::Gold } else { pt })?;
            } else {
                count(pt)?;
                let h = &mut hands[c.index()];
                h.set_count(pt, h.count(pt) + 1);
            }
        }
        if HAND_ORDER.iter().any(|pt| seen[pt.index()] != Hand::max_count(*pt)) {
            return Err(PackError::Malformed("not every piece of a game is accounted for"));
        }
        let pieces: Vec<(Square, Piece)> =
            Square::ALL.iter().filter_map(|&sq| board[sq.index()].map(|pc| (sq, pc))).collect();
        Position::from_parts(&pieces, side, hands, game_ply.max(1), PieceLimits::Standard)
            .map_err(PackError::Illegal)
    }
}
