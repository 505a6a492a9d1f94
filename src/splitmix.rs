//! splitmix64, the one small generator of the crate: it fixes the Zobrist keys at compile time,
//! seeds the self-play openings and the test net, and draws the random positions of the tests
//! and benches. A fixed seed gives the same numbers on every build (and with them the same
//! `bench` node counts). It imports nothing, so any module may use it.

/// The generator's increment (2^64 / golden ratio).
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// The output function: spreads nearby inputs over all 64 bits.
#[inline]
pub const fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The state after `state`, and the number it yields (a `const fn`, for compile-time tables).
#[inline]
pub const fn step(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(GAMMA);
    (s, mix(s))
}

/// Advances `state` and returns the next number.
#[inline]
pub fn next(state: &mut u64) -> u64 {
    let (s, z) = step(*state);
    *state = s;
    z
}

/// The `i`-th number of the stream seeded `seed` (`i` = 1 is the first), without its
/// predecessors: `seed + i * GAMMA` is the state `next` reaches after `i` steps.
#[inline]
pub const fn nth(seed: u64, i: u64) -> u64 {
    mix(seed.wrapping_add(i.wrapping_mul(GAMMA)))
}
