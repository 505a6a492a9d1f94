//! The shape of a net: its feature set and its layer widths, how a file's bytes, hashes and
//! architecture string follow from a shape, and how a shape is told from a file.
//!
//! Every "normal NNUE" file of YaneuraOu's family has the same layout (`docs/nnue-format.md`):
//!
//! ```text
//! u32 version | u32 file hash | u32 N | N bytes architecture string
//! u32 transformer hash | i16 ft_bias[FT] | i16 ft_weight[inputs][FT]
//! u32 network hash | i32 b1[H1] i8 w1[H1][pad32(2FT)] | i32 b2[H2] i8 w2[H2][pad32(H1)]
//!                  | i32 b3 i8 w3[pad32(H2)]
//! ```
//!
//! so everything after the string is a function of the shape ([`Shape::body_bytes`]). YaneuraOu
//! checks only the version and that the file ends where its shape says; trainers write wrong or
//! fixed strings and hashes. So [`Shape::identify`] finds every shape whose body has the file's
//! exact size and picks among them by the string, then the hash: the size decides, the rest
//! only breaks ties.

use super::FE_END;
use std::fmt;

/// Squares on the board.
const SQ: usize = 81;
/// BonaPieces with both kings as planes of their own (`fe_end2`).
pub(crate) const FE_END2: usize = FE_END + 2 * SQ;
/// BonaPieces with the enemy king folded into the own king's plane (`e_king`).
pub(crate) const E_KING: usize = FE_END + SQ;
/// King squares of the mirrored feature sets: files 1 to 5.
const MIRRORED_KINGS: usize = 5 * 9;

/// The feature sets of YaneuraOu's normal NNUE nets (its `source/eval/nnue/features/`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FeatureKind {
    /// HalfKP(Friend): every non-king piece relative to the perspective's own king.
    HalfKp,
    /// K+P: every non-king piece on its own, plus each king's square (no king product).
    Kp,
    /// HalfKP_vm(Friend): HalfKP with the king's files 6-9 mirrored onto 4-1.
    HalfKpVm,
    /// HalfKA1(Friend): HalfKP plus both kings, each on a plane of its own.
    HalfKa1,
    /// HalfKA_hm1(Friend): HalfKA1 mirrored like HalfKP_vm.
    HalfKaHm1,
    /// HalfKA2(Friend): HalfKP plus both kings on one shared plane.
    HalfKa2,
    /// HalfKA_hm2(Friend): HalfKA2 mirrored (nnue-pytorch's and rshogi's "HalfKA_hm").
    HalfKaHm2,
    /// HalfKPE9(Friend): HalfKP with each board piece also split by the attacks on its square.
    HalfKpE9,
}

impl FeatureKind {
    /// Every kind, in the order a size search tries them.
    pub const ALL: [FeatureKind; 8] = [
        FeatureKind::HalfKp,
        FeatureKind::Kp,
        FeatureKind::HalfKpVm,
        FeatureKind::HalfKa1,
        FeatureKind::HalfKaHm1,
        FeatureKind::HalfKa2,
        FeatureKind::HalfKaHm2,
        FeatureKind::HalfKpE9,
    ];

