//! The reference slider: walk square by square until the edge or a blocker.
//!
//! Deliberately free of crate dependencies (plain `(lo, hi)` halves in the bitboard layout) so
//! that `build.rs` can include this same file to generate the lookup tables, while the tests use it
//! as the ground truth every fast slider method is checked against.

/// Rank delta -1 is towards rank a (forward for black).
pub const BISHOP_DIRS: [(i8, i8); 4] = [(-1, -1), (1, -1), (-1, 1), (1, 1)];
pub const ROOK_DIRS: [(i8, i8); 4] = [(0, -1), (0, 1), (-1, 0), (1, 0)];
pub const ROOK_RANK_DIRS: [(i8, i8); 2] = [(-1, 0), (1, 0)];
pub const ROOK_FILE_DIRS: [(i8, i8); 2] = [(0, -1), (0, 1)];
pub const BLACK_LANCE_DIRS: [(i8, i8); 1] = [(0, -1)];
pub const WHITE_LANCE_DIRS: [(i8, i8); 1] = [(0, 1)];

/// Whether square index `i` is set in the halves `b`.
pub fn test_bit(b: (u64, u64), i: usize) -> bool {
    if i < 63 {
        b.0 >> i & 1 != 0
    } else {
        b.1 >> (i - 63) & 1 != 0
    }
}

/// `b` with square index `i` set.
pub fn with_bit(b: (u64, u64), i: usize) -> (u64, u64) {
    if i < 63 {
        (b.0 | 1 << i, b.1)
    } else {
        (b.0, b.1 | 1 << (i - 63))
    }
}

/// The squares a slider on square index `sq` reaches along `dirs`, stopping on (and including)
/// the first occupied square of `occ` in each direction.
pub fn slide(sq: usize, dirs: &[(i8, i8)], occ: (u64, u64)) -> (u64, u64) {
    let mut out = (0, 0);
    for &(df, dr) in dirs {
        let (mut f, mut r) = ((sq / 9) as i8 + df, (sq % 9) as i8 + dr);
        while (0..9).contains(&f) && (0..9).contains(&r) {
            let i = (f * 9 + r) as usize;
            out = with_bit(out, i);
            if test_bit(occ, i) {
                break;
            }
            f += df;
            r += dr;
        }
    }
    out
}

/// The squares along `dirs` whose occupancy can change the result: the ray without its last
/// square (an edge square is attacked whether or not it is occupied).
pub fn relevant_mask(sq: usize, dirs: &[(i8, i8)]) -> (u64, u64) {
    let mut out = (0, 0);
    for &(df, dr) in dirs {
        let (mut f, mut r) = ((sq / 9) as i8 + df, (sq % 9) as i8 + dr);
        while (0..9).contains(&(f + df)) && (0..9).contains(&(r + dr)) {
            out = with_bit(out, (f * 9 + r) as usize);
            f += df;
            r += dr;
        }
    }
    out
}
