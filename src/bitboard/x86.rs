//! SSE2 bitboard backend (x86-64). Same API as `portable.rs`; the one switch in `mod.rs` picks it.
//! Emptiness tests use SSE4.1 `ptest` when the build enables it.

#![allow(clippy::undocumented_unsafe_blocks)]
// SIMD module banner: every intrinsic below is an SSE2 (or, under the matching `cfg`, SSE4.1)
// instruction, and SSE2 is part of the x86-64 baseline, so calling them is always sound. They are
// `unsafe` only because intrinsics in `core::arch` are declared that way.

use std::arch::x86_64::*;
use std::hash::{Hash, Hasher};
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign};

/// 81 squares in one 128-bit register: lane 0 holds squares 0..=62 (files 1..=7), lane 1 holds
/// squares 63..=80 in its bits 0..=17 (files 8 and 9). Unused bits are always zero.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct Bitboard(__m128i);

impl Bitboard {
    #[inline(always)]
    pub const fn from_halves(lo: u64, hi: u64) -> Bitboard {
        // Bits beyond the 81 squares are dropped: `lsb` and iteration rely on their being zero.
        let halves = [lo & super::LO_MASK, hi & super::HI_MASK];
        // SAFETY: `[u64; 2]` and `__m128i` are both 16 plain bytes; lane 0 is the first element.
        Bitboard(unsafe { std::mem::transmute::<[u64; 2], __m128i>(halves) })
    }

    #[inline(always)]
    pub fn lo(self) -> u64 {
        unsafe { _mm_cvtsi128_si64(self.0) as u64 }
    }

    #[inline(always)]
    pub fn hi(self) -> u64 {
        #[cfg(target_feature = "sse4.1")]
        unsafe {
            _mm_extract_epi64::<1>(self.0) as u64
        }
        #[cfg(not(target_feature = "sse4.1"))]
        unsafe {
            _mm_cvtsi128_si64(_mm_unpackhi_epi64(self.0, self.0)) as u64
        }
    }

    #[inline(always)]
    pub fn is_empty(self) -> bool {
        #[cfg(target_feature = "sse4.1")]
        unsafe {
            _mm_testz_si128(self.0, self.0) != 0
        }
        #[cfg(not(target_feature = "sse4.1"))]
        unsafe {
            _mm_movemask_epi8(_mm_cmpeq_epi8(self.0, _mm_setzero_si128())) == 0xffff
        }
    }

    /// `self & !rhs`.
    #[inline(always)]
    pub fn and_not(self, rhs: Bitboard) -> Bitboard {
        unsafe { Bitboard(_mm_andnot_si128(rhs.0, self.0)) }
    }

    #[inline(always)]
    pub fn count(self) -> u32 {
        self.lo().count_ones() + self.hi().count_ones()
    }

    /// Shifts each half left by `N` bits (towards higher ranks within a file); bits shifted past
    /// the board are dropped. Callers keep set bits within their files (e.g. white pawns are
    /// never on rank i).
    #[inline(always)]
    pub fn shl_halves<const N: i32>(self) -> Bitboard {
        // SAFETY: SSE2 is part of every x86-64 target this backend is compiled for.
        unsafe { Bitboard(_mm_slli_epi64::<N>(self.0)) & Bitboard::ALL }
    }

    /// Subtracts lane by lane (each 64-bit half on its own, wrapping, no borrow between halves);
    /// bits beyond the board are dropped.
    #[inline(always)]
    pub fn sub_halves(self, rhs: Bitboard) -> Bitboard {
        // SAFETY: SSE2 is part of every x86-64 target this backend is compiled for.
        unsafe { Bitboard(_mm_sub_epi64(self.0, rhs.0)) & Bitboard::ALL }
    }

    /// Shifts each half right by `N` bits; the mirror of [`Bitboard::shl_halves`].
    #[inline(always)]
    pub fn shr_halves<const N: i32>(self) -> Bitboard {
        unsafe { Bitboard(_mm_srli_epi64::<N>(self.0)) }
    }
}

impl Default for Bitboard {
    #[inline(always)]
    fn default() -> Bitboard {
        Bitboard::from_halves(0, 0)
    }
}

impl PartialEq for Bitboard {
    #[inline(always)]
    fn eq(&self, other: &Bitboard) -> bool {
        (*self ^ *other).is_empty()
    }
}

impl Eq for Bitboard {}

impl Hash for Bitboard {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.lo().hash(state);
        self.hi().hash(state);
    }
}

macro_rules! binop {
    ($tr:ident, $f:ident, $tra:ident, $fa:ident, $intr:ident) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline(always)]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                unsafe { Bitboard($intr(self.0, rhs.0)) }
            }
        }
        impl $tra for Bitboard {
            #[inline(always)]
            fn $fa(&mut self, rhs: Bitboard) {
                *self = $tr::$f(*self, rhs);
            }
        }
    };
}
binop!(BitAnd, bitand, BitAndAssign, bitand_assign, _mm_and_si128);
binop!(BitOr, bitor, BitOrAssign, bitor_assign, _mm_or_si128);
binop!(BitXor, bitxor, BitXorAssign, bitxor_assign, _mm_xor_si128);