    /// The short name used in YaneuraOu's build names and in messages (`halfkp`, `kp`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            FeatureKind::HalfKp => "halfkp",
            FeatureKind::Kp => "kp",
            FeatureKind::HalfKpVm => "halfkpvm",
            FeatureKind::HalfKa1 => "halfka1",
            FeatureKind::HalfKaHm1 => "halfkahm1",
            FeatureKind::HalfKa2 => "halfka2",
            FeatureKind::HalfKaHm2 => "halfkahm2",
            FeatureKind::HalfKpE9 => "halfkpe9",
        }
    }

    /// The name in the architecture string YaneuraOu writes.
    pub const fn string_name(self) -> &'static str {
        match self {
            FeatureKind::HalfKp => "HalfKP(Friend)",
            FeatureKind::Kp => "K+P",
            FeatureKind::HalfKpVm => "HalfKP_vm(Friend)",
            FeatureKind::HalfKa1 => "HalfKA1(Friend)",
            FeatureKind::HalfKaHm1 => "HalfKA_hm1(Friend)",
            FeatureKind::HalfKa2 => "HalfKA2(Friend)",
            FeatureKind::HalfKaHm2 => "HalfKA_hm2(Friend)",
            FeatureKind::HalfKpE9 => "HalfKPE9(Friend)",
        }
    }

    /// Number of inputs (rows of the transformer).
    pub const fn inputs(self) -> usize {
        match self {
            FeatureKind::HalfKp => SQ * FE_END,
            FeatureKind::Kp => FE_END + 2 * SQ,
            FeatureKind::HalfKpVm => MIRRORED_KINGS * FE_END,
            FeatureKind::HalfKa1 => SQ * FE_END2,
            FeatureKind::HalfKaHm1 => MIRRORED_KINGS * FE_END2,
            FeatureKind::HalfKa2 => SQ * E_KING,
            FeatureKind::HalfKaHm2 => MIRRORED_KINGS * E_KING,
            FeatureKind::HalfKpE9 => SQ * FE_END * 9,
        }
    }

    /// The feature set's hash (YaneuraOu's `kHashValue`, the Friend variant).
    pub const fn hash(self) -> u32 {
        match self {
            FeatureKind::HalfKp | FeatureKind::HalfKpE9 => 0x5D69_D5B9 ^ 1,
            // FeatureSet<K, P>: K's hash combined with P's.
            FeatureKind::Kp => {
                let p = 0x764C_FB4Bu32;
                0xD3CE_E169 ^ (p << 1) ^ (p >> 31)
            }
            FeatureKind::HalfKpVm => 0x0B6B_1D9B ^ 1,
            FeatureKind::HalfKa1 => 0x5F13_4CB9 ^ 1,
            FeatureKind::HalfKaHm1 => 0x7F13_4CB9 ^ 1,
            FeatureKind::HalfKa2 => 0x5F23_4CB9 ^ 1,
            FeatureKind::HalfKaHm2 => 0x7F23_4CB9 ^ 1,
        }
    }

    /// The kind an architecture-string name or a short name names (case-insensitive).
    pub fn from_name(name: &str) -> Option<FeatureKind> {
        let n = name.trim().to_ascii_lowercase();
        FeatureKind::ALL.into_iter().find(|k| n == k.name() || n == k.string_name().to_ascii_lowercase())
    }
}

/// The narrowest and widest transformer (per perspective) the loader accepts.
pub const MIN_FT: usize = 16;
pub const MAX_FT: usize = 4096;
/// The widest hidden layer the loader accepts.
pub const MAX_HIDDEN: usize = 1024;

/// A net's shape: feature set, transformer width per perspective (`FT`, a multiple of 16) and
/// the two hidden layers' widths.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    pub features: FeatureKind,
    pub ft: usize,
    pub h1: usize,
    pub h2: usize,
}

/// `n` rounded up to a multiple of 32 (the stored width of an `i8` weight row).
pub const fn pad32(n: usize) -> usize {
    n.div_ceil(32) * 32
}

/// Hash of an `AffineTransform` with `out` outputs on top of a layer with hash `prev`.
const fn affine_hash(prev: u32, out: u32) -> u32 {
    0xCC03_DAE4u32.wrapping_add(out) ^ (prev >> 1) ^ (prev << 31)
}

/// Hash of a `ClippedReLU` on top of a layer with hash `prev`.
const fn clipped_relu_hash(prev: u32) -> u32 {
    0x538D_24C7u32.wrapping_add(prev)
}

impl Shape {
    /// The classic shape, halfkp_256x2-32-32 (Suisho5 and most nets of 2018-2021).
    pub const CLASSIC: Shape = Shape { features: FeatureKind::HalfKp, ft: 256, h1: 32, h2: 32 };

    /// Whether the widths are within what the loader accepts.
    pub const fn valid(&self) -> bool {
        self.ft >= MIN_FT
            && self.ft <= MAX_FT
            && self.ft.is_multiple_of(16)
            && self.h1 >= 1
            && self.h1 <= MAX_HIDDEN
            && self.h2 >= 1
            && self.h2 <= MAX_HIDDEN
    }

    /// Inputs of the first hidden layer: both perspectives' transformer outputs.
    pub const fn l1_in(&self) -> usize {
        2 * self.ft
    }

    /// The transformer hash: the feature set's hash with the transformer's output width.
    pub const fn transformer_hash(&self) -> u32 {
        self.features.hash() ^ (2 * self.ft as u32)
    }

