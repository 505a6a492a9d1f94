//! Reading `nn.bin` of any normal shape of YaneuraOu's family: the checks, the messages, and the
//! in-memory weight layout.
//!
//! The file (little-endian, no padding; see `docs/nnue-format.md` and [`super::shape`]):
//! ```text
//! u32 version 0x7AF32F16 | u32 file hash | u32 N | N bytes architecture string
//! u32 transformer hash | i16 ft_bias[FT] | i16 ft_weight[inputs][FT]
//! u32 network hash | i32 b1[H1] i8 w1[H1][pad32(2FT)] | i32 b2[H2] i8 w2[H2][pad32(H1)]
//!                  | i32 b3 i8 w3[pad32(H2)]
//! ```
//! As YaneuraOu does, the loader rejects a file only for its version or its size: the shape is
//! the one whose layout ends exactly at the end of the file ([`Shape::identify`]), and hashes or
//! an architecture string that disagree with it are reported ([`Network::warnings`]), not
//! refused. Every allocation is fallible (a 1024-wide net is 257 MB, a halfka1 2048-wide one
//! over 500 MB), and every read is bounds-checked: no file can make the loader panic.
//!
//! In memory the transformer weights stay feature-major, one row of `FT` `i16` per feature, the
//! whole table starting on a 64-byte boundary, so an accumulator update streams whole rows with
//! vector loads. The layers are described in [`super::layers`].

use super::aligned::AlignedVec;
use super::layers::Layers;
use super::sfnn::{self, Sfnn, SfnnShape};
use super::shape::{FeatureKind, Mismatch, Shape};
use std::fmt;
use std::path::{Path, PathBuf};

/// First word of every YaneuraOu NNUE file.
pub const VERSION: u32 = 0x7AF3_2F16;

/// The longest architecture string kept as text (YaneuraOu's are under 300 bytes).
pub const MAX_ARCHITECTURE: usize = 4096;

/// The largest file `load` reads: a halfka1 net 4096 wide with 1024-wide hidden layers is about
/// 1.2 GB; nothing legitimate is larger.
pub const MAX_FILE_BYTES: u64 = 1 << 31;

/// Why a net could not be loaded. The `Display` text is written for users (the engine shows it as
/// `info string`), so it names the problem and, where it can, what the file actually is.
#[derive(Debug)]
pub enum NnueError {
    /// The file could not be opened or read.
    Io { path: PathBuf, source: std::io::Error },
    /// The path names something other than a regular file (a folder, a FIFO, a device).
    NotAFile { path: PathBuf },
    /// The file is larger than any net.
    TooLarge { len: u64 },
    /// The file ends inside its header (`len` bytes).
    Truncated { len: usize },
    /// The first word is not the YaneuraOu NNUE version.
    Version { found: u32 },
    /// No shape of the family has this file's size: `len` bytes, after a string of `arch_len`
    /// bytes; `mismatch.named` is the shape the string names, if any.
    Size { len: usize, arch_len: usize, mismatch: Mismatch },
    /// The file is of a shape this build has no evaluator for (every build has one for each
    /// feature set of the family; kept so that a build without one answers with a message).
    Unsupported { shape: Shape },
    /// The allocator refused the memory of the file or of the weights (`bytes` of it).
    OutOfMemory { bytes: usize },
    /// An SFNN file that cannot be read: of a kind Hayate does not read, or malformed (the
    /// message says which and where).
    Sfnn { message: String },
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
            NnueError::TooLarge { len } => {
                write!(
                    f,
                    "NNUE file is {} MiB, larger than any net ({} MiB at most)",
                    len >> 20,
                    MAX_FILE_BYTES >> 20
                )
            }
            NnueError::Truncated { len } => {
                write!(f, "NNUE file is truncated: {len} bytes end inside its header")
            }
            NnueError::Version { found } => {
                write!(f, "not a YaneuraOu NNUE file: version 0x{found:08X}, expected 0x{VERSION:08X}")
            }
            NnueError::Size { len, arch_len, mismatch } => {
                write!(f, "NNUE file of {len} bytes fits no net shape of the YaneuraOu family")?;
                match mismatch.named {
                    Some(s) => {
                        let need = 12 + arch_len + s.body_bytes();
                        let how = if *len < need { "truncated" } else { "too long" };
                        write!(
                            f,
                            "; it describes itself as {s}, which takes {need} bytes ({how} by {})",
                            len.abs_diff(need)
                        )
                    }
                    None => write!(f, "; its architecture string names no shape either"),
                }
            }
            NnueError::Unsupported { shape } => write!(
                f,
                "NNUE file is a {shape} net: this build has no evaluator for the {} feature set",
                shape.features.name()
            ),
            NnueError::OutOfMemory { bytes } => {
                write!(f, "not enough memory to read the net ({} MiB more could not be had)", bytes >> 20)
            }
            NnueError::Sfnn { message } => write!(f, "NNUE file not read: {message}"),
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

/// A loaded net of any supported shape. Immutable once loaded; share it between search threads
/// with an `Arc`.
pub struct Network {
    shape: Shape,
    architecture: String,
    warnings: Vec<String>,
    pub(crate) ft_bias: AlignedVec<i16>,
    /// `inputs` rows of `ft` weights; row `f` holds the weights of feature `f` (see
    /// `features.rs`).
    pub(crate) ft_weight: AlignedVec<i16>,
    pub(crate) layers: Layers,
    /// The layer stacks of an SFNN net (then `layers` is empty and `ft_bias` and `ft_weight`
    /// hold the transformer doubled, as YaneuraOu keeps it).
    pub(crate) sfnn: Option<Box<Sfnn>>,
}

impl fmt::Debug for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Network").field("shape", &self.shape).finish_non_exhaustive()
    }
}

