//! Deterministic random halfKP_256x2-32-32 nets, byte for byte what
//! `tools/nnue-testnet/gen_testnet.py OUT SEED [OUTPUT_BIAS]` writes (`docs/nnue-format.md`,
//! "Test nets"). No real net can be redistributed with the engine, so the tests (against
//! YaneuraOu's golden values for these nets) and the benchmarks use them.
//!
//! Every parameter in file order takes the next value of splitmix64 over a counter `i = 1, 2, ...`
//! that runs across all blocks: `z = seed + i * 0x9E3779B97F4A7C15`, mixed, then mapped to
//! `lo + z % (hi - lo + 1)` with each block's range. `output_bias`, when given, replaces `b3`
//! (which still consumes its draw).

use super::layers::{HIDDEN, L1_IN};
use super::network::{ARCHITECTURE, CLASSIC_FILE_BYTES, FILE_HASH, VERSION};
use super::network::{NETWORK_HASH, TRANSFORMER_HASH};
use super::{FT_OUT, NUM_FEATURES};

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

/// Appends `n` draws from `lo..=hi`, each as `W` little-endian bytes (`W` = 1, 2 or 4).
fn draw<const W: usize>(out: &mut Vec<u8>, d: &mut Draws, n: usize, lo: i64, hi: i64) {
    for _ in 0..n {
        // Two's complement, truncated to the field width: little-endian bytes of the i64.
        out.extend_from_slice(&d.next(lo, hi).to_le_bytes()[..W]);
    }
}

/// The complete file (64,217,066 bytes) of the test net `seed` with an optional output bias.
pub fn bytes(seed: u64, output_bias: Option<i32>) -> Vec<u8> {
    let mut out = Vec::with_capacity(CLASSIC_FILE_BYTES);
    let mut d = Draws { seed, i: 0 };
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&FILE_HASH.to_le_bytes());
    out.extend_from_slice(&(ARCHITECTURE.len() as u32).to_le_bytes());
    out.extend_from_slice(ARCHITECTURE.as_bytes());
    out.extend_from_slice(&TRANSFORMER_HASH.to_le_bytes());
    draw::<2>(&mut out, &mut d, FT_OUT, -40, 80); // ft_bias
    draw::<2>(&mut out, &mut d, NUM_FEATURES * FT_OUT, -16, 15); // ft_weight
    out.extend_from_slice(&NETWORK_HASH.to_le_bytes());
    draw::<4>(&mut out, &mut d, HIDDEN, -2000, 2000); // b1
    draw::<1>(&mut out, &mut d, HIDDEN * L1_IN, -8, 7); // w1
    draw::<4>(&mut out, &mut d, HIDDEN, -1500, 1500); // b2
    draw::<1>(&mut out, &mut d, HIDDEN * HIDDEN, -16, 15); // w2
    let b3 = d.next(-3000, 3000) as i32;
    out.extend_from_slice(&output_bias.unwrap_or(b3).to_le_bytes());
    draw::<1>(&mut out, &mut d, HIDDEN, -128, 127); // w3
    debug_assert_eq!(out.len(), CLASSIC_FILE_BYTES);
    out
}
