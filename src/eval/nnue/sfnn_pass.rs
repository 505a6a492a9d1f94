//! The forward pass of SFNN nets ([`super::sfnn`]): the transformed features (the product of
//! each perspective's two accumulator halves), then the layer stack the position picks, with
//! the AVX2 kernels where the CPU has them and their scalar twin elsewhere (both exact, equal;
//! the test below compares them). Apart from `sfnn.rs`, which reads the nets, so that reading
//! a net needs no kernel.

use super::layers::dot;
use super::sfnn::{LayerStack, Sfnn};
use super::shape::pad32;
use super::simd::Simd;
use crate::position::Position;

/// The raw output for `pos` from the (doubled) accumulators of the side to move (`us`) and the
/// other side (`them`), `FT` values each, with kernels `simd` (AVX2 where it has it, else the
/// scalar twin; both exact and equal). `scratch` holds [`Sfnn::scratch_bytes`].
pub(crate) fn forward(
    net: &Sfnn,
    pos: &Position,
    us: &[i16],
    them: &[i16],
    scratch: &mut [u8],
    simd: Simd,
) -> i32 {
    let st = net.stack(pos);
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    if simd.has_avx2() {
        // SAFETY: `has_avx2` holds only for a `Simd` made after the CPU was checked for AVX2.
        return unsafe { forward_avx2(net, st, us, them, scratch) };
    }
    let _ = simd;
    // SAFETY: the scalar twin uses no CPU feature.
    unsafe { forward_with::<false>(net, st, us, them, scratch) }
}

/// [`forward_with`] with AVX2 (compiled for it, so the kernels inline).
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
#[target_feature(enable = "avx2")]
unsafe fn forward_avx2(net: &Sfnn, st: &LayerStack, us: &[i16], them: &[i16], scratch: &mut [u8]) -> i32 {
    // SAFETY: the caller vouches for AVX2.
    unsafe { forward_with::<true>(net, st, us, them, scratch) }
}

/// The forward pass of layer stack `st`; `AVX2`: with the AVX2 kernels.
///
/// # Safety
/// With `AVX2`, the CPU must support AVX2.
#[inline(always)]
unsafe fn forward_with<const AVX2: bool>(
    net: &Sfnn,
    st: &LayerStack,
    us: &[i16],
    them: &[i16],
    scratch: &mut [u8],
) -> i32 {
    let s = net.shape();
    let (fp, h1p) = (pad32(s.ft), pad32(2 * s.h1));
    let (x, rest) = scratch.split_at_mut(fp);
    let (y, z) = rest.split_at_mut(h1p);
    let half = s.ft / 2;
    let dot = |b: i32, w: &[i8], x: &[u8]| {
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        if AVX2 {
            // SAFETY: AVX2 only when the caller vouches for it.
            return unsafe { kernels::dot(b, w, x) };
        }
        dot(b, w, x)
    };
    for (p, acc) in [us, them].into_iter().enumerate() {
        let (a, b) = acc[..s.ft].split_at(half);
        let out = &mut x[p * half..(p + 1) * half];
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        if AVX2 {
            // SAFETY: AVX2 only when the caller vouches for it.
            unsafe { kernels::products(a, b, out) };
            continue;
        }
        products(a, b, out);
    }
    for i in 0..s.h1 {
        let v = dot(st.b0[i], &st.w0[i * fp..(i + 1) * fp], x);
        y[i] = sqr_clip(v);
        y[s.h1 + i] = clip(v);
    }
    let z = &mut z[..pad32(s.h2)];
    for (o, zo) in z.iter_mut().enumerate().take(s.h2) {
        *zo = clip(dot(st.b1[o], &st.w1[o * h1p..(o + 1) * h1p], y));
    }
    let out = dot(st.b2, &st.w2, z);
    if s.shortcut() {
        out.wrapping_add(dot(st.b0[s.h1], &st.w0[s.h1 * fp..(s.h1 + 1) * fp], x))
    } else {
        out
    }
}

/// `out[j] = product(a[j], b[j])` (scalar).
fn products(a: &[i16], b: &[i16], out: &mut [u8]) {
    for ((o, &a), &b) in out.iter_mut().zip(a).zip(b) {
        *o = product(a, b);
    }
}

/// The AVX2 twins of [`products`] and `layers::dot`.
///
/// Exactness: the products are `mulhi_epi16` of `clamp(a, 0, 254) << 7` (at most 32512, an
/// `i16`) and `clamp(b, 0, 254)`, both non-negative: the high half is the `>> 16` of the exact
/// product, and `packus` to bytes changes nothing (at most 126). The dot products use `maddubs`
/// (u8 x i8 pairs summed into i16, saturating): every input here is at most 127 (transformed
/// features 126, activations 127), so a pair sums to at most 2 * 127 * 128 = 32512 and never
/// saturates; `madd` with ones then widens to exact `i32` sums.
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
mod kernels {
    use std::arch::x86_64::*;

