//! The one switch between the SIMD kernels and their scalar twins, and the SIMD kernels.
//!
//! Five kernel sets compute bit-identical results:
//! - scalar: plain Rust, the reference (and what other targets and `--features portable` use);
//! - `avx2`: 256-bit accumulator updates in two passes of 8 registers; the hidden layers
//!   input-major (see `Layers`): four input bytes broadcast against a block of 32 outputs x 4
//!   weights, with `maddubs` + `madd`, so the sums build up in place with no horizontal reduction;
//! - `avxvnni` (AVX2 plus AVX-VNNI: Intel Alder Lake and later cores without AVX-512): the same,
//!   with one `vpdpbusd` per block step;
//! - `avx512` (AVX-512 F/BW plus VNNI): the whole accumulator in 8 registers, one pass per
//!   update; the hidden layers with 512-bit `vpdpbusd`;
//! - `simd128` (WebAssembly, built with `-C target-feature=+simd128`): 128-bit accumulator updates
//!   in four passes of 8 vectors; the hidden layers input-major like the x86 sets, with the
//!   weights widened to `i16` as they load and `i32x4.dot_i16x8` (two products per `i32` lane).
//!
//! Measured on one Sapphire Rapids core (`benches/nnue.rs`), forward pass / incremental evaluation
//! relative to AVX2: `avxvnni` 1.4x / 1.4x, `avx512` 1.8x / 1.5x, so both earn their place.
//! `simd128` under Node 20 (V8) on one AMD EPYC core: 20x / 16x a WebAssembly build without
//! SIMD128, 6.5x / 4.9x the scalar twin in the same build (which LLVM vectorises with SIMD128
//! too), and a quarter / a third of the speed of native AVX2 on that core.
//!
//! [`Simd`] is chosen once (by [`Simd::detect`], when an [`NnueState`](super::NnueState) is built)
//! and then every hot loop dispatches on it with one predictable branch. On x86-64 detection
//! happens at run time, so the default build (`x86-64` baseline, no `-C target-cpu`) uses the best
//! kernels the CPU has. WebAssembly has no run-time detection: SIMD128 is chosen when the module
//! is compiled, and a build with it always uses it (an engine without SIMD128 cannot load it).
//! [`Simd::SCALAR`] forces the scalar twin (the tests run every available set and demand
//! identical results); the crate feature `portable` compiles the SIMD kernels out entirely.
//!
//! Soundness: an x86 SIMD `Simd` value can only be made by [`Simd::avx2`], [`Simd::avx_vnni`] or
//! [`Simd::avx512`], which check the CPU first (the inner enum is private), so holding one
//! proves that the matching `#[target_feature]` kernels may be called. The SIMD128 kernels are
//! safe functions (the feature is part of the build); their only `unsafe` is vector loads and
//! stores of whole fixed-size arrays.
//!
//! Exactness: the transformer sums use wrapping 16-bit adds exactly like the scalar
//! `wrapping_add`. The AVX2 block step uses `maddubs` (u8 x i8 pairs summed into i16, saturating),
//! whose pair sums are at most 2 * 127 * 128 = 32512 in magnitude because the inputs are clipped
//! to 0..=127, so it never saturates; `vpdpbusd` sums four products straight into i32 without
//! saturation. SIMD128 widens both factors to `i16` first, and `i32x4.dot_i16x8` sums two
//! products (each at most 255 * 128 in magnitude) straight into `i32`: nothing saturates, and no
//! bound on the inputs is needed. The hidden-layer clip uses saturating packs / narrowing, which
//! clamp exactly like `clamp(0, 127)` (SIMD128: `i32` to `i16` to `i8`, signed, then `max 0`).

use super::layers::{propagate_scalar, Layers};
use super::network::Network;
use super::FT_OUT;

/// Which implementation of the hot loops an evaluator uses. See the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Simd(Kind);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Scalar,
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    Avx2,
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    AvxVnni,
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    Avx512,
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128", not(feature = "portable")))]
    Simd128,
}

impl Simd {
    /// The portable scalar kernels, available everywhere.
    pub const SCALAR: Simd = Simd(Kind::Scalar);

    /// The best kernels this CPU (and this build) supports: on x86-64 AVX-512 with VNNI, else
    /// AVX2 with AVX-VNNI, else AVX2; on WebAssembly SIMD128 when the build has it; else scalar
    /// (always scalar under the `portable` feature).
    pub fn detect() -> Simd {
        Simd::avx512()
            .or_else(Simd::avx_vnni)
            .or_else(Simd::avx2)
            .or_else(Simd::simd128)
            .unwrap_or(Simd::SCALAR)
    }

    /// Every kernel set this CPU and build can run, best first (the tests prove each).
    pub fn available() -> Vec<Simd> {
        [Simd::avx512(), Simd::avx_vnni(), Simd::avx2(), Simd::simd128(), Some(Simd::SCALAR)]
            .into_iter()
            .flatten()
            .collect()
    }

