//! Deterministic random nets of any normal shape, byte for byte what
//! `tools/nnue-testnet/gen_testnet.py OUT SEED [OUTPUT_BIAS] [--arch SHAPE]` writes
//! (`docs/nnue-format.md`, "Test nets"). No real net can be redistributed with the engine, so
//! the tests (against YaneuraOu's golden values for these nets) and the benchmarks use them.
//!
//! Every stored parameter in file order takes the next value of splitmix64 over a counter
//! `i = 1, 2, ...` that runs across all blocks: `z = seed + i * 0x9E3779B97F4A7C15`, mixed, then
//! mapped to `lo + z % (hi - lo + 1)` with each block's range. The padding of the `i8` weight rows
//! (stored padded to a multiple of 32 inputs) is written as 0 and draws nothing. `output_bias`,
//! when given, replaces `b3` (which still consumes its draw). The classic shape keeps the ranges
//! of the first test nets; other shapes take hidden weights symmetric about 0 and shrinking with
//! the fan-in, as the script does.

use super::network::VERSION;
use super::sfnn::{self, SfnnShape};
use super::shape::{pad32, Shape};

/// The parameter stream.
struct Draws {
    seed: u64,
    i: u64,
}

impl Draws {
    #[inline(always)]
    fn next(&mut self, lo: i64, hi: i64) -> i64 {
        self.i += 1;
        let z = crate::splitmix::nth(self.seed, self.i);
        lo + (z % (hi - lo + 1) as u64) as i64
    }
}

/// Appends `rows` rows of `used` draws from `lo..=hi`, each padded with zeros to `stored`
/// values, each value as `W` little-endian bytes (`W` = 1, 2 or 4).
fn draw<const W: usize>(
    out: &mut Vec<u8>,
    d: &mut Draws,
    rows: usize,
    (stored, used): (usize, usize),
    (lo, hi): (i64, i64),
) {
    for _ in 0..rows {
        for _ in 0..used {
            // Two's complement, truncated to the field width: little-endian bytes of the i64.
            out.extend_from_slice(&d.next(lo, hi).to_le_bytes()[..W]);
        }
        out.extend(std::iter::repeat_n(0u8, (stored - used) * W));
    }
}

/// The ranges of the two hidden layers' weights for `shape` (see the module docs).
fn hidden_ranges(shape: &Shape) -> ((i64, i64), (i64, i64)) {
    if *shape == Shape::CLASSIC {
        return ((-8, 7), (-16, 15));
    }
    let w1 = ((4.0 * (1024.0 / shape.l1_in() as f64).sqrt()).round() as i64).max(1);
    let w2 = ((16.0 * (32.0 / shape.h1 as f64).sqrt()).round() as i64).max(1);
    ((-w1, w1), (-w2, w2))
}

/// The complete file of the test net `seed` of `shape`, with an optional output bias.
pub fn bytes_of(shape: Shape, seed: u64, output_bias: Option<i32>) -> Vec<u8> {
    let arch = shape.architecture();
    let mut out = Vec::with_capacity(shape.file_bytes());
    let mut d = Draws { seed, i: 0 };
    let (r1, r2) = hidden_ranges(&shape);
    let (ft, h1, h2) = (shape.ft, shape.h1, shape.h2);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&shape.file_hash().to_le_bytes());
    out.extend_from_slice(&(arch.len() as u32).to_le_bytes());
    out.extend_from_slice(arch.as_bytes());
    out.extend_from_slice(&shape.transformer_hash().to_le_bytes());
    draw::<2>(&mut out, &mut d, 1, (ft, ft), (-40, 80)); // ft_bias
    draw::<2>(&mut out, &mut d, shape.features.inputs(), (ft, ft), (-16, 15)); // ft_weight
    out.extend_from_slice(&shape.network_hash().to_le_bytes());
    draw::<4>(&mut out, &mut d, 1, (h1, h1), (-2000, 2000)); // b1
    draw::<1>(&mut out, &mut d, h1, (pad32(2 * ft), 2 * ft), r1); // w1
    draw::<4>(&mut out, &mut d, 1, (h2, h2), (-1500, 1500)); // b2
    draw::<1>(&mut out, &mut d, h2, (pad32(h1), h1), r2); // w2
    let b3 = d.next(-3000, 3000) as i32;
    out.extend_from_slice(&output_bias.unwrap_or(b3).to_le_bytes());
    draw::<1>(&mut out, &mut d, 1, (pad32(h2), h2), (-128, 127)); // w3
    debug_assert_eq!(out.len(), shape.file_bytes());
    out
}

