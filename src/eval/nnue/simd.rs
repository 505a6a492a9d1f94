//! The one switch between the SIMD kernels and their scalar twins, and the SIMD kernels.
//!
//! Four kernel sets compute bit-identical results:
//! - scalar: plain Rust, the reference (and what non-x86 targets and `--features portable` use);
//! - `avx2`: 256-bit accumulator updates in two passes of 8 registers; the hidden layers
//!   input-major (see `Layers`): four input bytes broadcast against a block of 32 outputs x 4
//!   weights, with `maddubs` + `madd`, so the sums build up in place with no horizontal reduction;
//! - `avxvnni` (AVX2 plus AVX-VNNI: Intel Alder Lake and later cores without AVX-512): the same,
//!   with one `vpdpbusd` per block step;
//! - `avx512` (AVX-512 F/BW plus VNNI): the whole accumulator in 8 registers, one pass per
//!   update; the hidden layers with 512-bit `vpdpbusd`.
//!
//! Measured on one Sapphire Rapids core (`benches/nnue.rs`), forward pass / incremental evaluation
//! relative to AVX2: `avxvnni` 1.4x / 1.4x, `avx512` 1.8x / 1.5x, so both earn their place.
//!
//! [`Simd`] is chosen once (by [`Simd::detect`], when an [`NnueState`](super::NnueState) is built)
//! and then every hot loop dispatches on it with one predictable branch. Detection happens at run
//! time, so the default build (`x86-64` baseline, no `-C target-cpu`) uses the best kernels the
//! CPU has. [`Simd::SCALAR`] forces the scalar twin (the tests run every available set and demand
//! identical results); the crate feature `portable` compiles the SIMD kernels out entirely.
//!
//! Soundness: a SIMD `Simd` value can only be made by [`Simd::avx2`], [`Simd::avx_vnni`] or
//! [`Simd::avx512`], which check the CPU first (the inner enum is private), so holding one
//! proves that the matching `#[target_feature]` kernels may be called.
//!
//! Exactness: the transformer sums use wrapping 16-bit adds exactly like the scalar
//! `wrapping_add`. The AVX2 block step uses `maddubs` (u8 x i8 pairs summed into i16, saturating),
//! whose pair sums are at most 2 * 127 * 128 = 32512 in magnitude because the inputs are clipped
//! to 0..=127, so it never saturates; `vpdpbusd` sums four products straight into i32 without
//! saturation. The hidden-layer clip uses saturating packs / narrowing, which clamp exactly like
//! `clamp(0, 127)`.

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
}

impl Simd {
    /// The portable scalar kernels, available everywhere.
    pub const SCALAR: Simd = Simd(Kind::Scalar);

    /// The best kernels this CPU (and this build) supports: AVX-512 with VNNI, else AVX2 with
    /// AVX-VNNI, else AVX2, else scalar (always scalar under the `portable` feature).
    pub fn detect() -> Simd {
        Simd::avx512().or_else(Simd::avx_vnni).or_else(Simd::avx2).unwrap_or(Simd::SCALAR)
    }

    /// Every kernel set this CPU and build can run, best first (the tests prove each).
    pub fn available() -> Vec<Simd> {
        [Simd::avx512(), Simd::avx_vnni(), Simd::avx2(), Some(Simd::SCALAR)].into_iter().flatten().collect()
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

    /// A short name for diagnostics (`avx512`, `avxvnni`, `avx2` or `scalar`).
    pub fn name(self) -> &'static str {
        match self.0 {
            Kind::Scalar => "scalar",
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            Kind::Avx2 => "avx2",
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            Kind::AvxVnni => "avxvnni",
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            Kind::Avx512 => "avx512",
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
        }
    }
}

/// Asks the CPU to start loading transformer row `f` into the cache (no-op elsewhere): made
/// when a move is made, the row is there by the time the lazy update needs it.
#[inline(always)]
pub(crate) fn prefetch_row(net: &Network, f: u32) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = net.row(f).as_ptr().cast::<i8>();
        for line in 0..FT_OUT * 2 / 64 {
            // SAFETY: SSE is part of the x86-64 baseline, and a prefetch never faults; the
            // addresses lie inside the row anyway.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(64 * line)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (net, f);
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
