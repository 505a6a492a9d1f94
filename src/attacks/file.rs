//! File attacks (lance and the rook's file), branch-free, on both 64-bit halves at once.
//!
//! A file is nine consecutive bits of one half, rank a lowest; the masks below are zero in the
//! other half, so lane-wise arithmetic there yields zero and no branch picks the half.
//! - Towards rank i (white's lance): the first blocker is the lowest set bit `o` above the
//!   square, and `o ^ (o - 1)` keeps every bit up to and including it (all bits when nothing
//!   blocks), which the ray mask trims.
//! - Towards rank a (black's lance): the first blocker is the highest set bit below the square.
//!   With a sentinel on rank a (attacked anyway when nothing nearer blocks), smearing it down by
//!   1, 2 and 4 covers the at most eight squares below it, and the ray minus that smear shifted
//!   by one is the attack.

use crate::bitboard::Bitboard;
use crate::types::{Color, Square};

#[derive(Clone, Copy)]
struct FileMasks {
    /// Squares of the file between the square and rank a.
    toward_a: Bitboard,
    /// Squares of the file between the square and rank i.
    toward_i: Bitboard,
    /// The rank-a square of the file (the sentinel).
    rank_a: Bitboard,
}

/// `x` in the high half if `high`, else in the low half.
const fn place(high: bool, x: u64) -> Bitboard {
    if high {
        Bitboard::from_halves(0, x)
    } else {
        Bitboard::from_halves(x, 0)
    }
}

const fn build() -> [FileMasks; 81] {
    let zero = Bitboard::from_halves(0, 0);
    let mut t = [FileMasks { toward_a: zero, toward_i: zero, rank_a: zero }; 81];
    let mut sq = 0;
    while sq < 81 {
        let file = sq / 9;
        let rank = sq % 9;
        let high = file >= 7;
        let base = if high { (file - 7) * 9 } else { file * 9 };
        let bit = base + rank;
        let file_bits: u64 = 0x1ff << base;
        let toward_a = ((1u64 << bit) - 1) & file_bits;
        let toward_i = !((2u64 << bit) - 1) & file_bits;
        let rank_a = 1u64 << base;
        t[sq] = FileMasks {
            toward_a: place(high, toward_a),
            toward_i: place(high, toward_i),
            rank_a: place(high, rank_a),
        };
        sq += 1;
    }
    t
}

static MASKS: [FileMasks; 81] = build();

#[inline(always)]
fn toward_a(m: &FileMasks, occ: Bitboard) -> Bitboard {
    let mut h = (occ & m.toward_a) | m.rank_a;
    h |= h.shr_halves::<1>();
    h |= h.shr_halves::<2>();
    h |= h.shr_halves::<4>();
    m.toward_a.and_not(h.shr_halves::<1>())
}

#[inline(always)]
fn toward_i(m: &FileMasks, occ: Bitboard) -> Bitboard {
    let o = occ & m.toward_i;
    m.toward_i & (o ^ o.sub_halves(Bitboard::from_halves(1, 1)))
}

#[inline(always)]
pub fn lance(c: Color, sq: Square, occ: Bitboard) -> Bitboard {
    let m = &MASKS[sq.index()];
    match c {
        Color::Black => toward_a(m, occ),
        Color::White => toward_i(m, occ),
    }
}

/// The rook's moves along its file.
#[inline(always)]
pub fn rook_file(sq: Square, occ: Bitboard) -> Bitboard {
    let m = &MASKS[sq.index()];
    toward_a(m, occ) | toward_i(m, occ)
}