/// The complete file (64,217,066 bytes) of the classic halfkp_256x2-32-32 test net `seed`.
pub fn bytes(seed: u64, output_bias: Option<i32>) -> Vec<u8> {
    bytes_of(Shape::CLASSIC, seed, output_bias)
}

/// The weight range `±max(1, round(scale sqrt(base / fan_in)))` of an SFNN layer.
fn sfnn_range(scale: f64, base: f64, fan_in: usize) -> (i64, i64) {
    let r = ((scale * (base / fan_in as f64).sqrt()).round() as i64).max(1);
    (-r, r)
}

/// The complete file of the SFNN test net `seed` of `shape` (`docs/nnue-format.md`, "Test nets"):
/// the same stream as the other test nets, over the parameters in file order. The transformer's
/// values (as stored, before YaneuraOu doubles them) are written as two LEB128 blocks: biases
/// from [-40, 160], weights from [-16, 15]. Then per layer stack: `fc_0` biases [-4000, 4000] and
/// weights `±round(64 sqrt(128 / FT))`, `fc_1` biases [-3000, 3000] and weights `±round(64
/// sqrt(16 / 2 H1))`, `fc_2` bias [-3000, 3000] and weights [-128, 127]; the padding of the
/// `i8` rows is 0 and draws nothing. The ranges make the transformed features, both activations
/// of `fc_0` and the clipped ReLU of `fc_1` reach both ends of their clamps.
pub fn sfnn_bytes(shape: SfnnShape, seed: u64) -> Vec<u8> {
    let arch = shape.architecture();
    let mut out = Vec::new();
    let mut d = Draws { seed, i: 0 };
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&sfnn::FILE_HASH.to_le_bytes());
    out.extend_from_slice(&(arch.len() as u32).to_le_bytes());
    out.extend_from_slice(arch.as_bytes());
    out.extend_from_slice(&sfnn::TRANSFORMER_HASH.to_le_bytes());
    let ft = shape.ft;
    let bias: Vec<i16> = (0..ft).map(|_| d.next(-40, 160) as i16).collect();
    sfnn::encode_leb128_block(&mut out, bias.into_iter());
    let n = shape.features.inputs() * ft;
    sfnn::encode_leb128_block(&mut out, (0..n).map(|_| d.next(-16, 15) as i16));
    let (o0, h1, h2) = (shape.fc0_out(), shape.h1, shape.h2);
    let (r0, r1) = (sfnn_range(64.0, 128.0, ft), sfnn_range(64.0, 16.0, 2 * h1));
    for _ in 0..shape.buckets.count() {
        out.extend_from_slice(&sfnn::NETWORK_HASH.to_le_bytes());
        draw::<4>(&mut out, &mut d, 1, (o0, o0), (-4000, 4000));
        draw::<1>(&mut out, &mut d, o0, (pad32(ft), ft), r0);
        draw::<4>(&mut out, &mut d, 1, (h2, h2), (-3000, 3000));
        draw::<1>(&mut out, &mut d, h2, (pad32(2 * h1), 2 * h1), r1);
        draw::<4>(&mut out, &mut d, 1, (1, 1), (-3000, 3000));
        draw::<1>(&mut out, &mut d, 1, (pad32(h2), h2), (-128, 127));
    }
    out
}
