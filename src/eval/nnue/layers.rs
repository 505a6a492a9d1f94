//! The layers after the feature transformer, and the exact integer forward pass (scalar form; the
//! SIMD kernels in `simd.rs` compute the same numbers).
//!
//! ```text
//!  x[512]  = clamp(acc[side to move], 0, 127) ++ clamp(acc[other side], 0, 127)      (u8)
//!  h1[32]  = clamp((b1 + w1 . x) >> 6, 0, 127)        w1: [32][512] i8, b1: i32
//!  h2[32]  = clamp((b2 + w2 . h1) >> 6, 0, 127)       w2: [32][32] i8,  b2: i32
//!  out     = b3 + w3 . h2                              w3: [32] i8,      b3: i32
//!  eval    = clamp(out / FV_SCALE, -31753, 31753)      division truncates toward zero, as in C
//! ```
//! `>>` is an arithmetic shift (floor), the division is not: both as YaneuraOu computes them.
//! No intermediate can overflow an `i32`: |w1 . x| <= 512 * 128 * 127.

use super::FT_OUT;

/// Inputs of the first hidden layer: both perspectives' clipped accumulators.
pub const L1_IN: usize = 2 * FT_OUT;
/// Width of both hidden layers.
pub const HIDDEN: usize = 32;
/// Right shift applied to the hidden layers' sums (weights are scaled by 64).
pub const WEIGHT_SHIFT: u32 = 6;
/// Largest evaluation `evaluate` returns (YaneuraOu's `VALUE_MAX_EVAL`), in either sign.
pub const MAX_EVAL: i32 = 31753;

/// Bytes of one input-major block: the weights of four consecutive inputs for all 32 outputs.
pub const BLOCK: usize = 4 * HIDDEN;

/// Biases and weights of the three affine layers, row-major (`[output][input]`, as in the file),
/// aligned so that every row starts on a 64-byte boundary.
///
/// The two hidden layers are also kept input-major for the SIMD kernels: block `c` holds, for each
/// output `o` in turn, the four weights of inputs `4c .. 4c + 4` (`w1_blocks[c][4 * o + k] =
/// w1[o][4 * c + k]`). Those kernels broadcast four input bytes and multiply them with a whole
/// block, so the 32 sums build up in place with no horizontal reduction.
#[repr(C, align(64))]
pub struct Layers {
    pub(crate) b1: [i32; HIDDEN],
    pub(crate) w1: [[i8; L1_IN]; HIDDEN],
    pub(crate) b2: [i32; HIDDEN],
    pub(crate) w2: [[i8; HIDDEN]; HIDDEN],
    pub(crate) w3: [i8; HIDDEN],
    pub(crate) b3: i32,
    pub(crate) w1_blocks: [[i8; BLOCK]; L1_IN / 4],
    pub(crate) w2_blocks: [[i8; BLOCK]; HIDDEN / 4],
}

impl Layers {
    /// Size of the layers in the file.
    pub const BYTES: usize = HIDDEN * 4 + HIDDEN * L1_IN + HIDDEN * 4 + HIDDEN * HIDDEN + 4 + HIDDEN;

    pub(crate) fn zeroed() -> Box<Layers> {
        Box::new(Layers {
            b1: [0; HIDDEN],
            w1: [[0; L1_IN]; HIDDEN],
            b2: [0; HIDDEN],
            w2: [[0; HIDDEN]; HIDDEN],
            w3: [0; HIDDEN],
            b3: 0,
            w1_blocks: [[0; BLOCK]; L1_IN / 4],
            w2_blocks: [[0; BLOCK]; HIDDEN / 4],
        })
    }

    /// Fills the input-major copies from the row-major weights (after loading).
    pub(crate) fn build_blocks(&mut self) {
        fn fill<const IN: usize>(rows: &[[i8; IN]; HIDDEN], blocks: &mut [[i8; BLOCK]]) {
            for (c, block) in blocks.iter_mut().enumerate() {
                for (o, row) in rows.iter().enumerate() {
                    block[4 * o..4 * o + 4].copy_from_slice(&row[4 * c..4 * c + 4]);
                }
            }
        }
        fill(&self.w1, &mut self.w1_blocks);
        fill(&self.w2, &mut self.w2_blocks);
    }
}

