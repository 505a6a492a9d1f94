//! The compact form of a halfKP_256x2-32-32 net (`.hnnc`), from which the exact `nn.bin` is
//! rebuilt: the form in which the engine's own net is kept in the repository and in the binary.
//!
//! A net trained with a factorised transformer has `ft_weight[k][bp] = P[bp] + D[k][bp]`: a
//! piece-square factor `P` shared by every king square and a king-specific part `D` that is zero
//! wherever the data did not need one. So the compact form stores `P` once and only the non-zero
//! residuals `ft_weight - P` (the trainer writes it: `trainer/compact.py`, which documents the
//! same layout):
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
//! Integers are little-endian; varints are LEB128 (7 bits a byte, low group first, high bit: more
//! follow) of zigzag-coded integers. A rebuilt weight is `P[bp] + residual` and must fit in `i16`.
//! Decoding checks every length and bound and reports malformed input as a [`CompactError`]; the
//! rebuilt file then goes through [`Network::from_bytes`] with all of its own checks.

use super::network::{Network, NnueError};
use super::FE_END;

/// The transformer width of the shape the compact form holds (halfkp_256x2-32-32).
const FT_OUT: usize = 256;
/// Its transformer rows.
const NUM_FEATURES: usize = 81 * FE_END;
use std::fmt;

/// The first four bytes of a compact net.
pub const MAGIC: &[u8; 4] = b"HNNC";
/// The layout described above.
pub const FORMAT_VERSION: u32 = 1;

