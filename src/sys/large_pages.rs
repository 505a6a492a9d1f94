//! Zeroed tables backed by large pages where the system gives them.
//!
//! The transposition table and the big history tables are read at random places at every node;
//! with 4 KiB pages nearly every such read also misses the TLB. On Linux, tables of 2 MiB and
//! more are aligned to 2 MiB and marked with `madvise(MADV_HUGEPAGE)`, so that transparent huge
//! pages back them when the system allows it (`/sys/kernel/mm/transparent_hugepage/enabled` set
//! to `madvise` or `always`); elsewhere, or when the advice is refused, they are ordinary memory.
//! The mate solver's table is zeroed lazily instead ([`LargeSlice::try_zeroed_lazily`]: by the
//! system, page by page as it is used), with the same advice for its whole large pages.

use crate::sys::time::Instant;
use std::alloc::{alloc, alloc_zeroed, dealloc, Layout};
use std::mem::MaybeUninit;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, Ordering};

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
pub const LARGE_PAGE: usize = 2 * 1024 * 1024;

/// A fixed-size zeroed slice, on large pages where possible.
pub struct LargeSlice<T: ZeroValid> {
    ptr: NonNull<T>,
    len: usize,
    /// The allocation holding the slice (its start may come before `ptr`), and its layout.
    base: NonNull<u8>,
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
        let (raw, layout) = LargeSlice::<T>::allocate(len)?;
        if layout.align() == LARGE_PAGE {
            // SAFETY: `raw` is a fresh allocation of `layout.size()` bytes, ours alone;
            // `MaybeUninit` bytes may be uninitialised.
            let bytes: &mut [MaybeUninit<u8>] =
                unsafe { std::slice::from_raw_parts_mut(raw.as_ptr().cast(), layout.size()) };
            fill_in_shares(bytes, MaybeUninit::new(0u8), threads, LARGE_PAGE);
        }
        Some(LargeSlice { ptr: raw.cast(), len, base: raw, layout })
    }

    /// [`LargeSlice::try_zeroed_on`], the zeroing cut short at `deadline`: the slice is then
    /// shorter than `len` (the pages zeroed from its start; at least one), and the pages left
    /// over are never touched, so they cost no memory. For a table the engine picked the size
    /// of itself, which must not hold up the answer to `isready` for seconds.
    pub fn try_zeroed_until(len: usize, threads: usize, deadline: Instant) -> Option<LargeSlice<T>> {
        let (raw, layout) = LargeSlice::<T>::allocate(len)?;
        if layout.align() != LARGE_PAGE {
            return Some(LargeSlice { ptr: raw.cast(), len, base: raw, layout });
        }
        // SAFETY: as in `try_zeroed_on`.
        let bytes: &mut [MaybeUninit<u8>] =
            unsafe { std::slice::from_raw_parts_mut(raw.as_ptr().cast(), layout.size()) };
        let pages = bytes.len() / LARGE_PAGE;
        let zeroed: Vec<AtomicBool> = (0..pages).map(|_| AtomicBool::new(false)).collect();
        // Popped from the end: the first pages first. The first is zeroed whatever the time, so
        // that the table has a page.
        let items: Vec<(usize, &mut [MaybeUninit<u8>])> =
            bytes.chunks_mut(LARGE_PAGE).enumerate().rev().collect();
        super::parallel::for_each_on(items, threads, |(i, page)| {
            if i == 0 || Instant::now() < deadline {
                page.fill(MaybeUninit::new(0u8));
                zeroed[i].store(true, Ordering::Relaxed);
            }
        });
        // A page zeroed after one that was skipped (threads race at the deadline) is not used.
        let ready = zeroed.iter().position(|z| !z.load(Ordering::Relaxed)).unwrap_or(pages);
        let len = len.min(ready * LARGE_PAGE / std::mem::size_of::<T>().max(1));
        Some(LargeSlice { ptr: raw.cast(), len, base: raw, layout })
    }

    /// `len` zeroed elements that take no time to make, however many: a large zeroed
    /// allocation (`calloc`) gets fresh pages from the system, which are zero already, and the
    /// system backs each page when it is first touched. The cost of the pages is then paid in
    /// the use, page by page, which suits a table a search with a time limit may only partly
    /// use (the mate solver's: zeroing 2 GiB took 6.2 s on the 2-core VM). Advised to use
    /// large pages like the others.
    pub fn try_zeroed_lazily(len: usize) -> Option<LargeSlice<T>> {
        let align = std::mem::align_of::<T>();
        let bytes = len.checked_mul(std::mem::size_of::<T>())?.max(1);
        // `calloc`'s alignment is small (an alignment above 16 makes the allocator zero the
        // memory itself): the slice is aligned within a few spare bytes.
        let layout = Layout::from_size_align(bytes.checked_add(align)?, 1).ok()?;
        // SAFETY: `layout` has a non-zero size.
        let base = NonNull::new(unsafe { alloc_zeroed(layout) })?;
        let offset = base.as_ptr().align_offset(align);
        if offset >= align {
            // SAFETY: allocated just above with this layout.
            unsafe { dealloc(base.as_ptr(), layout) };
            return None;
        }
        // SAFETY: `offset < align`, the spare bytes: the slice's `bytes` lie within the
        // allocation.
        let ptr = unsafe { base.add(offset) };
        // SAFETY: `bytes` bytes from `ptr` lie within the fresh allocation, ours alone;
        // `MaybeUninit` bytes may be anything.
        let memory: &mut [MaybeUninit<u8>] =
            unsafe { std::slice::from_raw_parts_mut(ptr.as_ptr().cast(), bytes) };
        advise_large_pages(memory);
        Some(LargeSlice { ptr: ptr.cast(), len, base, layout })
    }

    /// Memory for `len` elements, or `None` when the allocator refuses it: a large table
    /// aligned to a large page, advised to use large pages and not yet zeroed; a small one
    /// zeroed.
    fn allocate(len: usize) -> Option<(NonNull<u8>, Layout)> {
        let bytes = len.checked_mul(std::mem::size_of::<T>())?.max(1);
        let large = bytes >= LARGE_PAGE;
        let align = if large { LARGE_PAGE } else { std::mem::align_of::<T>() };
        let size = bytes.checked_next_multiple_of(align)?;
        let layout = Layout::from_size_align(size, align).ok()?;
        let raw = if large {
            // The advice must come before the first write: pages already touched stay small.
            // SAFETY: `layout` has a non-zero size.
            let raw = NonNull::new(unsafe { alloc(layout) })?;
            // SAFETY: `raw` is a fresh allocation of `size` bytes, ours alone; `MaybeUninit`
            // bytes may be uninitialised.
            let memory: &mut [MaybeUninit<u8>] =
                unsafe { std::slice::from_raw_parts_mut(raw.as_ptr().cast(), size) };
            advise_large_pages(memory);
            raw
        } else {
            // SAFETY: `layout` has a non-zero size.
            NonNull::new(unsafe { alloc_zeroed(layout) })?
        };
        Some((raw, layout))
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
        // SAFETY: `base` was allocated with this very layout; `T: ZeroValid` types here need no
        // drop of their own (integers, atomics and tables of them).
        unsafe { dealloc(self.base.as_ptr(), self.layout) };
    }
}

