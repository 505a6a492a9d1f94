//! The one switch between the SIMD kernels and their scalar twins, and the SIMD kernels.
//!
//! Every kernel is generic over the net's widths as `const` parameters (`FT`, `H1`, `H2`; all
//! three 0 for the one build that reads the widths from the net at run time): an evaluator is
//! compiled for its shape ([`super::state`]), so its loops have fixed trip counts.
//!
//! Six kernel sets compute bit-identical results:
//! - scalar: plain Rust, the reference (and what other targets and `--features portable` use);
//! - `avx2`: 256-bit accumulator updates in passes of 8 registers; the hidden layers
//!   input-major (see [`Affine`]): four input bytes broadcast against a block of outputs x 4
//!   weights, with `maddubs` + `madd`, so the sums build up in place with no horizontal
//!   reduction (32 outputs in four registers at a time, then 8 in one);
//! - `avxvnni` (AVX2 plus AVX-VNNI: Intel Alder Lake and later cores without AVX-512): the same,
//!   with one `vpdpbusd` per block step;
//! - `avx512` (AVX-512 F/BW plus VNNI): for halfKP_256x2-32-32-sized nets the whole accumulator
//!   in 8 registers, one pass per update, and the hidden layers with 512-bit `vpdpbusd`; other
//!   shapes use the AVX2 kernels (every AVX-512 CPU has AVX2);
//! - `sse41` (SSSE3 plus SSE4.1, for CPUs without AVX2: Intel's from Penryn, 2008, to before
//!   Haswell, its Atom, Celeron and Pentium cores until about 2020, AMD's Bulldozer to
//!   Steamroller and Jaguar; older ones run the scalar twin): the AVX2 kernels at 128 bits,
//!   accumulator updates in passes of 8 registers, the same `maddubs` + `madd` block steps for
//!   32 outputs in eight registers at a time, then 16 in four, then 8 in two;
//! - `simd128` (WebAssembly, built with `-C target-feature=+simd128`): 128-bit accumulator
//!   updates in passes of 8 vectors; the hidden layers input-major like the x86 sets, with the
//!   weights widened to `i16` as they load and `i32x4.dot_i16x8` (two products per `i32` lane).
//!
//! Measured on one Sapphire Rapids core (`benches/nnue.rs`, the classic shape), forward pass /
//! incremental evaluation relative to AVX2: `avxvnni` 1.4x / 1.4x, `avx512` 1.8x / 1.5x.
//! `simd128` under Node 20 (V8) on one AMD EPYC core: 20x / 16x a WebAssembly build without
//! SIMD128, 6.5x / 4.9x the scalar twin in the same build, and a quarter / a third of the speed
//! of native AVX2 on that core. `sse41` on one AMD EPYC core (the default `x86-64` build, all
//! sets measured in one run, two runs): forward pass / incremental evaluation without do/undo
//! 0.52-0.55x / 0.57-0.58x the AVX2 kernels and 4.0-4.3x / 3.4-3.7x the scalar twin
//! (accumulator updates alone 0.8x / 1.3x).
//!
//! [`Simd`] is chosen once (by [`Simd::detect`], when an evaluator is built) and then every hot
//! loop dispatches on it with one predictable branch. On x86-64 detection happens at run time,
//! so the default build (`x86-64` baseline, no `-C target-cpu`) uses the best kernels the CPU
//! has. WebAssembly has no run-time detection: SIMD128 is chosen when the module is compiled,
//! and a build with it always uses it (an engine without SIMD128 cannot load it).
//! [`Simd::SCALAR`] forces the scalar twin (the tests run every available set and demand
//! identical results); the crate feature `portable` compiles the SIMD kernels out entirely.
//!
//! Soundness: an x86 SIMD `Simd` value can only be made by [`Simd::avx2`], [`Simd::avx_vnni`],
//! [`Simd::avx512`] or [`Simd::sse41`], which check the CPU first (the inner enum is private),
//! so holding one proves that the matching `#[target_feature]` kernels may be called. The accumulator update
//! checks every length its kernels rely on before it calls them; the forward pass's lengths
//! follow from the layers, which an evaluator checks once when it is made (`Simd::propagate`'s
//! precondition). The SIMD128 kernels are safe functions (the feature is part of the build); their
//! only `unsafe` is vector loads and stores of whole fixed-size arrays.
//!
//! Exactness: the transformer sums use wrapping 16-bit adds exactly like the scalar `wrapping_add`.
//! The AVX2 and SSE4.1 block steps use `maddubs` (u8 x i8 pairs summed into i16, saturating), whose
//! pair sums are at most 2 * 127 * 128 = 32512 in magnitude because the inputs are clipped to
//! 0..=127, so it never saturates; `vpdpbusd` sums four products straight into i32 without
//! saturation. SIMD128 widens both factors to `i16` first, and `i32x4.dot_i16x8` sums two products
//! (each at most 255 * 128 in magnitude) straight into `i32`: nothing saturates, and no bound on
//! the inputs is needed. The hidden-layer clip uses saturating packs / narrowing, which clamp
//! exactly like `clamp(0, 127)` (then `max 0`).

use super::layers::{clip_acc, pad8, Affine, Layers};
use super::network::Network;
use super::shape::pad32;

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
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    Sse41,
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128", not(feature = "portable")))]
    Simd128,
}

/// The widths a forward pass works with: the transformer (`ft`), each layer's padded inputs
/// (`in1`, `in2`, `in3`) and padded outputs (`out1`, `out2`). Built from the `const` parameters
/// where they are given, so that they are constants in the kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Dims {
    pub ft: usize,
    pub in1: usize,
    pub out1: usize,
    pub in2: usize,
    pub out2: usize,
    pub in3: usize,
}

impl Dims {
    /// The widths of `l` (for an evaluator compiled for `FT`, `H1`, `H2`, those constants).
    #[inline(always)]
    pub(crate) fn of<const FT: usize, const H1: usize, const H2: usize>(l: &Layers) -> Dims {
        if FT != 0 && H1 != 0 && H2 != 0 {
            Dims { ft: FT, in1: 2 * FT, out1: pad8(H1), in2: pad32(H1), out2: pad8(H2), in3: pad32(H2) }
        } else {
            Dims {
                ft: l.l1.n_in / 2,
                in1: l.l1.in_pad,
                out1: l.l1.out_pad,
                in2: l.l2.in_pad,
                out2: l.l2.out_pad,
                in3: l.w3.len(),
            }
        }
    }

    /// Whether `l` has these widths (the kernels' lengths all follow from them).
    pub(crate) fn fit(&self, l: &Layers) -> bool {
        let fits = |a: &Affine, i: usize, o: usize| {
            a.in_pad == i
                && a.out_pad == o
                && a.blocks.len() == i * o
                && a.bias.len() == o
                && i.is_multiple_of(32)
        };
        self.ft.is_multiple_of(16)
            && self.in1 == 2 * self.ft
            && fits(&l.l1, self.in1, self.out1)
            && fits(&l.l2, self.in2, self.out2)
            && self.out1 <= self.in2
            && self.out2 <= self.in3
            && l.w3.len() == self.in3
            && self.in3.is_multiple_of(32)
    }

