//! Moves.
//!
//! The compact 16-bit form, stored in the transposition table and move lists:
//! ```text
//!   15     14       13 .. 7                 6 .. 0
//!  drop  promote   from square (0..=80)    to square (0..=80)
//!                  or, for a drop, the dropped kind (1..=7)
//! ```
//! A board move always has `from != to` and a drop has bit 15 set, so no move encodes as zero:
//! `Option<Move>` costs nothing extra (the search's null move is `None`). Invariant relied on by the
//! accessors: bits 0..=6 and 7..=13 each hold a value below 81. Use [`Move::kind`] for a checked view
//! (`MoveKind::Normal` or `MoveKind::Drop`).

use super::{PieceType, Square};
use std::fmt;
use std::num::NonZeroU16;

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move(NonZeroU16);

/// A move seen as what it does.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MoveKind {
    Normal { from: Square, to: Square, promote: bool },
    Drop { piece: PieceType, to: Square },
}

const DROP: u16 = 1 << 15;
const PROMOTE: u16 = 1 << 14;

impl Move {
    #[inline(always)]
    pub const fn normal(from: Square, to: Square, promote: bool) -> Move {
        debug_assert!(from as u8 != to as u8, "a board move goes somewhere");
        let bits = (to as u16) | ((from as u16) << 7) | if promote { PROMOTE } else { 0 };
        match NonZeroU16::new(bits) {
            Some(n) => Move(n),
            // from == to == 1a without promotion: not a move; callers never build it.
            None => panic!("Move::normal with from == to == 1a"),
        }
    }

    #[inline(always)]
    pub const fn drop(piece: PieceType, to: Square) -> Move {
        let bits = DROP | (to as u16) | ((piece as u16) << 7);
        match NonZeroU16::new(bits) {
            Some(n) => Move(n),
            None => unreachable!(),
        }
    }

    /// Rebuilds a move from its 16 bits, checking that they describe a well-formed move
    /// (squares in range, a hand kind for drops, not a drop with promotion). Whether the move is
    /// legal in some position is a separate question.
    pub fn from_bits(bits: u16) -> Option<Move> {
        let to = bits & 0x7f;
        let from = (bits >> 7) & 0x7f;
        if to >= 81 {
            return None;
        }
        if bits & DROP != 0 {
            if bits & PROMOTE != 0 || !(1..=7).contains(&from) {
                return None;
            }
        } else if from >= 81 || from == to {
            return None;
        }
        NonZeroU16::new(bits).map(Move)
    }

    /// Rebuilds a move from bits that [`Move::bits`] returned, without the checks of
    /// [`Move::from_bits`] (for move lists that carry moves packed with other data).
    ///
    /// # Safety
    /// `bits` must be the bits of a `Move`: the accessors rely on its invariants (see the module
    /// docs) without checking them.
    #[inline(always)]
    pub const unsafe fn from_bits_unchecked(bits: u16) -> Move {
        debug_assert!(bits != 0);
        // SAFETY: the bits of a move are never zero (see the module docs), as the caller promises.
        Move(unsafe { NonZeroU16::new_unchecked(bits) })
    }

    #[inline(always)]
    pub const fn bits(self) -> u16 {
        self.0.get()
    }

    #[inline(always)]
    pub fn to(self) -> Square {
        // SAFETY: every constructor stores a square index (< 81) in bits 0..=6 (`from_bits` checks it).
        unsafe { Square::from_index_unchecked((self.0.get() & 0x7f) as usize) }
    }

    #[inline(always)]
    pub const fn is_drop(self) -> bool {
        self.0.get() & DROP != 0
    }

    #[inline(always)]
    pub const fn is_promotion(self) -> bool {
        self.0.get() & PROMOTE != 0
    }

    /// The origin square of a board move. Meaningless for a drop (see [`Move::kind`]).
    #[inline(always)]
    pub fn from(self) -> Square {
        // SAFETY: bits 7..=13 always hold a value below 81: a square index for board moves, a hand
        // kind (1..=7) for drops, 0 for the null move; every constructor (and `from_bits`) ensures it.
        unsafe { Square::from_index_unchecked(((self.0.get() >> 7) & 0x7f) as usize) }
    }

    /// The dropped kind of a drop. Meaningless for a board move.
    #[inline(always)]
    pub const fn dropped_piece(self) -> PieceType {
        // Bits 7..=9 hold a hand kind (1..=7) for a drop; 0 (never a drop) reads as a pawn.
        PieceType::from_nibble(((self.0.get() >> 7) & 0x7) as u8)
    }

    #[inline(always)]
    pub fn kind(self) -> MoveKind {
        if self.is_drop() {
            MoveKind::Drop { piece: self.dropped_piece(), to: self.to() }
        } else {
            MoveKind::Normal { from: self.from(), to: self.to(), promote: self.is_promotion() }
        }
    }

    /// Parses the USI spelling (`7g7f`, `8h2b+`, `P*5e`). Only the syntax is checked here.
    pub fn from_usi(s: &str) -> Option<Move> {
        let b = s.as_bytes();
        if b.len() == 4 && b[1] == b'*' {
            let pt = PieceType::from_sfen_letter(b[0] as char)?;
            if !b[0].is_ascii_uppercase() || pt == PieceType::King {
                return None;
            }
            let to = Square::from_usi(&s[2..4])?;
            return Some(Move::drop(pt, to));
        }
        let promote = match b.len() {
            4 => false,
            5 if b[4] == b'+' => true,
            _ => return None,
        };
        let from = Square::from_usi(s.get(0..2)?)?;
        let to = Square::from_usi(s.get(2..4)?)?;
        if from == to {
            return None;
        }
        Some(Move::normal(from, to, promote))
    }

    /// The USI spelling.
    pub fn to_usi(self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind() {
            MoveKind::Drop { piece, to } => write!(f, "{}*{}", piece.sfen(), to),
            MoveKind::Normal { from, to, promote } => {
                write!(f, "{from}{to}{}", if promote { "+" } else { "" })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usi_round_trip() {
        for s in ["7g7f", "8h2b+", "P*5e", "R*1a", "1a1b", "9i1a+", "G*9i"] {
            let m = Move::from_usi(s).unwrap();
            assert_eq!(m.to_usi(), s);
            assert_eq!(Move::from_bits(m.bits()), Some(m));
            // SAFETY: the bits of a move.
            assert_eq!(unsafe { Move::from_bits_unchecked(m.bits()) }, m);
        }
        for bad in ["", "7g7g", "K*5e", "p*5e", "P*5j", "7g7f=", "7g7f++", "P*5e+", "0a1a", "7g"] {
            assert_eq!(Move::from_usi(bad), None, "{bad}");
        }
    }

    #[test]
    fn fields() {
        let m = Move::normal(Square::Sq77, Square::Sq76, false);
        assert_eq!(m.kind(), MoveKind::Normal { from: Square::Sq77, to: Square::Sq76, promote: false });
        let d = Move::drop(PieceType::Gold, Square::Sq55);
        assert!(d.is_drop() && !d.is_promotion());
        assert_eq!(d.dropped_piece(), PieceType::Gold);
        assert_eq!(Move::from_bits(PROMOTE), None);
        assert_eq!(Move::from_bits(0x7f), None);
    }
}
