//! Reading `nn.bin`: the byte layout, the hash checks and the in-memory weight layout.
//!
//! The file (little-endian, no padding; see `docs/nnue-format.md`):
//! ```text
//! u32 version 0x7AF32F16 | u32 file hash 0x3E5AA6EE | u32 N | N bytes architecture string
//! u32 transformer hash 0x5D69D7B8 | i16 ft_bias[256] | i16 ft_weight[125388][256]
//! u32 network hash 0x63337156 | i32 b1[32] i8 w1[32][512] | i32 b2[32] i8 w2[32][32]
//!                              | i32 b3 i8 w3[32]
//! ```
//! Checks run in the order that gives the most useful message: the version first (is this an NNUE
//! file at all?), then the file hash (is it this architecture? the message quotes the file's own
//! architecture string), then the length (truncated or over-long), then the two inner hashes.
//!
//! In memory the transformer weights stay feature-major, one 64-byte-aligned row of 256 `i16` per
//! feature, so an accumulator update streams whole rows with aligned vector loads. The layer
//! weights stay row-major (`[output][input]`) for the scalar kernels and are also copied
//! input-major for the SIMD ones (see `layers::Layers`).

use super::layers::Layers;
use super::{FT_OUT, NUM_FEATURES};
use std::fmt;
use std::path::{Path, PathBuf};

/// First word of every YaneuraOu NNUE file.
pub const VERSION: u32 = 0x7AF3_2F16;

/// Hash of the HalfKP(Friend) feature set: `0x5D69D5B9 ^ 1` (the `1` marks "Friend" king).
const HALFKP_HASH: u32 = 0x5D69_D5B9 ^ 1;

/// Hash of the feature transformer: the feature-set hash combined with its output width
/// (`2 * 256`, both perspectives).
pub const TRANSFORMER_HASH: u32 = HALFKP_HASH ^ (2 * FT_OUT as u32);

/// Hash of an `AffineTransform` with `out` outputs on top of a layer with hash `prev`.
const fn affine_hash(prev: u32, out: u32) -> u32 {
    0xCC03_DAE4u32.wrapping_add(out) ^ (prev >> 1) ^ (prev << 31)
}

/// Hash of a `ClippedReLU` on top of a layer with hash `prev`.
const fn clipped_relu_hash(prev: u32) -> u32 {
    0x538D_24C7u32.wrapping_add(prev)
}

/// Hash of the layer stack `AffineTransform[1<-32](ClippedReLU[32](AffineTransform[32<-32](
/// ClippedReLU[32](AffineTransform[32<-512](InputSlice[512(0:512)])))))`, built the way
/// YaneuraOu builds it, from the innermost layer out.
pub const NETWORK_HASH: u32 = {
    let input_slice = 0xEC42_E90D ^ 512;
    let h = affine_hash(input_slice, 32);
    let h = clipped_relu_hash(h);
    let h = affine_hash(h, 32);
    let h = clipped_relu_hash(h);
    affine_hash(h, 1)
};

/// Hash of the whole file: transformer hash xor network hash.
pub const FILE_HASH: u32 = TRANSFORMER_HASH ^ NETWORK_HASH;

/// File hash of the K+P 256x2-32-32 ("kp256") nets, recognised only to name them in the error.
const KP256_FILE_HASH: u32 = 0x5C64_64A9;

/// The architecture string of the classic halfKP_256x2-32-32 file (informational; not checked).
pub const ARCHITECTURE: &str = "Features=HalfKP(Friend)[125388->256x2],Network=\
AffineTransform[1<-32](ClippedReLU[32](AffineTransform[32<-32](ClippedReLU[32](\
AffineTransform[32<-512](InputSlice[512(0:512)])))))";

/// Bytes after the architecture string: transformer hash, biases and weights, network hash, layers.
const BODY_BYTES: usize = 4 + FT_OUT * 2 + NUM_FEATURES * FT_OUT * 2 + 4 + Layers::BYTES;

/// Size of the classic file (178-byte architecture string): 64,217,066 bytes.
pub const CLASSIC_FILE_BYTES: usize = 12 + ARCHITECTURE.len() + BODY_BYTES;