    /// Bytes of scratch space a forward pass uses.
    pub(crate) fn scratch(&self) -> usize {
        self.in1 + self.in2 + self.in3
    }

    /// [`Simd::propagate`]'s precondition: `fit(l)`, `us` and `them` hold at least `ft` values
    /// and `scratch` at least `scratch()` bytes.
    pub(crate) fn hold(&self, l: &Layers, us: &[i16], them: &[i16], scratch: &[u8]) -> bool {
        self.fit(l) && us.len() >= self.ft && them.len() >= self.ft && scratch.len() >= self.scratch()
    }
}

/// An accumulator update as [`Simd::update`] hands it to a kernel: `out = prev - rows(removed)
/// + rows(added)` over the first `ft` lanes, the rows those of the transformer weights `w` (rows
/// of `ft`), wrapping `i16`. The lengths are checked.
#[derive(Clone, Copy)]
struct Update<'a> {
    w: &'a [i16],
    ft: usize,
    prev: &'a [i16],
    removed: &'a [u32],
    added: &'a [u32],
}

/// A forward pass as [`Simd::propagate`] hands it to a kernel: the layers `l`, the side to move's
/// accumulator `us` and the other's `them`, of the lengths its precondition demands.
#[derive(Clone, Copy)]
struct Forward<'a> {
    l: &'a Layers,
    us: &'a [i16],
    them: &'a [i16],
}

/// The x86 kernel set `Kind::$kind` where this build has the x86 kernels and the CPU has every
/// one of the features named; else `None`.
macro_rules! x86_kind {
    ($kind:ident, $($feature:tt)+) => {{
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        if $(std::arch::is_x86_feature_detected!($feature))&&+ {
            return Some(Simd(Kind::$kind));
        }
        None
    }};
}

impl Simd {
    /// The portable scalar kernels, available everywhere.
    pub const SCALAR: Simd = Simd(Kind::Scalar);

    /// The best kernels this CPU (and this build) supports: on x86-64 AVX-512 with VNNI, else
    /// AVX2 with AVX-VNNI, else AVX2, else SSE4.1 (with SSSE3); on WebAssembly SIMD128 when the
    /// build has it; else scalar (always scalar under the `portable` feature).
    pub fn detect() -> Simd {
        Simd::avx512()
            .or_else(Simd::avx_vnni)
            .or_else(Simd::avx2)
            .or_else(Simd::sse41)
            .or_else(Simd::simd128)
            .unwrap_or(Simd::SCALAR)
    }

    /// Every kernel set this CPU and build can run, best first (the tests prove each).
    pub fn available() -> Vec<Simd> {
        [Simd::avx512(), Simd::avx_vnni(), Simd::avx2(), Simd::sse41(), Simd::simd128(), Some(Simd::SCALAR)]
            .into_iter()
            .flatten()
            .collect()
    }

    /// The AVX2 kernels with AVX-VNNI dot products (Intel Alder Lake and later cores without
    /// AVX-512), if this build has them and the CPU supports AVX2 and AVX-VNNI.
    pub fn avx_vnni() -> Option<Simd> {
        x86_kind!(AvxVnni, "avx2" "avxvnni")
    }

    /// The AVX-512 kernels (512-bit accumulator updates, VNNI dot products), if this build has
    /// them and the CPU supports AVX2, AVX-512 F and BW, and AVX-512 VNNI.
    pub fn avx512() -> Option<Simd> {
        x86_kind!(Avx512, "avx2" "avx512f" "avx512bw" "avx512vnni")
    }

    /// Whether these kernels may use AVX2 (every x86 SIMD set here has it).
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    #[inline(always)]
    pub(crate) fn has_avx2(self) -> bool {
        matches!(self.0, Kind::Avx2 | Kind::AvxVnni | Kind::Avx512)
    }

    /// The AVX2 kernels, if this build has them and the CPU supports AVX2.
    pub fn avx2() -> Option<Simd> {
        x86_kind!(Avx2, "avx2")
    }

    /// The 128-bit x86 kernels, if this build has them and the CPU supports SSSE3 and SSE4.1
    /// (every x86-64 CPU since Intel Penryn, 2008, and AMD Bulldozer, 2011): for CPUs without
    /// AVX2.
    pub fn sse41() -> Option<Simd> {
        x86_kind!(Sse41, "ssse3" "sse4.1")
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

    /// A short name for diagnostics (`avx512`, `avxvnni`, `avx2`, `sse41`, `simd128` or `scalar`).
    pub fn name(self) -> &'static str {
        match self.0 {
            Kind::Scalar => "scalar",
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            Kind::Avx2 => "avx2",
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            Kind::AvxVnni => "avxvnni",
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            Kind::Avx512 => "avx512",
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            Kind::Sse41 => "sse41",
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128", not(feature = "portable")))]
            Kind::Simd128 => "simd128",
        }
    }

    /// `out = prev - sum of rows(removed) + sum of rows(added)` over the first `ft` lanes
    /// (`FT` when it is not 0), wrapping `i16`. A refresh is `update(bias, out, &[], features)`.
    /// Every feature must be a row of `net`.
    #[inline]
    pub(crate) fn update<const FT: usize>(
        self,
        net: &Network,
        ft: usize,
        prev: &[i16],
        out: &mut [i16],
        removed: &[u32],
        added: &[u32],
    ) {
        let ft = if FT == 0 { ft } else { FT };
        // The kernels read and write `ft` lanes of each, in 16-lane steps, and whole rows (`row`
        // checks those).
        assert!(prev.len() >= ft && out.len() >= ft && ft.is_multiple_of(16));
        let u = Update { w: &net.ft_weight, ft, prev, removed, added };
        match self.0 {
            Kind::Scalar => update_scalar(u, out),
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            // SAFETY: a `Kind::Avx2` or `Kind::AvxVnni` value exists only if AVX2 was detected;
            // the lengths were checked above.
            Kind::Avx2 | Kind::AvxVnni => unsafe { avx2::update::<FT>(u, out) },
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            // SAFETY: a `Kind::Avx512` value exists only if `Simd::avx512` detected its features
            // (AVX2 among them); the lengths were checked above.
            Kind::Avx512 => unsafe {
                if ft == avx512::FT {
                    avx512::update(u, out)
                } else {
                    avx2::update::<FT>(u, out)
                }
            },
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            // SAFETY: a `Kind::Sse41` value exists only if `Simd::sse41` detected SSSE3 and
            // SSE4.1; the lengths were checked above.
            Kind::Sse41 => unsafe { sse41::update::<FT>(u, out) },
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128", not(feature = "portable")))]
            Kind::Simd128 => simd128::update::<FT>(u, out),
        }
    }

