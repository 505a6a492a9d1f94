//! How the search tells the outside world what it found: the `Reporter` trait. Front ends
//! implement it (the USI layer, a CSA client); the search never prints.

use super::control::SearchControl;
use crate::types::{Move, Score};
use std::sync::Mutex;

/// Which side of the aspiration window a reported score lies on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ScoreBound {
    Exact,
    /// The true score is at least this (fail high).
    Lower,
    /// The true score is at most this (fail low).
    Upper,
}

/// One line of search progress.
#[derive(Clone, Debug)]
pub struct SearchInfo {
    pub depth: i32,
    pub sel_depth: i32,
    pub time_ms: u64,
    pub nodes: u64,
    pub nps: u64,
    pub hashfull: u32,
    pub score: Score,
    pub bound: ScoreBound,
    /// 1-based index of the line (MultiPV).
    pub multipv: usize,
    pub pv: Vec<Move>,
}

/// The final answer of a search.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BestMove {
    Move {
        best: Move,
        ponder: Option<Move>,
    },
    /// No legal move, or the position is hopeless (ResignValue).
    Resign,
    /// Entering-king declaration under the rule in force.
    Win,
}

pub trait Reporter: Send + Sync {
    fn info(&self, info: &SearchInfo);
    /// Free text for the user (`info string`).
    fn message(&self, text: &str);
    fn best_move(&self, best: BestMove);

    /// Called by the main search thread each time it got control back from a host without
    /// threads (a WebAssembly page, see `crate::sys::host_yield`): the front end (`crate::web`)
    /// applies to `control` the commands that came meanwhile (`stop`, `ponderhit`). Threaded
    /// front ends get those through their own input thread; there it is never called.
    fn checkpoint(&self, _control: &SearchControl) {}
}

/// A reporter that drops everything (bench, tests).
pub struct SilentReporter;

impl Reporter for SilentReporter {
    fn info(&self, _: &SearchInfo) {}
    fn message(&self, _: &str) {}
    fn best_move(&self, _: BestMove) {}
}

/// A reporter that keeps what it is told (tests, self-play): every progress line and the best
/// move.
#[derive(Default)]
pub struct Recorder {
    infos: Mutex<Vec<SearchInfo>>,
    best: Mutex<Option<BestMove>>,
}

impl Recorder {
    /// Every progress line so far.
    pub fn infos(&self) -> Vec<SearchInfo> {
        self.infos.lock().expect("not poisoned").clone()
    }

    /// The last progress line, if any.
    pub fn last_info(&self) -> Option<SearchInfo> {
        self.infos.lock().expect("not poisoned").last().cloned()
    }

    /// The best move, once the search has given it.
    pub fn best(&self) -> Option<BestMove> {
        *self.best.lock().expect("not poisoned")
    }
}

impl Reporter for Recorder {
    fn info(&self, info: &SearchInfo) {
        self.infos.lock().expect("not poisoned").push(info.clone());
    }
    fn message(&self, _: &str) {}
    fn best_move(&self, best: BestMove) {
        *self.best.lock().expect("not poisoned") = Some(best);
    }
}
