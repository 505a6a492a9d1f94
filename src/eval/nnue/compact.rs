//! The compact form of a net (`.hnnc`), from which the exact `nn.bin` is rebuilt: the form in
//! which the engine's own net is kept in the repository and in the binary.
//!
//! A net's bytes are almost all transformer rows. Every feature set numbers its rows
//! `r = plane * bucket + i`: a king bucket (the own king's square, mirrored to files 1-5 in the
//! mirrored sets) and a within-plane index `i` (the BonaPiece, mirrored and folded as the set does:
//! [`super::features`]). A net trained with a factorised transformer has
//! `ft_weight[r] = P[i] + D[r]`: a king-independent factor `P` shared by every king bucket and a
//! king-specific part `D` that is zero wherever the data did not need one. So the compact form
//! stores `P` once and only the non-zero residuals `ft_weight - P` (the trainer writes it:
//! `trainer/compact.py`, which documents the same layout).
//!
//! Version 1 holds the halfkp_256x2-32-32 shape only (plane 1548, 125388 rows, FT 256):
//!
//! ```text
//! "HNNC"  u32 format version (1)
//! u32 n, n bytes   the nn.bin bytes before the transformer weights (header, transformer hash,
//!                  ft_bias), verbatim
//! u32 n, n bytes   the nn.bin bytes after them (network hash and the three layers), verbatim
//! varints          P: 1548 x 256 values, row-major
//! bitmap           125388 bits (low bit first): which transformer rows have a residual
//! masks            per marked row, in order: 32 bytes, the 256-bit mask of its non-zero residuals
//! varints          the non-zero residuals, row by row, column by column
//! ```
//!
//! Version 2 holds any shape whose feature set the engine evaluates: the same, with the shape
//! named after the version and the sizes the shape's (`plane` and `inputs` of its feature set,
//! `FT` its width):
//!
//! ```text
//! "HNNC"  u32 format version (2)
//! u32 n, n bytes   the shape's short name in ASCII (`halfkahm2_256x2-32-32`; at most 64 bytes)
//! u32 n, n bytes   the nn.bin prefix, as in version 1 (exactly 12 + its string + 4 + 2 FT bytes)
//! u32 n, n bytes   the nn.bin suffix, as in version 1 (exactly 4 + the shape's layer bytes)
//! varints          P: plane x FT values, row-major (plane: 1548 in halfkp and halfkpvm, 1629 in
//!                  halfka2 and halfkahm2, 1710 in halfka1, halfkahm1 and kp)
//! bitmap           inputs bits: which transformer rows have a residual
//! masks            per marked row, in order: FT / 8 bytes, the FT-bit mask of its non-zero residuals
//! varints          the non-zero residuals, row by row, column by column
//! ```
//!
//! Row `r`'s factor row is `r % plane` (in kp, a single bucket, `P` is the whole table). The
//! trainer writes version 1 for the classic shape (the embedded net) and version 2 for the others.
//!
//! Integers are little-endian; varints are LEB128 (7 bits a byte, low group first, high bit: more
//! follow) of zigzag-coded integers. A rebuilt weight is `P[r % plane] + residual` and must fit in
//! `i16`. Decoding checks every length and bound and reports malformed input as a
//! [`CompactError`]; the rebuilt file then goes through [`Network::from_bytes`] with all of its own
//! checks, and [`load`] also checks that the net read is of the shape the compact form names.

use super::network::{Network, NnueError};
use super::shape::{FeatureKind, Shape, E_KING, FE_END2};
use super::FE_END;
use std::fmt;

/// The first four bytes of a compact net.
pub const MAGIC: &[u8; 4] = b"HNNC";
/// The newest layout described above (version 2: any shape).
pub const FORMAT_VERSION: u32 = 2;
/// The layout of version 1 (the classic shape only), still read.
pub const CLASSIC_VERSION: u32 = 1;
/// The longest shape name a version-2 file may give.
const MAX_NAME: usize = 64;

