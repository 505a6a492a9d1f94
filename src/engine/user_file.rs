//! Opening a file the user named (the options file, a book, an openings list): only a regular
//! file is opened, and one read whole must fit a size limit. A FIFO would block the opening until
//! some writer came, and a device (`/dev/zero`, `/dev/urandom`) or a huge file would be read until
//! the allocator gave up; each is refused with a sentence that says what the path is instead.

use std::fmt;
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Why a file the user named cannot be used.
#[derive(Debug)]
pub enum FileError {
    /// Nothing is at the path (a caller that looks in several places goes on to the next).
    Missing(std::io::Error),
    /// A regular file larger than the caller's limit (bytes).
    TooLarge { len: u64, limit: u64 },
    /// Something is there but cannot be used; the sentence says why.
    Unusable(String),
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::Missing(e) => write!(f, "{e}"),
            FileError::TooLarge { len, limit } => write!(
                f,
                "{} ({len} bytes), more than the {} such a file may have",
                size_text(*len),
                size_text(*limit)
            ),
            FileError::Unusable(why) => f.write_str(why),
        }
    }
}

/// What a path that is not a regular file is, in words.
fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "not a file"
}

/// A size in words: bytes, or KiB/MiB/GiB with one decimal.
pub fn size_text(bytes: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, size) in UNITS {
        if bytes >= size {
            return format!("{:.1} {unit}", bytes as f64 / size as f64);
        }
    }
    format!("{bytes} bytes")
}

/// Opens `path` (through symbolic links) for reading when it is a regular file of at most
/// `limit` bytes; returns the file and its length.
///
/// The type is checked before opening, because opening a FIFO waits for a writer, and again on
/// the opened file, in case the path changed in between.
pub fn open_regular(path: &Path, limit: u64) -> Result<(File, u64), FileError> {
    let unusable = |e: std::io::Error| FileError::Unusable(e.to_string());
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(FileError::Missing(e)),
        Err(e) => return Err(unusable(e)),
    };
    if !meta.is_file() {
        return Err(FileError::Unusable(format!("not a regular file ({})", kind_of(&meta))));
    }
    let file = File::open(path).map_err(unusable)?;
    let meta = file.metadata().map_err(unusable)?;
    if !meta.is_file() {
        return Err(FileError::Unusable(format!("not a regular file ({})", kind_of(&meta))));
    }
    if meta.len() > limit {
        return Err(FileError::TooLarge { len: meta.len(), limit });
    }
    Ok((file, meta.len()))
}

/// Reads a regular file of at most `limit` bytes whole (see [`open_regular`]). The buffer is
/// reserved fallibly, and a file that grows past the limit while it is read is refused.
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    let (file, len) = open_regular(path, limit)?;
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(len as usize)
        .map_err(|_| FileError::Unusable(format!("not enough memory to read its {}", size_text(len))))?;
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| FileError::Unusable(e.to_string()))?;
    if bytes.len() as u64 > limit {
        return Err(FileError::Unusable(format!(
            "grew past the {} such a file may have while it was read",
            size_text(limit)
        )));
    }
    Ok(bytes)
}

/// [`read_regular`], as UTF-8 text.
pub fn read_regular_text(path: &Path, limit: u64) -> Result<String, FileError> {
    String::from_utf8(read_regular(path, limit)?).map_err(|e| {
        FileError::Unusable(format!("not UTF-8 text (at byte {})", e.utf8_error().valid_up_to()))
    })
}