    /// The AVX2 kernels with AVX-VNNI dot products (Intel Alder Lake and later cores without
    /// AVX-512), if this build has them and the CPU supports AVX2 and AVX-VNNI.
    pub fn avx_vnni() -> Option<Simd> {
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("avxvnni") {
            return Some(Simd(Kind::AvxVnni));
        }
        None
    }

    /// The AVX-512 kernels (512-bit accumulator updates, VNNI dot products), if this build has
    /// them and the CPU supports AVX2, AVX-512 F and BW, and AVX-512 VNNI.
    pub fn avx512() -> Option<Simd> {
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        if std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vnni")
        {
            return Some(Simd(Kind::Avx512));
        }
        None
    }

    /// The AVX2 kernels, if this build has them and the CPU supports AVX2.
    pub fn avx2() -> Option<Simd> {
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Some(Simd(Kind::Avx2));
        }
        None
    }

    /// The WebAssembly SIMD128 kernels, if this build has them (`-C target-feature=+simd128`).
    /// WebAssembly has no run-time detection: an engine without SIMD128 refuses to load a module
    /// that uses it, so a running build with the kernels can always use them.
    pub fn simd128() -> Option<Simd> {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128", not(feature = "portable")))]
        {
            Some(Simd(Kind::Simd128))
        }
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128", not(feature = "portable"))))]
        {
            None
        }
    }

    /// A short name for diagnostics (`avx512`, `avxvnni`, `avx2`, `simd128` or `scalar`).
    pub fn name(self) -> &'static str {
        match self.0 {
            Kind::Scalar => "scalar",
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            Kind::Avx2 => "avx2",
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            Kind::AvxVnni => "avxvnni",
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            Kind::Avx512 => "avx512",
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128", not(feature = "portable")))]
            Kind::Simd128 => "simd128",
        }
    }

    /// `out = prev - sum of rows(removed) + sum of rows(added)`, wrapping `i16`. A refresh is
    /// `update(bias, out, &[], features)`.
    #[inline]
    pub(crate) fn update(
        self,
        net: &Network,
        prev: &[i16; FT_OUT],
        out: &mut [i16; FT_OUT],
        removed: &[u32],
        added: &[u32],
    ) {
        match self.0 {
            Kind::Scalar => update_scalar(net, prev, out, removed, added),
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            // SAFETY: a `Kind::Avx2` value exists only if `Simd::avx2` detected AVX2.
            Kind::Avx2 => unsafe { avx2::update(net, prev, out, removed, added) },
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            // SAFETY: a `Kind::AvxVnni` value exists only if `Simd::avx_vnni` detected AVX2 (and
            // AVX-VNNI, which the update does not need).
            Kind::AvxVnni => unsafe { avx2::update(net, prev, out, removed, added) },
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            // SAFETY: a `Kind::Avx512` value exists only if `Simd::avx512` detected its features.
            Kind::Avx512 => unsafe { avx512::update(net, prev, out, removed, added) },
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128", not(feature = "portable")))]
            Kind::Simd128 => simd128::update(net, prev, out, removed, added),
        }
    }

    /// The raw network output for the side to move's accumulator `us` and the other's `them`.
    #[inline]
    pub(crate) fn propagate(self, l: &Layers, us: &[i16; FT_OUT], them: &[i16; FT_OUT]) -> i32 {
        match self.0 {
            Kind::Scalar => propagate_scalar(l, us, them),
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            // SAFETY: a `Kind::Avx2` value exists only if `Simd::avx2` detected AVX2.
            Kind::Avx2 => unsafe { avx2::propagate(l, us, them) },
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            // SAFETY: a `Kind::AvxVnni` value exists only if `Simd::avx_vnni` detected AVX2 and
            // AVX-VNNI.
            Kind::AvxVnni => unsafe { avx2::propagate_vnni(l, us, them) },
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            // SAFETY: a `Kind::Avx512` value exists only if `Simd::avx512` detected its features.
            Kind::Avx512 => unsafe { avx512::propagate(l, us, them) },
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128", not(feature = "portable")))]
            Kind::Simd128 => simd128::propagate(l, us, them),
        }
    }
}

/// Asks the CPU to start loading transformer row `f` into the cache (a hint: `crate::prefetch`):
/// made when a move is made, the row is there by the time the lazy update needs it.
#[inline(always)]
pub(crate) fn prefetch_row(net: &Network, f: u32) {
    crate::prefetch::prefetch(net.row(f));
}

/// Scalar twin of the accumulator update.
fn update_scalar(
    net: &Network,
    prev: &[i16; FT_OUT],
    out: &mut [i16; FT_OUT],
    removed: &[u32],
    added: &[u32],
) {
    *out = *prev;
    for &f in removed {
        for (o, &w) in out.iter_mut().zip(net.row(f)) {
            *o = o.wrapping_sub(w);
        }
    }
    for &f in added {
        for (o, &w) in out.iter_mut().zip(net.row(f)) {
            *o = o.wrapping_add(w);
        }
    }
}

