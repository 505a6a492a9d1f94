//! Finding the files the options name (the NNUE net, the opening book): where a relative path
//! leads, and what a file was at a load attempt, so that it is read again only once it changed.

use std::path::{Path, PathBuf};

/// What a file was at a load attempt: its size and modification time, or absent.
pub(super) type Stamp = Option<(u64, Option<std::time::SystemTime>)>;

pub(super) fn stamp(path: &Path) -> Stamp {
    std::fs::metadata(path).ok().map(|m| (m.len(), m.modified().ok()))
}

/// A relative `path` that does not exist from the working directory but does from the binary's
/// folder, taken from there (a GUI starts the engine in a folder of its own); else `path`.
pub(super) fn found_from_here_or_beside_the_binary(path: PathBuf) -> PathBuf {
    if path.is_relative() && !path.exists() {
        if let Some(dir) = std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf)) {
            let beside = dir.join(&path);
            if beside.exists() {
                return beside;
            }
        }
    }
    path
}