/// Little-endian cursor over the file. Every read is bounds-checked and reports truncation, so a
/// malformed file can never make the loader panic (the length is also checked up front).
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], NnueError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len());
        match end {
            Some(end) => {
                let s = &self.bytes[self.pos..end];
                self.pos = end;
                Ok(s)
            }
            None => Err(NnueError::Truncated { len: self.bytes.len() }),
        }
    }

    fn u32(&mut self) -> Result<u32, NnueError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn i32s(&mut self, out: &mut [i32]) -> Result<(), NnueError> {
        let b = self.take(out.len() * 4)?;
        for (o, c) in out.iter_mut().zip(b.chunks_exact(4)) {
            *o = i32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        Ok(())
    }

    fn i16s(&mut self, out: &mut [i16]) -> Result<(), NnueError> {
        let b = self.take(out.len() * 2)?;
        for (o, c) in out.iter_mut().zip(b.chunks_exact(2)) {
            *o = i16::from_le_bytes([c[0], c[1]]);
        }
        Ok(())
    }

    fn i8s(&mut self, out: &mut [i8]) -> Result<(), NnueError> {
        let b = self.take(out.len())?;
        for (o, &c) in out.iter_mut().zip(b) {
            *o = c as i8;
        }
        Ok(())
    }
}

impl sfnn::Source for Reader<'_> {
    fn i32s(&mut self, out: &mut [i32]) -> Result<(), String> {
        Reader::i32s(self, out).map_err(|_| self.ends_early())
    }

    fn i8s(&mut self, out: &mut [i8]) -> Result<(), String> {
        Reader::i8s(self, out).map_err(|_| self.ends_early())
    }

    fn u32(&mut self) -> Result<u32, String> {
        Reader::u32(self).map_err(|_| self.ends_early())
    }
}

impl Reader<'_> {
    fn ends_early(&self) -> String {
        format!("the SFNN file ends inside its layer stacks (at byte {} of {})", self.pos, self.bytes.len())
    }

    /// One LEB128 block of `count` values of SFNN's transformer (`what` names it in messages).
    /// The memory is asked for only once the block is known to be long enough for them (a value
    /// takes at least a byte), so a damaged string cannot make a small file allocate gigabytes.
    fn leb128(&mut self, count: usize, what: &str) -> Result<AlignedVec<i16>, NnueError> {
        let err = |message| NnueError::Sfnn { message };
        let at = self.pos;
        let magic = self.take(sfnn::LEB128_MAGIC.len()).map_err(|_| {
            err(format!("the SFNN file ends before its {what} (byte {at} of {})", self.bytes.len()))
        })?;
        if magic != sfnn::LEB128_MAGIC {
            return Err(err(format!("no COMPRESSED_LEB128 marker before the SFNN {what} (byte {at})")));
        }
        let n = self.u32().map_err(|_| err(format!("the SFNN file ends inside the {what}' block header")))?;
        let left = self.bytes.len() - self.pos;
        if n as usize > left {
            return Err(err(format!(
                "the SFNN {what}' LEB128 block announces {n} bytes; the file has {left} left"
            )));
        }
        if (n as usize) < count {
            return Err(err(format!(
                "the SFNN {what}' LEB128 block of {n} bytes cannot hold its {count} values (a byte each at least)"
            )));
        }
        let body = self.take(n as usize)?;
        let mut out = AlignedVec::try_new(count).map_err(oom)?;
        sfnn::decode_leb128(body, &mut out)
            .map_err(|e| err(format!("the SFNN {what}' LEB128 block (byte {at}) {e}")))?;
        Ok(out)
    }
}

