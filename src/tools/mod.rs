//! Tools: the work behind the command-line subcommands (`hayate perft`, `bench`, `tune`,
//! `gensfen`, `openings`), shared with the USI debug commands (`go perft`, `bench`). A tool hands
//! its report over line by line (`out`), so that the command line prints it and a front end sends
//! it; progress of long runs goes to stderr.
//!
//! Tools sit above the engine layers: they may use `engine`, `search`, `eval` and `position`, and
//! nothing below imports them.

pub mod bench;
pub mod file_identity;
pub mod gensfen;
pub mod openings;
pub mod perft;
pub mod selfplay;
pub mod tune;

use crate::engine::options::MAX_THREADS;

/// Checks a tool's `--threads`: 1 to [`MAX_THREADS`], as the `Threads` option takes (each thread
/// holds a search's tables).
pub fn check_threads(threads: usize) -> Result<(), String> {
    if (1..=MAX_THREADS).contains(&threads) {
        Ok(())
    } else {
        Err(format!("--threads must be from 1 to {MAX_THREADS}, not {threads}"))
    }
}