/// Clipped ReLU of the transformer output: `clamp(v, 0, 127)`.
#[inline(always)]
fn clip_acc(v: i16) -> u8 {
    v.clamp(0, 127) as u8
}

/// Clipped ReLU of a hidden layer: `clamp(sum >> 6, 0, 127)`.
#[inline(always)]
fn clip_hidden(sum: i32) -> u8 {
    (sum >> WEIGHT_SHIFT).clamp(0, 127) as u8
}

/// `b + w . x` for one output row (`w.len() == x.len()`, a multiple of 32).
///
/// Written so that compilers vectorise it on any target (SSE2, NEON): each product fits an `i16`
/// (|w * x| <= 128 * 127), and 32 independent `i32` lanes avoid one long dependency chain. About
/// 4x faster than a plain fold on the x86-64 baseline; the result is the same exact integer.
#[inline(always)]
fn dot(b: i32, w: &[i8], x: &[u8]) -> i32 {
    debug_assert!(w.len() == x.len() && w.len().is_multiple_of(32));
    let mut lanes = [0i32; 32];
    for (wc, xc) in w.chunks_exact(32).zip(x.chunks_exact(32)) {
        for ((l, &w), &x) in lanes.iter_mut().zip(wc).zip(xc) {
            *l += i32::from(i16::from(w) * i16::from(x));
        }
    }
    b + lanes.iter().sum::<i32>()
}

/// The raw network output (before the division by FV_SCALE) for accumulators `us` (side to move)
/// and `them`: the scalar reference every SIMD kernel must match bit for bit.
pub(crate) fn propagate_scalar(l: &Layers, us: &[i16; FT_OUT], them: &[i16; FT_OUT]) -> i32 {
    let mut x = [0u8; L1_IN];
    for (o, &v) in x.iter_mut().zip(us.iter().chain(them.iter())) {
        *o = clip_acc(v);
    }
    let mut h1 = [0u8; HIDDEN];
    for (o, (row, &b)) in h1.iter_mut().zip(l.w1.iter().zip(&l.b1)) {
        *o = clip_hidden(dot(b, row, &x));
    }
    let mut h2 = [0u8; HIDDEN];
    for (o, (row, &b)) in h2.iter_mut().zip(l.w2.iter().zip(&l.b2)) {
        *o = clip_hidden(dot(b, row, &h1));
    }
    dot(l.b3, &l.w3, &h2)
}

/// The evaluation from the raw output: divided by `fv_scale` rounding toward zero (Rust's `/` on
/// integers truncates, as C's does) and clamped to `±MAX_EVAL`. A `fv_scale` below 1 counts as 1.
#[inline(always)]
pub(crate) fn scale(out: i32, fv_scale: i32) -> i32 {
    (out / fv_scale.max(1)).clamp(-MAX_EVAL, MAX_EVAL)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_truncates_toward_zero() {
        assert_eq!(scale(-17, 16), -1);
        assert_eq!(scale(-15, 16), 0);
        assert_eq!(scale(47, 24), 1);
        assert_eq!(scale(i32::MAX, 1), MAX_EVAL);
        assert_eq!(scale(i32::MIN + 1, 1), -MAX_EVAL);
        assert_eq!(scale(100, 0), 100);
    }

    #[test]
    fn clips() {
        assert_eq!(clip_acc(-5), 0);
        assert_eq!(clip_acc(300), 127);
        assert_eq!(clip_hidden(-1), 0); // -1 >> 6 == -1, clipped to 0
        assert_eq!(clip_hidden(64 * 127 + 63), 127);
        assert_eq!(clip_hidden(64 * 200), 127);
        assert_eq!(clip_hidden(64 * 5 + 10), 5);
    }
}
