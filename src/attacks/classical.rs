//! The classical ray method: for each of the eight directions, a table of the full ray from every
//! square; the first blocker is the lowest set bit of `ray & occupied` for directions of increasing
//! square index and the highest for decreasing ones, and the attack is the ray minus the ray
//! beyond that blocker. Portable (`tzcnt`/`lzcnt` or their fallbacks), tiny tables.

use crate::bitboard::Bitboard;
use crate::types::{Color, Square};

/// Directions as (file delta, rank delta). The first four increase the square index.
const DIRS: [(i8, i8); 8] = [
    (0, 1),   // towards rank i: +1
    (1, 0),   // towards file 9: +9
    (1, 1),   // +10
    (1, -1),  // +8
    (0, -1),  // towards rank a: -1
    (-1, 0),  // towards file 1: -9
    (-1, -1), // -10
    (-1, 1),  // -8
];

const S: usize = 0;
const W: usize = 1;
const SW: usize = 2;
const NW: usize = 3;
const N: usize = 4;
const E: usize = 5;
const NE: usize = 6;
const SE: usize = 7;

const fn build_rays() -> [[Bitboard; 81]; 8] {
    let mut t = [[Bitboard::from_halves(0, 0); 81]; 8];
    let mut d = 0;
    while d < 8 {
        let mut sq = 0;
        while sq < 81 {
            let (mut lo, mut hi) = (0u64, 0u64);
            let (df, dr) = DIRS[d];
            let mut f = (sq / 9) as i8 + df;
            let mut r = (sq % 9) as i8 + dr;
            while f >= 0 && f < 9 && r >= 0 && r < 9 {
                let i = (f * 9 + r) as usize;
                if i < 63 {
                    lo |= 1 << i;
                } else {
                    hi |= 1 << (i - 63);
                }
                f += df;
                r += dr;
            }
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

#[inline(always)]
fn increasing(d: usize, sq: Square, occ: Bitboard) -> Bitboard {
    let ray = RAYS[d][sq.index()];
    let blockers = ray & occ;
    if blockers.is_empty() {
        ray
    } else {
        ray ^ RAYS[d][first(blockers)]
    }
}

#[inline(always)]
fn decreasing(d: usize, sq: Square, occ: Bitboard) -> Bitboard {
    let ray = RAYS[d][sq.index()];
    let blockers = ray & occ;
    if blockers.is_empty() {
        ray
    } else {
        ray ^ RAYS[d][last(blockers)]
    }
}

#[inline]
pub fn lance(c: Color, sq: Square, occ: Bitboard) -> Bitboard {
    match c {
        Color::Black => decreasing(N, sq, occ),
        Color::White => increasing(S, sq, occ),
    }
}

#[inline]
pub fn bishop(sq: Square, occ: Bitboard) -> Bitboard {
    increasing(SW, sq, occ) | increasing(NW, sq, occ) | decreasing(NE, sq, occ) | decreasing(SE, sq, occ)
}

#[inline]
pub fn rook(sq: Square, occ: Bitboard) -> Bitboard {
    increasing(S, sq, occ) | increasing(W, sq, occ) | decreasing(N, sq, occ) | decreasing(E, sq, occ)
}
