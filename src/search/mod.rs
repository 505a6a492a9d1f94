//! The search: iterative deepening over a principal variation search with a shared lockless
//! transposition table, run on Lazy SMP threads.

mod alphabeta;
pub mod config;
pub mod control;
pub mod correction;
pub mod history;
mod iterate;
pub mod limits;
pub mod manager;
pub mod movepick;
pub mod params;
mod qsearch;
pub mod report;
pub mod root_move;
pub mod shared;
pub mod skill;
pub mod stack;
pub mod thread;
pub mod time;
pub mod tt;

pub use config::SearchConfig;
pub use control::SearchControl;
pub use limits::Limits;
pub use report::{BestMove, Recorder, Reporter, ScoreBound, SearchInfo, SilentReporter};
pub use thread::ThreadPool;
pub use tt::TranspositionTable;