#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
mod avx2 {
    #![allow(clippy::undocumented_unsafe_blocks)]
    // SIMD module banner: every function here is `#[target_feature(enable = "avx2")]` (the VNNI
    // ones add "avxvnni") and is only reached through `Simd`, whose AVX2 and AVX-VNNI values prove
    // the CPU has those features (see the module docs above). Every pointer access reads or
    // writes whole vectors strictly inside the fixed-size arrays it is derived from (the bounds
    // are the array lengths, checked by the loop limits and the `const` assertions below);
    // unaligned loads and stores are used throughout, so no alignment assumption is needed for
    // soundness.

    use super::super::layers::{Layers, BLOCK, HIDDEN, L1_IN};
    use super::super::network::Network;
    use super::super::FT_OUT;
    use std::arch::x86_64::*;

    /// Accumulator lanes per register.
    const LANES: usize = 16;
    /// Registers held per pass over the accumulator: 8 x 16 = 128 lanes, two passes per 256.
    const REGS: usize = 8;
    const _: () = assert!(FT_OUT.is_multiple_of(LANES * REGS));
    const _: () = assert!(L1_IN.is_multiple_of(32) && HIDDEN == 32 && BLOCK == 128);

    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn update(
        net: &Network,
        prev: &[i16; FT_OUT],
        out: &mut [i16; FT_OUT],
        removed: &[u32],
        added: &[u32],
    ) {
        for pass in 0..FT_OUT / (LANES * REGS) {
            let base = pass * LANES * REGS;
            let mut r = [_mm256_setzero_si256(); REGS];
            for (i, v) in r.iter_mut().enumerate() {
                *v = _mm256_loadu_si256(prev.as_ptr().add(base + i * LANES).cast());
            }
            for &f in removed {
                let row = net.row(f);
                for (i, v) in r.iter_mut().enumerate() {
                    let w = _mm256_loadu_si256(row.as_ptr().add(base + i * LANES).cast());
                    *v = _mm256_sub_epi16(*v, w);
                }
            }
            for &f in added {
                let row = net.row(f);
                for (i, v) in r.iter_mut().enumerate() {
                    let w = _mm256_loadu_si256(row.as_ptr().add(base + i * LANES).cast());
                    *v = _mm256_add_epi16(*v, w);
                }
            }
            for (i, v) in r.iter().enumerate() {
                _mm256_storeu_si256(out.as_mut_ptr().add(base + i * LANES).cast(), *v);
            }
        }
    }

