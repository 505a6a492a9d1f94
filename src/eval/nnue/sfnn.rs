//! YaneuraOu's SFNN nets (Suisho 11's `SFNN_halfka2_1024_7_64_k3k3`, YaneuraOu's `SFNN1536`):
//! the file layout, the LEB128-compressed transformer, the layer stacks and the exact forward
//! pass. The format and the arithmetic are specified in `docs/nnue-format.md` ("SFNN nets").
//!
//! ```text
//! x[FT]   = per perspective p (side to move, then the other), j < FT/2:
//!           (clamp(a[j], 0, 254) << 7) * clamp(a[j + FT/2], 0, 254) >> 16     a: acc, doubled
//! s[H1']  = b0 + w0 . x                       H1' = H1 + 1 with the shortcut (H1 = 8n - 1)
//! y[2H1]  = min(127, s[i]^2 >> 19) for i < H1 ++ clamp(s[i] >> 6, 0, 127) for i < H1
//! z[H2]   = clamp((b1 + w1 . y) >> 6, 0, 127)
//! out     = b2 + w2 . z (+ s[H1] with the shortcut)
//! ```
//! The transformer is stored with its weights and biases halved: they are doubled (as `i16`,
//! wrapping) when read, and the accumulators hold the doubled sums. Which layer stack evaluates a
//! position is its bucket ([`Buckets`]).

use super::aligned::AlignedVec;
use super::shape::{pad32, FeatureKind, MAX_FT, MAX_HIDDEN, MIN_FT};
use crate::position::Position;
use crate::types::Color;
use std::fmt;

/// The file hash of every SFNN net without progress buckets (transformer ^ network).
pub const FILE_HASH: u32 = 0x3C20_3B32;
/// The hash before the transformer of every SFNN net.
pub const TRANSFORMER_HASH: u32 = 0x5F13_4AB8;
/// The hash before each layer stack.
pub const NETWORK_HASH: u32 = 0x6333_718A;
/// The marker before each LEB128-compressed block.
pub const LEB128_MAGIC: &[u8; 17] = b"COMPRESSED_LEB128";
/// The architecture string's prefix of SFNN nets.
pub const MODEL_PREFIX: &str = "ModelType=SFNNWithoutPsqt;";

/// How a position picks its layer stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Buckets {
    /// One layer stack.
    None,
    /// Nine: the ranks of both kings, each in thirds (`k3k3`).
    K3K3,
}

impl Buckets {
    /// Layer stacks in the file.
    pub const fn count(self) -> usize {
        match self {
            Buckets::None => 1,
            Buckets::K3K3 => 9,
        }
    }

    /// The layer stack of `pos` (both kings on the board). `k3k3`: `3 (f / 3) + e / 3`, where `f`
    /// is the side to move's king's rank counted from the far side of the board (0 = the rank
    /// farthest from its own camp) and `e` the other king's, counted from that king's own far
    /// side.
    #[inline]
    pub fn of(self, pos: &Position) -> usize {
        match self {
            Buckets::None => 0,
            Buckets::K3K3 => {
                let us = pos.side_to_move();
                let them = us.flip();
                let rank = |c: Color| pos.king_square(c).map_or(0, |s| s.relative_rank(c) as usize);
                (rank(us) / 3) * 3 + rank(them) / 3
            }
        }
    }
}

/// The shape of an SFNN net: feature set, transformer width `FT` (the width of each perspective's
/// accumulator and of the transformed features), hidden widths and the bucketing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SfnnShape {
    pub features: FeatureKind,
    pub ft: usize,
    pub h1: usize,
    pub h2: usize,
    pub buckets: Buckets,
}

/// What the layer-stack suffixes Hayate reads are, for messages.
const SUPPORTED: &str =
    "Hayate reads SFNN nets of feature sets halfka2 and halfkahm2 with no layer-stack suffix \
                         or k3k3";

