//! Buffers whose first element sits on a 64-byte boundary (a cache line, a whole AVX-512
//! register), asked for fallibly: a net's weights are up to gigabytes, and a user picks the file.
//!
//! Safe code only: the buffer is a `Vec` with one cache line more than asked for, and the
//! elements used start where the allocation first meets a 64-byte boundary.

use std::ops::{Deref, DerefMut};

/// The alignment of every buffer.
pub const ALIGN: usize = 64;

/// `len` elements of `T`, zero-initialised (`T::default()`), starting on a 64-byte boundary.
pub struct AlignedVec<T> {
    buf: Vec<T>,
    off: usize,
    len: usize,
}

impl<T: Copy + Default> AlignedVec<T> {
    /// `len` default elements, or `Err(bytes)` when the allocator refuses the memory.
    pub fn try_new(len: usize) -> Result<AlignedVec<T>, usize> {
        let size = std::mem::size_of::<T>().max(1);
        let extra = ALIGN.div_ceil(size);
        let bytes = len.saturating_mul(size);
        let total = len.checked_add(extra).ok_or(bytes)?;
        let mut buf = Vec::new();
        buf.try_reserve_exact(total).map_err(|_| bytes)?;
        buf.resize(total, T::default());
        // `align_offset` counts elements; where it cannot say (never for these types on the
        // targets we build for), the buffer is used unaligned: slower, still correct.
        let off = buf.as_ptr().align_offset(ALIGN);
        let off = if off <= extra { off } else { 0 };
        Ok(AlignedVec { buf, off, len })
    }
}

impl<T> AlignedVec<T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<T> Deref for AlignedVec<T> {
    type Target = [T];
    #[inline(always)]
    fn deref(&self) -> &[T] {
        &self.buf[self.off..self.off + self.len]
    }
}

impl<T> DerefMut for AlignedVec<T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.buf[self.off..self.off + self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_and_zeroed() {
        for len in [0, 1, 31, 1000] {
            let v = AlignedVec::<i16>::try_new(len).unwrap();
            assert_eq!(v.len(), len);
            assert_eq!(v.as_ptr() as usize % ALIGN, 0);
            assert!(v.iter().all(|&x| x == 0));
        }
        assert!(AlignedVec::<i16>::try_new(usize::MAX / 2).is_err());
    }
}
