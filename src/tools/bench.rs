//! The bench signature: a fixed list of middle-game positions searched to a fixed depth with one
//! thread and a 16 MB table. The node total identifies the search's behaviour: any change to
//! search or evaluation changes it, non-functional changes keep it. `hayate bench` and the USI
//! `bench` command print [`report`].

use crate::position::Position;
use crate::search::{BestMove, Limits, Reporter, SearchConfig, SearchInfo, ThreadPool, TranspositionTable};
use crate::sys::time::Instant;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

/// The positions: `tests/data/bench.sfen` (comment lines start with `#`).
pub const POSITIONS: &str = include_str!("../../tests/data/bench.sfen");

/// The depth `hayate bench` uses by default.
pub const DEFAULT_DEPTH: i32 = 9;
pub const HASH_MB: usize = 16;

/// The deepest bench the search can do: its ply limit.
pub const MAX_DEPTH: i32 = crate::types::MAX_PLY;

/// Reads a bench depth, a whole number from 1 to [`MAX_DEPTH`].
pub fn parse_depth(text: &str) -> Result<i32, String> {
    match text.parse::<i32>() {
        Ok(d) if (1..=MAX_DEPTH).contains(&d) => Ok(d),
        _ => Err(format!("the depth must be a whole number from 1 to {MAX_DEPTH}, not '{text}'")),
    }
}

/// The SFENs of the bench positions.
pub fn positions() -> Vec<&'static str> {
    POSITIONS.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect()
}

/// The outcome of one bench run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchResult {
    pub nodes: u64,
    pub elapsed: Duration,
    /// Positions searched in full (fewer than all when stopped).
    pub positions: usize,
}

/// Searches every bench position to `depth`; `progress(index, sfen, nodes)` follows along.
pub fn run(depth: i32, progress: impl FnMut(usize, &str, u64)) -> BenchResult {
    run_until(depth, &AtomicBool::new(false), progress)
}

/// [`run`] until `stop` is set (a search under way is stopped, and not counted).
pub fn run_until(depth: i32, stop: &AtomicBool, mut progress: impl FnMut(usize, &str, u64)) -> BenchResult {
    let config = SearchConfig::default();
    let mut pool = ThreadPool::new(1);
    let tt = Arc::new(TranspositionTable::new(HASH_MB));
    let start = Instant::now();
    let mut total = 0;
    let mut done = 0;
    for (i, sfen) in positions().into_iter().enumerate() {
        let pos = Position::from_sfen(sfen).expect("bench positions are valid");
        tt.clear();
        pool.clear();
        let limits = Limits { depth: Some(depth), ..Limits::default() };
        let (reporter, ended) = DoneSignal::new();
        pool.start(&pos, limits, config.clone(), Arc::clone(&tt), reporter);
        // Wait for the best move; look at `stop` every few milliseconds meanwhile. (On
        // WebAssembly the search has run to its end in `start`: the best move is there, and
        // `recv_timeout`, which reads std's clock, is never called.)
        while ended.try_recv().is_err() && ended.recv_timeout(Duration::from_millis(5)).is_err() {
            if stop.load(Ordering::Relaxed) {
                pool.control().stop();
            }
        }
        pool.wait();
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let nodes = pool.nodes();
        progress(i, sfen, nodes);
        total += nodes;
        done += 1;
    }
    BenchResult { nodes: total, elapsed: start.elapsed(), positions: done }
}

/// A reporter that only says when the best move came.
struct DoneSignal(Mutex<mpsc::Sender<()>>);

impl DoneSignal {
    fn new() -> (Arc<DoneSignal>, mpsc::Receiver<()>) {
        let (tx, rx) = mpsc::channel();
        (Arc::new(DoneSignal(Mutex::new(tx))), rx)
    }
}

impl Reporter for DoneSignal {
    fn info(&self, _: &SearchInfo) {}
    fn message(&self, _: &str) {}
    fn best_move(&self, _: BestMove) {
        let _ = self.0.lock().unwrap_or_else(|e| e.into_inner()).send(());
    }
}

/// Runs the bench and reports each position, then the total time, nodes and speed.
pub fn report(depth: i32, stop: &AtomicBool, out: &mut dyn FnMut(&str)) -> BenchResult {
    let count = positions().len();
    let result = run_until(depth, stop, |i, sfen, nodes| {
        out(&format!("Position {:>2}/{count}: {nodes:>10} nodes  {sfen}", i + 1));
    });
    let secs = result.elapsed.as_secs_f64().max(1e-6);
    out("===========================");
    if result.positions < count {
        out(&format!("Stopped: {} of {count} positions searched", result.positions));
    }
    out(&format!("Total time (ms) : {}", result.elapsed.as_millis()));
    out(&format!("Nodes searched  : {}", result.nodes));
    out(&format!("Nodes/second    : {}", (result.nodes as f64 / secs) as u64));
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depths_are_whole_numbers_from_one_to_the_ply_limit() {
        assert_eq!(parse_depth("1"), Ok(1));
        assert_eq!(parse_depth("246"), Ok(MAX_DEPTH));
        for bad in ["0", "-1", "247", "x", "9.5", ""] {
            let e = parse_depth(bad).expect_err(bad);
            assert!(e.ends_with(&format!("not '{bad}'")), "{e}");
        }
    }
}