/// Bytes of one row's residual mask (256 bits).
const MASK_BYTES: usize = FT_OUT / 8;

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
            CompactError::Version(v) => {
                write!(f, "compact net format version {v}; this engine reads version {FORMAT_VERSION}")
            }
            CompactError::Truncated(part) => write!(f, "compact net is truncated (in the {part})"),
            CompactError::BadVarint => write!(f, "compact net has a malformed varint"),
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
    let mut c = Cursor { bytes: buf, pos: 0 };
    if c.take(4, "header").map_err(|_| CompactError::Magic)? != MAGIC {
        return Err(CompactError::Magic);
    }
    let version = c.u32("header")?;
    if version != FORMAT_VERSION {
        return Err(CompactError::Version(version));
    }
    let n = c.u32("header")? as usize;
    let prefix = c.take(n, "nn.bin prefix")?;
    let n = c.u32("nn.bin suffix")? as usize;
    let suffix = c.take(n, "nn.bin suffix")?;

    // The decode's buffers (3 MB here, 64 MB for the result) are asked for fallibly: the
    // system may be short of memory, and the engine then plays on without this net.
    let mut p = Vec::new();
    p.try_reserve_exact(FE_END * FT_OUT)
        .map_err(|_| CompactError::OutOfMemory { bytes: FE_END * FT_OUT * 8 })?;
    p.resize(FE_END * FT_OUT, 0i64);
    for v in p.iter_mut() {
        *v = c.varint("piece-square factor")?;
    }
    let bitmap = c.take(NUM_FEATURES.div_ceil(8), "row bitmap")?;
    let marked = |row: usize| bitmap[row / 8] >> (row % 8) & 1 == 1;
    let rows_marked = (0..NUM_FEATURES).filter(|&r| marked(r)).count();
    let masks = c.take(rows_marked * MASK_BYTES, "residual masks")?;

    // Prefix, the transformer weights, suffix: the size of the nn.bin to come.
    let len = prefix.len() + NUM_FEATURES * FT_OUT * 2 + suffix.len();
    let mut out = Vec::new();
    out.try_reserve_exact(len).map_err(|_| CompactError::OutOfMemory { bytes: len })?;
    out.extend_from_slice(prefix);
    // P's rows as nn.bin bytes, for the rows without residuals (None: a value outside i16).
    let p_rows: Vec<Option<Vec<u8>>> = p
        .chunks_exact(FT_OUT)
        .map(|r| r.iter().map(|&v| i16::try_from(v).ok().map(i16::to_le_bytes)).collect::<Option<Vec<_>>>())
        .map(|r| r.map(|b| b.concat()))
        .collect();
    let mut mask_rows = masks.chunks_exact(MASK_BYTES);
    for row in 0..NUM_FEATURES {
        let bp = row % FE_END;
        let mask = match (marked(row), &p_rows[bp]) {
            (false, Some(bytes)) => {
                out.extend_from_slice(bytes);
                continue;
            }
            (true, _) => mask_rows.next(),
            (false, None) => None,
        };
        for (col, &pv) in p[bp * FT_OUT..][..FT_OUT].iter().enumerate() {
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
    if c.pos != buf.len() {
        return Err(CompactError::TrailingBytes(buf.len() - c.pos));
    }
    out.extend_from_slice(suffix);
    Ok(out)
}

/// The net that the compact bytes `buf` stand for.
pub fn load(buf: &[u8]) -> Result<Network, CompactError> {
    Network::from_bytes(&decode(buf)?).map_err(|e| match e {
        // The allocator's refusal, not a flaw of the bytes.
        NnueError::OutOfMemory { bytes } => CompactError::OutOfMemory { bytes },
        e => CompactError::Net(e),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::nnue::testnet;
    use once_cell::sync::Lazy;

    /// Bytes after the transformer weights in a classic file: the network hash and the layers.
    const SUFFIX_BYTES: usize = 4 + crate::eval::nnue::Shape::CLASSIC.layer_bytes();
    const FT_BYTES: usize = NUM_FEATURES * FT_OUT * 2;

    /// Appends the zigzag LEB128 varint of `v`.
    fn push_varint(out: &mut Vec<u8>, v: i64) {
        let mut u = ((v << 1) ^ (v >> 63)) as u64;
        while u >= 0x80 {
            out.push((u as u8 & 0x7F) | 0x80);
            u >>= 7;
        }
        out.push(u as u8);
    }

    /// The compact form of the classic `nn.bin` image `net` with piece-square factor `p`
    /// (`FE_END * FT_OUT` values), written independently of `decode`, from the format above.
    fn encode(net: &[u8], p: &[i64]) -> Vec<u8> {
        let ft_start = net.len() - FT_BYTES - SUFFIX_BYTES;
        let ft_end = ft_start + FT_BYTES;
        let weight = |row: usize, col: usize| {
            let i = ft_start + (row * FT_OUT + col) * 2;
            i64::from(i16::from_le_bytes([net[i], net[i + 1]]))
        };
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&(ft_start as u32).to_le_bytes());
        out.extend_from_slice(&net[..ft_start]);
        out.extend_from_slice(&((net.len() - ft_end) as u32).to_le_bytes());
        out.extend_from_slice(&net[ft_end..]);
        for &v in p {
            push_varint(&mut out, v);
        }
        let mut bitmap = vec![0u8; NUM_FEATURES.div_ceil(8)];
        let (mut masks, mut residuals) = (Vec::new(), Vec::new());
        for row in 0..NUM_FEATURES {
            let mut mask = [0u8; MASK_BYTES];
            for col in 0..FT_OUT {
                let r = weight(row, col) - p[(row % FE_END) * FT_OUT + col];
                if r != 0 {
                    mask[col / 8] |= 1 << (col % 8);
                    push_varint(&mut residuals, r);
                }
            }
            if mask != [0; MASK_BYTES] {
                bitmap[row / 8] |= 1 << (row % 8);
                masks.extend_from_slice(&mask);
            }
        }
        out.extend_from_slice(&bitmap);
        out.extend_from_slice(&masks);
        out.extend_from_slice(&residuals);
        out
    }

    /// A net shaped like a trained one (a test net's header and layers; transformer rows
    /// `P[bp]` plus a few king-specific residuals, some large), its P and its compact form.
    struct Sample {
        net: Vec<u8>,
        p: Vec<i64>,
        compact: Vec<u8>,
    }

    static SAMPLE: Lazy<Sample> = Lazy::new(|| {
        let mut net = testnet::bytes(3, None);
        let p: Vec<i64> = (0..FE_END * FT_OUT).map(|i| (i as i64 * 7919 % 601) - 300).collect();
        let ft_start = net.len() - FT_BYTES - SUFFIX_BYTES;
        for row in 0..NUM_FEATURES {
            for col in 0..FT_OUT {
                let mut w = p[(row % FE_END) * FT_OUT + col];
                if row % 13 == 0 && col % 9 == 1 {
                    w += if row % 2 == 0 { 2000 } else { -(row as i64 % 50) - 1 };
                }
                let i = ft_start + (row * FT_OUT + col) * 2;
                net[i..i + 2].copy_from_slice(&(w as i16).to_le_bytes());
            }
        }
        let compact = encode(&net, &p);
        Sample { net, p, compact }
    });

    /// The byte offsets of the parts: (P, bitmap, masks, residuals).
    fn offsets(c: &[u8]) -> (usize, usize, usize, usize) {
        let u32_at = |o: usize| u32::from_le_bytes(c[o..o + 4].try_into().unwrap()) as usize;
        let pre = u32_at(8);
        let suf = u32_at(12 + pre);
        let p_start = 16 + pre + suf;
        let mut o = p_start;
        for _ in 0..FE_END * FT_OUT {
            while c[o] & 0x80 != 0 {
                o += 1;
            }
            o += 1;
        }
        let bitmap = o;
        let marked: usize =
            c[bitmap..bitmap + NUM_FEATURES.div_ceil(8)].iter().map(|b| b.count_ones() as usize).sum();
        let masks = bitmap + NUM_FEATURES.div_ceil(8);
        (p_start, bitmap, masks, masks + marked * MASK_BYTES)
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
    }

    #[test]
    fn a_net_without_residuals_decodes() {
        // Every row equal to P: the bitmap is empty and no masks or residuals follow.
        let s = &*SAMPLE;
        let mut net = s.net.clone();
        let ft_start = net.len() - FT_BYTES - SUFFIX_BYTES;
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
        let (p_start, bitmap, masks, residuals) = offsets(c);
        assert!(matches!(decode(b""), Err(CompactError::Magic)));
        assert!(matches!(decode(b"HNN"), Err(CompactError::Magic)));
        assert!(matches!(decode(&SAMPLE.net), Err(CompactError::Magic)));
        let mut v = c.clone();
        v[4] = 2;
        assert!(matches!(decode(&v), Err(CompactError::Version(2))));
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
}