/// Why compact bytes could not be turned into a net.
#[derive(Debug)]
pub enum CompactError {
    /// The data does not start with `HNNC`.
    Magic,
    /// A format version this engine does not read.
    Version(u32),
    /// The data ends inside the named part.
    Truncated(&'static str),
    /// A varint longer than any 64-bit value.
    BadVarint,
    /// A version-2 file names no shape this engine evaluates (the name, lossily decoded).
    Shape(String),
    /// The nn.bin prefix or suffix does not have the size of the named shape's.
    Layout(Shape),
    /// The rebuilt net is read as another shape than the compact form names.
    ShapeMismatch { named: Shape, read: Shape },
    /// A rebuilt transformer weight (row, column) is outside `i16`.
    OutOfRange { row: usize, col: usize },
    /// Bytes after the last residual.
    TrailingBytes(usize),
    /// The rebuilt `nn.bin` is not a valid net.
    Net(NnueError),
    /// The allocator refused the memory of the rebuilt net (`bytes` of it).
    OutOfMemory { bytes: usize },
    /// The deflated form of the net (the WebAssembly build's data file) does not inflate to
    /// the length it gives.
    Inflate,
    /// The WebAssembly host was given no data file at this path (the manifest's `dataFiles`).
    Missing(&'static str),
}

impl fmt::Display for CompactError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompactError::Magic => write!(f, "not a compact Hayate net (no HNNC magic)"),
            CompactError::Version(v) => write!(
                f,
                "compact net format version {v}; this engine reads versions {CLASSIC_VERSION} and {FORMAT_VERSION}"
            ),
            CompactError::Truncated(part) => write!(f, "compact net is truncated (in the {part})"),
            CompactError::BadVarint => write!(f, "compact net has a malformed varint"),
            CompactError::Shape(name) => {
                write!(f, "compact net names {name:?}, not the shape of a net this engine evaluates")
            }
            CompactError::Layout(shape) => {
                write!(f, "compact net: its nn.bin header or layers are not those of a {shape} net")
            }
            CompactError::ShapeMismatch { named, read } => {
                write!(f, "compact net names the shape {named} but rebuilds a {read} net")
            }
            CompactError::OutOfRange { row, col } => {
                write!(f, "compact net: the weight of transformer row {row}, column {col} is outside i16")
            }
            CompactError::TrailingBytes(n) => write!(f, "compact net has {n} trailing bytes"),
            CompactError::Net(e) => write!(f, "compact net rebuilds an invalid nn.bin: {e}"),
            CompactError::Inflate => write!(f, "the deflated net does not inflate to its length"),
            CompactError::Missing(path) => {
                write!(f, "the host has no file {path} (the engine manifest's dataFiles)")
            }
            CompactError::OutOfMemory { bytes } => {
                write!(
                    f,
                    "not enough memory to decode the compact net ({} MiB could not be had)",
                    bytes >> 20
                )
            }
        }
    }
}

impl std::error::Error for CompactError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CompactError::Net(e) => Some(e),
            _ => None,
        }
    }
}

/// The rows of the factor `P` of a feature set (the within-plane indices); `None` for halfkpe9,
/// whose rows also depend on attack counts (its nets are kept as `nn.bin` only).
pub const fn plane(kind: FeatureKind) -> Option<usize> {
    match kind {
        FeatureKind::HalfKp | FeatureKind::HalfKpVm => Some(FE_END),
        FeatureKind::HalfKa2 | FeatureKind::HalfKaHm2 => Some(E_KING),
        FeatureKind::HalfKa1 | FeatureKind::HalfKaHm1 | FeatureKind::Kp => Some(FE_END2),
        FeatureKind::HalfKpE9 => None,
    }
}

