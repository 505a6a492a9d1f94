//! The layers after the feature transformer, and the exact integer forward pass (scalar form; the
//! SIMD kernels in `simd.rs` compute the same numbers).
//!
//! ```text
//!  x[2FT]  = clamp(acc[side to move], 0, 127) ++ clamp(acc[other side], 0, 127)     (u8)
//!  h1[H1]  = clamp((b1 + w1 . x) >> 6, 0, 127)        w1: [H1][2FT] i8, b1: i32
//!  h2[H2]  = clamp((b2 + w2 . h1) >> 6, 0, 127)       w2: [H2][H1] i8,  b2: i32
//!  out     = b3 + w3 . h2                              w3: [H2] i8,      b3: i32
//!  eval    = clamp(out / FV_SCALE, -31753, 31753)      division truncates toward zero, as in C
//! ```
//! `>>` is an arithmetic shift (floor), the division is not: both as YaneuraOu computes them.
//! No intermediate can overflow an `i32`: |w1 . x| <= 8192 * 128 * 127 < 2^27.

use super::aligned::AlignedVec;
use super::shape::pad32;

/// Right shift applied to the hidden layers' sums (weights are scaled by 64).
pub const WEIGHT_SHIFT: u32 = 6;
/// Largest evaluation `evaluate` returns (YaneuraOu's `VALUE_MAX_EVAL`), in either sign.
pub const MAX_EVAL: i32 = 31753;

/// `n` rounded up to a multiple of 8 (the outputs of one 256-bit register of `i32` sums).
pub const fn pad8(n: usize) -> usize {
    n.div_ceil(8) * 8
}

/// One affine layer with a clipped ReLU after it: `n_out` outputs from `n_in` inputs.
///
/// Inputs are padded to a multiple of 32 (`in_pad`, as rows are stored in the file) and outputs
/// to a multiple of 8 (`out_pad`); the padding has zero weights and zero biases, so padded
/// outputs are always 0 and padded inputs never count. The weights are kept twice:
/// - `rows`, row-major `[n_out][in_pad]` as in the file, for the scalar kernels;
/// - `blocks`, input-major for the SIMD ones: block `c` holds, for each output `o < out_pad` in
///   turn, the four weights of inputs `4c .. 4c + 4` (`blocks[c * 4 out_pad + 4 o + k] =
///   w[o][4 c + k]`). Those kernels broadcast four input bytes and multiply them with a whole
///   block, so the sums of many outputs build up in place with no horizontal reduction.
pub struct Affine {
    pub(crate) n_in: usize,
    pub(crate) n_out: usize,
    pub(crate) in_pad: usize,
    pub(crate) out_pad: usize,
    pub(crate) bias: AlignedVec<i32>,
    pub(crate) rows: AlignedVec<i8>,
    pub(crate) blocks: AlignedVec<i8>,
}

impl Affine {
    /// A zeroed layer, or `Err(bytes)` when the memory cannot be had.
    pub(crate) fn zeroed(n_in: usize, n_out: usize) -> Result<Affine, usize> {
        let (in_pad, out_pad) = (pad32(n_in), pad8(n_out));
        Ok(Affine {
            n_in,
            n_out,
            in_pad,
            out_pad,
            bias: AlignedVec::try_new(out_pad)?,
            rows: AlignedVec::try_new(n_out * in_pad)?,
            blocks: AlignedVec::try_new(in_pad * out_pad)?,
        })
    }

    /// Fills the input-major copy from the row-major weights (after loading).
    pub(crate) fn build_blocks(&mut self) {
        let out_pad = self.out_pad;
        for o in 0..self.n_out {
            for i in 0..self.n_in {
                self.blocks[(i / 4) * 4 * out_pad + 4 * o + i % 4] = self.rows[o * self.in_pad + i];
            }
        }
    }

    /// `clamp((b + w . x) >> 6, 0, 127)` for every output, into `out` (`out_pad` bytes; the padded
    /// outputs are 0). `x` holds `in_pad` bytes.
    pub(crate) fn forward_scalar(&self, x: &[u8], out: &mut [u8]) {
        for (o, y) in out[..self.out_pad].iter_mut().enumerate() {
            *y = if o < self.n_out {
                let row = &self.rows[o * self.in_pad..(o + 1) * self.in_pad];
                clip_hidden(dot(self.bias[o], row, &x[..self.in_pad]))
            } else {
                0
            };
        }
    }
}

/// The three affine layers.
pub struct Layers {
    pub(crate) l1: Affine,
    pub(crate) l2: Affine,
    /// The output layer's weights, padded with zeros to a multiple of 32.
    pub(crate) w3: AlignedVec<i8>,
    pub(crate) b3: i32,
}

impl Layers {
    /// Zeroed layers for a `2 ft -> h1 -> h2 -> 1` stack.
    pub(crate) fn zeroed(ft: usize, h1: usize, h2: usize) -> Result<Layers, usize> {
        Ok(Layers {
            l1: Affine::zeroed(2 * ft, h1)?,
            l2: Affine::zeroed(h1, h2)?,
            w3: AlignedVec::try_new(pad32(h2))?,
            b3: 0,
        })
    }

    /// The raw output of the scalar kernels for the clipped transformer output in `scratch`
    /// (its first `2 FT` bytes): the reference every SIMD kernel must match bit for bit.
    pub(crate) fn forward_scalar(&self, scratch: &mut [u8]) -> i32 {
        let (x, rest) = scratch.split_at_mut(self.l1.in_pad);
        let (h1, h2) = rest.split_at_mut(self.l2.in_pad);
        self.l1.forward_scalar(x, h1);
        self.l2.forward_scalar(h1, h2);
        dot(self.b3, &self.w3, &h2[..self.w3.len()])
    }
}

/// Clipped ReLU of the transformer output: `clamp(v, 0, 127)`.
#[inline(always)]
pub(crate) fn clip_acc(v: i16) -> u8 {
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
pub(crate) fn dot(b: i32, w: &[i8], x: &[u8]) -> i32 {
    debug_assert!(w.len() == x.len() && w.len().is_multiple_of(32));
    let mut lanes = [0i32; 32];
    for (wc, xc) in w.chunks_exact(32).zip(x.chunks_exact(32)) {
        for ((l, &w), &x) in lanes.iter_mut().zip(wc).zip(xc) {
            *l += i32::from(i16::from(w) * i16::from(x));
        }
    }
    b.wrapping_add(lanes.iter().sum::<i32>())
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

    #[test]
    fn blocks_are_the_rows_input_major() {
        let mut a = Affine::zeroed(40, 11).unwrap();
        assert_eq!((a.in_pad, a.out_pad), (64, 16));
        for o in 0..11 {
            for i in 0..40 {
                a.rows[o * 64 + i] = (o * 7 + i) as i8;
            }
        }
        a.build_blocks();
        assert_eq!(a.blocks[(37 / 4) * 4 * 16 + 4 * 10 + 37 % 4], (10 * 7 + 37) as i8);
        // Padded outputs and inputs have zero weights.
        assert_eq!(a.blocks[4 * 15], 0);
        assert_eq!(a.blocks[(60 / 4) * 64], 0);
    }
}
