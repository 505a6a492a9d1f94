//! What only the main search thread keeps (Stockfish's `SearchManager`): the clock of this move
//! and its deadlines. Helpers have none; the main worker checks them every few thousand nodes and
//! between iterations.

use super::shared::SharedState;
use super::time::{self, TimePlan};
use crate::position::Position;
use crate::sys::time::Instant;

/// The main thread's clock and deadlines.
pub struct SearchManager {
    /// The deadlines of this move (None: no time limit yet or at all).
    pub time_plan: Option<TimePlan>,
    /// The stop deadline in ms once decided (rounding up to a full second).
    pub stop_at: Option<u64>,
    /// When the clock started (the `go`, or the ponder hit).
    pub clock_start: Instant,
    /// When the lines were last reported (ms since the start of the search), for `PvInterval`.
    pub last_report_ms: Option<u64>,
    /// A report held back by `PvInterval`: its depth and number of lines.
    pub held_report: Option<(i32, usize)>,
}

impl Default for SearchManager {
    fn default() -> SearchManager {
        SearchManager {
            time_plan: None,
            stop_at: None,
            clock_start: Instant::now(),
            last_report_ms: None,
            held_report: None,
        }
    }
}

impl SearchManager {
    /// A new search of `pos`: the clock starts with it, and a search that is not pondering gets
    /// its deadlines now.
    pub fn start(&mut self, shared: &SharedState, pos: &Position, pondering: bool) {
        self.clock_start = shared.start;
        self.time_plan = None;
        self.stop_at = None;
        self.last_report_ms = None;
        self.held_report = None;
        if !pondering {
            self.time_plan =
                time::plan(&shared.limits, pos.side_to_move(), pos.game_ply(), &shared.config.time);
        }
    }

    /// Milliseconds since the clock started.
    pub fn elapsed_ms(&self) -> u64 {
        self.clock_start.elapsed().as_millis() as u64
    }

    /// After a ponder hit: the clock starts at the hit and, for Early Ponder, the times come with
    /// it. `pos` is the main worker's position.
    pub fn apply_ponderhit(&mut self, shared: &SharedState, pos: &Position) {
        let hit = shared.control.ponderhit.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(hit) = hit {
            self.clock_start = hit.at;
            let limits = hit.limits.unwrap_or_else(|| shared.limits.clone());
            self.time_plan = time::plan(&limits, pos.side_to_move(), pos.game_ply(), &shared.config.time);
            self.stop_at = None;
        }
    }

    /// Whether the hard deadline (or the decided stop) has passed.
    pub fn out_of_time(&self) -> bool {
        self.time_plan.is_some_and(|plan| self.elapsed_ms() >= self.stop_at.unwrap_or(plan.maximum))
    }
}
