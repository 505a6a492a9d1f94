//! Magic bitboards (portable): the relevant occupancy of both halves is merged into one `u64`
//! (their bits never share a position, see `examples/find_magics.rs`), multiplied by a per-square
//! magic number, and the top bits index a precomputed attack table. Bishop: one table over both
//! diagonals; rook: its file from `file.rs`, its rank from a magic table. Tables from `build.rs`.

use crate::bitboard::Bitboard;
use crate::types::Square;

/// The lance: the half-word arithmetic of `file.rs`, as in every table method.
pub use super::file::lance;

include!(concat!(env!("OUT_DIR"), "/magic_tables.rs"));
use super::magic_numbers::{BISHOP_MAGIC, ROOK_RANK_MAGIC};

#[inline(always)]
fn index(mask: Bitboard, magic: u64, shift: u32, occ: Bitboard) -> usize {
    let o = occ & mask;
    ((o.lo() | o.hi()).wrapping_mul(magic) >> shift) as usize
}

#[inline]
pub fn bishop(sq: Square, occ: Bitboard) -> Bitboard {
    let s = sq.index();
    let i = BISHOP_OFFSET[s] as usize + index(BISHOP_MASK[s], BISHOP_MAGIC[s], BISHOP_SHIFT[s], occ);
    debug_assert!(i < BISHOP_ATTACKS.len());
    // SAFETY: the index is below 2^(64 - shift), the number of entries build.rs stores for the
    // square from its offset on.
    unsafe { *BISHOP_ATTACKS.get_unchecked(i) }
}

#[inline]
pub fn rook(sq: Square, occ: Bitboard) -> Bitboard {
    let s = sq.index();
    let i =
        ROOK_RANK_OFFSET[s] as usize + index(ROOK_RANK_MASK[s], ROOK_RANK_MAGIC[s], ROOK_RANK_SHIFT[s], occ);
    debug_assert!(i < ROOK_RANK_ATTACKS.len());
    // SAFETY: as in `bishop`.
    let rank = unsafe { *ROOK_RANK_ATTACKS.get_unchecked(i) };
    rank | super::file::rook_file(sq, occ)
}
