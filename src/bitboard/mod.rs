//! 81-square bitboards.
//!
//! Layout: square index `i` (see `types::square`) is bit `i` of the low 64-bit half for `i < 63`
//! (files 1..=7) and bit `i - 63` of the high half otherwise (files 8 and 9). A file is nine
//! consecutive bits of one half, so file-wise work (pawns, lances, rook files) stays inside one
//! `u64`; the unused bit 63 of the low half and bits 18.. of the high half are always zero.
//!
//! The one switch: the SSE2 backend (`x86.rs`) on x86-64, the portable twin (`portable.rs`, two
//! `u64`s) elsewhere or with `--features portable`. Both define the same primitive operations;
//! everything else is written once here on top of them.

use crate::types::{Color, Square};
use std::fmt;

pub mod portable;
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
mod x86;

#[cfg(any(not(target_arch = "x86_64"), feature = "portable"))]
pub use portable::Bitboard;
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
pub use x86::Bitboard;

/// Name of the backend this build uses (shown by `hayate --version` style diagnostics and tests).
pub const BACKEND: &str =
    if cfg!(all(target_arch = "x86_64", not(feature = "portable"))) { "sse2" } else { "portable" };

const LO_MASK: u64 = (1 << 63) - 1;
const HI_MASK: u64 = (1 << 18) - 1;

const fn square_bb(i: usize) -> Bitboard {
    if i < 63 {
        Bitboard::from_halves(1 << i, 0)
    } else {
        Bitboard::from_halves(0, 1 << (i - 63))
    }
}

const fn build_square_table() -> [Bitboard; 81] {
    let mut t = [Bitboard::from_halves(0, 0); 81];
    let mut i = 0;
    while i < 81 {
        t[i] = square_bb(i);
        i += 1;
    }
    t
}

static SQUARE_BB: [Bitboard; 81] = build_square_table();

const fn build_rank_table() -> [Bitboard; 9] {
    let mut t = [(0u64, 0u64); 9];
    let mut i = 0;
    while i < 81 {
        let r = i % 9;
        if i < 63 {
            t[r].0 |= 1 << i;
        } else {
            t[r].1 |= 1 << (i - 63);
        }
        i += 1;
    }
    let mut out = [Bitboard::from_halves(0, 0); 9];
    let mut r = 0;
    while r < 9 {
        out[r] = Bitboard::from_halves(t[r].0, t[r].1);
        r += 1;
    }
    out
}

const fn build_file_table() -> [Bitboard; 9] {
    let mut out = [Bitboard::from_halves(0, 0); 9];
    let mut f = 0;
    while f < 9 {
        out[f] = if f < 7 {
            Bitboard::from_halves(0x1ff << (f * 9), 0)
        } else {
            Bitboard::from_halves(0, 0x1ff << ((f - 7) * 9))
        };
        f += 1;
    }
    out
}