    /// The raw network output for the side to move's accumulator `us` and the other's `them`,
    /// with `scratch` (zeroed once when it was made: the kernels rely on the bytes past each
    /// layer's outputs staying 0).
    ///
    /// # Safety
    /// With `d = Dims::of::<FT, H1, H2>(l)`: `d.fit(l)`, `us` and `them` hold at least `d.ft`
    /// values and `scratch` at least `d.scratch()` bytes. (An evaluator checks the layers once,
    /// when it is made: they never change, and its buffers have those lengths.)
    #[inline]
    pub(crate) unsafe fn propagate<const FT: usize, const H1: usize, const H2: usize>(
        self,
        l: &Layers,
        us: &[i16],
        them: &[i16],
        scratch: &mut [u8],
    ) -> i32 {
        let d = Dims::of::<FT, H1, H2>(l);
        debug_assert!(d.hold(l, us, them, scratch));
        let f = Forward { l, us, them };
        match self.0 {
            Kind::Scalar => propagate_scalar(f, d, scratch),
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            // SAFETY: a `Kind::Avx2` value exists only if `Simd::avx2` detected AVX2; the lengths
            // are the caller's precondition.
            Kind::Avx2 => unsafe { avx2::propagate::<FT, H1, H2>(f, scratch) },
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            // SAFETY: a `Kind::AvxVnni` value exists only if `Simd::avx_vnni` detected AVX2 and
            // AVX-VNNI; the lengths are the caller's precondition.
            Kind::AvxVnni => unsafe { avx2::propagate_vnni::<FT, H1, H2>(f, scratch) },
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            // SAFETY: a `Kind::Avx512` value exists only if `Simd::avx512` detected its features
            // (AVX2 among them); the lengths are the caller's precondition, and `avx512::fits`
            // the classic widths its kernels are written for.
            Kind::Avx512 => unsafe {
                if avx512::fits(d) {
                    avx512::propagate(f, scratch)
                } else {
                    avx2::propagate::<FT, H1, H2>(f, scratch)
                }
            },
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            // SAFETY: a `Kind::Sse41` value exists only if `Simd::sse41` detected SSSE3 and
            // SSE4.1; the lengths are the caller's precondition.
            Kind::Sse41 => unsafe { sse41::propagate::<FT, H1, H2>(f, scratch) },
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128", not(feature = "portable")))]
            Kind::Simd128 => simd128::propagate::<FT, H1, H2>(f, scratch),
        }
    }
}

/// Asks the CPU to start loading transformer row `f` into the cache (a hint: `crate::sys::prefetch`):
/// made when a move is made, the row is there by the time the lazy update needs it. Of a row
/// wider than 512 bytes only the first 512 are asked for: the hardware's stream prefetcher
/// follows a row it has seen start.
#[inline(always)]
pub(crate) fn prefetch_row(net: &Network, f: u32, ft: usize) {
    let start = f as usize * ft;
    if let Some(row) = net.ft_weight.get(start..start + ft) {
        crate::sys::prefetch::prefetch_slice(row, 8);
    }
}

/// Row `f` of the transformer weights `w` (rows of `ft`).
#[inline(always)]
fn row(w: &[i16], f: u32, ft: usize) -> &[i16] {
    let start = f as usize * ft;
    &w[start..start + ft]
}

/// Scalar twin of the accumulator update.
fn update_scalar(u: Update, out: &mut [i16]) {
    let Update { w, ft, prev, removed, added } = u;
    let out = &mut out[..ft];
    out.copy_from_slice(&prev[..ft]);
    for &f in removed {
        for (o, &w) in out.iter_mut().zip(row(w, f, ft)) {
            *o = o.wrapping_sub(w);
        }
    }
    for &f in added {
        for (o, &w) in out.iter_mut().zip(row(w, f, ft)) {
            *o = o.wrapping_add(w);
        }
    }
}

/// Scalar twin of the forward pass.
fn propagate_scalar(f: Forward, d: Dims, scratch: &mut [u8]) -> i32 {
    let Forward { l, us, them } = f;
    for (o, &v) in scratch[..d.in1].iter_mut().zip(us[..d.ft].iter().chain(&them[..d.ft])) {
        *o = clip_acc(v);
    }
    l.forward_scalar(scratch)
}