impl SfnnShape {
    /// Suisho 11's shape.
    pub const SUISHO11: SfnnShape =
        SfnnShape { features: FeatureKind::HalfKa2, ft: 1024, h1: 7, h2: 64, buckets: Buckets::K3K3 };

    /// Whether `fc_0` has the extra shortcut output (`H1 = 8n - 1`).
    pub const fn shortcut(&self) -> bool {
        self.h1 % 8 == 7
    }

    /// Outputs of `fc_0`.
    pub const fn fc0_out(&self) -> usize {
        self.h1 + self.shortcut() as usize
    }

    /// Bytes of one layer stack, its hash included.
    pub const fn stack_bytes(&self) -> usize {
        4 + 4 * self.fc0_out()
            + self.fc0_out() * pad32(self.ft)
            + 4 * self.h2
            + self.h2 * pad32(2 * self.h1)
            + 4
            + pad32(self.h2)
    }

    /// Whether Hayate reads this shape; the reason when not.
    pub fn check(&self) -> Result<(), String> {
        if !matches!(self.features, FeatureKind::HalfKa2 | FeatureKind::HalfKaHm2) {
            return Err(format!("an SFNN net of feature set {}: {SUPPORTED}", self.features.name()));
        }
        if !(MIN_FT..=MAX_FT).contains(&self.ft) || !self.ft.is_multiple_of(16) {
            return Err(format!(
                "an SFNN net {} wide: the transformer must be {MIN_FT} to {MAX_FT} wide, a multiple of 16",
                self.ft
            ));
        }
        if !(7..=MAX_HIDDEN).contains(&self.h1) || !matches!(self.h1 % 8, 0 | 7) {
            return Err(format!(
                "an SFNN net with H1 = {}: H1 must be 8n or 8n - 1, 7 to {MAX_HIDDEN}",
                self.h1
            ));
        }
        if !(1..=MAX_HIDDEN).contains(&self.h2) {
            return Err(format!("an SFNN net with H2 = {}: H2 must be 1 to {MAX_HIDDEN}", self.h2));
        }
        Ok(())
    }

    /// The network name YaneuraOu writes (its build name in capitals).
    pub fn network_name(&self) -> String {
        self.to_string().to_ascii_uppercase()
    }

    /// The architecture string YaneuraOu writes for this shape.
    pub fn architecture(&self) -> String {
        format!(
            "{MODEL_PREFIX}Features={}[{}->{}x2],Network={}{{LayerStack={}}}",
            self.features.string_name(),
            self.features.inputs(),
            self.ft,
            self.network_name(),
            self.buckets.count()
        )
    }

    /// Reads a build name: `SFNN_<feature>_<FT>_<H1>_<H2>[_k3k3]` (any case, `-` or `_`), or
    /// `SFNN1536` / `SFNN-1536`. `Ok(None)`: not an SFNN name; `Err`: an SFNN name Hayate does
    /// not read, with the reason.
    pub fn from_name(text: &str) -> Result<Option<SfnnShape>, String> {
        let t = text.trim().to_ascii_lowercase().replace('-', "_");
        let t = t.strip_prefix("yaneuraou_engine_").unwrap_or(&t);
        if !t.starts_with("sfnn") {
            return Ok(None);
        }
        if t == "sfnn1536" || t == "sfnn_1536" {
            let features = FeatureKind::HalfKaHm2;
            return Ok(Some(SfnnShape { features, ft: 1536, h1: 15, h2: 32, buckets: Buckets::K3K3 }));
        }
        let parts: Vec<&str> = t.split('_').collect();
        let bad = || format!("`{}` is not an SFNN name (SFNN_<feature>_<FT>_<H1>_<H2>[_k3k3])", text.trim());
        if parts.len() < 5 || parts[0] != "sfnn" {
            return Err(bad());
        }
        let features = FeatureKind::from_name(parts[1]).ok_or_else(bad)?;
        let num = |s: &str| s.parse::<usize>().map_err(|_| bad());
        let (ft, h1, h2) = (num(parts[2])?, num(parts[3])?, num(parts[4])?);
        let suffix = parts[5..].join("_");
        let buckets = match suffix.as_str() {
            "" => Buckets::None,
            "k3k3" | "king3_by_king3" => Buckets::K3K3,
            other => {
                let what =
                    if other.starts_with('c') && other.as_bytes().get(1).is_some_and(u8::is_ascii_digit) {
                        "the common+shard first layer"
                    } else {
                        "the layer stacks"
                    };
                return Err(format!("an SFNN net with {what} `{other}` ({}): {SUPPORTED}", text.trim()));
            }
        };
        let shape = SfnnShape { features, ft, h1, h2, buckets };
        shape.check()?;
        Ok(Some(shape))
    }

