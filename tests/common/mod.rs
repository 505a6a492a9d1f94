//! What the integration tests share: reading the reference data in `tests/data/`, and the
//! engine binary talked to line by line ([`engine::Engine`]).

// Each test file uses only part of what is here.
#![allow(dead_code)]

pub mod engine;

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

/// Makes a FIFO at `path` (for the tests that a named file which is not a regular file is
/// refused rather than waited on).
#[cfg(unix)]
pub fn make_fifo(path: &std::path::Path) {
    let made = std::process::Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(made.success(), "mkfifo {}", path.display());
}
