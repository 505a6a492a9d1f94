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

/// Each stepping piece's lookup of the attacks from every square for either colour, from one
/// table built from its steps.
macro_rules! step_attacks {
    ($($(#[$doc:meta])* $name:ident($steps:ident);)+) => {$(
        $(#[$doc])*
        #[inline(always)]
        pub fn $name(c: Color, sq: Square) -> Bitboard {
            static TABLE: [[Bitboard; 81]; 2] = table($steps);
            TABLE[c.index()][sq.index()]
        }
    )+};
}

step_attacks! {
    /// Squares a `c` pawn on `sq` attacks.
    pawn(PAWN);
    knight(KNIGHT);
    silver(SILVER);
    /// Gold, and the promoted pawn, lance, knight and silver, which move like it.
    gold(GOLD);
}

/// The king's attacks, the same for either colour.
#[inline(always)]
pub fn king(sq: Square) -> Bitboard {
    static TABLE: [[Bitboard; 81]; 2] = table(KING);
    TABLE[0][sq.index()]
}