    /// The network hash: the layer stack hashed from the innermost layer out, as YaneuraOu does.
    pub const fn network_hash(&self) -> u32 {
        let input_slice = 0xEC42_E90D ^ (2 * self.ft as u32);
        let h = clipped_relu_hash(affine_hash(input_slice, self.h1 as u32));
        let h = clipped_relu_hash(affine_hash(h, self.h2 as u32));
        affine_hash(h, 1)
    }

    /// The file hash: transformer hash xor network hash.
    pub const fn file_hash(&self) -> u32 {
        self.transformer_hash() ^ self.network_hash()
    }

    /// Bytes of the three affine layers (biases and padded weight rows).
    pub const fn layer_bytes(&self) -> usize {
        4 * self.h1
            + self.h1 * pad32(2 * self.ft)
            + 4 * self.h2
            + self.h2 * pad32(self.h1)
            + 4
            + pad32(self.h2)
    }

    /// Bytes of the transformer's weights and biases.
    pub const fn transformer_bytes(&self) -> usize {
        2 * self.ft + 2 * self.ft * self.features.inputs()
    }

    /// Bytes after the architecture string: both hashes, the transformer and the layers.
    pub const fn body_bytes(&self) -> usize {
        4 + self.transformer_bytes() + 4 + self.layer_bytes()
    }

    /// Size of a file of this shape with the architecture string YaneuraOu writes for it.
    pub fn file_bytes(&self) -> usize {
        12 + self.architecture().len() + self.body_bytes()
    }

    /// The architecture string YaneuraOu writes for this shape.
    pub fn architecture(&self) -> String {
        let (f, n, ft, h1, h2) =
            (self.features.string_name(), self.features.inputs(), self.ft, self.h1, self.h2);
        let l1 = 2 * ft;
        format!(
            "Features={f}[{n}->{ft}x2],Network=AffineTransform[1<-{h2}](ClippedReLU[{h2}](\
             AffineTransform[{h2}<-{h1}](ClippedReLU[{h1}](AffineTransform[{h1}<-{l1}](\
             InputSlice[{l1}(0:{l1})])))))"
        )
    }

    /// Reads the shape an architecture string describes, when it has the usual form: the
    /// feature name and `[inputs->FTx2]`, and the three `AffineTransform[out<-in]` layers.
    /// `None` for anything else (the string is informational; the size decides).
    pub fn from_architecture(text: &str) -> Option<Shape> {
        let rest = text.strip_prefix("Features=")?;
        let (name, rest) = rest.split_once('[')?;
        let features = FeatureKind::from_name(name)?;
        let (dims, rest) = rest.split_once(']')?;
        let (_, ft) = dims.split_once("->")?;
        let ft: usize = ft.strip_suffix("x2")?.parse().ok()?;
        // The affine layers from the outside in: 1 <- H2, H2 <- H1, H1 <- 2FT.
        let mut outs = Vec::new();
        let mut s = rest;
        while let Some(i) = s.find("AffineTransform[") {
            s = &s[i + "AffineTransform[".len()..];
            let (o, _) = s.split_once("<-")?;
            outs.push(o.parse::<usize>().ok()?);
        }
        let [1, h2, h1] = outs[..] else {
            return None;
        };
        let shape = Shape { features, ft, h1, h2 };
        shape.valid().then_some(shape)
    }

    /// Reads a short name such as `halfkp_512x2-8-64` (YaneuraOu's build names, case-insensitive,
    /// `-` or `_` between the widths).
    pub fn from_name(text: &str) -> Option<Shape> {
        let t = text.trim().to_ascii_lowercase();
        let (feat, dims) = t.split_once('_')?;
        let features = FeatureKind::from_name(feat)?;
        let (ft, hidden) = dims.split_once("x2")?;
        let mut h = hidden.trim_start_matches(['-', '_']).split(['-', '_']);
        let (h1, h2) = (h.next()?.parse().ok()?, h.next()?.parse().ok()?);
        if h.next().is_some() {
            return None;
        }
        let shape = Shape { features, ft: ft.parse().ok()?, h1, h2 };
        shape.valid().then_some(shape)
    }

