//! The classical ray method: for each of the eight directions, a table of the full ray from every
//! square; the first blocker is the lowest set bit of `ray & occupied` for directions of increasing
//! square index and the highest for decreasing ones, and the attack is the ray minus the ray
//! beyond that blocker. Portable (`tzcnt`/`lzcnt` or their fallbacks), tiny tables.

use crate::bitboard::Bitboard;
use crate::types::{Color, Square};

// Directions, as indices of `super::ALL_DIRS` (file delta, rank delta). The first four increase
// the square index: S (0, 1) towards rank i, +1; W (1, 0) towards file 9, +9; SW +10; NW +8. The
// last four are their opposites: N towards rank a, -1; E towards file 1, -9; NE -10; SE -8.
const S: usize = 0;
const W: usize = 1;
const SW: usize = 2;
const NW: usize = 3;
const N: usize = 4;
const E: usize = 5;
const NE: usize = 6;
const SE: usize = 7;

/// The full ray from every square in every direction, on an empty board.
const fn build_rays() -> [[Bitboard; 81]; 8] {
    let mut t = [[Bitboard::from_halves(0, 0); 81]; 8];
    let mut d = 0;
    while d < 8 {
        let mut sq = 0;
        while sq < 81 {
            let (lo, hi) = super::empty_ray(sq, d);
            t[d][sq] = Bitboard::from_halves(lo, hi);
            sq += 1;
        }
        d += 1;
    }
    t
}

static RAYS: [[Bitboard; 81]; 8] = build_rays();

/// Lowest set square index of a non-empty bitboard.
#[inline(always)]
fn first(b: Bitboard) -> usize {
    let lo = b.lo();
    if lo != 0 {
        lo.trailing_zeros() as usize
    } else {
        63 + b.hi().trailing_zeros() as usize
    }
}

/// Highest set square index of a non-empty bitboard.
#[inline(always)]
fn last(b: Bitboard) -> usize {
    let hi = b.hi();
    if hi != 0 {
        126 - hi.leading_zeros() as usize
    } else {
        63 - b.lo().leading_zeros() as usize
    }
}

/// The attack along direction `d` from `sq`: the ray up to its first blocker, the lowest square
/// index on the ray for the increasing directions, the highest for the others.
#[inline(always)]
fn slide(d: usize, sq: Square, occ: Bitboard) -> Bitboard {
    let ray = RAYS[d][sq.index()];
    let blockers = ray & occ;
    if blockers.is_empty() {
        ray
    } else {
        ray ^ RAYS[d][if d < N { first(blockers) } else { last(blockers) }]
    }
}

#[inline]
pub fn lance(c: Color, sq: Square, occ: Bitboard) -> Bitboard {
    match c {
        Color::Black => slide(N, sq, occ),
        Color::White => slide(S, sq, occ),
    }
}

#[inline]
pub fn bishop(sq: Square, occ: Bitboard) -> Bitboard {
    slide(SW, sq, occ) | slide(NW, sq, occ) | slide(NE, sq, occ) | slide(SE, sq, occ)
}

#[inline]
pub fn rook(sq: Square, occ: Bitboard) -> Bitboard {
    slide(S, sq, occ) | slide(W, sq, occ) | slide(N, sq, occ) | slide(E, sq, occ)
}