    /// [`super::products`]: `out.len()` values, a multiple of 8.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn products(a: &[i16], b: &[i16], out: &mut [u8]) {
        let n = out.len();
        assert!(a.len() >= n && b.len() >= n);
        let (zero, top) = (_mm256_setzero_si256(), _mm256_set1_epi16(254));
        let mut j = 0;
        while j + 16 <= n {
            // SAFETY: `j + 16 <= n`, within `a`, `b` and `out` (checked above).
            unsafe {
                let va = _mm256_loadu_si256(a.as_ptr().add(j).cast());
                let vb = _mm256_loadu_si256(b.as_ptr().add(j).cast());
                let va = _mm256_slli_epi16::<7>(_mm256_min_epi16(_mm256_max_epi16(va, zero), top));
                let vb = _mm256_min_epi16(_mm256_max_epi16(vb, zero), top);
                let p = _mm256_mulhi_epi16(va, vb);
                // Bytes 0-7 of each 128-bit lane hold the lane's 8 products; gather them.
                let packed = _mm256_permute4x64_epi64::<0b1000>(_mm256_packus_epi16(p, p));
                _mm_storeu_si128(out.as_mut_ptr().add(j).cast(), _mm256_castsi256_si128(packed));
            }
            j += 16;
        }
        super::products(&a[j..n], &b[j..n], &mut out[j..]);
    }

    /// `layers::dot`: `b + w . x`, `w.len() == x.len()` a multiple of 32, every `x` at most 127.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn dot(b: i32, w: &[i8], x: &[u8]) -> i32 {
        assert!(w.len() == x.len() && w.len().is_multiple_of(32));
        let ones = _mm256_set1_epi16(1);
        let mut acc = _mm256_setzero_si256();
        for i in (0..w.len()).step_by(32) {
            // SAFETY: `i + 32 <= len` for both slices.
            unsafe {
                let xv = _mm256_loadu_si256(x.as_ptr().add(i).cast());
                let wv = _mm256_loadu_si256(w.as_ptr().add(i).cast());
                acc = _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(xv, wv), ones));
            }
        }
        let s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256::<1>(acc));
        let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b0100_1110>(s));
        let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b1011_0001>(s));
        b.wrapping_add(_mm_cvtsi128_si32(s))
    }
}

/// The transformed feature of one accumulator pair: `(clamp(a, 0, 254) << 7) * clamp(b, 0, 254)
/// >> 16` (at most 126).
#[inline(always)]
pub(crate) fn product(a: i16, b: i16) -> u8 {
    let (a, b) = (i32::from(a.clamp(0, 254)), i32::from(b.clamp(0, 254)));
    (((a << 7) * b) >> 16) as u8
}

/// `min(127, v^2 >> 19)`.
#[inline(always)]
pub(crate) fn sqr_clip(v: i32) -> u8 {
    ((i64::from(v) * i64::from(v)) >> 19).min(127) as u8
}

/// `clamp(v >> 6, 0, 127)`.
#[inline(always)]
pub(crate) fn clip(v: i32) -> u8 {
    (v >> 6).clamp(0, 127) as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    use crate::eval::nnue::{aligned::AlignedVec, sfnn::Buckets, sfnn::SfnnShape, shape::FeatureKind};

    /// The AVX2 forward pass equals its scalar twin on random layers of every weight and random
    /// accumulators across the whole `i16` range and around the clamps.
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    #[test]
    fn avx2_forward_matches_scalar() {
        if Simd::avx2().is_none() {
            return;
        }
        let mut rng = 0x5EED_u64;
        let mut r = |lo: i64, hi: i64| lo + (crate::splitmix::next(&mut rng) % (hi - lo + 1) as u64) as i64;
        for (ft, h1, h2) in [(1024, 7, 64), (64, 16, 32), (48, 15, 8), (16, 8, 1)] {
            let shape = SfnnShape { features: FeatureKind::HalfKa2, ft, h1, h2, buckets: Buckets::None };
            let (o0, fp, h1p, h2p) = (shape.fc0_out(), pad32(ft), pad32(2 * h1), pad32(h2));
            let mut w0 = AlignedVec::try_new(o0 * fp).unwrap();
            let mut w1 = AlignedVec::try_new(h2 * h1p).unwrap();
            let mut w2 = AlignedVec::try_new(h2p).unwrap();
            for o in 0..o0 {
                for i in 0..ft {
                    w0[o * fp + i] = r(-128, 127) as i8;
                }
            }
            for o in 0..h2 {
                for i in 0..2 * h1 {
                    w1[o * h1p + i] = r(-128, 127) as i8;
                }
            }
            for w in w2.iter_mut().take(h2) {
                *w = r(-128, 127) as i8;
            }
            let st = LayerStack {
                b0: (0..o0).map(|_| r(-20000, 20000) as i32).collect(),
                w0,
                b1: (0..h2).map(|_| r(-20000, 20000) as i32).collect(),
                w1,
                b2: r(-20000, 20000) as i32,
                w2,
            };
            let net = Sfnn::for_test(shape);
            let mut scratch = vec![0u8; net.scratch_bytes()];
            for round in 0..300 {
                let acc = |r: &mut dyn FnMut(i64, i64) -> i64| -> Vec<i16> {
                    (0..ft)
                        .map(|_| match round % 3 {
                            0 => r(-32768, 32767),
                            1 => r(-20, 280),
                            _ => [0, 1, 253, 254, 255, -1, 127, 128][r(0, 7) as usize],
                        } as i16)
                        .collect()
                };
                let (us, them) = (acc(&mut r), acc(&mut r));
                // SAFETY: the CPU has AVX2 (checked above).
                let (a, b) = unsafe {
                    (
                        forward_with::<false>(&net, &st, &us, &them, &mut scratch),
                        forward_avx2(&net, &st, &us, &them, &mut scratch),
                    )
                };
                assert_eq!(a, b, "{shape} round {round}");
            }
        }
    }

    #[test]
    fn activations() {
        assert_eq!(product(254, 254), 126);
        assert_eq!(product(300, -5), 0);
        assert_eq!(product(-3, 200), 0);
        assert_eq!(product(100, 200), (((100 << 7) * 200) >> 16) as u8);
        assert_eq!(sqr_clip(-8159), 126);
        assert_eq!(sqr_clip(8160), 127);
        assert_eq!(sqr_clip(i32::MIN), 127);
        assert_eq!(clip(-1), 0);
        assert_eq!(clip(64 * 127 + 63), 127);
        assert_eq!(clip(64 * 128), 127);
    }
}