/// The x86 kernels, written once for both register widths: `avx2` (256 bits) and `sse41` (128
/// bits) each expand this in their module with their vector type, its `i16` lanes, their target
/// features and their intrinsics, in the order of the pattern below. What the widths do
/// differently beyond the names each module defines itself: `order_packed_i16` and
/// `order_packed_i32` (the lane order that AVX2's packs leave per 128-bit lane, put back),
/// `halves_of_8` (eight sums, shifted, as two 128-bit registers) and `fold_to_128` (the first
/// step of a horizontal sum).
///
/// Defines `update` (the accumulator update, enabling `$features`), `output` and, through
/// `forward_pass!`, the hidden-layer kernels and a forward pass (`group`, `affine_clip`,
/// `propagate`) on top of the block step `dot_maddubs`; the AVX2 module calls `forward_pass!`
/// again for its AVX-VNNI block step.
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
macro_rules! x86_kernels {
    (
        $v:ty, $lanes:literal lanes, $features:literal: $zero:ident $load:ident $store:ident
        $add16:ident $sub16:ident $add32:ident $splat16:ident $splat32:ident $shr32:ident
        $pack32:ident $pack16:ident $max8:ident $maddubs:ident $madd:ident
    ) => {
        /// Accumulator lanes (`i16`) per register.
        const LANES: usize = $lanes;
        /// Bytes per register.
        const BYTES: usize = 2 * LANES;
        /// `i32` lanes (hidden-layer outputs) per register.
        const OUTS: usize = LANES / 2;
        /// Registers held per pass over the accumulator: 8 (x86-64 has 16 vector registers; the
        /// rows' loads need some of the rest).
        const REGS: usize = 8;
        /// Independent chains over the blocks for 32 outputs: two, unless they take eight
        /// registers (128 bits), as two chains would need all 16 registers for the sums alone.
        const CHAINS_32: usize = if 32 / OUTS > 4 { 1 } else { 2 };

        /// One pass of `u` over lanes `base .. base + n * LANES` (`n <= REGS`).
        #[inline(always)]
        unsafe fn update_pass(u: Update, out: &mut [i16], base: usize, n: usize) {
            let Update { w, ft, prev, removed, added } = u;
            let mut r = [$zero(); REGS];
            for (i, v) in r.iter_mut().enumerate().take(n) {
                *v = $load(prev.as_ptr().add(base + i * LANES).cast());
            }
            for &f in removed {
                let row = row(w, f, ft);
                for (i, v) in r.iter_mut().enumerate().take(n) {
                    let w = $load(row.as_ptr().add(base + i * LANES).cast());
                    *v = $sub16(*v, w);
                }
            }
            for &f in added {
                let row = row(w, f, ft);
                for (i, v) in r.iter_mut().enumerate().take(n) {
                    let w = $load(row.as_ptr().add(base + i * LANES).cast());
                    *v = $add16(*v, w);
                }
            }
            for (i, v) in r.iter().enumerate().take(n) {
                $store(out.as_mut_ptr().add(base + i * LANES).cast(), *v);
            }
        }

        #[target_feature(enable = $features)]
        pub(super) unsafe fn update<const FT: usize>(u: Update, out: &mut [i16]) {
            let ft = if FT == 0 { u.ft } else { FT };
            let u = Update { ft, ..u };
            let full = ft / (LANES * REGS);
            for pass in 0..full {
                update_pass(u, out, pass * LANES * REGS, REGS);
            }
            // `ft` is a multiple of 16: the tail is whole registers.
            let tail = ft % (LANES * REGS) / LANES;
            if tail > 0 {
                update_pass(u, out, full * LANES * REGS, tail);
            }
        }

        /// `clamp(acc, 0, 127)` as `n` bytes (`n` a multiple of 16): two registers at a time,
        /// then, where a register holds more than 16 lanes, the 16 left over at 128 bits.
        #[inline(always)]
        unsafe fn clip_acc(acc: *const i16, out: *mut u8, n: usize) {
            for c in 0..n / BYTES {
                let a = $load(acc.add(BYTES * c).cast());
                let b = $load(acc.add(BYTES * c + LANES).cast());
                // Saturated to -128..=127; `max 0` completes the clamp.
                let p = order_packed_i16($max8($pack16(a, b), $zero()));
                $store(out.add(BYTES * c).cast(), p);
            }
            if BYTES > 16 && n % BYTES == 16 {
                let c = n - 16;
                let a = _mm_loadu_si128(acc.add(c).cast());
                let b = _mm_loadu_si128(acc.add(c + 8).cast());
                let p = _mm_max_epi8(_mm_packs_epi16(a, b), _mm_setzero_si128());
                _mm_storeu_si128(out.add(c).cast(), p);
            }
        }

        /// One block step without VNNI: `acc + (x . w)` per `i32` lane, each lane the dot
        /// product of four input bytes with four weights (`maddubs` pairs them into `i16`,
        /// `madd` sums the pairs).
        #[inline(always)]
        unsafe fn dot_maddubs(acc: $v, x: $v, w: $v) -> $v {
            let p = $madd($maddubs(x, w), $splat16(1));
            $add32(acc, p)
        }

        /// `clamp(v >> 6, 0, 127)` of four registers of sums (`4 OUTS` outputs in order) as
        /// `4 OUTS` bytes.
        #[inline(always)]
        unsafe fn pack4(v: [$v; 4], out: *mut u8) {
            // Saturating packs clamp to -128..=127 and `max 0` finishes the clip.
            let a = $pack32($shr32::<6>(v[0]), $shr32::<6>(v[1]));
            let c = $pack32($shr32::<6>(v[2]), $shr32::<6>(v[3]));
            let p = order_packed_i32($max8($pack16(a, c), $zero()));
            $store(out.cast(), p);
        }

        /// `clamp(v >> 6, 0, 127)` of the sums of eight outputs (in order) as 8 bytes.
        #[inline(always)]
        unsafe fn pack8(v: [$v; 8 / OUTS], out: *mut u8) {
            let (lo, hi) = halves_of_8(v);
            let w = _mm_packs_epi32(lo, hi);
            let p = _mm_max_epi8(_mm_packs_epi16(w, w), _mm_setzero_si128());
            _mm_storel_epi64(out.cast(), p);
        }

        /// `clamp(v >> 6, 0, 127)` of the sums `v` (outputs in order) as bytes: four registers
        /// at a time, then eight outputs at a time.
        #[inline(always)]
        unsafe fn pack<const R: usize>(v: [$v; R], out: *mut u8) {
            let (fours, rest) = v.as_chunks::<4>();
            for (i, four) in fours.iter().enumerate() {
                pack4(*four, out.add(4 * OUTS * i));
            }
            let out = out.add(4 * OUTS * fours.len());
            for (i, eight) in rest.as_chunks::<{ 8 / OUTS }>().0.iter().enumerate() {
                pack8(*eight, out.add(8 * i));
            }
        }

        /// `b3 + w3 . h2` over the `n` bytes of `h2` (a multiple of 32).
        #[inline(always)]
        pub(super) unsafe fn output(l: &Layers, n: usize, h2: *const u8) -> i32 {
            let mut s = $zero();
            for c in 0..n / BYTES {
                let h = $load(h2.add(BYTES * c).cast());
                let w = $load(l.w3.as_ptr().add(BYTES * c).cast());
                s = dot_maddubs(s, h, w);
            }
            let t = fold_to_128(s);
            let t = _mm_add_epi32(t, _mm_shuffle_epi32::<0b01_00_11_10>(t));
            let t = _mm_add_epi32(t, _mm_shuffle_epi32::<0b10_11_00_01>(t));
            l.b3.wrapping_add(_mm_cvtsi128_si32(t))
        }

        /// Defines the hidden-layer kernels and a forward pass on top of a block step
        /// (`dot_maddubs`, or AVX2's `dot_vnni`); the forward pass enables `$features`.
        macro_rules! forward_pass {
            ($group:ident, $affine:ident, $propagate:ident, $dot:ident, $fw_features:literal) => {
                /// The sums of `R` registers of outputs (`OUTS R` outputs from `g` on) of layer
                /// `a` over its `n_in` inputs `x` (a multiple of 8), with the biases, in `C` (1
                /// or 2) independent chains over the blocks, which hide the step's latency.
                #[inline(always)]
                unsafe fn $group<const R: usize, const C: usize>(
                    a: &Affine,
                    n_in: usize,
                    out_pad: usize,
                    x: *const u8,
                    g: usize,
                ) -> [$v; R] {
                    let stride = 4 * out_pad;
                    let w = a.blocks.as_ptr().add(4 * g);
                    let mut acc = [[$zero(); R]; C];
                    for c2 in (0..n_in / 4).step_by(C) {
                        for (k, acc) in acc.iter_mut().enumerate() {
                            let c = c2 + k;
                            let xv = $splat32(x.add(4 * c).cast::<i32>().read_unaligned());
                            for (q, aq) in acc.iter_mut().enumerate() {
                                let wq = $load(w.add(c * stride + BYTES * q).cast());
                                *aq = $dot(*aq, xv, wq);
                            }
                        }
                    }
                    let mut v = [$zero(); R];
                    for (q, vq) in v.iter_mut().enumerate() {
                        let bias = $load(a.bias.as_ptr().add(g + OUTS * q).cast());
                        let s = acc[1..].iter().fold(acc[0][q], |s, chain| $add32(s, chain[q]));
                        *vq = $add32(s, bias);
                    }
                    v
                }

                /// `clamp((b + w . x) >> 6, 0, 127)` for the `out_pad` outputs of layer `a` from
                /// its `n_in` inputs `x`, as bytes in output order: 32 at a time, then 16, then 8.
                #[inline(always)]
                unsafe fn $affine(a: &Affine, n_in: usize, out_pad: usize, x: *const u8, out: *mut u8) {
                    let mut g = 0;
                    while g + 32 <= out_pad {
                        pack($group::<{ 32 / OUTS }, CHAINS_32>(a, n_in, out_pad, x, g), out.add(g));
                        g += 32;
                    }
                    if g + 16 <= out_pad {
                        pack($group::<{ 16 / OUTS }, 2>(a, n_in, out_pad, x, g), out.add(g));
                        g += 16;
                    }
                    if g < out_pad {
                        pack($group::<{ 8 / OUTS }, 2>(a, n_in, out_pad, x, g), out.add(g));
                    }
                }

                #[target_feature(enable = $fw_features)]
                pub(super) unsafe fn $propagate<const FT: usize, const H1: usize, const H2: usize>(
                    f: Forward,
                    scratch: &mut [u8],
                ) -> i32 {
                    let Forward { l, us, them } = f;
                    let d = Dims::of::<FT, H1, H2>(l);
                    let x = scratch.as_mut_ptr();
                    clip_acc(us.as_ptr(), x, d.ft);
                    clip_acc(them.as_ptr(), x.add(d.ft), d.ft);
                    let h1 = x.add(d.in1);
                    $affine(&l.l1, d.in1, d.out1, x, h1);
                    let h2 = h1.add(d.in2);
                    // Only the first layer's `out1` outputs can be non-zero: the second layer's
                    // padded inputs past them (zero weights, zero inputs) are skipped.
                    $affine(&l.l2, d.out1, d.out2, h1, h2);
                    output(l, d.in3, h2)
                }
            };
        }

        forward_pass!(group, affine_clip, propagate, dot_maddubs, $features);
    };
}

