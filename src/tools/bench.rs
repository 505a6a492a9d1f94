//! The bench signature: a fixed list of middle-game positions searched to a fixed depth with one
//! thread and a 16 MB table. The node total identifies the search's behaviour: any change to
//! search or evaluation changes it, non-functional changes keep it. `hayate bench` and the USI
//! `bench` command print [`report`].

use crate::position::Position;
use crate::search::{Limits, SearchConfig, SilentReporter, ThreadPool, TranspositionTable};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The positions: `tests/data/bench.sfen` (comment lines start with `#`).
pub const POSITIONS: &str = include_str!("../../tests/data/bench.sfen");

/// The depth `hayate bench` uses by default.
pub const DEFAULT_DEPTH: i32 = 10;
pub const HASH_MB: usize = 16;

/// The SFENs of the bench positions.
pub fn positions() -> Vec<&'static str> {
    POSITIONS.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect()
}

/// The outcome of one bench run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchResult {
    pub nodes: u64,
    pub elapsed: Duration,
}

/// Searches every bench position to `depth`; `progress(index, sfen, nodes)` follows along.
pub fn run(depth: i32, mut progress: impl FnMut(usize, &str, u64)) -> BenchResult {
    let config = SearchConfig::default();
    let mut pool = ThreadPool::new(1);
    let tt = Arc::new(TranspositionTable::new(HASH_MB));
    let start = Instant::now();
    let mut total = 0;
    for (i, sfen) in positions().into_iter().enumerate() {
        let pos = Position::from_sfen(sfen).expect("bench positions are valid");
        tt.clear();
        pool.clear();
        let limits = Limits { depth: Some(depth), ..Limits::default() };
        let nodes = pool.search_sync(&pos, limits, config.clone(), Arc::clone(&tt), Arc::new(SilentReporter));
        progress(i, sfen, nodes);
        total += nodes;
    }
    BenchResult { nodes: total, elapsed: start.elapsed() }
}

/// Runs the bench and reports each position, then the total time, nodes and speed.
pub fn report(depth: i32, out: &mut dyn FnMut(&str)) -> BenchResult {
    let count = positions().len();
    let result = run(depth, |i, sfen, nodes| {
        out(&format!("Position {:>2}/{count}: {nodes:>10} nodes  {sfen}", i + 1));
    });
    let secs = result.elapsed.as_secs_f64().max(1e-6);
    out("===========================");
    out(&format!("Total time (ms) : {}", result.elapsed.as_millis()));
    out(&format!("Nodes searched  : {}", result.nodes));
    out(&format!("Nodes/second    : {}", (result.nodes as f64 / secs) as u64));
    result
}
