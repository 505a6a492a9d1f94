//! File attacks (lance and the rook's file) computed inside one 64-bit half.
//!
//! A file is nine consecutive bits of one half of the bitboard, rank a lowest. Towards rank i
//! (white's lance) the first blocker is the lowest set bit above the square, and `o ^ (o - 1)`
//! keeps every bit up to and including it (all bits when `o` is zero, then masked to the ray).
//! Towards rank a (black's lance) the first blocker is the highest set bit below the square; a
//! sentinel bit on rank a makes `leading_zeros` defined without a branch (rank a is attacked in any
//! case when nothing nearer blocks).

use crate::bitboard::Bitboard;
use crate::types::{Color, Square};

#[derive(Clone, Copy)]
struct FileInfo {
    /// 1 if the square's file lives in the high half.
    high: bool,
    /// Squares of the file between the square and rank a, in the half's bit positions.
    toward_a: u64,
    /// Squares of the file between the square and rank i.
    toward_i: u64,
    /// The rank-a square of the file (the sentinel).
    rank_a: u64,
}

const fn build() -> [FileInfo; 81] {
    let mut t = [FileInfo {
        high: false,
        toward_a: 0,
        toward_i: 0,
        rank_a: 0,
    }; 81];
    let mut sq = 0;
    while sq < 81 {
        let file = sq / 9;
        let rank = sq % 9;
        let high = file >= 7;
        let base = if high { (file - 7) * 9 } else { file * 9 };
        let bit = base + rank;
        let file_bits: u64 = 0x1ff << base;
        t[sq] = FileInfo {
            high,
            toward_a: ((1u64 << bit) - 1) & file_bits,
            toward_i: !((2u64 << bit) - 1) & file_bits,
            rank_a: 1 << base,
        };
        sq += 1;
    }
    t
}

static INFO: [FileInfo; 81] = build();

#[inline(always)]
fn half(info: &FileInfo, occ: Bitboard) -> u64 {
    if info.high {
        occ.hi()
    } else {
        occ.lo()
    }
}

#[inline(always)]
fn to_bitboard(info: &FileInfo, x: u64) -> Bitboard {
    if info.high {
        Bitboard::from_halves(0, x)
    } else {
        Bitboard::from_halves(x, 0)
    }
}

#[inline(always)]
fn toward_a_bits(info: &FileInfo, o: u64) -> u64 {
    let blockers = (o & info.toward_a) | info.rank_a;
    info.toward_a & (u64::MAX << (63 - blockers.leading_zeros()))
}

#[inline(always)]
fn toward_i_bits(info: &FileInfo, o: u64) -> u64 {
    let blockers = o & info.toward_i;
    info.toward_i & (blockers ^ blockers.wrapping_sub(1))
}

#[inline(always)]
pub fn lance(c: Color, sq: Square, occ: Bitboard) -> Bitboard {
    let info = &INFO[sq.index()];
    let o = half(info, occ);
    let x = match c {
        Color::Black => toward_a_bits(info, o),
        Color::White => toward_i_bits(info, o),
    };
    to_bitboard(info, x)
}

/// The rook's moves along its file.
#[inline(always)]
pub fn rook_file(sq: Square, occ: Bitboard) -> Bitboard {
    let info = &INFO[sq.index()];
    let o = half(info, occ);
    to_bitboard(info, toward_a_bits(info, o) | toward_i_bits(info, o))
}
