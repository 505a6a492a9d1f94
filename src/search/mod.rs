//! The search: iterative deepening over a principal variation search with a shared lockless
//! transposition table, run on Lazy SMP threads.

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
