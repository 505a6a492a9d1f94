//! Attack sets of every piece, and the between/line tables used for pins and interpositions.
//!
//! Stepping pieces come from compile-time tables (`step.rs`). Sliders have several interchangeable
//! implementations, each cross-checked against the naive walk in the tests and timed by
//! `cargo bench --bench attacks`:
//! - `classical`: ray tables and the first blocker by `tzcnt`/`lzcnt` (portable, small tables);
//! - `magic`: a multiplication by a per-square magic number indexes precomputed tables (portable);
//! - `pext`: BMI2 `pext` indexes precomputed tables (x86-64 with BMI2).
//!
//! Lances and rook files use the branch-free half-word arithmetic of `file.rs` in the table
//! methods. The default is chosen at compile time: PEXT where the build enables BMI2 (the
//! Makefile's native build on this machine), magic otherwise (and with `--features no-pext`, for
//! CPUs that implement PEXT in slow microcode, such as AMD Zen 2 and older).

pub mod classical;
mod file;
pub mod magic;
mod magic_numbers;
pub mod naive;
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
pub mod pext;
mod step;

use crate::bitboard::Bitboard;
use crate::types::{Color, Piece, PieceType, Square};

pub use step::{gold, king, knight, pawn, silver};

/// The slider implementations, for tests and benchmarks that exercise each one.
pub mod methods {
    pub use super::classical;
    pub use super::magic;
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    pub use super::pext;
}

/// The default slider method. `build.rs` sets the one switch, `cfg(hayate_pext)`, when the build
/// enables BMI2 on x86-64 and neither `portable` nor `no-pext` is asked for.
#[cfg(hayate_pext)]
mod default_method {
    pub use super::pext::lance;
    use super::*;

    #[inline(always)]
    pub fn bishop(sq: Square, occ: Bitboard) -> Bitboard {
        // SAFETY: `hayate_pext` is set only when the build enables BMI2.
        unsafe { pext::bishop(sq, occ) }
    }

    #[inline(always)]
    pub fn rook(sq: Square, occ: Bitboard) -> Bitboard {
        // SAFETY: `hayate_pext` is set only when the build enables BMI2.
        unsafe { pext::rook(sq, occ) }
    }
}
#[cfg(not(hayate_pext))]
use magic as default_method;

/// Name of the slider method this build uses by default.
pub const DEFAULT_METHOD: &str = if cfg!(hayate_pext) { "pext" } else { "magic" };

#[inline(always)]
pub fn lance(c: Color, sq: Square, occ: Bitboard) -> Bitboard {
    default_method::lance(c, sq, occ)
}

#[inline(always)]
pub fn bishop(sq: Square, occ: Bitboard) -> Bitboard {
    default_method::bishop(sq, occ)
}

#[inline(always)]
pub fn rook(sq: Square, occ: Bitboard) -> Bitboard {
    default_method::rook(sq, occ)
}

/// Bishop plus one step in every direction.
#[inline(always)]
pub fn horse(sq: Square, occ: Bitboard) -> Bitboard {
    bishop(sq, occ) | king(sq)
}

/// Rook plus one step in every direction.
#[inline(always)]
pub fn dragon(sq: Square, occ: Bitboard) -> Bitboard {
    rook(sq, occ) | king(sq)
}

/// The squares a piece on `sq` attacks with the board occupied as `occ`.
#[inline(always)]
pub fn piece(pc: Piece, sq: Square, occ: Bitboard) -> Bitboard {
    let c = pc.color();
    match pc.piece_type() {
        PieceType::Pawn => pawn(c, sq),
        PieceType::Lance => lance(c, sq, occ),
        PieceType::Knight => knight(c, sq),
        PieceType::Silver => silver(c, sq),
        PieceType::Bishop => bishop(sq, occ),
        PieceType::Rook => rook(sq, occ),
        PieceType::Gold
        | PieceType::ProPawn
        | PieceType::ProLance
        | PieceType::ProKnight
        | PieceType::ProSilver => gold(c, sq),
        PieceType::King => king(sq),
        PieceType::Horse => horse(sq, occ),
        PieceType::Dragon => dragon(sq, occ),
    }
}

/// The eight directions as (file delta, rank delta): the four that increase the square index,
/// then their opposites in the same order.
const ALL_DIRS: [(i8, i8); 8] = [(0, 1), (1, 0), (1, 1), (1, -1), (0, -1), (-1, 0), (-1, -1), (-1, 1)];