#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
mod avx2 {
    #![allow(clippy::undocumented_unsafe_blocks)]
    // SIMD module banner: the entry points here (`update`, `propagate`, `propagate_vnni`) are
    // `#[target_feature(enable = "avx2")]` (the VNNI one adds "avxvnni") and are only reached
    // through `Simd`, whose AVX2 and AVX-VNNI values prove the CPU has those features (see the
    // module docs above). Every other function is an `#[inline(always)]` helper called only from
    // those entry points (or from helpers they call), so it is compiled inside them, with their
    // features; a helper with `#[target_feature]` of its own would be a call LLVM may keep. Every pointer access reads or
    // writes whole vectors strictly inside the slices it is derived from: `Simd::update` checks
    // those slices, and `Simd::propagate`'s callers have checked them against the widths
    // (`Dims::fit`) before calling in; the loop limits here are those widths. Unaligned loads and stores are used
    // throughout, so no alignment assumption is needed for soundness.

    use super::super::layers::{Affine, Layers};
    use super::{row, Dims, Forward, Update};
    use std::arch::x86_64::*;

    /// Per 128-bit lane the packs of `a` and `b` leave a0..7 b0..7 | a8..15 b8..15; the 64-bit
    /// permute restores a0..15 b0..15.
    #[inline(always)]
    unsafe fn order_packed_i16(p: __m256i) -> __m256i {
        _mm256_permute4x64_epi64::<0b11_01_10_00>(p)
    }

    /// Per 128-bit lane the packs of four registers of sums leave the 32-bit groups in the order
    /// o0-3 o8-11 o16-19 o24-27 | o4-7 o12-15 o20-23 o28-31; the permute puts them back in output
    /// order.
    #[inline(always)]
    unsafe fn order_packed_i32(p: __m256i) -> __m256i {
        _mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7))
    }

    /// The eight sums of one register, shifted right by 6, as its two 128-bit halves.
    #[inline(always)]
    unsafe fn halves_of_8(v: [__m256i; 1]) -> (__m128i, __m128i) {
        let v = _mm256_srai_epi32::<6>(v[0]);
        (_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v))
    }

    /// The `i32` lanes of `s` summed pairwise into four.
    #[inline(always)]
    unsafe fn fold_to_128(s: __m256i) -> __m128i {
        _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256::<1>(s))
    }

    x86_kernels! {
        __m256i, 16 lanes, "avx2": _mm256_setzero_si256 _mm256_loadu_si256 _mm256_storeu_si256
        _mm256_add_epi16 _mm256_sub_epi16 _mm256_add_epi32 _mm256_set1_epi16 _mm256_set1_epi32
        _mm256_srai_epi32 _mm256_packs_epi32 _mm256_packs_epi16 _mm256_max_epi8 _mm256_maddubs_epi16
        _mm256_madd_epi16
    }

    /// The block step in one AVX-VNNI instruction.
    #[inline(always)]
    unsafe fn dot_vnni(acc: __m256i, x: __m256i, w: __m256i) -> __m256i {
        _mm256_dpbusd_avx_epi32(acc, x, w)
    }

    forward_pass!(group_vnni, affine_clip_vnni, propagate_vnni, dot_vnni, "avx2,avxvnni");
}

#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
mod sse41 {
    #![allow(clippy::undocumented_unsafe_blocks)]
    // SIMD module banner: the entry points here (`update`, `propagate`) are
    // `#[target_feature(enable = "ssse3,sse4.1")]` and are only reached through `Simd`, whose
    // SSE4.1 value proves the CPU has SSSE3 and SSE4.1 (see the module docs above). Every other
    // function is an `#[inline(always)]` helper called only from those entry points (or from
    // helpers they call), so it is compiled inside them, with their features. Every pointer
    // access reads or writes whole 128-bit vectors (or, in `pack8`, 8 bytes) strictly inside the
    // slices it is derived from: `Simd::update` checks those slices, and `Simd::propagate`'s
    // callers have checked them against the widths (`Dims::fit`) before calling in; the loop
    // limits here are those widths. Unaligned loads and stores are used throughout, so no
    // alignment assumption is needed for soundness.

    use super::super::layers::{Affine, Layers};
    use super::{row, Dims, Forward, Update};
    use std::arch::x86_64::*;

    /// At 128 bits the packs keep the lanes in order: nothing to restore.
    #[inline(always)]
    fn order_packed_i16(p: __m128i) -> __m128i {
        p
    }

    /// Likewise for the packs of four registers of sums.
    #[inline(always)]
    fn order_packed_i32(p: __m128i) -> __m128i {
        p
    }

    /// The eight sums of two registers, shifted right by 6.
    #[inline(always)]
    unsafe fn halves_of_8(v: [__m128i; 2]) -> (__m128i, __m128i) {
        (_mm_srai_epi32::<6>(v[0]), _mm_srai_epi32::<6>(v[1]))
    }

    /// Already four `i32` lanes.
    #[inline(always)]
    fn fold_to_128(s: __m128i) -> __m128i {
        s
    }

    x86_kernels! {
        __m128i, 8 lanes, "ssse3,sse4.1": _mm_setzero_si128 _mm_loadu_si128 _mm_storeu_si128
        _mm_add_epi16 _mm_sub_epi16 _mm_add_epi32 _mm_set1_epi16 _mm_set1_epi32 _mm_srai_epi32
        _mm_packs_epi32 _mm_packs_epi16 _mm_max_epi8 _mm_maddubs_epi16 _mm_madd_epi16
    }
}

#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
mod avx512 {
    #![allow(clippy::undocumented_unsafe_blocks)]
    // SIMD module banner: every function here enables AVX2, AVX-512 F/BW and AVX-512 VNNI and is
    // only reached through `Simd`, whose AVX-512 value proves the CPU has all of them (see the
    // module docs above). The kernels are written for the classic widths (`FT` = 256, 32-32:
    // `fits`), which `Simd` checks before calling them, besides the lengths (`Dims::fit`); every
    // pointer access covers whole vectors strictly inside those lengths, with unaligned loads
    // and stores.

    use super::{row, Dims, Forward, Update};
    use std::arch::x86_64::*;

    /// The transformer width these kernels are written for.
    pub(super) const FT: usize = 256;
    /// Accumulator lanes per register; the whole 256-lane accumulator fits in 8 registers.
    const LANES: usize = 32;
    const REGS: usize = FT / LANES;
    /// Bytes of one input-major block of a 32-output layer.
    const BLOCK: usize = 128;