/// Ranks a..i.
pub static RANK_BB: [Bitboard; 9] = build_rank_table();
/// Files 1..9.
pub static FILE_BB: [Bitboard; 9] = build_file_table();

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard::from_halves(0, 0);
    pub const ALL: Bitboard = Bitboard::from_halves(LO_MASK, HI_MASK);

    #[inline(always)]
    pub fn from_square(sq: Square) -> Bitboard {
        SQUARE_BB[sq.index()]
    }

    /// The bitboard with exactly the given squares set.
    pub fn from_squares(squares: impl IntoIterator<Item = Square>) -> Bitboard {
        squares.into_iter().fold(Bitboard::EMPTY, |b, sq| b | Bitboard::from_square(sq))
    }

    #[inline(always)]
    pub fn is_nonempty(self) -> bool {
        !self.is_empty()
    }

    #[inline(always)]
    pub fn contains(self, sq: Square) -> bool {
        let i = sq.index();
        if i < 63 {
            self.lo() >> i & 1 != 0
        } else {
            self.hi() >> (i - 63) & 1 != 0
        }
    }

    #[inline(always)]
    pub fn set(&mut self, sq: Square) {
        *self |= Bitboard::from_square(sq);
    }

    #[inline(always)]
    pub fn clear(&mut self, sq: Square) {
        *self = self.and_not(Bitboard::from_square(sq));
    }

    #[inline(always)]
    pub fn toggle(&mut self, sq: Square) {
        *self ^= Bitboard::from_square(sq);
    }

    /// The complement within the 81 squares.
    #[inline(always)]
    pub fn complement(self) -> Bitboard {
        self ^ Bitboard::ALL
    }

    /// Whether two or more squares are set.
    #[inline(always)]
    pub fn more_than_one(self) -> bool {
        let (lo, hi) = (self.lo(), self.hi());
        (lo & lo.wrapping_sub(1)) != 0 || (hi & hi.wrapping_sub(1)) != 0 || (lo != 0 && hi != 0)
    }

    /// The lowest set square, if any.
    #[inline(always)]
    pub fn lsb(self) -> Option<Square> {
        let lo = self.lo();
        let i = if lo != 0 {
            lo.trailing_zeros() as usize
        } else {
            let hi = self.hi();
            if hi == 0 {
                return None;
            }
            63 + hi.trailing_zeros() as usize
        };
        // SAFETY: a set bit of the low half is below 63 and of the high half below 18, so i < 81.
        Some(unsafe { Square::from_index_unchecked(i) })
    }

    /// Removes and returns the lowest set square. The bitboard must not be empty.
    #[inline(always)]
    pub fn pop(&mut self) -> Square {
        let sq = self.lsb();
        debug_assert!(sq.is_some());
        match sq {
            Some(sq) => {
                self.toggle(sq);
                sq
            }
            None => Square::Sq11,
        }
    }

    /// The squares of one colour's promotion zone (its three far ranks).
    #[inline(always)]
    pub fn promotion_zone(c: Color) -> Bitboard {
        match c {
            Color::Black => RANK_BB[0] | RANK_BB[1] | RANK_BB[2],
            Color::White => RANK_BB[6] | RANK_BB[7] | RANK_BB[8],
        }
    }

    /// All squares of the ranks whose relative rank (for `c`) is below `n` (the far `n` ranks).
    #[inline(always)]
    pub fn far_ranks(c: Color, n: usize) -> Bitboard {
        let mut b = Bitboard::EMPTY;
        for r in 0..n {
            b |= RANK_BB[if c == Color::Black { r } else { 8 - r }];
        }
        b
    }

    /// Iterates the set squares from low to high index.
    #[inline(always)]
    pub fn iter(self) -> BitboardIter {
        BitboardIter { lo: self.lo(), hi: self.hi() }
    }
}

impl std::ops::Not for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn not(self) -> Bitboard {
        self.complement()
    }
}

/// Squares of a bitboard, lowest first: each step takes the lowest set bit with `tzcnt` and
/// clears it with `x & (x - 1)`.
pub struct BitboardIter {
    lo: u64,
    hi: u64,
}

impl Iterator for BitboardIter {
    type Item = Square;

    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        let i = if self.lo != 0 {
            let i = self.lo.trailing_zeros() as usize;
            self.lo &= self.lo - 1;
            i
        } else if self.hi != 0 {
            let i = 63 + self.hi.trailing_zeros() as usize;
            self.hi &= self.hi - 1;
            i
        } else {
            return None;
        };
        // SAFETY: set bits are below 63 in the low half and below 18 in the high half.
        Some(unsafe { Square::from_index_unchecked(i) })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.lo.count_ones() + self.hi.count_ones()) as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for BitboardIter {}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = BitboardIter;
    #[inline(always)]
    fn into_iter(self) -> BitboardIter {
        self.iter()
    }
}