/// The bit of square index `i` in the two halves.
const fn sq_bit(i: usize) -> (u64, u64) {
    if i < 63 {
        (1 << i, 0)
    } else {
        (0, 1 << (i - 63))
    }
}

/// Full rays on an empty board, per direction of `ALL_DIRS`.
const fn empty_ray(sq: usize, d: usize) -> (u64, u64) {
    let (mut lo, mut hi) = (0u64, 0u64);
    let (df, dr) = ALL_DIRS[d];
    let mut f = (sq / 9) as i8 + df;
    let mut r = (sq % 9) as i8 + dr;
    while f >= 0 && f < 9 && r >= 0 && r < 9 {
        let b = sq_bit((f * 9 + r) as usize);
        lo |= b.0;
        hi |= b.1;
        f += df;
        r += dr;
    }
    (lo, hi)
}

struct LineTables {
    between: [[Bitboard; 81]; 81],
    line: [[Bitboard; 81]; 81],
}

const fn build_lines() -> LineTables {
    let zero = Bitboard::from_halves(0, 0);
    let mut t = LineTables { between: [[zero; 81]; 81], line: [[zero; 81]; 81] };
    let mut a = 0;
    while a < 81 {
        let mut d = 0;
        while d < 8 {
            let fwd = empty_ray(a, d);
            let back = empty_ray(a, (d + 4) % 8);
            let own = sq_bit(a);
            let line = Bitboard::from_halves(fwd.0 | back.0 | own.0, fwd.1 | back.1 | own.1);
            let (df, dr) = ALL_DIRS[d];
            let mut f = (a / 9) as i8 + df;
            let mut r = (a % 9) as i8 + dr;
            let (mut lo, mut hi) = (0u64, 0u64);
            while f >= 0 && f < 9 && r >= 0 && r < 9 {
                let b = (f * 9 + r) as usize;
                t.between[a][b] = Bitboard::from_halves(lo, hi);
                t.line[a][b] = line;
                let bit = sq_bit(b);
                lo |= bit.0;
                hi |= bit.1;
                f += df;
                r += dr;
            }
            d += 1;
        }
        a += 1;
    }
    t
}

static LINES: LineTables = build_lines();

/// The squares strictly between `a` and `b` when they share a file, rank or diagonal; else empty.
#[inline(always)]
pub fn between(a: Square, b: Square) -> Bitboard {
    LINES.between[a.index()][b.index()]
}

/// The whole line (edge to edge) through `a` and `b` when they are aligned; else empty.
#[inline(always)]
pub fn line(a: Square, b: Square) -> Bitboard {
    LINES.line[a.index()][b.index()]
}

const fn build_pseudo() -> [[Bitboard; 81]; 4] {
    // 0: bishop, 1: rook, 2: black lance, 3: white lance (empty board).
    let zero = Bitboard::from_halves(0, 0);
    let mut t = [[zero; 81]; 4];
    let mut sq = 0;
    while sq < 81 {
        let mut acc = [(0u64, 0u64); 4];
        let mut d = 0;
        while d < 8 {
            let r = empty_ray(sq, d);
            let (df, dr) = ALL_DIRS[d];
            let k = if df != 0 && dr != 0 { 0 } else { 1 };
            acc[k].0 |= r.0;
            acc[k].1 |= r.1;
            if df == 0 && dr == -1 {
                acc[2] = r;
            }
            if df == 0 && dr == 1 {
                acc[3] = r;
            }
            d += 1;
        }
        let mut k = 0;
        while k < 4 {
            t[k][sq] = Bitboard::from_halves(acc[k].0, acc[k].1);
            k += 1;
        }
        sq += 1;
    }
    t
}

static PSEUDO: [[Bitboard; 81]; 4] = build_pseudo();

/// Bishop moves on an empty board.
#[inline(always)]
pub fn bishop_pseudo(sq: Square) -> Bitboard {
    PSEUDO[0][sq.index()]
}

/// Rook moves on an empty board.
#[inline(always)]
pub fn rook_pseudo(sq: Square) -> Bitboard {
    PSEUDO[1][sq.index()]
}

/// Lance moves on an empty board.
#[inline(always)]
pub fn lance_pseudo(c: Color, sq: Square) -> Bitboard {
    PSEUDO[2 + c.index()][sq.index()]
}

#[cfg(test)]
mod tests;