    /// The shape an SFNN architecture string describes: its `Network=` name, checked against
    /// its `Features=...[inputs->FTx2]` and `{LayerStack=N}` where it has them.
    pub fn from_architecture(text: &str) -> Result<SfnnShape, String> {
        let network = text
            .split_once("Network=")
            .map(|(_, rest)| rest.split(['{', ',', ';']).next().unwrap_or(""))
            .unwrap_or("");
        let shape = match SfnnShape::from_name(network) {
            Ok(Some(s)) => s,
            Ok(None) => {
                return Err(format!(
                    "an SFNN file whose architecture string names no SFNN network (`{}`)",
                    network.chars().take(80).collect::<String>()
                ))
            }
            Err(e) => return Err(e),
        };
        if let Some((_, rest)) = text.split_once("Features=") {
            let (name, dims) = rest.split_once('[').unwrap_or((rest, ""));
            let ft = dims.split_once("->").and_then(|(_, r)| r.split_once("x2")).map(|(w, _)| w);
            let (named, width) = (FeatureKind::from_name(name), ft.and_then(|w| w.parse::<usize>().ok()));
            if named.is_some_and(|f| f != shape.features) || width.is_some_and(|w| w != shape.ft) {
                return Err(format!(
                    "an SFNN file whose features `{}` disagree with its network {shape}",
                    rest.split(',').next().unwrap_or("")
                ));
            }
        }
        if let Some((_, rest)) = text.split_once("{LayerStack=") {
            let n = rest.split('}').next().unwrap_or("");
            if n.parse::<usize>().ok() != Some(shape.buckets.count()) {
                return Err(format!(
                    "an SFNN file of {n} layer stacks, but its network {shape} has {}",
                    shape.buckets.count()
                ));
            }
        }
        Ok(shape)
    }
}

impl fmt::Display for SfnnShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SFNN_{}_{}_{}_{}", self.features.name(), self.ft, self.h1, self.h2)?;
        match self.buckets {
            Buckets::None => Ok(()),
            Buckets::K3K3 => write!(f, "_k3k3"),
        }
    }
}

/// Signed LEB128: `count` values from `bytes`, which they must fill exactly; each value in at most
/// 3 bytes (an `i16`). `Err` says what is wrong.
pub(crate) fn decode_leb128(bytes: &[u8], out: &mut [i16]) -> Result<(), String> {
    let mut pos = 0;
    for (i, o) in out.iter_mut().enumerate() {
        let mut v: i32 = 0;
        let mut shift = 0;
        loop {
            let Some(&b) = bytes.get(pos) else {
                return Err(format!("ends inside value {i} of {}", out.len()));
            };
            pos += 1;
            v |= i32::from(b & 0x7F) << shift;
            shift += 7;
            if b & 0x80 == 0 {
                if b & 0x40 != 0 {
                    v |= -1 << shift; // sign extension
                }
                break;
            }
            if shift >= 21 {
                return Err(format!("value {i} runs past 3 bytes (an i16 takes at most 3)"));
            }
        }
        *o = i16::try_from(v).map_err(|_| format!("value {i} ({v}) does not fit an i16"))?;
    }
    if pos != bytes.len() {
        return Err(format!("its {} values end after {pos} of its {} bytes", out.len(), bytes.len()));
    }
    Ok(())
}

