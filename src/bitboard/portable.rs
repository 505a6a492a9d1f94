//! Portable bitboard backend: two plain `u64` halves. Same API as the SIMD backend (`x86.rs`);
//! selected with `--features portable` or on targets without SSE2, and always compiled so that a
//! test can compare the two backends operation by operation.

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign};

/// 81 squares in two halves: `lo` holds squares 0..=62 (files 1..=7), `hi` squares 63..=80 in its
/// bits 0..=17 (files 8 and 9). Unused bits are always zero.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(C, align(16))]
pub struct Bitboard {
    q: [u64; 2],
}

impl Bitboard {
    #[inline(always)]
    pub const fn from_halves(lo: u64, hi: u64) -> Bitboard {
        // Bits beyond the 81 squares are dropped: `lsb` and iteration rely on their being zero.
        Bitboard { q: [lo & super::LO_MASK, hi & super::HI_MASK] }
    }

    #[inline(always)]
    pub const fn lo(self) -> u64 {
        self.q[0]
    }

    #[inline(always)]
    pub const fn hi(self) -> u64 {
        self.q[1]
    }

    #[inline(always)]
    pub fn is_empty(self) -> bool {
        (self.q[0] | self.q[1]) == 0
    }

    /// `self & !rhs`.
    #[inline(always)]
    pub fn and_not(self, rhs: Bitboard) -> Bitboard {
        Bitboard::from_halves(self.q[0] & !rhs.q[0], self.q[1] & !rhs.q[1])
    }

    #[inline(always)]
    pub fn count(self) -> u32 {
        self.q[0].count_ones() + self.q[1].count_ones()
    }

    /// Shifts each half left by `n` bits (towards higher ranks within a file); bits shifted past
    /// the board are dropped. Callers keep set bits within their files (e.g. white pawns are
    /// never on rank i).
    #[inline(always)]
    pub fn shl_halves<const N: i32>(self) -> Bitboard {
        Bitboard::from_halves(self.q[0] << N, self.q[1] << N)
    }

    /// Subtracts lane by lane (each 64-bit half on its own, wrapping, no borrow between halves);
    /// bits beyond the board are dropped.
    #[inline(always)]
    pub fn sub_halves(self, rhs: Bitboard) -> Bitboard {
        Bitboard::from_halves(self.q[0].wrapping_sub(rhs.q[0]), self.q[1].wrapping_sub(rhs.q[1]))
    }

    /// Shifts each half right by `n` bits; the mirror of [`Bitboard::shl_halves`].
    #[inline(always)]
    pub fn shr_halves<const N: i32>(self) -> Bitboard {
        Bitboard::from_halves(self.q[0] >> N, self.q[1] >> N)
    }
}

macro_rules! binop {
    ($tr:ident, $f:ident, $tra:ident, $fa:ident, $op:tt) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline(always)]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard::from_halves(self.q[0] $op rhs.q[0], self.q[1] $op rhs.q[1])
            }
        }
        impl $tra for Bitboard {
            #[inline(always)]
            fn $fa(&mut self, rhs: Bitboard) {
                *self = *self $op rhs;
            }
        }
    };
}
binop!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
binop!(BitOr, bitor, BitOrAssign, bitor_assign, |);
binop!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);
