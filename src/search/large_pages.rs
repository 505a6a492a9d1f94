//! Zeroed tables backed by large pages where the system gives them.
//!
//! The transposition table and the big history tables are read at random places at every node;
//! with 4 KiB pages nearly every such read also misses the TLB. On Linux, tables of 2 MiB and
//! more are aligned to 2 MiB and marked with `madvise(MADV_HUGEPAGE)`, so that transparent huge
//! pages back them when the system allows it (`/sys/kernel/mm/transparent_hugepage/enabled` set
//! to `madvise` or `always`); elsewhere, or when the advice is refused, they are ordinary memory.

use std::alloc::{alloc, alloc_zeroed, dealloc, Layout};
use std::mem::MaybeUninit;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

/// Types for which all-zero bytes are a valid value (the tables are allocated zeroed).
///
/// # Safety
/// Implementors must be valid when every byte is zero.
pub unsafe trait ZeroValid {}

// SAFETY: integers are valid for any bit pattern, zero included.
unsafe impl ZeroValid for i16 {}
// SAFETY: as above.
unsafe impl ZeroValid for u64 {}
// SAFETY: an `AtomicI16` has the size, alignment and bit validity of an `i16`.
unsafe impl ZeroValid for std::sync::atomic::AtomicI16 {}

/// The size of a large page, and the alignment of large tables.
const LARGE_PAGE: usize = 2 * 1024 * 1024;

/// A fixed-size zeroed slice, on large pages where possible.
pub struct LargeSlice<T: ZeroValid> {
    ptr: NonNull<T>,
    len: usize,
    layout: Layout,
}

// SAFETY: `LargeSlice` owns its elements like a `Box<[T]>`.
unsafe impl<T: ZeroValid + Send> Send for LargeSlice<T> {}
// SAFETY: shared access only hands out `&[T]`.
unsafe impl<T: ZeroValid + Sync> Sync for LargeSlice<T> {}

impl<T: ZeroValid> LargeSlice<T> {
    /// `len` zeroed elements, or `None` when the allocator refuses the memory.
    pub fn try_zeroed(len: usize) -> Option<LargeSlice<T>> {
        LargeSlice::try_zeroed_on(len, 1)
    }

    /// [`LargeSlice::try_zeroed`], a large table zeroed by `threads` threads, each writing its
    /// share of the pages: the first writes to fresh memory are page faults, and a table of
    /// gigabytes takes seconds of them on one thread.
    pub fn try_zeroed_on(len: usize, threads: usize) -> Option<LargeSlice<T>> {
        let bytes = len.checked_mul(std::mem::size_of::<T>())?.max(1);
        let large = bytes >= LARGE_PAGE;
        let align = if large { LARGE_PAGE } else { std::mem::align_of::<T>() };
        let size = bytes.checked_next_multiple_of(align)?;
        let layout = Layout::from_size_align(size, align).ok()?;
        let raw = if large {
            // The advice must come before the first write: pages already touched stay small.
            // SAFETY: `layout` has a non-zero size.
            let raw = unsafe { alloc(layout) };
            if raw.is_null() {
                return None;
            }
            advise_large_pages(raw, size);
            // SAFETY: `raw` is a fresh allocation of `size` bytes, ours alone; `MaybeUninit`
            // bytes may be uninitialised.
            let bytes = unsafe { std::slice::from_raw_parts_mut(raw.cast::<MaybeUninit<u8>>(), size) };
            fill_in_shares(bytes, MaybeUninit::new(0), threads, LARGE_PAGE);
            raw
        } else {
            // SAFETY: `layout` has a non-zero size.
            unsafe { alloc_zeroed(layout) }
        };
        let ptr = NonNull::new(raw.cast::<T>())?;
        Some(LargeSlice { ptr, len, layout })
    }
}

/// Sets every element of `buf` to `value`, on up to `threads` threads, each filling shares of
/// whole `unit`s (threads that cannot start leave theirs to the others and this one).
fn fill_in_shares<T: Copy + Send + Sync>(buf: &mut [T], value: T, threads: usize, unit: usize) {
    let unit = unit.max(1);
    let threads = threads.max(1);
    let share = (buf.len().div_ceil(unit).div_ceil(threads) * unit).max(1);
    super::parallel::for_each_on(buf.chunks_mut(share).collect(), threads, |part| part.fill(value));
}

impl<T: ZeroValid> Deref for LargeSlice<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` points to `len` initialised (zeroed, `T: ZeroValid`) elements owned by
        // `self`, suitably aligned (the layout's alignment is at least `T`'s).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: ZeroValid> DerefMut for LargeSlice<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, and `&mut self` makes the access unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: ZeroValid> Drop for LargeSlice<T> {
    fn drop(&mut self) {
        // SAFETY: allocated in `try_zeroed` with this very layout; `T: ZeroValid` types here need
        // no drop of their own (integers and atomics).
        unsafe { dealloc(self.ptr.as_ptr().cast::<u8>(), self.layout) };
    }
}

#[cfg(target_os = "linux")]
fn advise_large_pages(ptr: *mut u8, len: usize) {
    /// `MADV_HUGEPAGE` from Linux's `<asm-generic/mman-common.h>`.
    const MADV_HUGEPAGE: i32 = 14;
    extern "C" {
        fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
    }
    // SAFETY: `ptr..ptr + len` is one live allocation of ours, aligned to the page size; the
    // advice changes how the kernel backs it, never its contents. A refusal (an old kernel,
    // transparent huge pages off) leaves ordinary pages, which is fine.
    let _ = unsafe { madvise(ptr.cast(), len, MADV_HUGEPAGE) };
}

#[cfg(not(target_os = "linux"))]
fn advise_large_pages(_ptr: *mut u8, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filling_in_shares_reaches_every_element() {
        for (len, threads, unit) in
            [(0, 3, 4), (1, 3, 4), (1000, 1, 64), (1000, 3, 64), (1000, 7, 1), (10, 64, 4)]
        {
            let mut buf = vec![0xffu8; len];
            fill_in_shares(&mut buf, 0, threads, unit);
            assert!(buf.iter().all(|&b| b == 0), "{len} {threads} {unit}");
        }
    }

    #[test]
    fn slices_are_zeroed_aligned_and_writable() {
        for (len, threads) in
            [(0usize, 1), (1, 1), (1000, 1), (3 * LARGE_PAGE / 2 + 7, 1), (5 * LARGE_PAGE + 3, 3)]
        {
            let mut s = LargeSlice::<i16>::try_zeroed_on(len, threads).unwrap();
            assert_eq!(s.len(), len);
            assert!(s.iter().all(|&x| x == 0));
            if len > 0 {
                s[len - 1] = 7;
                assert_eq!(s[len - 1], 7);
            }
            if len * 2 >= LARGE_PAGE {
                assert_eq!(s.as_ptr() as usize % LARGE_PAGE, 0);
            }
        }
    }
}