/// Appends `values` as a LEB128 block (marker, byte count, signed LEB128 values).
pub fn encode_leb128_block(out: &mut Vec<u8>, values: impl Iterator<Item = i16>) {
    let mut body = Vec::new();
    for v in values {
        let mut v = i32::from(v);
        loop {
            let b = (v & 0x7F) as u8;
            v >>= 7;
            let done = (v == 0 && b & 0x40 == 0) || (v == -1 && b & 0x40 != 0);
            body.push(if done { b } else { b | 0x80 });
            if done {
                break;
            }
        }
    }
    out.extend_from_slice(LEB128_MAGIC);
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(&body);
}

/// One layer stack: `fc_0` (`FT -> H1'`), `fc_1` (`2 H1 -> H2`), `fc_2` (`H2 -> 1`); weight
/// rows row-major and padded to 32 inputs as in the file.
pub(crate) struct LayerStack {
    pub(crate) b0: Vec<i32>,
    pub(crate) w0: AlignedVec<i8>,
    pub(crate) b1: Vec<i32>,
    pub(crate) w1: AlignedVec<i8>,
    pub(crate) b2: i32,
    pub(crate) w2: AlignedVec<i8>,
}

/// A loaded SFNN net's shape and layer stacks (the transformer lives in the `Network`).
pub struct Sfnn {
    shape: SfnnShape,
    stacks: Vec<LayerStack>,
}

/// What reading the layer stacks needs from the file reader.
pub(crate) trait Source {
    fn i32s(&mut self, out: &mut [i32]) -> Result<(), String>;
    fn i8s(&mut self, out: &mut [i8]) -> Result<(), String>;
    fn u32(&mut self) -> Result<u32, String>;
}

impl Sfnn {
    /// Reads the `shape.buckets.count()` layer stacks; `warn` hears of stack hashes that differ
    /// from YaneuraOu's (a warning, as YaneuraOu gives).
    pub(crate) fn read(
        shape: SfnnShape,
        r: &mut impl Source,
        warn: &mut Vec<String>,
    ) -> Result<Sfnn, String> {
        let n = shape.buckets.count();
        let mut stacks = Vec::new();
        stacks.try_reserve_exact(n).map_err(|_| "out of memory".to_string())?;
        let (o0, fp, h1p, h2p) = (shape.fc0_out(), pad32(shape.ft), pad32(2 * shape.h1), pad32(shape.h2));
        let mem = |bytes| format!("out of memory ({bytes} bytes)");
        for i in 0..n {
            let hash = r.u32()?;
            if hash != NETWORK_HASH {
                warn.push(format!("layer stack {i} hash 0x{hash:08X}, SFNN has 0x{NETWORK_HASH:08X}"));
            }
            let mut b0 = vec![0; o0];
            let mut w0 = AlignedVec::try_new(o0 * fp).map_err(mem)?;
            let mut b1 = vec![0; shape.h2];
            let mut w1 = AlignedVec::try_new(shape.h2 * h1p).map_err(mem)?;
            let mut b2 = [0i32];
            let mut w2 = AlignedVec::try_new(h2p).map_err(mem)?;
            r.i32s(&mut b0)?;
            r.i8s(&mut w0)?;
            r.i32s(&mut b1)?;
            r.i8s(&mut w1)?;
            r.i32s(&mut b2)?;
            r.i8s(&mut w2)?;
            stacks.push(LayerStack { b0, w0, b1, w1, b2: b2[0], w2 });
        }
        Ok(Sfnn { shape, stacks })
    }

    pub fn shape(&self) -> SfnnShape {
        self.shape
    }

    /// The layer stack `pos` picks.
    pub(crate) fn stack(&self, pos: &Position) -> &LayerStack {
        &self.stacks[self.shape.buckets.of(pos)]
    }

