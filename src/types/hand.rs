//! The pieces a player holds in hand, packed in one `u32`.
//!
//! ```text
//!  bit  31 30 29 28 | 27 26 25 24 | 23 | 22 21 20 | 19 | 18 17 16 | 15 | 14 13 12 | 11 | 10  9  8 | 7 6 5 | 4 3 2 1 0
//!        g  g  rook |  g  g bishop|  g |   gold   |  g |  silver  |  g |  knight  |  g |  lance   | g g g |   pawn
//! ```
//! Each field holds a count (pawn 0..=18, lance/knight/silver/gold 0..=4, bishop/rook 0..=2); the `g`
//! bits above a field are guard bits that always stay zero. Because every field has a guard bit,
//! `a - b` borrows into a guard bit exactly when some field of `a` is smaller than in `b`, so
//! "`a` holds at least as much of every kind as `b`" is one subtraction and one mask
//! ([`Hand::dominates`]); the repetition rules (superior/inferior positions) and the mate solver's
//! hand comparisons use it.

use super::PieceType;
use std::fmt;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Hand(u32);

/// Bit offset of each hand kind's field, indexed by `PieceType` number (0 unused).
const SHIFT: [u32; 8] = [0, 0, 8, 12, 16, 24, 28, 20];
/// Field mask (before shifting) of each hand kind, indexed by `PieceType` number.
const FIELD: [u32; 8] = [0, 0x1f, 0x7, 0x7, 0x7, 0x3, 0x3, 0x7];
/// Largest count each kind can reach in one hand (all pieces of that kind in the game).
const MAX: [u32; 8] = [0, 18, 4, 4, 4, 2, 2, 4];
/// The guard bit directly above each field.
const BORROW: u32 = (1 << 5) | (1 << 11) | (1 << 15) | (1 << 19) | (1 << 23) | (1 << 26) | (1 << 30);
/// All count bits of every field except pawn.
const EXCEPT_PAWN: u32 = 0x7 << 8 | 0x7 << 12 | 0x7 << 16 | 0x7 << 20 | 0x3 << 24 | 0x3 << 28;

impl Hand {
    pub const EMPTY: Hand = Hand(0);

    /// Total number of pieces of `pt` that exist in a game, hence the most a hand can hold.
    pub const fn max_count(pt: PieceType) -> u32 {
        MAX[pt as usize]
    }

    /// The most the field of `pt` can store (31 pawns, 7 lances/knights/silvers/golds, 3
    /// bishops/rooks): the limit for composed positions with more pieces than a game has.
    pub const fn capacity(pt: PieceType) -> u32 {
        FIELD[pt as usize]
    }

    /// How many pieces of `pt` (a hand kind: pawn .. gold) the hand holds.
    #[inline(always)]
    pub const fn count(self, pt: PieceType) -> u32 {
        (self.0 >> SHIFT[pt as usize]) & FIELD[pt as usize]
    }

    #[inline(always)]
    pub const fn has(self, pt: PieceType) -> bool {
        self.0 & (FIELD[pt as usize] << SHIFT[pt as usize]) != 0
    }

    /// Adds one piece of `pt`. The caller keeps counts within [`Hand::capacity`].
    #[inline(always)]
    pub fn add(&mut self, pt: PieceType) {
        debug_assert!(self.count(pt) < FIELD[pt as usize]);
        self.0 += 1 << SHIFT[pt as usize];
    }

    /// Removes one piece of `pt`; the hand must hold one.
    #[inline(always)]
    pub fn remove(&mut self, pt: PieceType) {
        debug_assert!(self.has(pt));
        self.0 -= 1 << SHIFT[pt as usize];
    }

    /// Sets the count of `pt`, which must not exceed [`Hand::capacity`].
    pub fn set_count(&mut self, pt: PieceType, n: u32) {
        assert!(n <= FIELD[pt as usize]);
        let s = SHIFT[pt as usize];
        self.0 = (self.0 & !(FIELD[pt as usize] << s)) | (n << s);
    }

    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the hand holds anything other than pawns.
    #[inline(always)]
    pub const fn has_except_pawn(self) -> bool {
        self.0 & EXCEPT_PAWN != 0
    }

    /// Whether this hand holds at least as many pieces of every kind as `other`.
    #[inline(always)]
    pub const fn dominates(self, other: Hand) -> bool {
        self.0.wrapping_sub(other.0) & BORROW == 0
    }

    /// The raw packed value (for hashing and compact storage).
    #[inline(always)]
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// Total number of pieces held.
    pub fn total(self) -> u32 {
        PieceType::HAND.iter().map(|&pt| self.count(pt)).sum()
    }
}

impl fmt::Debug for Hand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for pt in PieceType::HAND {
            let n = self.count(pt);
            if n > 0 {
                if !first {
                    f.write_str(" ")?;
                }
                write!(f, "{}{}", pt.sfen(), n)?;
                first = false;
            }
        }
        if first {
            f.write_str("-")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_independent_fields() {
        let mut h = Hand::EMPTY;
        for pt in PieceType::HAND {
            for _ in 0..Hand::max_count(pt) {
                h.add(pt);
            }
        }
        for pt in PieceType::HAND {
            assert_eq!(h.count(pt), Hand::max_count(pt), "{pt:?}");
        }
        assert_eq!(h.total(), 38);
        assert_eq!(h.bits() & BORROW, 0);
        for pt in PieceType::HAND {
            h.remove(pt);
            assert_eq!(h.count(pt), Hand::max_count(pt) - 1);
        }
    }

    #[test]
    fn dominance_is_fieldwise() {
        let mut a = Hand::EMPTY;
        let mut b = Hand::EMPTY;
        assert!(a.dominates(b));
        a.add(PieceType::Pawn);
        assert!(a.dominates(b) && !b.dominates(a));
        b.add(PieceType::Rook);
        assert!(!a.dominates(b) && !b.dominates(a));
        a.add(PieceType::Rook);
        assert!(a.dominates(b) && !b.dominates(a));
        // A smaller low field must not be hidden by a larger high one.
        let mut c = Hand::EMPTY;
        c.set_count(PieceType::Gold, 4);
        let mut d = Hand::EMPTY;
        d.set_count(PieceType::Pawn, 1);
        assert!(!c.dominates(d));
        assert!(!d.has_except_pawn() && c.has_except_pawn());
    }
}
