//! The files a bare WebAssembly host (`wasm32-unknown-unknown`) hands the engine: what the glue
//! module's `FS.writeFile` was given (ShogiHome's worker writes there the manifest's `dataFiles`
//! before it starts the engine), read through the imports `env.hayate_file_len` and
//! `env.hayate_file_read`. Such a host has no file system of its own; on every other target
//! files are std's.

#[link(wasm_import_module = "env")]
extern "C" {
    /// The length in bytes of the file at `path` (UTF-8), or -1 when the host has none.
    fn hayate_file_len(path: *const u8, path_len: usize) -> isize;
    /// Copies the file at `path` to `dst` (as many bytes as `hayate_file_len` said).
    fn hayate_file_read(path: *const u8, path_len: usize, dst: *mut u8);
}

/// Why a file could not be had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostFileError {
    /// The host was given no file at this path.
    Missing,
    /// The memory for its bytes could not be had.
    OutOfMemory { bytes: usize },
}

/// The bytes of the file at `path`.
pub fn read(path: &str) -> Result<Vec<u8>, HostFileError> {
    // SAFETY: the pointer and length of a live `str`, read by the host during the call.
    let len = unsafe { hayate_file_len(path.as_ptr(), path.len()) };
    let Ok(len) = usize::try_from(len) else {
        return Err(HostFileError::Missing);
    };
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(len).map_err(|_| HostFileError::OutOfMemory { bytes: len })?;
    // SAFETY: `bytes` has room for `len` bytes, which the host writes before `set_len`.
    unsafe {
        hayate_file_read(path.as_ptr(), path.len(), bytes.as_mut_ptr());
        bytes.set_len(len);
    }
    Ok(bytes)
}