    /// `clamp(acc, 0, 127)` as 256 bytes.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn clip_acc(acc: &[i16; FT_OUT], out: &mut [u8]) {
        debug_assert_eq!(out.len(), FT_OUT);
        let zero = _mm256_setzero_si256();
        for c in 0..FT_OUT / 32 {
            let a = _mm256_loadu_si256(acc.as_ptr().add(32 * c).cast());
            let b = _mm256_loadu_si256(acc.as_ptr().add(32 * c + 16).cast());
            // Per 128-bit lane: a0..7 b0..7 | a8..15 b8..15, saturated to -128..=127; `max 0`
            // completes the clamp, and the 64-bit permute restores a0..15 b0..15.
            let p = _mm256_max_epi8(_mm256_packs_epi16(a, b), zero);
            let p = _mm256_permute4x64_epi64::<0b11_01_10_00>(p);
            _mm256_storeu_si256(out.as_mut_ptr().add(32 * c).cast(), p);
        }
    }

    /// One block step without VNNI: `acc + (x . w)` per `i32` lane, each lane the dot product of
    /// four input bytes with four weights (`maddubs` pairs them into `i16`, `madd` sums the pairs).
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn dot_maddubs(acc: __m256i, x: __m256i, w: __m256i) -> __m256i {
        let p = _mm256_madd_epi16(_mm256_maddubs_epi16(x, w), _mm256_set1_epi16(1));
        _mm256_add_epi32(acc, p)
    }

    /// The same block step in one AVX-VNNI instruction.
    #[inline]
    #[target_feature(enable = "avx2,avxvnni")]
    unsafe fn dot_vnni(acc: __m256i, x: __m256i, w: __m256i) -> __m256i {
        _mm256_dpbusd_avx_epi32(acc, x, w)
    }

    /// Defines a hidden-layer kernel and a forward pass on top of a block step (`dot_maddubs` or
    /// `dot_vnni`), enabling `$features` on both so that the step inlines.
    macro_rules! forward_pass {
        ($affine:ident, $propagate:ident, $dot:ident, $features:literal) => {
            /// `clamp((b + w . x) >> 6, 0, 127)` for the 32 outputs from input-major `blocks`
            /// (one per four inputs; see `Layers`), as 32 bytes in output order.
            #[inline]
            #[target_feature(enable = $features)]
            unsafe fn $affine(b: &[i32; HIDDEN], blocks: &[[i8; BLOCK]], x: &[u8]) -> __m256i {
                debug_assert!(x.len() == 4 * blocks.len() && blocks.len().is_multiple_of(2));
                // acc[k][q]: outputs 8q .. 8q + 8, from the blocks c with c % 2 == k (two
                // independent chains per output group hide the step's latency).
                let mut acc = [[_mm256_setzero_si256(); 4]; 2];
                for c2 in (0..blocks.len()).step_by(2) {
                    for (k, acc) in acc.iter_mut().enumerate() {
                        let c = c2 + k;
                        let four = x.as_ptr().add(4 * c).cast::<i32>().read_unaligned();
                        let xv = _mm256_set1_epi32(four);
                        for (q, a) in acc.iter_mut().enumerate() {
                            let w = _mm256_loadu_si256(blocks[c].as_ptr().add(32 * q).cast());
                            *a = $dot(*a, xv, w);
                        }
                    }
                }
                let mut v = [_mm256_setzero_si256(); 4];
                for (q, vq) in v.iter_mut().enumerate() {
                    let bias = _mm256_loadu_si256(b.as_ptr().add(8 * q).cast());
                    let s = _mm256_add_epi32(_mm256_add_epi32(acc[0][q], acc[1][q]), bias);
                    *vq = _mm256_srai_epi32::<6>(s);
                }
                // Saturating packs clamp to -128..=127 and `max 0` finishes the clip. Per 128-bit
                // lane the packs leave the 32-bit groups in the order o0-3 o8-11 o16-19 o24-27 |
                // o4-7 o12-15 o20-23 o28-31; the final permute puts them back in output order.
                let a = _mm256_packs_epi32(v[0], v[1]);
                let c = _mm256_packs_epi32(v[2], v[3]);
                let p = _mm256_max_epi8(_mm256_packs_epi16(a, c), _mm256_setzero_si256());
                _mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7))
            }

            #[target_feature(enable = $features)]
            pub(super) unsafe fn $propagate(l: &Layers, us: &[i16; FT_OUT], them: &[i16; FT_OUT]) -> i32 {
                let mut x = [0u8; L1_IN];
                clip_acc(us, &mut x[..FT_OUT]);
                clip_acc(them, &mut x[FT_OUT..]);
                let mut h1 = [0u8; HIDDEN];
                let v1 = $affine(&l.b1, &l.w1_blocks, &x);
                _mm256_storeu_si256(h1.as_mut_ptr().cast(), v1);
                let h2 = $affine(&l.b2, &l.w2_blocks, &h1);
                output(l, h2)
            }
        };
    }

    forward_pass!(affine_clip, propagate, dot_maddubs, "avx2");
    forward_pass!(affine_clip_vnni, propagate_vnni, dot_vnni, "avx2,avxvnni");

    /// `b3 + w3 . h2` for the 32 bytes of `h2`.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn output(l: &Layers, h2: __m256i) -> i32 {
        let w3 = _mm256_loadu_si256(l.w3.as_ptr().cast());
        let s = _mm256_madd_epi16(_mm256_maddubs_epi16(h2, w3), _mm256_set1_epi16(1));
        let t = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256::<1>(s));
        let t = _mm_add_epi32(t, _mm_shuffle_epi32::<0b01_00_11_10>(t));
        let t = _mm_add_epi32(t, _mm_shuffle_epi32::<0b10_11_00_01>(t));
        l.b3 + _mm_cvtsi128_si32(t)
    }
}

#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
mod avx512 {
    #![allow(clippy::undocumented_unsafe_blocks)]
    // SIMD module banner: every function here enables AVX2, AVX-512 F/BW and AVX-512 VNNI and is
    // only reached through `Simd`, whose AVX-512 value proves the CPU has all of them (see the
    // module docs above). As in `avx2`, every pointer access covers whole vectors strictly inside
    // the fixed-size arrays it is derived from, with unaligned loads and stores.

    use super::super::layers::{Layers, BLOCK, HIDDEN, L1_IN};
    use super::super::network::Network;
    use super::super::FT_OUT;
    use std::arch::x86_64::*;

    /// Accumulator lanes per register; the whole 256-lane accumulator fits in 8 registers.
    const LANES: usize = 32;
    const REGS: usize = FT_OUT / LANES;
    const _: () = assert!(REGS == 8 && BLOCK == 128 && HIDDEN == 32);

    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn update(
        net: &Network,
        prev: &[i16; FT_OUT],
        out: &mut [i16; FT_OUT],
        removed: &[u32],
        added: &[u32],
    ) {
        let mut r = [_mm512_setzero_si512(); REGS];
        for (i, v) in r.iter_mut().enumerate() {
            *v = _mm512_loadu_si512(prev.as_ptr().add(i * LANES).cast());
        }
        for &f in removed {
            let row = net.row(f);
            for (i, v) in r.iter_mut().enumerate() {
                let w = _mm512_loadu_si512(row.as_ptr().add(i * LANES).cast());
                *v = _mm512_sub_epi16(*v, w);
            }
        }
        for &f in added {
            let row = net.row(f);
            for (i, v) in r.iter_mut().enumerate() {
                let w = _mm512_loadu_si512(row.as_ptr().add(i * LANES).cast());
                *v = _mm512_add_epi16(*v, w);
            }
        }
        for (i, v) in r.iter().enumerate() {
            _mm512_storeu_si512(out.as_mut_ptr().add(i * LANES).cast(), *v);
        }
    }