    /// A net of `shape` without layer stacks, for tests of the forward pass with stacks of their
    /// own.
    #[cfg(all(test, target_arch = "x86_64", not(feature = "portable")))]
    pub(crate) fn for_test(shape: SfnnShape) -> Sfnn {
        Sfnn { shape, stacks: Vec::new() }
    }

    /// Bytes of scratch space the forward pass (`super::sfnn_pass`) needs.
    pub(crate) fn scratch_bytes(&self) -> usize {
        pad32(self.shape.ft) + pad32(2 * self.shape.h1) + pad32(self.shape.h2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_print() {
        let s = SfnnShape::from_name("SFNN_halfka2_1024_7_64_k3k3").unwrap().unwrap();
        assert_eq!(s, SfnnShape::SUISHO11);
        assert_eq!(s.to_string(), "SFNN_halfka2_1024_7_64_k3k3");
        assert!(s.shortcut() && s.fc0_out() == 8);
        let big = SfnnShape::from_name("SFNN1536").unwrap().unwrap();
        assert_eq!(big.to_string(), "SFNN_halfkahm2_1536_15_32_k3k3");
        assert_eq!(SfnnShape::from_architecture(&big.architecture()), Ok(big));
        assert_eq!(SfnnShape::from_architecture(&s.architecture()), Ok(s));
        let plain = SfnnShape::from_name("sfnn-halfkahm2-64-16-32").unwrap().unwrap();
        assert_eq!((plain.buckets, plain.shortcut(), plain.fc0_out()), (Buckets::None, false, 16));
        assert_eq!(SfnnShape::from_name("halfkp_256x2-32-32"), Ok(None));
        for (name, says) in [
            ("SFNN_halfka2_1024_7_64_hand64_k3k3", "hand64_k3k3"),
            ("SFNN_halfka2_1024_7_64_k3k3_progress8", "k3k3_progress8"),
            ("SFNN_halfka2_1024_7_64_k9k9z", "k9k9z"),
            ("SFNN_ka2_8192_7_64_c0_s1024x8_k3k3", "not an SFNN name"),
            ("SFNN_halfka2_3072_7_64_c1024_s256x8_k3k3", "common+shard"),
            ("SFNN_halfka2_1024_6_64", "H1 must be"),
            ("SFNN_halfkp_1024_7_64", "feature set halfkp"),
        ] {
            let e = SfnnShape::from_name(name).unwrap_err();
            assert!(e.contains(says), "{name}: {e}");
        }
        let e = SfnnShape::from_name("SFNN_halfka2_1024_7_64_k21k21").unwrap_err();
        assert!(e.contains("no layer-stack suffix or k3k3"), "{e}");
    }

    #[test]
    fn leb128_round_trips_and_rejects_bad_blocks() {
        let values: Vec<i16> = vec![0, 1, -1, 63, 64, -64, -65, 8191, -8192, 8192, i16::MAX, i16::MIN, 300];
        let mut block = Vec::new();
        encode_leb128_block(&mut block, values.iter().copied());
        assert_eq!(&block[..17], LEB128_MAGIC);
        let n = u32::from_le_bytes(block[17..21].try_into().unwrap()) as usize;
        let body = &block[21..];
        assert_eq!(n, body.len());
        let mut out = vec![0i16; values.len()];
        decode_leb128(body, &mut out).unwrap();
        assert_eq!(out, values);
        // One value short, one too many, an overlong value, a value past i16.
        assert!(decode_leb128(&body[..n - 1], &mut out).unwrap_err().contains("ends inside"));
        let mut longer = body.to_vec();
        longer.push(0);
        assert!(decode_leb128(&longer, &mut out).unwrap_err().contains("end after"));
        assert!(decode_leb128(&[0x80, 0x80, 0x80, 0x00], &mut [0i16]).unwrap_err().contains("past 3 bytes"));
        assert!(decode_leb128(&[0x80, 0x80, 0x02], &mut [0i16]).unwrap_err().contains("does not fit"));
    }
}