/// Asks the system to back the whole large pages inside `memory` with large pages: on Linux
/// `madvise(MADV_HUGEPAGE)` on its part from its first [`LARGE_PAGE`] boundary to its last
/// (nothing if there is no whole large page inside). Memory not yet written, as the advice must
/// come before the first write: pages already touched stay small. A hint only: nothing depends
/// on it, and elsewhere it does nothing.
#[cfg(target_os = "linux")]
fn advise_large_pages<T>(memory: &mut [MaybeUninit<T>]) {
    /// `MADV_HUGEPAGE` from Linux's `<asm-generic/mman-common.h>`.
    const MADV_HUGEPAGE: i32 = 14;
    extern "C" {
        fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
    }
    let start = memory.as_mut_ptr() as usize;
    let end = start + std::mem::size_of_val(memory);
    let aligned = start.next_multiple_of(LARGE_PAGE);
    if aligned + LARGE_PAGE <= end {
        let len = (end - aligned) & !(LARGE_PAGE - 1);
        // SAFETY: `aligned..aligned + len` lies within `memory`, a live allocation that we hold
        // exclusively, and starts at a page boundary; the advice changes how the kernel backs
        // it, never its contents. A refusal (an old kernel, transparent huge pages off) leaves
        // ordinary pages, which is fine.
        let _ = unsafe { madvise(aligned as *mut std::ffi::c_void, len, MADV_HUGEPAGE) };
    }
}

/// Large pages are asked for on Linux only.
#[cfg(not(target_os = "linux"))]
fn advise_large_pages<T>(_memory: &mut [MaybeUninit<T>]) {}

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

    /// A type aligned beyond what `calloc` gives (the mate table's clusters are).
    #[derive(Clone, Copy)]
    #[repr(C, align(128))]
    struct Wide([u64; 16]);

    // SAFETY: integers only.
    unsafe impl ZeroValid for Wide {}

    #[test]
    fn lazily_zeroed_slices_are_zeroed_aligned_and_writable() {
        // Small ones come from the heap, 64 MiB from fresh pages.
        for len in [0usize, 1, 3, 1000, (64 << 20) / std::mem::size_of::<Wide>()] {
            let mut s = LargeSlice::<Wide>::try_zeroed_lazily(len).unwrap();
            assert_eq!(s.len(), len);
            assert_eq!(s.as_ptr() as usize % 128, 0, "{len}");
            assert!(s.iter().all(|w| w.0.iter().all(|&x| x == 0)), "{len}");
            if let Some(last) = s.last_mut() {
                last.0[15] = 7;
                assert_eq!(s[len - 1].0[15], 7);
            }
        }
        assert!(LargeSlice::<Wide>::try_zeroed_lazily(usize::MAX / 64).is_none(), "refused, not an abort");
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

    #[test]
    fn zeroing_until_a_deadline_keeps_the_pages_zeroed_in_time() {
        let len = 4 * LARGE_PAGE / 2;
        let past = Instant::now();
        let s = LargeSlice::<i16>::try_zeroed_until(len, 2, past).unwrap();
        assert_eq!(s.len(), LARGE_PAGE / 2, "the first page only");
        assert!(s.iter().all(|&x| x == 0));
        let later = Instant::now() + std::time::Duration::from_secs(60);
        let s = LargeSlice::<i16>::try_zeroed_until(len + 5, 3, later).unwrap();
        assert_eq!(s.len(), len + 5);
        assert!(s.iter().all(|&x| x == 0));
        assert_eq!(LargeSlice::<i16>::try_zeroed_until(10, 1, past).unwrap().len(), 10);
    }
}