impl fmt::Debug for Bitboard {
    /// A 9x9 diagram as black sees the board: file 9 on the left, rank a on top.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f)?;
        for rank in 0..9 {
            for file in (0..9).rev() {
                let sq = Square::new(file, rank).expect("on board");
                f.write_str(if self.contains(sq) { " x" } else { " ." })?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::splitmix::next;

    /// No constructor or lane operation leaves bits beyond the 81 squares set (`lsb` and
    /// iteration assume they are zero; a stray bit made `lsb` name square 83 and crash).
    #[test]
    fn bits_beyond_the_board_never_stay_set() {
        assert_eq!(Bitboard::from_halves(0, 1 << 20).lsb(), None);
        assert_eq!(Bitboard::from_halves(1 << 63, 0).lsb(), None);
        assert_eq!(Bitboard::from_halves(u64::MAX, u64::MAX), Bitboard::ALL);
        let top = Bitboard::from_halves(1 << 62, 1 << 17);
        assert!(top.shl_halves::<1>().is_empty());
        assert_eq!(top.shl_halves::<1>().iter().count(), 0);
        let zero = Bitboard::from_halves(0, 0);
        assert_eq!(zero.sub_halves(Bitboard::from_halves(1, 1)), Bitboard::ALL);
        assert_eq!(Bitboard::ALL.count(), 81);
    }

    fn random_bb(state: &mut u64) -> (u64, u64) {
        (next(state) & next(state) & LO_MASK, next(state) & next(state) & HI_MASK)
    }

    #[test]
    fn squares_files_and_ranks() {
        let mut all = Bitboard::EMPTY;
        for sq in Square::ALL {
            let b = Bitboard::from_square(sq);
            assert_eq!(b.count(), 1);
            assert!(b.contains(sq));
            assert_eq!(b.lsb(), Some(sq));
            assert!(FILE_BB[sq.file() as usize].contains(sq));
            assert!(RANK_BB[sq.rank() as usize].contains(sq));
            all |= b;
        }
        assert_eq!(all, Bitboard::ALL);
        assert_eq!(Bitboard::ALL.count(), 81);
        assert_eq!(!Bitboard::ALL, Bitboard::EMPTY);
        for i in 0..9 {
            assert_eq!(FILE_BB[i].count(), 9);
            assert_eq!(RANK_BB[i].count(), 9);
        }
        assert_eq!(Bitboard::promotion_zone(Color::Black), Bitboard::far_ranks(Color::Black, 3));
        assert_eq!(Bitboard::promotion_zone(Color::White).count(), 27);
    }

    #[test]
    fn iteration_pops_in_index_order() {
        let mut s = 7;
        for _ in 0..1000 {
            let (lo, hi) = random_bb(&mut s);
            let b = Bitboard::from_halves(lo, hi);
            let squares: Vec<Square> = b.iter().collect();
            assert_eq!(squares.len() as u32, b.count());
            assert!(squares.windows(2).all(|w| w[0] < w[1]));
            assert_eq!(Bitboard::from_squares(squares.iter().copied()), b);
            assert_eq!(b.more_than_one(), b.count() > 1);
            let mut c = b;
            for &sq in &squares {
                assert_eq!(c.pop(), sq);
            }
            assert!(c.is_empty());
        }
    }

    /// The selected backend and the portable twin agree on every primitive.
    #[test]
    fn backends_agree() {
        use portable::Bitboard as P;
        let mut s = 11;
        for _ in 0..10_000 {
            let (a0, a1) = random_bb(&mut s);
            let (b0, b1) = random_bb(&mut s);
            let (a, b) = (Bitboard::from_halves(a0, a1), Bitboard::from_halves(b0, b1));
            let (pa, pb) = (P::from_halves(a0, a1), P::from_halves(b0, b1));
            let same = |x: Bitboard, y: P| x.lo() == y.lo() && x.hi() == y.hi();
            assert!(same(a & b, pa & pb));
            assert!(same(a | b, pa | pb));
            assert!(same(a ^ b, pa ^ pb));
            assert!(same(a.and_not(b), pa.and_not(pb)));
            assert!(same(a.shl_halves::<1>(), pa.shl_halves::<1>()));
            assert!(same(a.shr_halves::<1>(), pa.shr_halves::<1>()));
            assert!(same(a.shr_halves::<9>(), pa.shr_halves::<9>()));
            assert!(same(a.sub_halves(b), pa.sub_halves(pb)));
            assert_eq!(a.is_empty(), pa.is_empty());
            assert_eq!(a.count(), pa.count());
            assert_eq!(a == b, (a0, a1) == (b0, b1));
        }
        assert!(Bitboard::EMPTY.is_empty() && P::from_halves(0, 0).is_empty());
    }
}