    /// `clamp(acc, 0, 127)` as 256 bytes.
    #[inline]
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vnni")]
    unsafe fn clip_acc(acc: &[i16; FT_OUT], out: &mut [u8]) {
        debug_assert_eq!(out.len(), FT_OUT);
        let zero = _mm512_setzero_si512();
        // Per 128-bit lane the pack leaves a0..7 b0..7 | a8..15 b8..15 | ...; gather the 64-bit
        // halves back into a0..31 b0..31.
        let order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
        for c in 0..FT_OUT / 64 {
            let a = _mm512_loadu_si512(acc.as_ptr().add(64 * c).cast());
            let b = _mm512_loadu_si512(acc.as_ptr().add(64 * c + 32).cast());
            let p = _mm512_max_epi8(_mm512_packs_epi16(a, b), zero);
            let p = _mm512_permutexvar_epi64(order, p);
            _mm512_storeu_si512(out.as_mut_ptr().add(64 * c).cast(), p);
        }
    }

    /// `clamp((b + w . x) >> 6, 0, 127)` for the 32 outputs from input-major `blocks` (one per
    /// four inputs; see `Layers`), as 32 bytes in output order.
    #[inline]
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vnni")]
    unsafe fn affine_clip(b: &[i32; HIDDEN], blocks: &[[i8; BLOCK]], x: &[u8]) -> __m256i {
        debug_assert!(x.len() == 4 * blocks.len() && blocks.len().is_multiple_of(4));
        // Four interleaved pairs of accumulators (outputs 0..16 and 16..32) hide the latency of
        // the dependent dot-product instructions.
        let mut lo = [_mm512_setzero_si512(); 4];
        let mut hi = [_mm512_setzero_si512(); 4];
        for c4 in (0..blocks.len()).step_by(4) {
            for k in 0..4 {
                let c = c4 + k;
                let xv = _mm512_set1_epi32(x.as_ptr().add(4 * c).cast::<i32>().read_unaligned());
                let w = blocks[c].as_ptr();
                lo[k] = _mm512_dpbusd_epi32(lo[k], xv, _mm512_loadu_si512(w.cast()));
                hi[k] = _mm512_dpbusd_epi32(hi[k], xv, _mm512_loadu_si512(w.add(64).cast()));
            }
        }
        let sum =
            |v: [__m512i; 4]| _mm512_add_epi32(_mm512_add_epi32(v[0], v[1]), _mm512_add_epi32(v[2], v[3]));
        let lo = _mm512_add_epi32(sum(lo), _mm512_loadu_si512(b.as_ptr().cast()));
        let hi = _mm512_add_epi32(sum(hi), _mm512_loadu_si512(b.as_ptr().add(16).cast()));
        // Signed saturation to i8 then `max 0`: exactly `clamp(v >> 6, 0, 127)`.
        let lo = _mm512_cvtsepi32_epi8(_mm512_srai_epi32::<6>(lo));
        let hi = _mm512_cvtsepi32_epi8(_mm512_srai_epi32::<6>(hi));
        _mm256_max_epi8(_mm256_set_m128i(hi, lo), _mm256_setzero_si256())
    }

    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn propagate(l: &Layers, us: &[i16; FT_OUT], them: &[i16; FT_OUT]) -> i32 {
        let mut x = [0u8; L1_IN];
        clip_acc(us, &mut x[..FT_OUT]);
        clip_acc(them, &mut x[FT_OUT..]);
        let mut h1 = [0u8; HIDDEN];
        _mm256_storeu_si256(h1.as_mut_ptr().cast(), affine_clip(&l.b1, &l.w1_blocks, &x));
        let h2 = affine_clip(&l.b2, &l.w2_blocks, &h1);
        super::avx2::output(l, h2)
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128", not(feature = "portable")))]
mod simd128 {
    // WebAssembly SIMD128. The feature is fixed when the module is compiled (an engine without
    // SIMD cannot even load a module that uses it), so these kernels are safe functions. Every
    // vector load and store goes through the helpers below, which take references to whole
    // fixed-size arrays: the only `unsafe` is theirs, and each covers exactly the array it is given.
    // Views of the big arrays as such pieces come from `as_chunks`, so the loop limits are the
    // array lengths. WebAssembly loads and stores need no alignment.

    use super::super::layers::{Layers, BLOCK, HIDDEN, L1_IN, WEIGHT_SHIFT};
    use super::super::network::Network;
    use super::super::FT_OUT;
    use core::arch::wasm32::*;

    /// Accumulator lanes per vector.
    const LANES: usize = 8;
    /// Vectors held per pass over the accumulator: 8 x 8 = 64 lanes, four passes per 256 (V8 on
    /// x86-64 has 16 vector registers; all 32 vectors at once would spill).
    const REGS: usize = 8;
    const _: () = assert!(FT_OUT.is_multiple_of(LANES * REGS));
    const _: () = assert!(L1_IN.is_multiple_of(16) && HIDDEN == 32 && BLOCK == 128);

    #[inline(always)]
    fn load_i16(a: &[i16; 8]) -> v128 {
        // SAFETY: `a` is 16 readable bytes; the load has no alignment requirement.
        unsafe { v128_load(a.as_ptr().cast()) }
    }

    #[inline(always)]
    fn store_i16(a: &mut [i16; 8], v: v128) {
        // SAFETY: `a` is 16 writable bytes, borrowed exclusively; no alignment requirement.
        unsafe { v128_store(a.as_mut_ptr().cast(), v) }
    }

    #[inline(always)]
    fn store_u8(a: &mut [u8; 16], v: v128) {
        // SAFETY: `a` is 16 writable bytes, borrowed exclusively; no alignment requirement.
        unsafe { v128_store(a.as_mut_ptr().cast(), v) }
    }

    #[inline(always)]
    fn load_i32(a: &[i32; 4]) -> v128 {
        // SAFETY: `a` is 16 readable bytes; the load has no alignment requirement.
        unsafe { v128_load(a.as_ptr().cast()) }
    }

    /// Eight `i8` widened to eight `i16` lanes (one `v128.load8x8_s`).
    #[inline(always)]
    fn widen_i8(a: &[i8; 8]) -> v128 {
        // SAFETY: `a` is 8 readable bytes, exactly what the load reads; no alignment requirement.
        unsafe { i16x8_load_extend_i8x8(a.as_ptr()) }
    }

    /// Eight `u8` widened to eight `i16` lanes (one `v128.load8x8_u`).
    #[inline(always)]
    fn widen_u8(a: &[u8; 8]) -> v128 {
        // SAFETY: `a` is 8 readable bytes, exactly what the load reads; no alignment requirement.
        unsafe { u16x8_load_extend_u8x8(a.as_ptr()) }
    }

    pub(super) fn update(
        net: &Network,
        prev: &[i16; FT_OUT],
        out: &mut [i16; FT_OUT],
        removed: &[u32],
        added: &[u32],
    ) {
        let prev = prev.as_chunks::<LANES>().0;
        let out = out.as_chunks_mut::<LANES>().0;
        for pass in 0..FT_OUT / (LANES * REGS) {
            let lanes = pass * REGS..(pass + 1) * REGS;
            let mut r = [i16x8_splat(0); REGS];
            for (v, p) in r.iter_mut().zip(&prev[lanes.clone()]) {
                *v = load_i16(p);
            }
            for &f in removed {
                for (v, w) in r.iter_mut().zip(&net.row(f).as_chunks::<LANES>().0[lanes.clone()]) {
                    *v = i16x8_sub(*v, load_i16(w));
                }
            }
            for &f in added {
                for (v, w) in r.iter_mut().zip(&net.row(f).as_chunks::<LANES>().0[lanes.clone()]) {
                    *v = i16x8_add(*v, load_i16(w));
                }
            }
            for (v, o) in r.iter().zip(&mut out[lanes]) {
                store_i16(o, *v);
            }
        }
    }

    /// `clamp(acc, 0, 127)` as bytes into `out` (`FT_OUT` of them).
    #[inline(always)]
    fn clip_acc(acc: &[i16; FT_OUT], out: &mut [u8]) {
        debug_assert_eq!(out.len(), FT_OUT);
        let zero = i8x16_splat(0);
        for (o, ab) in out.as_chunks_mut::<16>().0.iter_mut().zip(acc.as_chunks::<8>().0.chunks_exact(2)) {
            // The narrowing saturates to -128..=127 and keeps the lanes in order; `max 0`
            // completes the clamp.
            let p = i8x16_narrow_i16x8(load_i16(&ab[0]), load_i16(&ab[1]));
            store_u8(o, i8x16_max(p, zero));
        }
    }

    /// `clamp((b + w . x) >> 6, 0, 127)` for the 32 outputs from input-major `blocks` (one per
    /// four inputs; see `Layers`), into `out` in output order.
    ///
    /// Per block, the four input bytes are broadcast and widened to `x0 x1 x2 x3 x0 x1 x2 x3`;
    /// each 8 weight bytes (two outputs' four weights) are widened to `i16` and `i32x4.dot` makes
    /// four pair sums, two per output. Outputs 0..16 and 16..32 take one pass over the blocks
    /// each (8 accumulators); the pair sums are added at the end.
    #[inline(always)]
    fn affine_clip(b: &[i32; HIDDEN], blocks: &[[i8; BLOCK]], x: &[u8], out: &mut [u8; HIDDEN]) {
        let x4 = x.as_chunks::<4>().0;
        debug_assert!(x.len() == 4 * blocks.len() && x4.len() == blocks.len());
        let bias = b.as_chunks::<4>().0;
        for (half, o) in out.as_chunks_mut::<16>().0.iter_mut().enumerate() {
            // acc[j]: outputs 16 half + 2j (lanes 0, 1) and 16 half + 2j + 1 (lanes 2, 3).
            let mut acc = [i32x4_splat(0); 8];
            for (block, four) in blocks.iter().zip(x4) {
                let xv = u16x8_extend_low_u8x16(i32x4_splat(i32::from_le_bytes(*four)));
                let w = &block.as_chunks::<8>().0[8 * half..8 * half + 8];
                for (a, w) in acc.iter_mut().zip(w) {
                    *a = i32x4_add(*a, i32x4_dot_i16x8(widen_i8(w), xv));
                }
            }
            let mut v = [i32x4_splat(0); 4];
            for (q, vq) in v.iter_mut().enumerate() {
                // Even lanes plus odd lanes of two accumulators: outputs 4q .. 4q + 4 in order.
                let (lo, hi) = (acc[2 * q], acc[2 * q + 1]);
                let s = i32x4_add(i32x4_shuffle::<0, 2, 4, 6>(lo, hi), i32x4_shuffle::<1, 3, 5, 7>(lo, hi));
                *vq = i32x4_shr(i32x4_add(s, load_i32(&bias[4 * half + q])), WEIGHT_SHIFT);
            }
            // Signed saturating narrowing twice, then `max 0`: exactly `clamp(v >> 6, 0, 127)`.
            let p = i8x16_narrow_i16x8(i16x8_narrow_i32x4(v[0], v[1]), i16x8_narrow_i32x4(v[2], v[3]));
            store_u8(o, i8x16_max(p, i8x16_splat(0)));
        }
    }

    /// `b3 + w3 . h2`.
    #[inline(always)]
    fn output(l: &Layers, h2: &[u8; HIDDEN]) -> i32 {
        let mut s = i32x4_splat(0);
        for (h, w) in h2.as_chunks::<8>().0.iter().zip(l.w3.as_chunks::<8>().0) {
            s = i32x4_add(s, i32x4_dot_i16x8(widen_u8(h), widen_i8(w)));
        }
        let s = i32x4_add(s, i32x4_shuffle::<2, 3, 0, 1>(s, s));
        let s = i32x4_add(s, i32x4_shuffle::<1, 0, 3, 2>(s, s));
        l.b3.wrapping_add(i32x4_extract_lane::<0>(s))
    }

    pub(super) fn propagate(l: &Layers, us: &[i16; FT_OUT], them: &[i16; FT_OUT]) -> i32 {
        let mut x = [0u8; L1_IN];
        let (xu, xt) = x.split_at_mut(FT_OUT);
        clip_acc(us, xu);
        clip_acc(them, xt);
        let mut h1 = [0u8; HIDDEN];
        affine_clip(&l.b1, &l.w1_blocks, &x, &mut h1);
        let mut h2 = [0u8; HIDDEN];
        affine_clip(&l.b2, &l.w2_blocks, &h1, &mut h2);
        output(l, &h2)
    }
}

#[cfg(test)]
mod tests {
    use super::super::network::Row;
    use super::super::{evaluate_full_with, testnet, NnueState};
    use super::*;
    use crate::position::{MoveList, Position};
    use crate::splitmix::next as rand;
    use std::sync::Arc;

    /// Transformer rows of the test nets (the features of the tests index them).
    const ROWS: u32 = 64;

    fn pick(rng: &mut u64, lo: i32, hi: i32) -> i32 {
        lo + (rand(rng) % (hi - lo + 1) as u64) as i32
    }

    /// An `i16` that is often at an edge of the clip or of the wrap-around.
    fn edgy(rng: &mut u64) -> i16 {
        const EDGES: [i16; 14] =
            [i16::MIN, i16::MIN + 1, -129, -128, -1, 0, 1, 126, 127, 128, 255, 256, 32766, 32767];
        match rand(rng) % 4 {
            0 => EDGES[(rand(rng) % EDGES.len() as u64) as usize],
            1 => pick(rng, -300, 300) as i16,
            _ => rand(rng) as i16,
        }
    }

    fn edgy_acc(rng: &mut u64) -> [i16; FT_OUT] {
        std::array::from_fn(|_| edgy(rng))
    }

    /// A net with edgy transformer rows, hidden weights in `-w..=w` (at most the `i8` range) and
    /// hidden biases in `-b..=b`.
    fn net(seed: u64, w: i32, b: i32) -> Network {
        let mut rng = seed;
        let rows = (0..ROWS).map(|_| Row(edgy_acc(&mut rng))).collect();
        let mut l = Layers::zeroed();
        for row in l.w1.iter_mut().flatten().chain(l.w2.iter_mut().flatten()) {
            *row = pick(&mut rng, -w, w.min(127)) as i8;
        }
        for v in l.b1.iter_mut().chain(l.b2.iter_mut()) {
            *v = pick(&mut rng, -b, b);
        }
        for v in l.w3.iter_mut() {
            *v = rand(&mut rng) as i8;
        }
        l.b3 = pick(&mut rng, -100_000, 100_000);
        Network::from_parts(Row(edgy_acc(&mut rng)), rows, l)
    }

    fn features(rng: &mut u64, max: u64) -> Vec<u32> {
        (0..rand(rng) % (max + 1)).map(|_| (rand(rng) % u64::from(ROWS)) as u32).collect()
    }

    #[test]
    fn detect_picks_the_best_available_set() {
        let all = Simd::available();
        assert_eq!(Simd::detect(), all[0]);
        assert_eq!(all.last(), Some(&Simd::SCALAR));
        let mut names: Vec<&str> = all.iter().map(|s| s.name()).collect();
        names.dedup();
        assert_eq!(names.len(), all.len(), "{names:?}");
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128", not(feature = "portable")))]
        assert_eq!(Simd::detect().name(), "simd128");
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128", not(feature = "portable"))))]
        assert_eq!(Simd::simd128(), None);
    }

    /// The scalar update is the wrapping sum (an `i32` sum reduced mod 2^16); every kernel set
    /// gives the scalar result, also for refresh-sized lists and repeated features.
    #[test]
    fn updates_match_the_wrapping_sum_on_every_kernel() {
        let net = net(3, 128, 1000);
        let mut rng = 11;
        let mut wrapped = 0;
        for trial in 0..400 {
            let prev = edgy_acc(&mut rng);
            let max = if trial % 4 == 0 { 40 } else { 3 };
            let (removed, added) = (features(&mut rng, max), features(&mut rng, max));
            let mut want = [0i16; FT_OUT];
            for (j, w) in want.iter_mut().enumerate() {
                let row = |f: &u32| i32::from(net.row(*f)[j]);
                let sum = i32::from(prev[j]) - removed.iter().map(row).sum::<i32>()
                    + added.iter().map(row).sum::<i32>();
                *w = sum as i16;
                wrapped += usize::from(i32::from(*w) != sum);
            }
            for simd in Simd::available() {
                let mut out = [0i16; FT_OUT];
                simd.update(&net, &prev, &mut out, &removed, &added);
                assert!(out == want, "{}: trial {trial}", simd.name());
            }
        }
        assert!(wrapped > 1000, "too few wrap-arounds exercised: {wrapped}");
    }

    /// Every kernel set gives the scalar forward pass, on accumulators full of clip edges and on
    /// nets whose hidden sums fall inside the clip range, far outside it, or across it.
    #[test]
    fn forward_passes_match_scalar_on_every_kernel() {
        let mut rng = 17;
        for (seed, w, b) in [(1, 8, 2000), (2, 128, 300_000), (4, 32, 40_000), (5, 2, 500)] {
            let net = net(seed, w, b);
            let mut outputs = Vec::new();
            for trial in 0..100 {
                let us = edgy_acc(&mut rng);
                let mut them = edgy_acc(&mut rng);
                if trial % 5 == 0 {
                    // Mostly inside the clip range, as real accumulators are.
                    them.iter_mut().for_each(|v| *v = pick(&mut rng, -20, 140) as i16);
                }
                let want = propagate_scalar(&net.layers, &us, &them);
                for simd in Simd::available() {
                    let got = simd.propagate(&net.layers, &us, &them);
                    assert_eq!(got, want, "{}: net {seed}, trial {trial}", simd.name());
                }
                outputs.push(want);
            }
            outputs.sort_unstable();
            outputs.dedup();
            // Net 2 clips almost every hidden value (few distinct outputs); the others hardly any.
            let least = if seed == 2 { 5 } else { 50 };
            assert!(outputs.len() >= least, "net {seed}: the outputs hardly vary ({})", outputs.len());
        }
    }

    /// YaneuraOu's values for the seed-1 test net (`tests/data/nnue/`, read at run time, so that
    /// the WASI runner's view of the crate is proved too) on every kernel set, through a refresh
    /// and through the incremental state, with a move and its take-back from every position.
    #[test]
    fn golden_values_of_the_test_net_on_every_kernel() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/nnue/seed1_fv16.tsv");
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let rows: Vec<(Position, i32)> = text
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(|l| {
                let (sfen, v) = l.split_once('\t').expect("SFEN TAB value");
                (Position::from_sfen(sfen).expect("legal SFEN"), v.trim().parse().expect("integer value"))
            })
            .collect();
        assert_eq!(rows.len(), 311);
        let net = Arc::new(Network::from_bytes(&testnet::bytes(1, None)).expect("the test net loads"));
        for simd in Simd::available() {
            let mut state = NnueState::with_simd(net.clone(), 16, simd);
            for (i, (pos, want)) in rows.iter().enumerate() {
                let sfen = pos.to_sfen();
                assert_eq!(evaluate_full_with(&net, pos, 16, simd), Some(*want), "{}: {sfen}", simd.name());
                let mut pos = pos.clone();
                state.reset(&pos);
                assert_eq!(state.evaluate(&pos), Some(*want), "{}: {sfen}", simd.name());
                let moves = MoveList::legal(&pos, true);
                let Some(&m) = moves.as_slice().get(i % moves.len().max(1)) else {
                    continue;
                };
                pos.do_move_observed(m, &mut state);
                let after = evaluate_full_with(&net, &pos, 16, Simd::SCALAR);
                assert_eq!(state.evaluate(&pos), after, "{}: {sfen} {}", simd.name(), m.to_usi());
                pos.undo_move_observed(m, &mut state);
                assert_eq!(state.evaluate(&pos), Some(*want), "{}: {sfen}", simd.name());
            }
        }
    }
}