    /// Whether a forward pass of widths `d` is one these kernels are written for.
    pub(super) fn fits(d: Dims) -> bool {
        d.ft == FT && d.out1 == 32 && d.in2 == 32 && d.out2 == 32 && d.in3 == 32
    }

    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn update(u: Update, out: &mut [i16]) {
        let Update { w, prev, removed, added, .. } = u;
        let mut r = [_mm512_setzero_si512(); REGS];
        for (i, v) in r.iter_mut().enumerate() {
            *v = _mm512_loadu_si512(prev.as_ptr().add(i * LANES).cast());
        }
        for &f in removed {
            let row = row(w, f, FT);
            for (i, v) in r.iter_mut().enumerate() {
                let w = _mm512_loadu_si512(row.as_ptr().add(i * LANES).cast());
                *v = _mm512_sub_epi16(*v, w);
            }
        }
        for &f in added {
            let row = row(w, f, FT);
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
    unsafe fn clip_acc(acc: *const i16, out: *mut u8) {
        let zero = _mm512_setzero_si512();
        // Per 128-bit lane the pack leaves a0..7 b0..7 | a8..15 b8..15 | ...; gather the 64-bit
        // halves back into a0..31 b0..31.
        let order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
        for c in 0..FT / 64 {
            let a = _mm512_loadu_si512(acc.add(64 * c).cast());
            let b = _mm512_loadu_si512(acc.add(64 * c + 32).cast());
            let p = _mm512_max_epi8(_mm512_packs_epi16(a, b), zero);
            let p = _mm512_permutexvar_epi64(order, p);
            _mm512_storeu_si512(out.add(64 * c).cast(), p);
        }
    }

    /// `clamp((b + w . x) >> 6, 0, 127)` for the 32 outputs from input-major `blocks` (one per
    /// four of the `n_in` inputs; see `Affine`), as 32 bytes in output order.
    #[inline]
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vnni")]
    unsafe fn affine_clip(b: *const i32, blocks: *const i8, n_in: usize, x: *const u8) -> __m256i {
        // Four interleaved pairs of accumulators (outputs 0..16 and 16..32) hide the latency of
        // the dependent dot-product instructions.
        let mut lo = [_mm512_setzero_si512(); 4];
        let mut hi = [_mm512_setzero_si512(); 4];
        for c4 in (0..n_in / 4).step_by(4) {
            for k in 0..4 {
                let c = c4 + k;
                let xv = _mm512_set1_epi32(x.add(4 * c).cast::<i32>().read_unaligned());
                let w = blocks.add(c * BLOCK);
                lo[k] = _mm512_dpbusd_epi32(lo[k], xv, _mm512_loadu_si512(w.cast()));
                hi[k] = _mm512_dpbusd_epi32(hi[k], xv, _mm512_loadu_si512(w.add(64).cast()));
            }
        }
        let sum =
            |v: [__m512i; 4]| _mm512_add_epi32(_mm512_add_epi32(v[0], v[1]), _mm512_add_epi32(v[2], v[3]));
        let lo = _mm512_add_epi32(sum(lo), _mm512_loadu_si512(b.cast()));
        let hi = _mm512_add_epi32(sum(hi), _mm512_loadu_si512(b.add(16).cast()));
        // Signed saturation to i8 then `max 0`: exactly `clamp(v >> 6, 0, 127)`.
        let lo = _mm512_cvtsepi32_epi8(_mm512_srai_epi32::<6>(lo));
        let hi = _mm512_cvtsepi32_epi8(_mm512_srai_epi32::<6>(hi));
        _mm256_max_epi8(_mm256_set_m128i(hi, lo), _mm256_setzero_si256())
    }

    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn propagate(f: Forward, scratch: &mut [u8]) -> i32 {
        let Forward { l, us, them } = f;
        let x = scratch.as_mut_ptr();
        clip_acc(us.as_ptr(), x);
        clip_acc(them.as_ptr(), x.add(FT));
        let h1 = x.add(2 * FT);
        let v1 = affine_clip(l.l1.bias.as_ptr(), l.l1.blocks.as_ptr(), 2 * FT, x);
        _mm256_storeu_si256(h1.cast(), v1);
        let h2 = h1.add(32);
        let v2 = affine_clip(l.l2.bias.as_ptr(), l.l2.blocks.as_ptr(), 32, h1);
        _mm256_storeu_si256(h2.cast(), v2);
        super::avx2::output(l, 32, h2)
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128", not(feature = "portable")))]
mod simd128 {
    // WebAssembly SIMD128. The feature is fixed when the module is compiled (an engine without
    // SIMD cannot even load a module that uses it), so these kernels are safe functions. Every
    // vector load and store goes through the helpers below, which take references to whole
    // fixed-size arrays: the only `unsafe` is theirs, and each covers exactly the array it is given.
    // Views of the big slices as such pieces come from `as_chunks`, so the loop limits are the
    // slice lengths. WebAssembly loads and stores need no alignment.

    use super::super::layers::{Affine, Layers, WEIGHT_SHIFT};
    use super::{row, Dims, Forward, Update};
    use core::arch::wasm32::*;

    /// Accumulator lanes per vector.
    const LANES: usize = 8;
    /// Vectors held per pass over the accumulator: 8 x 8 = 64 lanes (V8 on x86-64 has 16
    /// vector registers; more at once would spill).
    const REGS: usize = 8;

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

    /// One pass of `u` over the vectors `lanes` of the accumulator (`prev` and `out` as vectors).
    #[inline(always)]
    fn update_pass(u: Update, prev: &[[i16; 8]], out: &mut [[i16; 8]], lanes: std::ops::Range<usize>) {
        let Update { w, ft, removed, added, .. } = u;
        let mut r = [i16x8_splat(0); REGS];
        for (v, p) in r.iter_mut().zip(&prev[lanes.clone()]) {
            *v = load_i16(p);
        }
        for &f in removed {
            for (v, w) in r.iter_mut().zip(&row(w, f, ft).as_chunks::<LANES>().0[lanes.clone()]) {
                *v = i16x8_sub(*v, load_i16(w));
            }
        }
        for &f in added {
            for (v, w) in r.iter_mut().zip(&row(w, f, ft).as_chunks::<LANES>().0[lanes.clone()]) {
                *v = i16x8_add(*v, load_i16(w));
            }
        }
        for (v, o) in r.iter().zip(&mut out[lanes]) {
            store_i16(o, *v);
        }
    }

    pub(super) fn update<const FT: usize>(u: Update, out: &mut [i16]) {
        let ft = if FT == 0 { u.ft } else { FT };
        let u = Update { ft, ..u };
        let prev = u.prev[..ft].as_chunks::<LANES>().0;
        let out = out[..ft].as_chunks_mut::<LANES>().0;
        let vectors = ft / LANES;
        let mut start = 0;
        while start < vectors {
            let end = (start + REGS).min(vectors);
            update_pass(u, prev, out, start..end);
            start = end;
        }
    }

    /// `clamp(acc, 0, 127)` as bytes into `out` (as many as `acc` has, a multiple of 16).
    #[inline(always)]
    fn clip_acc(acc: &[i16], out: &mut [u8]) {
        let zero = i8x16_splat(0);
        for (o, ab) in out.as_chunks_mut::<16>().0.iter_mut().zip(acc.as_chunks::<8>().0.chunks_exact(2)) {
            // The narrowing saturates to -128..=127 and keeps the lanes in order; `max 0`
            // completes the clamp.
            let p = i8x16_narrow_i16x8(load_i16(&ab[0]), load_i16(&ab[1]));
            store_u8(o, i8x16_max(p, zero));
        }
    }

    /// The sums of the `2 A` outputs from `g` on of layer `a` over the inputs `x` (one block per
    /// four), with the biases, shifted: `A / 2` vectors of four outputs each.
    ///
    /// Per block, the four input bytes are broadcast and widened to `x0 x1 x2 x3 x0 x1 x2 x3`;
    /// each 8 weight bytes (two outputs' four weights) are widened to `i16` and `i32x4.dot` makes
    /// four pair sums, two per output; the pair sums are added at the end.
    #[inline(always)]
    fn group<const A: usize>(a: &Affine, x: &[u8], g: usize, v: &mut [v128]) {
        let stride = 4 * a.out_pad;
        let x4 = x.as_chunks::<4>().0;
        // acc[j]: outputs g + 2j (lanes 0, 1) and g + 2j + 1 (lanes 2, 3).
        let mut acc = [i32x4_splat(0); A];
        for (block, four) in a.blocks.chunks_exact(stride).zip(x4) {
            let xv = u16x8_extend_low_u8x16(i32x4_splat(i32::from_le_bytes(*four)));
            let w = &block[4 * g..4 * g + 8 * A].as_chunks::<8>().0;
            for (acc, w) in acc.iter_mut().zip(w.iter()) {
                *acc = i32x4_add(*acc, i32x4_dot_i16x8(widen_i8(w), xv));
            }
        }
        let bias = a.bias[g..g + 2 * A].as_chunks::<4>().0;
        for (q, vq) in v.iter_mut().enumerate().take(A / 2) {
            // Even lanes plus odd lanes of two accumulators: outputs 4q .. 4q + 4 in order.
            let (lo, hi) = (acc[2 * q], acc[2 * q + 1]);
            let s = i32x4_add(i32x4_shuffle::<0, 2, 4, 6>(lo, hi), i32x4_shuffle::<1, 3, 5, 7>(lo, hi));
            *vq = i32x4_shr(i32x4_add(s, load_i32(&bias[q])), WEIGHT_SHIFT);
        }
    }

    /// `clamp((b + w . x) >> 6, 0, 127)` for the `out_pad` outputs of layer `a` from its inputs
    /// `x`, into `out` in output order: 16 at a time, then 8.
    #[inline(always)]
    fn affine_clip(a: &Affine, x: &[u8], out: &mut [u8]) {
        let mut g = 0;
        let mut v = [i32x4_splat(0); 4];
        while g + 16 <= a.out_pad {
            group::<8>(a, x, g, &mut v);
            // Signed saturating narrowing twice, then `max 0`: exactly `clamp(v >> 6, 0, 127)`.
            let p = i8x16_narrow_i16x8(i16x8_narrow_i32x4(v[0], v[1]), i16x8_narrow_i32x4(v[2], v[3]));
            let o: &mut [u8; 16] = (&mut out[g..g + 16]).try_into().expect("16 bytes");
            store_u8(o, i8x16_max(p, i8x16_splat(0)));
            g += 16;
        }
        if g < a.out_pad {
            group::<4>(a, x, g, &mut v);
            let half = i16x8_narrow_i32x4(v[0], v[1]);
            let p = i8x16_max(i8x16_narrow_i16x8(half, half), i8x16_splat(0));
            let mut bytes = [0u8; 16];
            store_u8(&mut bytes, p);
            out[g..g + 8].copy_from_slice(&bytes[..8]);
        }
    }

    /// `b3 + w3 . h2`.
    #[inline(always)]
    fn output(l: &Layers, h2: &[u8]) -> i32 {
        let mut s = i32x4_splat(0);
        for (h, w) in h2.as_chunks::<8>().0.iter().zip(l.w3.as_chunks::<8>().0) {
            s = i32x4_add(s, i32x4_dot_i16x8(widen_u8(h), widen_i8(w)));
        }
        let s = i32x4_add(s, i32x4_shuffle::<2, 3, 0, 1>(s, s));
        let s = i32x4_add(s, i32x4_shuffle::<1, 0, 3, 2>(s, s));
        l.b3.wrapping_add(i32x4_extract_lane::<0>(s))
    }

    pub(super) fn propagate<const FT: usize, const H1: usize, const H2: usize>(
        f: Forward,
        scratch: &mut [u8],
    ) -> i32 {
        let Forward { l, us, them } = f;
        let d = Dims::of::<FT, H1, H2>(l);
        let (x, rest) = scratch.split_at_mut(d.in1);
        let (h1, rest) = rest.split_at_mut(d.in2);
        let h2 = &mut rest[..d.in3];
        let (xu, xt) = x.split_at_mut(d.ft);
        clip_acc(&us[..d.ft], xu);
        clip_acc(&them[..d.ft], xt);
        affine_clip(&l.l1, x, h1);
        // Only the first layer's `out1` outputs can be non-zero: the second layer's padded
        // inputs past them (zero weights, zero inputs) are skipped.
        affine_clip(&l.l2, &h1[..d.out1], h2);
        output(l, h2)
    }
}

#[cfg(test)]
mod tests {
    use super::super::layers::Layers;
    use super::super::shape::{FeatureKind, Shape};
    use super::*;
    use crate::splitmix::next as rand;

    /// [`Simd::propagate`] with its precondition checked: panics if the lengths do not fit.
    fn propagate_checked<const FT: usize, const H1: usize, const H2: usize>(
        simd: Simd,
        l: &Layers,
        us: &[i16],
        them: &[i16],
        scratch: &mut [u8],
    ) -> i32 {
        assert!(Dims::of::<FT, H1, H2>(l).hold(l, us, them, scratch));
        // SAFETY: the precondition was checked just above.
        unsafe { simd.propagate::<FT, H1, H2>(l, us, them, scratch) }
    }

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

    fn edgy_vec(rng: &mut u64, n: usize) -> Vec<i16> {
        (0..n).map(|_| edgy(rng)).collect()
    }

    /// A K+P net (1710 rows) of the given widths with edgy transformer rows, hidden weights in
    /// `-w..=w` (at most the `i8` range) and hidden biases in `-b..=b`.
    fn net(seed: u64, (ft, h1, h2): (usize, usize, usize), w: i32, b: i32) -> Network {
        let shape = Shape { features: FeatureKind::Kp, ft, h1, h2 };
        let mut rng = seed;
        let mut layers = Layers::zeroed(ft, h1, h2).unwrap();
        for l in [&mut layers.l1, &mut layers.l2] {
            for o in 0..l.n_out {
                for i in 0..l.n_in {
                    l.rows[o * l.in_pad + i] = pick(&mut rng, -w, w.min(127)) as i8;
                }
                l.bias[o] = pick(&mut rng, -b, b);
            }
            l.build_blocks();
        }
        for v in layers.w3.iter_mut().take(h2) {
            *v = rand(&mut rng) as i8;
        }
        layers.b3 = pick(&mut rng, -100_000, 100_000);
        let rows = edgy_vec(&mut rng, shape.features.inputs() * ft);
        Network::from_parts(shape, &edgy_vec(&mut rng, ft), &rows, layers)
    }

    fn features(rng: &mut u64, max: u64) -> Vec<u32> {
        (0..rand(rng) % (max + 1)).map(|_| (rand(rng) % 1710) as u32).collect()
    }

    /// Widths that exercise every path: the classic one, wide transformers with narrow first
    /// layers, a transformer with a 16-lane tail, hidden layers that are not multiples of 8.
    const WIDTHS: [(usize, usize, usize); 6] =
        [(256, 32, 32), (512, 8, 64), (768, 16, 64), (144, 40, 5), (128, 15, 96), (32, 1, 1)];

    #[test]
    fn detect_picks_the_best_available_set() {
        let all = Simd::available();
        assert_eq!(Simd::detect(), all[0]);
        assert_eq!(all.last(), Some(&Simd::SCALAR));
        let mut names: Vec<&str> = all.iter().map(|s| s.name()).collect();
        names.dedup();
        assert_eq!(names.len(), all.len(), "{names:?}");
        // Every AVX2 CPU has SSSE3 and SSE4.1, so where the AVX2 kernels run the tests prove the
        // 128-bit ones too.
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        if Simd::avx2().is_some() {
            assert!(all.contains(&Simd::sse41().expect("SSSE3 and SSE4.1 with AVX2")), "{names:?}");
        }
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128", not(feature = "portable")))]
        assert_eq!(Simd::detect().name(), "simd128");
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128", not(feature = "portable"))))]
        assert_eq!(Simd::simd128(), None);
    }

    /// The scalar update is the wrapping sum (an `i32` sum reduced mod 2^16); every kernel set
    /// gives the scalar result, at every width, also for refresh-sized lists and repeats.
    #[test]
    fn updates_match_the_wrapping_sum_on_every_kernel() {
        for (n, &widths) in WIDTHS.iter().enumerate() {
            let ft = widths.0;
            let net = net(3 + n as u64, widths, 128, 1000);
            let mut rng = 11;
            let mut wrapped = 0;
            for trial in 0..100 {
                let prev = edgy_vec(&mut rng, ft);
                let max = if trial % 4 == 0 { 40 } else { 3 };
                let (removed, added) = (features(&mut rng, max), features(&mut rng, max));
                let mut want = vec![0i16; ft];
                for (j, w) in want.iter_mut().enumerate() {
                    let row = |f: &u32| i32::from(net.row(*f, ft)[j]);
                    let sum = i32::from(prev[j]) - removed.iter().map(row).sum::<i32>()
                        + added.iter().map(row).sum::<i32>();
                    *w = sum as i16;
                    wrapped += usize::from(i32::from(*w) != sum);
                }
                for simd in Simd::available() {
                    let mut out = vec![0i16; ft];
                    simd.update::<0>(&net, ft, &prev, &mut out, &removed, &added);
                    assert!(out == want, "{}: widths {widths:?}, trial {trial}", simd.name());
                    if ft == 256 {
                        let mut out = vec![0i16; ft];
                        simd.update::<256>(&net, ft, &prev, &mut out, &removed, &added);
                        assert!(out == want, "{}: FT 256, trial {trial}", simd.name());
                    }
                }
            }
            assert!(wrapped > 20 * ft / 32, "too few wrap-arounds exercised: {wrapped}");
        }
    }

    /// YaneuraOu's values for the seed-1 test nets of the classic shape and of kp_256x2-32-32
    /// (`tests/data/nnue/`, read at run time, so that the WASI runner's view of the crate is
    /// proved too) on every kernel set, through a refresh and through the incremental state,
    /// with a move and its take-back from every position.
    #[test]
    fn golden_values_of_the_test_nets_on_every_kernel() {
        use super::super::{evaluate_full_with, testnet, NnueState};
        use crate::position::{MoveList, Position};
        use std::sync::Arc;
        for (file, shape) in [
            ("seed1_fv16.tsv", Shape::CLASSIC),
            ("kp_256x2-32-32_seed1_fv16.tsv", Shape { features: FeatureKind::Kp, ..Shape::CLASSIC }),
        ] {
            let path = format!("{}/tests/data/nnue/{file}", env!("CARGO_MANIFEST_DIR"));
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
            let rows: Vec<(Position, i32)> = text
                .lines()
                .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
                .map(|l| {
                    let (sfen, v) = l.split_once('\t').expect("SFEN TAB value");
                    (Position::from_sfen(sfen).expect("legal SFEN"), v.trim().parse().expect("integer value"))
                })
                .collect();
            assert_eq!(rows.len(), 311);
            let net = Arc::new(
                Network::from_bytes(&testnet::bytes_of(shape, 1, None)).expect("the test net loads"),
            );
            for simd in Simd::available() {
                let mut state = NnueState::with_simd(net.clone(), 16, simd).unwrap();
                for (i, (pos, want)) in rows.iter().enumerate() {
                    let sfen = pos.to_sfen();
                    assert_eq!(
                        evaluate_full_with(&net, pos, 16, simd),
                        Some(*want),
                        "{}: {sfen}",
                        simd.name()
                    );
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

    /// Every kernel set gives the scalar forward pass, at every width, on accumulators full of
    /// clip edges and on nets whose hidden sums fall inside the clip range, far outside it, or
    /// across it.
    #[test]
    fn forward_passes_match_scalar_on_every_kernel() {
        let mut rng = 17;
        for &widths in &WIDTHS {
            let ft = widths.0;
            for (seed, w, b) in [(1, 8, 2000), (2, 128, 300_000), (4, 32, 40_000), (5, 2, 500)] {
                let net = net(seed, widths, w, b);
                let d = Dims::of::<0, 0, 0>(&net.layers);
                let mut outputs = Vec::new();
                for trial in 0..40 {
                    let us = edgy_vec(&mut rng, ft);
                    let mut them = edgy_vec(&mut rng, ft);
                    if trial % 5 == 0 {
                        // Mostly inside the clip range, as real accumulators are.
                        them.iter_mut().for_each(|v| *v = pick(&mut rng, -20, 140) as i16);
                    }
                    let mut scratch = vec![0u8; d.scratch()];
                    let want =
                        propagate_checked::<0, 0, 0>(Simd::SCALAR, &net.layers, &us, &them, &mut scratch);
                    for simd in Simd::available() {
                        let mut scratch = vec![0u8; d.scratch()];
                        let got = propagate_checked::<0, 0, 0>(simd, &net.layers, &us, &them, &mut scratch);
                        assert_eq!(got, want, "{}: {widths:?} net {seed}, trial {trial}", simd.name());
                        if widths == (256, 32, 32) {
                            let got =
                                propagate_checked::<256, 32, 32>(simd, &net.layers, &us, &them, &mut scratch);
                            assert_eq!(got, want, "{}: const widths, net {seed}, trial {trial}", simd.name());
                        }
                    }
                    outputs.push(want);
                }
                outputs.sort_unstable();
                outputs.dedup();
                // Net 2 clips almost every hidden value (few distinct outputs); the others hardly
                // any, except where a one-wide layer leaves little to vary.
                let least = if seed == 2 || widths.2 == 1 { 1 } else { 20 };
                assert!(
                    outputs.len() >= least,
                    "{widths:?} net {seed}: the outputs hardly vary ({})",
                    outputs.len()
                );
            }
        }
    }
}