/// The largest file `load` reads: a net whose architecture description is up to 4 KiB long.
pub const MAX_FILE_BYTES: usize = 12 + 4096 + BODY_BYTES;

/// Why a net could not be loaded. The `Display` text is written for users (the engine shows it as
/// `info string`), so it names the problem and, where it can, what the file actually is.
#[derive(Debug)]
pub enum NnueError {
    /// The file could not be opened or read.
    Io { path: PathBuf, source: std::io::Error },
    /// The path names something other than a regular file (a folder, a FIFO, a device).
    NotAFile { path: PathBuf },
    /// The file ends early: `len` bytes where the header announces `expected`.
    Truncated { len: usize, expected: usize },
    /// The file goes on after the last weight: `len` bytes where `expected` make a complete net.
    TrailingBytes { len: usize, expected: usize },
    /// The first word is not the YaneuraOu NNUE version.
    Version { found: u32 },
    /// The file hash names another architecture; `architecture` is the file's own description
    /// when it could be read.
    FileHash { found: u32, architecture: Option<String> },
    /// The feature-transformer hash is wrong although the file hash is right: a corrupt file.
    TransformerHash { found: u32 },
    /// The network hash is wrong although the file hash is right: a corrupt file.
    NetworkHash { found: u32 },
    /// The allocator refused the memory of the file or of the weights (`bytes` of it).
    OutOfMemory { bytes: usize },
}

impl fmt::Display for NnueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NnueError::Io { path, source } => {
                write!(f, "cannot read NNUE file {}: {source}", path.display())
            }
            NnueError::NotAFile { path } => {
                write!(f, "{} is not a regular file (a folder, pipe or device); not read", path.display())
            }
            NnueError::Truncated { len, expected } => write!(
                f,
                "NNUE file is truncated: {len} bytes, but a halfKP_256x2-32-32 net needs {expected}"
            ),
            NnueError::TrailingBytes { len, expected } => write!(
                f,
                "NNUE file is too long: {len} bytes, {} more than the {expected} of a \
                 halfKP_256x2-32-32 net (trailing bytes)",
                len - expected
            ),
            NnueError::Version { found } => {
                write!(f, "not a YaneuraOu NNUE file: version 0x{found:08X}, expected 0x{VERSION:08X}")
            }
            NnueError::FileHash { found, architecture } => {
                write!(
                    f,
                    "unsupported NNUE architecture: file hash 0x{found:08X}, but this engine reads \
                     halfKP_256x2-32-32 nets (file hash 0x{FILE_HASH:08X})"
                )?;
                if *found == KP256_FILE_HASH {
                    write!(f, "; this is a K+P 256x2-32-32 (kp256) net")?;
                }
                if let Some(a) = architecture {
                    write!(f, "; the file describes itself as `{a}`")?;
                }
                Ok(())
            }
            NnueError::TransformerHash { found } => write!(
                f,
                "corrupt NNUE file: feature transformer hash 0x{found:08X}, expected \
                 0x{TRANSFORMER_HASH:08X}"
            ),
            NnueError::NetworkHash { found } => {
                write!(f, "corrupt NNUE file: network hash 0x{found:08X}, expected 0x{NETWORK_HASH:08X}")
            }
            NnueError::OutOfMemory { bytes } => {
                write!(f, "not enough memory to read the net ({} MiB more could not be had)", bytes >> 20)
            }
        }
    }
}

impl std::error::Error for NnueError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            NnueError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// One feature's 256 transformer weights, aligned for whole-cache-line vector loads.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub(crate) struct Row(pub(crate) [i16; FT_OUT]);

/// A loaded halfKP_256x2-32-32 net. Immutable once loaded; share it between search threads with
/// an `Arc` (about 64 MB, almost all of it the transformer weights).
pub struct Network {
    pub(crate) ft_bias: Row,
    /// `NUM_FEATURES` rows; row `f` holds the weights of feature `f` (see `features.rs`).
    pub(crate) ft_weight: Box<[Row]>,
    pub(crate) layers: Box<Layers>,
    architecture: String,
}

impl fmt::Debug for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Network").field("architecture", &self.architecture).finish_non_exhaustive()
    }
}

