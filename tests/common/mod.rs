//! What the integration tests share: reading the reference data in `tests/data/`, and the
//! engine binary talked to line by line ([`engine::Engine`]).

// Each test file uses only part of what is here.
#![allow(dead_code)]

pub mod engine;

use std::path::{Path, PathBuf};

/// The data rows of `tests/data/<name>`, a TSV file: `#` comment lines and blank lines skipped,
/// then the header line; each row split at its tabs.
pub fn tsv_rows(name: &str) -> Vec<Vec<String>> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .skip(1)
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// A fresh folder for one test of the test file `suite`, `hayate-<suite>-<pid>-<name>` in the
/// system's temporary folder (emptied first, where an earlier run left it). It is removed when
/// dropped, unless the test is failing (a panic): then it stays, to be looked at.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(suite: &str, name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("hayate-{suite}-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// The folder, kept after the test (for one that several tests share).
    pub fn keep(self) -> PathBuf {
        let kept = std::mem::ManuallyDrop::new(self);
        kept.0.clone()
    }
}

impl std::ops::Deref for TempDir {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// Makes a FIFO at `path` and returns the path (for the tests that a named file which is not a
/// regular file is refused rather than waited on).
#[cfg(unix)]
pub fn make_fifo(path: PathBuf) -> PathBuf {
    let made = std::process::Command::new("mkfifo").arg(&path).status().expect("mkfifo");
    assert!(made.success(), "mkfifo {}", path.display());
    path
}