/// A bounds-checked reader over the compact bytes.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, part: &'static str) -> Result<&'a [u8], CompactError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or(CompactError::Truncated(part))?;
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn u32(&mut self, part: &'static str) -> Result<u32, CompactError> {
        let b = self.take(4, part)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Bytes not read yet.
    fn left(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// One zigzag LEB128 integer.
    #[inline]
    fn varint(&mut self, part: &'static str) -> Result<i64, CompactError> {
        let mut u: u64 = 0;
        let mut shift = 0u32;
        loop {
            let &b = self.bytes.get(self.pos).ok_or(CompactError::Truncated(part))?;
            self.pos += 1;
            let group = u64::from(b & 0x7F);
            if shift > 63 || (shift == 63 && group > 1) {
                return Err(CompactError::BadVarint);
            }
            u |= group << shift;
            if b & 0x80 == 0 {
                return Ok((u >> 1) as i64 ^ -((u & 1) as i64));
            }
            shift += 7;
        }
    }
}

/// The exact `nn.bin` bytes that the compact bytes `buf` stand for.
pub fn decode(buf: &[u8]) -> Result<Vec<u8>, CompactError> {
    decode_named(buf).map(|(_, bytes)| bytes)
}

/// The shape the compact bytes name (the classic shape in version 1) and the `nn.bin` bytes.
fn decode_named(buf: &[u8]) -> Result<(Shape, Vec<u8>), CompactError> {
    let mut c = Cursor { bytes: buf, pos: 0 };
    if c.take(4, "header").map_err(|_| CompactError::Magic)? != MAGIC {
        return Err(CompactError::Magic);
    }
    let version = c.u32("header")?;
    let shape = match version {
        CLASSIC_VERSION => Shape::CLASSIC,
        FORMAT_VERSION => {
            let n = c.u32("shape name")? as usize;
            let name = c.take(n.min(MAX_NAME + 1), "shape name")?;
            let text = String::from_utf8_lossy(name);
            match Shape::from_name(&text) {
                Some(s) if n <= MAX_NAME && plane(s.features).is_some() => s,
                _ => return Err(CompactError::Shape(text.into_owned())),
            }
        }
        v => return Err(CompactError::Version(v)),
    };
    let n = c.u32("nn.bin prefix")? as usize;
    let prefix = c.take(n, "nn.bin prefix")?;
    let n = c.u32("nn.bin suffix")? as usize;
    let suffix = c.take(n, "nn.bin suffix")?;
    if version == FORMAT_VERSION {
        // 12 + the architecture string (its length at bytes 8..12), 4, 2 FT; 4 + the layers.
        let arch = prefix.get(8..12).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
        let want = arch.and_then(|a| a.checked_add(16 + 2 * shape.ft));
        if want != Some(prefix.len()) || suffix.len() != 4 + shape.layer_bytes() {
            return Err(CompactError::Layout(shape));
        }
    }
    let plane = plane(shape.features).ok_or(CompactError::Shape(shape.to_string()))?;
    let bytes = rebuild(&mut c, prefix, suffix, plane, shape.features.inputs(), shape.ft)?;
    Ok((shape, bytes))
}

/// The `nn.bin` bytes from the factor, bitmap, masks and residuals that `c` is at: `inputs`
/// transformer rows of `ft` weights, row `r` built on factor row `r % plane`.
fn rebuild(
    c: &mut Cursor<'_>,
    prefix: &[u8],
    suffix: &[u8],
    plane: usize,
    inputs: usize,
    ft: usize,
) -> Result<Vec<u8>, CompactError> {
    // Every varint takes a byte at least: data too short for the factor and the bitmap is
    // refused before anything is allocated for them.
    if c.left() < plane * ft + inputs.div_ceil(8) {
        return Err(CompactError::Truncated("factor"));
    }
    // The decode's buffers (3 MB here, 64 MB for the result of a halfkp_256 net) are asked for
    // fallibly: the system may be short of memory, and the engine then plays on without this net.
    let mut p = Vec::new();
    p.try_reserve_exact(plane * ft).map_err(|_| CompactError::OutOfMemory { bytes: plane * ft * 8 })?;
    p.resize(plane * ft, 0i64);
    for v in p.iter_mut() {
        *v = c.varint("piece-square factor")?;
    }
    let bitmap = c.take(inputs.div_ceil(8), "row bitmap")?;
    let marked = |row: usize| bitmap[row / 8] >> (row % 8) & 1 == 1;
    let rows_marked = (0..inputs).filter(|&r| marked(r)).count();
    let mask_bytes = ft / 8;
    let masks = c.take(rows_marked * mask_bytes, "residual masks")?;

    // Prefix, the transformer weights, suffix: the size of the nn.bin to come.
    let len = prefix.len() + inputs * ft * 2 + suffix.len();
    let mut out = Vec::new();
    out.try_reserve_exact(len).map_err(|_| CompactError::OutOfMemory { bytes: len })?;
    out.extend_from_slice(prefix);
    // P's rows as nn.bin bytes, for the rows without residuals (None: a value outside i16).
    let p_rows: Vec<Option<Vec<u8>>> = p
        .chunks_exact(ft)
        .map(|r| r.iter().map(|&v| i16::try_from(v).ok().map(i16::to_le_bytes)).collect::<Option<Vec<_>>>())
        .map(|r| r.map(|b| b.concat()))
        .collect();
    let mut mask_rows = masks.chunks_exact(mask_bytes);
    for row in 0..inputs {
        let i = row % plane;
        let mask = match (marked(row), &p_rows[i]) {
            (false, Some(bytes)) => {
                out.extend_from_slice(bytes);
                continue;
            }
            (true, _) => mask_rows.next(),
            (false, None) => None,
        };
        for (col, &pv) in p[i * ft..][..ft].iter().enumerate() {
            let w = match mask {
                Some(m) if m[col / 8] >> (col % 8) & 1 == 1 => {
                    pv.checked_add(c.varint("residuals")?).ok_or(CompactError::OutOfRange { row, col })?
                }
                _ => pv,
            };
            let w = i16::try_from(w).map_err(|_| CompactError::OutOfRange { row, col })?;
            out.extend_from_slice(&w.to_le_bytes());
        }
    }
    if c.pos != c.bytes.len() {
        return Err(CompactError::TrailingBytes(c.bytes.len() - c.pos));
    }
    out.extend_from_slice(suffix);
    Ok(out)
}

/// The net that the compact bytes `buf` stand for.
pub fn load(buf: &[u8]) -> Result<Network, CompactError> {
    let (named, bytes) = decode_named(buf)?;
    let net = Network::from_bytes(&bytes).map_err(|e| match e {
        // The allocator's refusal, not a flaw of the bytes.
        NnueError::OutOfMemory { bytes } => CompactError::OutOfMemory { bytes },
        e => CompactError::Net(e),
    })?;
    if net.shape() != named {
        return Err(CompactError::ShapeMismatch { named, read: net.shape() });
    }
    Ok(net)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::nnue::testnet;
    use once_cell::sync::Lazy;

    /// Transformer rows and width of the classic shape.
    const NUM_FEATURES: usize = 81 * FE_END;
    const FT_OUT: usize = 256;

    /// Bytes after the transformer weights in a file of `shape`: the network hash and the layers.
    fn suffix_bytes(shape: Shape) -> usize {
        4 + shape.layer_bytes()
    }

    fn ft_bytes(shape: Shape) -> usize {
        shape.features.inputs() * shape.ft * 2
    }

    /// Appends the zigzag LEB128 varint of `v`.
    fn push_varint(out: &mut Vec<u8>, v: i64) {
        let mut u = ((v << 1) ^ (v >> 63)) as u64;
        while u >= 0x80 {
            out.push((u as u8 & 0x7F) | 0x80);
            u >>= 7;
        }
        out.push(u as u8);
    }

    /// The compact form (`version`) of the `nn.bin` image `net` of `shape` with factor `p`
    /// (`plane * FT` values), written independently of `decode`, from the format above.
    fn encode_as(net: &[u8], p: &[i64], shape: Shape, version: u32) -> Vec<u8> {
        let (ft, inputs, plane) = (shape.ft, shape.features.inputs(), plane(shape.features).unwrap());
        let ft_start = net.len() - ft_bytes(shape) - suffix_bytes(shape);
        let ft_end = ft_start + ft_bytes(shape);
        let weight = |row: usize, col: usize| {
            let i = ft_start + (row * ft + col) * 2;
            i64::from(i16::from_le_bytes([net[i], net[i + 1]]))
        };
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&version.to_le_bytes());
        if version == FORMAT_VERSION {
            let name = shape.to_string();
            out.extend_from_slice(&(name.len() as u32).to_le_bytes());
            out.extend_from_slice(name.as_bytes());
        }
        out.extend_from_slice(&(ft_start as u32).to_le_bytes());
        out.extend_from_slice(&net[..ft_start]);
        out.extend_from_slice(&((net.len() - ft_end) as u32).to_le_bytes());
        out.extend_from_slice(&net[ft_end..]);
        for &v in p {
            push_varint(&mut out, v);
        }
        let mut bitmap = vec![0u8; inputs.div_ceil(8)];
        let (mut masks, mut residuals) = (Vec::new(), Vec::new());
        for row in 0..inputs {
            let mut mask = vec![0u8; ft / 8];
            for col in 0..ft {
                let r = weight(row, col) - p[(row % plane) * ft + col];
                if r != 0 {
                    mask[col / 8] |= 1 << (col % 8);
                    push_varint(&mut residuals, r);
                }
            }
            if mask.iter().any(|&b| b != 0) {
                bitmap[row / 8] |= 1 << (row % 8);
                masks.extend_from_slice(&mask);
            }
        }
        out.extend_from_slice(&bitmap);
        out.extend_from_slice(&masks);
        out.extend_from_slice(&residuals);
        out
    }

    /// The version-1 form of a classic net.
    fn encode(net: &[u8], p: &[i64]) -> Vec<u8> {
        encode_as(net, p, Shape::CLASSIC, CLASSIC_VERSION)
    }

    /// A net shaped like a trained one (a test net's header and layers; transformer rows
    /// `P[r % plane]` plus a few king-specific residuals, some large), its P and its compact form.
    struct Sample {
        net: Vec<u8>,
        p: Vec<i64>,
        compact: Vec<u8>,
    }

    fn sample(shape: Shape, version: u32) -> Sample {
        let (ft, inputs, plane) = (shape.ft, shape.features.inputs(), plane(shape.features).unwrap());
        let mut net = testnet::bytes_of(shape, 3, None);
        let p: Vec<i64> = (0..plane * ft).map(|i| (i as i64 * 7919 % 601) - 300).collect();
        let ft_start = net.len() - ft_bytes(shape) - suffix_bytes(shape);
        for row in 0..inputs {
            for col in 0..ft {
                let mut w = p[(row % plane) * ft + col];
                if row % 13 == 0 && col % 9 == 1 {
                    w += if row % 2 == 0 { 2000 } else { -(row as i64 % 50) - 1 };
                }
                let i = ft_start + (row * ft + col) * 2;
                net[i..i + 2].copy_from_slice(&(w as i16).to_le_bytes());
            }
        }
        let compact = encode_as(&net, &p, shape, version);
        Sample { net, p, compact }
    }

    static SAMPLE: Lazy<Sample> = Lazy::new(|| sample(Shape::CLASSIC, CLASSIC_VERSION));

    fn halfkahm2() -> Shape {
        Shape::from_name("halfkahm2_256x2-32-32").unwrap()
    }

    static SAMPLE_V2: Lazy<Sample> = Lazy::new(|| sample(halfkahm2(), FORMAT_VERSION));

    /// The byte offsets of the parts of a compact net of `shape`: (P, bitmap, masks, residuals).
    fn offsets(c: &[u8], shape: Shape) -> (usize, usize, usize, usize) {
        let u32_at = |o: usize| u32::from_le_bytes(c[o..o + 4].try_into().unwrap()) as usize;
        let mut o = 8;
        if u32_at(4) == FORMAT_VERSION as usize {
            o += 4 + u32_at(8);
        }
        let pre = u32_at(o);
        let suf = u32_at(o + 4 + pre);
        let p_start = o + 8 + pre + suf;
        let mut o = p_start;
        for _ in 0..plane(shape.features).unwrap() * shape.ft {
            while c[o] & 0x80 != 0 {
                o += 1;
            }
            o += 1;
        }
        let bitmap = o;
        let bitmap_len = shape.features.inputs().div_ceil(8);
        let marked: usize = c[bitmap..bitmap + bitmap_len].iter().map(|b| b.count_ones() as usize).sum();
        let masks = bitmap + bitmap_len;
        (p_start, bitmap, masks, masks + marked * shape.ft / 8)
    }

    #[test]
    fn decodes_to_the_net_it_came_from() {
        let s = &*SAMPLE;
        assert!(s.compact.len() < s.net.len() / 20, "{} bytes", s.compact.len());
        assert!(decode(&s.compact).unwrap() == s.net);
        let net = load(&s.compact).unwrap();
        let file = Network::from_bytes(&s.net).unwrap();
        assert_eq!(*net.ft_bias, *file.ft_bias);
        assert!(*net.ft_weight == *file.ft_weight);
        // The classic shape in version 2: the same net.
        let v2 = encode_as(&s.net, &s.p, Shape::CLASSIC, FORMAT_VERSION);
        assert!(decode(&v2).unwrap() == s.net);
        assert_eq!(load(&v2).unwrap().shape(), Shape::CLASSIC);
    }

    #[test]
    fn version_2_holds_a_halfkahm2_net() {
        let s = &*SAMPLE_V2;
        assert_eq!(s.p.len(), E_KING * 256);
        assert!(s.compact.len() < s.net.len() / 20, "{} bytes", s.compact.len());
        assert!(decode(&s.compact).unwrap() == s.net);
        let net = load(&s.compact).unwrap();
        assert_eq!(net.shape(), halfkahm2());
        assert!(net.warnings().is_empty(), "{:?}", net.warnings());
        let file = Network::from_bytes(&s.net).unwrap();
        assert!(*net.ft_weight == *file.ft_weight);
        // The unmodified test net (no factor structure): P = 0, every row a residual.
        let plain = testnet::bytes_of(halfkahm2(), 1, None);
        let c = encode_as(&plain, &vec![0; E_KING * 256], halfkahm2(), FORMAT_VERSION);
        assert!(decode(&c).unwrap() == plain);
    }

    #[test]
    fn version_2_holds_other_feature_sets() {
        // kp: a single bucket, the factor is the whole table; halfkp 512 wide with 8-wide H1
        // (padded rows in the layers) on a small sample of its own.
        for name in ["kp_256x2-32-32", "halfkpvm_32x2-8-8", "halfka1_16x2-8-8", "halfkp_512x2-8-64"] {
            let shape = Shape::from_name(name).unwrap();
            let s = sample(shape, FORMAT_VERSION);
            assert!(decode(&s.compact).unwrap() == s.net, "{name}");
            assert_eq!(load(&s.compact).unwrap().shape(), shape, "{name}");
        }
    }

    #[test]
    fn a_net_without_residuals_decodes() {
        // Every row equal to P: the bitmap is empty and no masks or residuals follow.
        let s = &*SAMPLE;
        let mut net = s.net.clone();
        let ft_start = net.len() - ft_bytes(Shape::CLASSIC) - suffix_bytes(Shape::CLASSIC);
        for row in 0..NUM_FEATURES {
            for col in 0..FT_OUT {
                let i = ft_start + (row * FT_OUT + col) * 2;
                net[i..i + 2].copy_from_slice(&(s.p[(row % FE_END) * FT_OUT + col] as i16).to_le_bytes());
            }
        }
        let c = encode(&net, &s.p);
        assert!(decode(&c).unwrap() == net);
    }

    #[test]
    fn malformed_input_is_an_error() {
        let c = &SAMPLE.compact;
        let (p_start, bitmap, masks, residuals) = offsets(c, Shape::CLASSIC);
        assert!(matches!(decode(b""), Err(CompactError::Magic)));
        assert!(matches!(decode(b"HNN"), Err(CompactError::Magic)));
        assert!(matches!(decode(&SAMPLE.net), Err(CompactError::Magic)));
        let mut v = c.clone();
        v[4] = 3;
        assert!(matches!(decode(&v), Err(CompactError::Version(3))));
        // Cut anywhere: inside the header, each part, and one byte short of the end.
        for cut in
            [6, 10, 20, p_start - 3, p_start + 1000, bitmap + 5, masks + 40, residuals + 7, c.len() - 1]
        {
            assert!(matches!(decode(&c[..cut]), Err(CompactError::Truncated(_))), "cut at {cut}");
        }
        // A prefix length beyond the data.
        let mut v = c.clone();
        v[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(decode(&v), Err(CompactError::Truncated(_))));
        let mut v = c.clone();
        v.push(0);
        assert!(matches!(decode(&v), Err(CompactError::TrailingBytes(1))));
        // A varint of eleven bytes.
        let mut v = c[..p_start].to_vec();
        v.extend_from_slice(&[0xFF; 10]);
        v.push(0x01);
        v.extend_from_slice(&c[p_start..]);
        assert!(matches!(decode(&v), Err(CompactError::BadVarint)));
        // A P value outside i16 in place of the first one (of an unmarked row).
        let mut v = c[..p_start].to_vec();
        push_varint(&mut v, 40000);
        let mut o = p_start;
        while c[o] & 0x80 != 0 {
            o += 1;
        }
        v.extend_from_slice(&c[o + 1..]);
        assert!(matches!(decode(&v), Err(CompactError::OutOfRange { row: 0, col: 0 })));
        // A wrong hash inside (the transformer's) loads, as YaneuraOu loads it, with a warning.
        let mut v = c.clone();
        let hash_at = 12 + u32::from_le_bytes(c[8..12].try_into().unwrap()) as usize - 4 - 2 * FT_OUT;
        v[hash_at] ^= 1;
        let net = load(&v).unwrap();
        assert!(net.warnings().iter().any(|w| w.contains("transformer hash")), "{:?}", net.warnings());
        // Two bytes fewer in the architecture string (its stated length unchanged): no net of the
        // family has the size, which is the net loader's error.
        let mut v = c.clone();
        let n = u32::from_le_bytes(c[8..12].try_into().unwrap());
        v[8..12].copy_from_slice(&(n - 2).to_le_bytes());
        v.remove(12 + 20);
        v.remove(12 + 20);
        assert!(matches!(load(&v), Err(CompactError::Net(NnueError::Size { .. }))), "{:?}", load(&v).err());
        // Flipped bits in the bitmap either fail or rebuild some net, never panic.
        for i in [0, 7, 100, 15_000] {
            let mut v = c.clone();
            v[bitmap + i] ^= 0x21;
            let _ = decode(&v);
        }
    }

    /// A version-2 file with its shape name replaced by `name`.
    fn renamed(c: &[u8], name: &[u8]) -> Vec<u8> {
        let n = u32::from_le_bytes(c[8..12].try_into().unwrap()) as usize;
        let mut v = c[..8].to_vec();
        v.extend_from_slice(&(name.len() as u32).to_le_bytes());
        v.extend_from_slice(name);
        v.extend_from_slice(&c[12 + n..]);
        v
    }

    #[test]
    fn malformed_version_2_is_an_error() {
        let c = &SAMPLE_V2.compact;
        let shape = halfkahm2();
        let (p_start, bitmap, masks, residuals) = offsets(c, shape);
        assert!(renamed(c, b"halfkahm2_256x2-32-32") == *c);
        // Names of no shape, of a shape the compact form does not hold, too long, not UTF-8.
        for name in [
            &b""[..],
            b"halfkahm2",
            b"halfkahm3_256x2-32-32",
            b"halfkahm2_250x2-32-32",
            b"halfkpe9_256x2-32-32",
            b"\xFF\xFE",
            &[b'a'; 65][..],
        ] {
            let r = decode(&renamed(c, name));
            assert!(matches!(r, Err(CompactError::Shape(_))), "{:?}: {:?}", String::from_utf8_lossy(name), r);
        }
        // A name longer than the data, or than any name.
        let mut v = c.clone();
        v[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(decode(&v), Err(CompactError::Shape(_))));
        assert!(matches!(decode(&c[..30]), Err(CompactError::Truncated(_))));
        // Another shape's name over this net's bytes: its prefix or layers have the wrong size,
        // or its rows the wrong number.
        for name in ["halfkp_512x2-32-32", "halfkahm2_512x2-32-32", "halfkahm2_256x2-32-16"] {
            let r = decode(&renamed(c, name.as_bytes()));
            assert!(matches!(r, Err(CompactError::Layout(_))), "{name}: {r:?}");
        }
        // The same widths in another feature set: other row counts, so the data does not fit.
        for name in ["halfkp_256x2-32-32", "halfka2_256x2-32-32", "kp_256x2-32-32"] {
            assert!(decode(&renamed(c, name.as_bytes())).is_err(), "{name}");
        }
        // Cut anywhere, and a byte too many.
        for cut in [14, 40, p_start - 3, p_start + 1000, bitmap + 5, masks + 40, residuals + 7, c.len() - 1] {
            assert!(matches!(decode(&c[..cut]), Err(CompactError::Truncated(_))), "cut at {cut}");
        }
        let mut v = c.clone();
        v.push(0);
        assert!(matches!(decode(&v), Err(CompactError::TrailingBytes(1))));
        // A prefix whose architecture-string length disagrees with its own size.
        let mut v = c.clone();
        let at = 12 + 21 + 4 + 8;
        v[at] ^= 1;
        assert!(matches!(decode(&v), Err(CompactError::Layout(_))));
        // A name that disagrees with the net the bytes rebuild: halfkp_128x2-32-32 and
        // halfkp_128x2-24-88 have files of the same size, and the file's own string decides.
        let (a, b) = (
            Shape::from_name("halfkp_128x2-32-32").unwrap(),
            Shape::from_name("halfkp_128x2-24-88").unwrap(),
        );
        let s = sample(a, FORMAT_VERSION);
        let v = renamed(&s.compact, b.to_string().as_bytes());
        assert!(decode(&v).unwrap() == s.net);
        assert!(
            matches!(load(&v), Err(CompactError::ShapeMismatch { named, read }) if named == b && read == a),
            "{:?}",
            load(&v).err()
        );
        // Flipped bits in the bitmap and masks either fail or rebuild some net, never panic.
        for i in [0, 7, 100, 9_000] {
            let mut v = c.clone();
            v[bitmap + i] ^= 0x21;
            let _ = decode(&v);
            let mut v = c.clone();
            v[masks + i] ^= 0x84;
            let _ = decode(&v);
        }
    }
}
