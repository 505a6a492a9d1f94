//! Attacks of the stepping pieces, built at compile time by `const fn`.
//!
//! Directions are (file delta, rank delta) from black's point of view: rank delta -1 is forward
//! for black (towards rank a). White's tables negate the rank delta.

use crate::bitboard::Bitboard;
use crate::types::{Color, Square};

type Steps = &'static [(i8, i8)];

const PAWN: Steps = &[(0, -1)];
const KNIGHT: Steps = &[(-1, -2), (1, -2)];
const SILVER: Steps = &[(-1, -1), (0, -1), (1, -1), (-1, 1), (1, 1)];
const GOLD: Steps = &[(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (0, 1)];
const KING: Steps = &[(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)];

const fn steps_from(sq: usize, steps: Steps, flip_rank: bool) -> Bitboard {
    let (mut lo, mut hi) = (0u64, 0u64);
    let file = (sq / 9) as i8;
    let rank = (sq % 9) as i8;
    let mut k = 0;
    while k < steps.len() {
        let (df, dr) = steps[k];
        let dr = if flip_rank { -dr } else { dr };
        let (f, r) = (file + df, rank + dr);
        if f >= 0 && f < 9 && r >= 0 && r < 9 {
            let b = super::sq_bit((f * 9 + r) as usize);
            lo |= b.0;
            hi |= b.1;
        }
        k += 1;
    }
    Bitboard::from_halves(lo, hi)
}

const fn table(steps: Steps) -> [[Bitboard; 81]; 2] {
    let mut t = [[Bitboard::from_halves(0, 0); 81]; 2];
    let mut sq = 0;
    while sq < 81 {
        t[0][sq] = steps_from(sq, steps, false);
        t[1][sq] = steps_from(sq, steps, true);
        sq += 1;
    }
    t
}

static PAWN_BB: [[Bitboard; 81]; 2] = table(PAWN);
static KNIGHT_BB: [[Bitboard; 81]; 2] = table(KNIGHT);
static SILVER_BB: [[Bitboard; 81]; 2] = table(SILVER);
static GOLD_BB: [[Bitboard; 81]; 2] = table(GOLD);
static KING_BB: [[Bitboard; 81]; 2] = table(KING);

/// Squares a `c` pawn on `sq` attacks.
#[inline(always)]
pub fn pawn(c: Color, sq: Square) -> Bitboard {
    PAWN_BB[c.index()][sq.index()]
}

#[inline(always)]
pub fn knight(c: Color, sq: Square) -> Bitboard {
    KNIGHT_BB[c.index()][sq.index()]
}

#[inline(always)]
pub fn silver(c: Color, sq: Square) -> Bitboard {
    SILVER_BB[c.index()][sq.index()]
}

/// Gold, and the promoted pawn, lance, knight and silver, which move like it.
#[inline(always)]
pub fn gold(c: Color, sq: Square) -> Bitboard {
    GOLD_BB[c.index()][sq.index()]
}

#[inline(always)]
pub fn king(sq: Square) -> Bitboard {
    KING_BB[0][sq.index()]
}