/// Little-endian cursor over the file. Every read is bounds-checked and reports truncation, so a
/// malformed file can never make the loader panic (the length is also checked up front).
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, expected: usize) -> Result<&'a [u8], NnueError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len());
        match end {
            Some(end) => {
                let s = &self.bytes[self.pos..end];
                self.pos = end;
                Ok(s)
            }
            None => Err(NnueError::Truncated { len: self.bytes.len(), expected }),
        }
    }

    fn u32(&mut self, expected: usize) -> Result<u32, NnueError> {
        let b = self.take(4, expected)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn i32s(&mut self, out: &mut [i32], expected: usize) -> Result<(), NnueError> {
        let b = self.take(out.len() * 4, expected)?;
        for (o, c) in out.iter_mut().zip(b.chunks_exact(4)) {
            *o = i32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        Ok(())
    }

    fn i16s(&mut self, out: &mut [i16], expected: usize) -> Result<(), NnueError> {
        let b = self.take(out.len() * 2, expected)?;
        for (o, c) in out.iter_mut().zip(b.chunks_exact(2)) {
            *o = i16::from_le_bytes([c[0], c[1]]);
        }
        Ok(())
    }

    fn i8s(&mut self, out: &mut [i8], expected: usize) -> Result<(), NnueError> {
        let b = self.take(out.len(), expected)?;
        for (o, &c) in out.iter_mut().zip(b) {
            *o = c as i8;
        }
        Ok(())
    }
}

impl Network {
    /// Reads and checks `nn.bin` at `path` (the whole file is read into memory first).
    pub fn load(path: impl AsRef<Path>) -> Result<Network, NnueError> {
        use std::io::Read;
        let path = path.as_ref();
        let io = |source| NnueError::Io { path: path.to_path_buf(), source };
        // Only a regular file of a net's size is read: opening a FIFO would wait for a writer,
        // and a device or an endless file would never end.
        let meta = std::fs::metadata(path).map_err(io)?;
        if !meta.is_file() {
            return Err(NnueError::NotAFile { path: path.to_path_buf() });
        }
        let limit = MAX_FILE_BYTES as u64;
        if meta.len() > limit {
            return Err(NnueError::TrailingBytes { len: meta.len() as usize, expected: CLASSIC_FILE_BYTES });
        }
        let mut bytes = Vec::new();
        // Fallible: the file is read whole (64 MB), and the system may be short of memory.
        let len = meta.len() as usize;
        bytes.try_reserve_exact(len).map_err(|_| NnueError::OutOfMemory { bytes: len })?;
        std::fs::File::open(path).and_then(|f| f.take(limit + 1).read_to_end(&mut bytes)).map_err(io)?;
        Network::from_bytes(&bytes)
    }

    /// Parses and checks a complete `nn.bin` image. Never panics on malformed input.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NnueError> {
        let mut r = Reader { bytes, pos: 0 };
        // Until the header is read, the classic size is the best statement of what was expected.
        let mut expected = CLASSIC_FILE_BYTES;
        let version = r.u32(expected)?;
        if version != VERSION {
            return Err(NnueError::Version { found: version });
        }
        let file_hash = r.u32(expected)?;
        let arch_len = r.u32(expected)? as usize;
        let arch_bytes = bytes.get(12..12usize.saturating_add(arch_len));
        if file_hash != FILE_HASH {
            // Quote the file's own description when it is there and looks like text.
            let architecture =
                arch_bytes.filter(|_| arch_len <= 4096).map(|b| String::from_utf8_lossy(b).into_owned());
            return Err(NnueError::FileHash { found: file_hash, architecture });
        }
        expected = 12usize.saturating_add(arch_len).saturating_add(BODY_BYTES);
        if bytes.len() < expected {
            return Err(NnueError::Truncated { len: bytes.len(), expected });
        }
        if bytes.len() > expected {
            return Err(NnueError::TrailingBytes { len: bytes.len(), expected });
        }
        let architecture = String::from_utf8_lossy(r.take(arch_len, expected)?).into_owned();

        let transformer_hash = r.u32(expected)?;
        if transformer_hash != TRANSFORMER_HASH {
            return Err(NnueError::TransformerHash { found: transformer_hash });
        }
        let mut ft_bias = Row([0; FT_OUT]);
        r.i16s(&mut ft_bias.0, expected)?;
        // The transformer's weights are 64 MB: asked for fallibly, as the system may be short.
        let mut ft_weight = Vec::new();
        ft_weight
            .try_reserve_exact(NUM_FEATURES)
            .map_err(|_| NnueError::OutOfMemory { bytes: NUM_FEATURES * std::mem::size_of::<Row>() })?;
        ft_weight.resize(NUM_FEATURES, Row([0; FT_OUT]));
        let mut ft_weight = ft_weight.into_boxed_slice();
        for row in ft_weight.iter_mut() {
            r.i16s(&mut row.0, expected)?;
        }

        let network_hash = r.u32(expected)?;
        if network_hash != NETWORK_HASH {
            return Err(NnueError::NetworkHash { found: network_hash });
        }
        let mut layers = Layers::zeroed();
        r.i32s(&mut layers.b1, expected)?;
        for row in layers.w1.iter_mut() {
            r.i8s(row, expected)?;
        }
        r.i32s(&mut layers.b2, expected)?;
        for row in layers.w2.iter_mut() {
            r.i8s(row, expected)?;
        }
        let mut b3 = [0i32; 1];
        r.i32s(&mut b3, expected)?;
        layers.b3 = b3[0];
        r.i8s(&mut layers.w3, expected)?;
        layers.build_blocks();
        if r.pos != bytes.len() {
            // Unreachable after the length check above; kept so a layout slip cannot go unnoticed.
            return Err(NnueError::TrailingBytes { len: bytes.len(), expected: r.pos });
        }
        Ok(Network { ft_bias, ft_weight, layers, architecture })
    }

    /// The architecture string stored in the file.
    pub fn architecture(&self) -> &str {
        &self.architecture
    }

    /// A net from its parts, for the kernel tests: `ft_weight` may hold any number of rows (the
    /// features used must index them). Fills the layers' input-major copies.
    #[cfg(test)]
    pub(crate) fn from_parts(ft_bias: Row, ft_weight: Box<[Row]>, mut layers: Box<Layers>) -> Network {
        layers.build_blocks();
        Network { ft_bias, ft_weight, layers, architecture: String::new() }
    }

    /// The transformer weights of feature `f` (`f < NUM_FEATURES`).
    #[inline(always)]
    pub(crate) fn row(&self, f: u32) -> &[i16; FT_OUT] {
        &self.ft_weight[f as usize].0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shareable_between_search_threads() {
        fn send_sync<T: Send + Sync>() {}
        fn send<T: Send>() {}
        send_sync::<Network>();
        send::<crate::eval::nnue::NnueState>();
    }

    #[test]
    fn hashes_follow_the_derivation() {
        assert_eq!(TRANSFORMER_HASH, 0x5D69_D7B8);
        assert_eq!(NETWORK_HASH, 0x6333_7156);
        assert_eq!(FILE_HASH, 0x3E5A_A6EE);
        assert_eq!(ARCHITECTURE.len(), 178);
        assert_eq!(CLASSIC_FILE_BYTES, 64_217_066);
    }

    #[test]
    fn short_headers_are_errors() {
        assert!(matches!(Network::from_bytes(&[]), Err(NnueError::Truncated { len: 0, .. })));
        assert!(matches!(
            Network::from_bytes(&VERSION.to_le_bytes()),
            Err(NnueError::Truncated { len: 4, .. })
        ));
        let mut b = VERSION.to_le_bytes().to_vec();
        b.extend_from_slice(&KP256_FILE_HASH.to_le_bytes());
        b.extend_from_slice(&u32::MAX.to_le_bytes());
        let e = Network::from_bytes(&b).unwrap_err();
        assert!(e.to_string().contains("kp256"), "{e}");
        // A huge announced architecture length must not be trusted.
        let mut b = VERSION.to_le_bytes().to_vec();
        b.extend_from_slice(&FILE_HASH.to_le_bytes());
        b.extend_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(Network::from_bytes(&b), Err(NnueError::Truncated { len: 12, .. })));
    }
}
