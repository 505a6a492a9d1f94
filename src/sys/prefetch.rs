//! Cache prefetch: the one place that asks the CPU to start loading memory before it is read (the
//! search's transposition table, the mate table, the net's feature transformer rows), so that
//! the miss overlaps other work instead of stalling it.
//!
//! A hint only: results never depend on it. On x86-64 it is SSE's `prefetcht0` (part of the
//! baseline); on other targets, and in `portable` builds (the scalar twin of every SIMD path), it
//! does nothing.

/// The size of a cache line on the targets that prefetch.
pub const CACHE_LINE: usize = 64;

/// Asks the CPU to bring the cache lines of `*x` into every level of the cache: as many lines,
/// counted from its first byte, as its size needs.
#[inline(always)]
pub fn prefetch<T>(x: &T) {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = (x as *const T).cast::<i8>();
        for line in 0..std::mem::size_of::<T>().div_ceil(CACHE_LINE) {
            // SAFETY: SSE is part of the x86-64 baseline, and a prefetch never faults nor changes
            // what the program reads; every address is inside `*x`, a live object
            // (`line * CACHE_LINE` is below its size).
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(line * CACHE_LINE)) };
        }
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
    let _ = x;
}

/// [`prefetch`] for the first `max_lines` cache lines of a slice (all of them if fewer).
#[inline(always)]
pub fn prefetch_slice<T>(x: &[T], max_lines: usize) {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = x.as_ptr().cast::<i8>();
        for line in 0..std::mem::size_of_val(x).div_ceil(CACHE_LINE).min(max_lines) {
            // SAFETY: SSE is part of the x86-64 baseline, and a prefetch never faults nor changes
            // what the program reads; every address is inside `x`, a live slice
            // (`line * CACHE_LINE` is below its size in bytes).
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(line * CACHE_LINE)) };
        }
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
    let _ = (x, max_lines);
}
