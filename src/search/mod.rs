//! The search: iterative deepening over a principal variation search with a shared lockless
//! transposition table, run on Lazy SMP threads.
//!
//! Files: `limits.rs` (what `go` asks for), `time.rs` (deadlines), `manager.rs` (the main
//! thread's clock and deadlines), `thread.rs` (thread pool, shared state, per-thread data,
//! best-thread vote), `iterate.rs` (root, iterative deepening, aspiration windows, reports),
//! `alphabeta.rs` (the search), `qsearch.rs` (quiescence search), `movepick.rs` (move ordering),
//! `history.rs` (ordering statistics), `correction.rs` (static evaluation corrections),
//! `tt.rs` (transposition table), `large_pages.rs` (zeroed tables on large pages), `params.rs`
//! (every tunable), `report.rs` (the `Reporter` trait: the search never prints).

mod alphabeta;
pub mod correction;
pub mod history;
mod iterate;
pub mod large_pages;
pub mod limits;
pub mod manager;
pub mod movepick;
mod parallel;
pub mod params;
mod qsearch;
pub mod report;
pub mod thread;
pub mod time;
pub mod tt;

pub use limits::Limits;
pub use report::{BestMove, Recorder, Reporter, ScoreBound, SearchInfo, SilentReporter};
pub use thread::{SearchConfig, SearchControl, ThreadPool};
pub use tt::TranspositionTable;
