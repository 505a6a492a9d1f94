//! The state the threads of a search share (behind an `Arc`): the control flags the front end
//! flips (`stop`, pondering, `ponderhit`), the histories the threads learn together, the
//! per-thread counters, and the table, limits, settings and reporter of the search.

use super::config::SearchConfig;
use super::control::SearchControl;
use super::correction::StructureCorrection;
use super::history::{shared_scale, PawnHistory};
use super::limits::Limits;
use super::report::Reporter;
use super::tt::TranspositionTable;
use crate::sys::time::Instant;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What one thread counts for the others to read, on its own cache line: its nodes, and how
/// often its best root move changed in this search (the time manager's measure of instability).
#[derive(Default)]
#[repr(align(64))]
pub struct ThreadCounters {
    pub nodes: AtomicU64,
    pub best_move_changes: AtomicU64,
}

/// The histories all the search threads learn together, as Stockfish's and YaneuraOu's do: the
/// pawn history and the structure tables of the correction history. Sized for the number of
/// threads (each thread has as many entries as a lone one); they persist across searches, like
/// the threads' own histories.
pub struct SharedHistories {
    pub pawn: PawnHistory,
    pub correction: StructureCorrection,
    /// The number of threads they are sized for, rounded up to a power of two.
    pub(super) scale: usize,
}

impl SharedHistories {
    /// The histories of `threads` threads, as a new game starts them, or `None` when the
    /// allocator refuses the memory.
    pub fn try_new(threads: usize) -> Option<SharedHistories> {
        Some(SharedHistories {
            pawn: PawnHistory::try_new(threads)?,
            correction: StructureCorrection::try_new(threads)?,
            scale: shared_scale(threads)?,
        })
    }

    /// Forgets what earlier games taught (usinewgame; no search may be running).
    pub fn clear(&self) {
        self.pawn.clear();
        self.correction.clear();
    }
}

/// Everything the threads of one search share.
pub struct SharedState {
    pub tt: Arc<TranspositionTable>,
    pub histories: Arc<SharedHistories>,
    pub control: Arc<SearchControl>,
    pub counters: Vec<ThreadCounters>,
    pub limits: Limits,
    pub config: SearchConfig,
    pub start: Instant,
    pub reporter: Arc<dyn Reporter>,
}

impl SharedState {
    /// The number of principal variations to search now (see [`SearchControl::multi_pv`]): at
    /// least the lines a weakened level chooses among.
    pub fn multi_pv(&self) -> usize {
        let asked = match self.control.multi_pv.load(Ordering::Relaxed) {
            0 => self.config.multi_pv,
            n => n,
        };
        asked.max(self.config.skill.lines())
    }

    pub fn total_nodes(&self) -> u64 {
        self.counters.iter().map(|c| c.nodes.load(Ordering::Relaxed)).sum()
    }

    /// The best root move's changes in this search, summed over the threads.
    pub fn best_move_changes(&self) -> u64 {
        self.counters.iter().map(|c| c.best_move_changes.load(Ordering::Relaxed)).sum()
    }

    #[inline(always)]
    pub fn stopped(&self) -> bool {
        self.control.stop.load(Ordering::Relaxed)
    }
}