    /// Every valid shape whose body after the architecture string is exactly `body` bytes. Most
    /// sizes have none or one; ties are rare.
    pub fn with_body_bytes(body: usize) -> Vec<Shape> {
        let mut found = Vec::new();
        for features in FeatureKind::ALL {
            let mut ft = MIN_FT;
            while ft <= MAX_FT {
                let base = Shape { features, ft, h1: 1, h2: 1 };
                let fixed = 8 + base.transformer_bytes();
                let Some(layers) = body.checked_sub(fixed) else {
                    break; // wider transformers only grow
                };
                // More than the widest hidden layers take: no shape of this width fits.
                let widest = MAX_HIDDEN * (4 + pad32(2 * ft))
                    + MAX_HIDDEN * (4 + pad32(MAX_HIDDEN))
                    + 4
                    + pad32(MAX_HIDDEN);
                if layers > widest {
                    ft += 16;
                    continue;
                }
                for h1 in 1..=MAX_HIDDEN {
                    let first = 4 * h1 + h1 * pad32(2 * ft);
                    let Some(rest) = layers.checked_sub(first + 4) else {
                        break;
                    };
                    // rest = 4 H2 + H2 pad32(H1) + pad32(H2): increasing in H2, so solve by search.
                    let cost = |h2: usize| 4 * h2 + h2 * pad32(h1) + pad32(h2);
                    let (mut lo, mut hi) = (1usize, MAX_HIDDEN);
                    while lo < hi {
                        let mid = (lo + hi) / 2;
                        if cost(mid) < rest {
                            lo = mid + 1;
                        } else {
                            hi = mid;
                        }
                    }
                    if cost(lo) == rest {
                        found.push(Shape { features, ft, h1, h2: lo });
                    }
                }
                ft += 16;
            }
        }
        found
    }

    /// The shapes of the well-known nets (`docs/nnue-format.md`): where sizes coincide, these
    /// come first.
    pub const KNOWN: [&'static str; 16] = [
        "halfkp_256x2-32-32",
        "halfkp_128x2-32-32",
        "halfkp_512x2-8-64",
        "halfkp_512x2-8-96",
        "halfkp_512x2-16-32",
        "halfkp_768x2-16-64",
        "halfkp_1024x2-8-32",
        "halfkp_1024x2-8-64",
        "kp_256x2-32-32",
        "halfkpvm_256x2-32-32",
        "halfkpe9_256x2-32-32",
        "halfka1_256x2-32-32",
        "halfkahm1_256x2-32-32",
        "halfka2_256x2-32-32",
        "halfkahm2_256x2-32-32",
        "halfkahm2_512x2-8-64",
    ];

    /// Whether the hidden widths are ones real nets use: multiples of 8 up to 128.
    pub fn usual(&self) -> bool {
        self.h1.is_multiple_of(8) && self.h2.is_multiple_of(8) && self.h1 <= 128 && self.h2 <= 128
    }

    /// Whether this is the shape of a well-known net ([`Shape::KNOWN`]).
    pub fn known(&self) -> bool {
        Shape::KNOWN.iter().any(|k| Shape::from_name(k) == Some(*self))
    }

    /// The shape of a file whose header holds `file_hash` and `architecture` and whose body
    /// after the string is `body` bytes, and the other shapes of that size, if any. Among the
    /// shapes of that size: the one the string names, else the one the hash names, else a
    /// well-known one, else one with the string's feature set and width, else the first with
    /// usual hidden widths (multiples of 8 up to 128). `Err` carries what the file seems to be
    /// when no shape has its size.
    pub fn identify(
        file_hash: u32,
        architecture: &str,
        body: usize,
    ) -> Result<(Shape, Vec<Shape>), Mismatch> {
        let named = Shape::from_architecture(architecture);
        let candidates = Shape::with_body_bytes(body);
        let pick = |s: Shape| {
            let others = candidates.iter().copied().filter(|&c| c != s).collect();
            Ok((s, others))
        };
        if let Some(s) = named.filter(|s| candidates.contains(s)) {
            return pick(s);
        }
        let by_hash: Vec<Shape> = candidates.iter().copied().filter(|s| s.file_hash() == file_hash).collect();
        if let [s] = by_hash[..] {
            return pick(s);
        }
        let pool = if by_hash.is_empty() { &candidates } else { &by_hash };
        let usual = |s: &&Shape| s.usual();
        let like_named = |s: &&Shape| named.is_some_and(|n| (n.features, n.ft) == (s.features, s.ft));
        let best = pool
            .iter()
            .find(|s| s.known())
            .or_else(|| pool.iter().find(like_named))
            .or_else(|| pool.iter().find(usual))
            .or(pool.first());
        match best {
            Some(&s) => pick(s),
            None => Err(Mismatch { named, body }),
        }
    }
}