fn oom(bytes: usize) -> NnueError {
    NnueError::OutOfMemory { bytes }
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
        if meta.len() > MAX_FILE_BYTES {
            return Err(NnueError::TooLarge { len: meta.len() });
        }
        let mut bytes = Vec::new();
        // Fallible: the file is read whole (up to gigabytes), and the system may be short.
        let len = meta.len() as usize;
        bytes.try_reserve_exact(len).map_err(|_| oom(len))?;
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes))
            .map_err(io)?;
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(NnueError::TooLarge { len: bytes.len() as u64 });
        }
        Network::from_bytes(&bytes)
    }

    /// Parses and checks a complete `nn.bin` image. Never panics on malformed input.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NnueError> {
        let mut r = Reader { bytes, pos: 0 };
        let version = r.u32()?;
        if version != VERSION {
            return Err(NnueError::Version { found: version });
        }
        let file_hash = r.u32()?;
        let arch_len = r.u32()? as usize;
        // Any length the file holds is read past; only the first 4 KiB are kept as text.
        let arch_bytes = r.take(arch_len)?;
        let architecture =
            String::from_utf8_lossy(&arch_bytes[..arch_len.min(MAX_ARCHITECTURE)]).into_owned();
        if file_hash == sfnn::FILE_HASH || architecture.starts_with(sfnn::MODEL_PREFIX) {
            return Network::sfnn_from(r, file_hash, architecture);
        }
        let body = bytes.len() - r.pos;
        let (shape, others) = Shape::identify(file_hash, &architecture, body)
            .map_err(|mismatch| NnueError::Size { len: bytes.len(), arch_len, mismatch })?;

        let mut warnings = Vec::new();
        match Shape::from_architecture(&architecture) {
            Some(s) if s == shape => {}
            Some(s) => warnings.push(format!(
                "the file describes itself as {s}, but its size is that of {shape}: read as {shape}"
            )),
            None => warnings
                .push(format!("the file's architecture string names no shape; read as {shape} by its size")),
        }
        // Sizes often coincide with shapes no one trains (hidden layers 12 wide, 228 wide): only
        // the plausible ones are worth a word.
        let plausible: Vec<String> = others.iter().filter(|s| s.usual()).map(Shape::to_string).collect();
        if !plausible.is_empty() {
            let list = plausible;
            warnings.push(format!("the size also fits {}; read as {shape}", list.join(", ")));
        }
        let mut hash_warning = |what: &str, found: u32, want: u32| {
            if found != want {
                warnings.push(format!("{what} hash 0x{found:08X}, {shape} has 0x{want:08X}"));
            }
        };
        hash_warning("file", file_hash, shape.file_hash());

        let transformer_hash = r.u32()?;
        hash_warning("transformer", transformer_hash, shape.transformer_hash());
        let ft = shape.ft;
        let rows = shape.features.inputs();
        let mut ft_bias = AlignedVec::try_new(ft).map_err(oom)?;
        r.i16s(&mut ft_bias)?;
        let mut ft_weight = AlignedVec::try_new(rows * ft).map_err(oom)?;
        r.i16s(&mut ft_weight)?;

        let network_hash = r.u32()?;
        hash_warning("network", network_hash, shape.network_hash());
        let mut layers = Layers::zeroed(ft, shape.h1, shape.h2).map_err(oom)?;
        for l in [&mut layers.l1, &mut layers.l2] {
            r.i32s(&mut l.bias[..l.n_out])?;
            r.i8s(&mut l.rows)?;
            l.build_blocks();
        }
        let mut b3 = [0i32; 1];
        r.i32s(&mut b3)?;
        layers.b3 = b3[0];
        r.i8s(&mut layers.w3)?;
        if r.pos != bytes.len() {
            // Unreachable: the shape was chosen for this exact size. Kept so that a layout slip
            // cannot go unnoticed.
            return Err(NnueError::Size {
                len: bytes.len(),
                arch_len,
                mismatch: Mismatch { named: Some(shape), body },
            });
        }
        Ok(Network { shape, architecture, warnings, ft_bias, ft_weight, layers, sfnn: None })
    }

    /// The rest of an SFNN file after its header: the shape from the architecture string, the
    /// LEB128 transformer (doubled as it is read), the layer stacks, and the end of the file.
    fn sfnn_from(mut r: Reader<'_>, file_hash: u32, architecture: String) -> Result<Network, NnueError> {
        let err = |message| NnueError::Sfnn { message };
        let shape = SfnnShape::from_architecture(&architecture).map_err(err)?;
        let mut warnings = Vec::new();
        if file_hash != sfnn::FILE_HASH {
            warnings.push(format!("file hash 0x{file_hash:08X}, {shape} has 0x{:08X}", sfnn::FILE_HASH));
        }
        let transformer_hash = r.u32().map_err(|_| err("the SFNN file ends after its header".to_string()))?;
        if transformer_hash != sfnn::TRANSFORMER_HASH {
            warnings.push(format!(
                "transformer hash 0x{transformer_hash:08X}, {shape} has 0x{:08X}",
                sfnn::TRANSFORMER_HASH
            ));
        }
        let (ft, rows) = (shape.ft, shape.features.inputs());
        let mut ft_bias = r.leb128(ft, "transformer biases")?;
        let mut ft_weight = r.leb128(rows * ft, "transformer weights")?;
        for w in ft_bias.iter_mut().chain(ft_weight.iter_mut()) {
            *w = w.wrapping_mul(2);
        }
        let stacks = Sfnn::read(shape, &mut r, &mut warnings).map_err(err)?;
        if r.pos != r.bytes.len() {
            return Err(err(format!(
                "the SFNN file goes on for {} bytes after its {} layer stacks",
                r.bytes.len() - r.pos,
                shape.buckets.count()
            )));
        }
        let layers = Layers::zeroed(0, 0, 0).map_err(oom)?;
        let sfnn = Some(Box::new(stacks));
        let shape = Shape { features: shape.features, ft, h1: shape.h1, h2: shape.h2 };
        Ok(Network { shape, architecture, warnings, ft_bias, ft_weight, layers, sfnn })
    }

    /// The shape the file was read as (for an SFNN net, its feature set and widths; see
    /// [`Network::sfnn_shape`]).
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The SFNN shape, for an SFNN net.
    pub fn sfnn_shape(&self) -> Option<SfnnShape> {
        self.sfnn.as_ref().map(|s| s.shape())
    }

    /// The net's shape as users read it: `halfkp_256x2-32-32`, `SFNN_halfka2_1024_7_64_k3k3`.
    pub fn shape_name(&self) -> String {
        match self.sfnn_shape() {
            Some(s) => s.to_string(),
            None => self.shape.to_string(),
        }
    }

    /// The architecture string stored in the file.
    pub fn architecture(&self) -> &str {
        &self.architecture
    }

    /// What in the file disagreed with its shape (hashes, the architecture string) without
    /// keeping it from loading, as YaneuraOu warns: for the user, one line each.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The feature set.
    pub fn features(&self) -> FeatureKind {
        self.shape.features
    }

    /// A net from its parts, for the kernel tests: `ft_weight` holds `shape.features.inputs()`
    /// rows of `shape.ft` weights.
    #[cfg(test)]
    pub(crate) fn from_parts(shape: Shape, ft_bias: &[i16], ft_weight: &[i16], layers: Layers) -> Network {
        let mut bias = AlignedVec::try_new(ft_bias.len()).expect("memory");
        bias.copy_from_slice(ft_bias);
        let mut weight = AlignedVec::try_new(ft_weight.len()).expect("memory");
        weight.copy_from_slice(ft_weight);
        assert_eq!(ft_weight.len(), shape.features.inputs() * shape.ft);
        Network {
            shape,
            architecture: String::new(),
            warnings: Vec::new(),
            ft_bias: bias,
            ft_weight: weight,
            layers,
            sfnn: None,
        }
    }

    /// The transformer weights of feature `f` (`f < inputs`), `ft` of them.
    #[cfg(test)]
    pub(crate) fn row(&self, f: u32, ft: usize) -> &[i16] {
        let start = f as usize * ft;
        &self.ft_weight[start..start + ft]
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
    fn short_headers_are_errors() {
        assert!(matches!(Network::from_bytes(&[]), Err(NnueError::Truncated { len: 0 })));
        assert!(matches!(Network::from_bytes(&VERSION.to_le_bytes()), Err(NnueError::Truncated { len: 4 })));
        // A huge announced architecture length must not be trusted.
        let mut b = VERSION.to_le_bytes().to_vec();
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(Network::from_bytes(&b), Err(NnueError::Truncated { len: 12 })));
        // A header alone fits no shape.
        let mut b = VERSION.to_le_bytes().to_vec();
        b.extend_from_slice(&Shape::CLASSIC.file_hash().to_le_bytes());
        let arch = Shape::CLASSIC.architecture();
        b.extend_from_slice(&(arch.len() as u32).to_le_bytes());
        b.extend_from_slice(arch.as_bytes());
        let e = Network::from_bytes(&b).unwrap_err();
        assert!(
            e.to_string().contains("describes itself as halfkp_256x2-32-32, which takes 64217066 bytes"),
            "{e}"
        );
    }
}