/// A file whose size fits no shape: what its string says it is, and its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The shape the architecture string names, if it names one.
    pub named: Option<Shape>,
    /// Bytes after the architecture string.
    pub body: usize,
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}_{}x2-{}-{}", self.features.name(), self.ft, self.h1, self.h2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classic_hashes_and_size() {
        let c = Shape::CLASSIC;
        assert_eq!(c.transformer_hash(), 0x5D69_D7B8);
        assert_eq!(c.network_hash(), 0x6333_7156);
        assert_eq!(c.file_hash(), 0x3E5A_A6EE);
        assert_eq!(c.architecture().len(), 178);
        assert_eq!(c.file_bytes(), 64_217_066);
        assert_eq!(Shape::from_architecture(&c.architecture()), Some(c));
        assert_eq!(Shape::from_name("halfKP_256x2-32-32"), Some(c));
        assert_eq!(c.to_string(), "halfkp_256x2-32-32");
    }

    #[test]
    fn kp_hash_is_the_documented_one() {
        // The K+P 256x2-32-32 file hash YaneuraOu writes.
        let kp = Shape { features: FeatureKind::Kp, ..Shape::CLASSIC };
        assert_eq!(kp.file_hash(), 0x5C64_64A9);
    }

    #[test]
    fn names_round_trip_and_sizes_identify() {
        for name in [
            "halfkp_512x2-8-64",
            "halfkp_768x2-16-64",
            "halfkp_1024x2-8-32",
            "kp_256x2-32-32",
            "halfkpvm_256x2-32-32",
            "halfka1_256x2-32-32",
            "halfkahm1_256x2-32-32",
            "halfka2_256x2-32-32",
            "halfkahm2_256x2-32-32",
            "halfkp_128x2-32-32",
            "halfkp_512x2-8-96",
            "halfkpe9_256x2-32-32",
        ] {
            let s = Shape::from_name(name).unwrap();
            assert_eq!(s.to_string(), name);
            assert_eq!(Shape::from_architecture(&s.architecture()), Some(s), "{name}");
            // By size alone (a wrong string and hash), the shape is still found.
            assert_eq!(Shape::identify(0, "", s.body_bytes()).map(|r| r.0), Ok(s), "{name}");
            // A wrong string does not override the size.
            let other = Shape::CLASSIC.architecture();
            assert_eq!(Shape::identify(0, &other, s.body_bytes()).map(|r| r.0), Ok(s), "{name}");
        }
    }

    #[test]
    fn coinciding_sizes_go_by_the_string_then_the_hash() {
        // halfkp_128x2-32-32 and halfkp_128x2-24-88 have bodies of the same size.
        let (a, b) = (
            Shape::from_name("halfkp_128x2-32-32").unwrap(),
            Shape::from_name("halfkp_128x2-24-88").unwrap(),
        );
        assert_eq!(a.body_bytes(), b.body_bytes());
        let by_string = Shape::identify(0, &b.architecture(), b.body_bytes()).unwrap();
        assert_eq!(by_string.0, b);
        assert!(by_string.1.contains(&a) && by_string.1.iter().all(|s| s.body_bytes() == a.body_bytes()));
        assert_eq!(Shape::identify(b.file_hash(), "", b.body_bytes()).unwrap().0, b);
        // Without either, the well-known shape.
        assert_eq!(Shape::identify(0, "", b.body_bytes()).unwrap().0, a);
    }

    #[test]
    fn sizes_of_no_shape_are_mismatches() {
        let c = Shape::CLASSIC;
        let e = Shape::identify(c.file_hash(), &c.architecture(), c.body_bytes() - 1).unwrap_err();
        assert_eq!(e.named, Some(c));
        assert!(Shape::identify(0, "garbage", 12).is_err());
        assert!(Shape::from_architecture("Features=HalfKP(Friend)[1->0x2]").is_none());
        assert!(Shape::from_name("halfkp_100000x2-8-8").is_none());
    }
}
