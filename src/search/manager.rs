//! What only the main search thread keeps (Stockfish's `SearchManager`): the clock of this move,
//! its deadlines, and what the iterations (and the previous move's search) say about how settled
//! the search is. Helpers have none; the main worker checks them every few thousand nodes and
//! between iterations.

use super::shared::SharedState;
use super::time::{self, Settledness, TimePlan};
use crate::position::Position;
use crate::sys::time::Instant;
use crate::types::{Move, Value};

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
    /// The previous move's search in this game: its best move's average score and its best
    /// score (None at a game's first search).
    previous: Option<(Value, Value)>,
    /// The previous move's time reduction ([`Settledness::reduction`]).
    previous_reduction: f64,
    /// This search's best scores of the last four iterations, a ring, and where the next goes.
    iteration_scores: [Value; 4],
    iteration_index: usize,
    /// The best move after the last iteration, and the iteration in which it became best.
    best_move: Option<Move>,
    best_move_depth: i32,
    /// The threads' best-move changes, halved at each iteration, and their sum seen so far.
    changes: f64,
    changes_seen: u64,
    /// The time reduction of the last completed iteration.
    reduction: f64,
}

impl Default for SearchManager {
    fn default() -> SearchManager {
        SearchManager {
            time_plan: None,
            stop_at: None,
            clock_start: Instant::now(),
            last_report_ms: None,
            held_report: None,
            previous: None,
            previous_reduction: 1.0,
            iteration_scores: [0; 4],
            iteration_index: 0,
            best_move: None,
            best_move_depth: 0,
            changes: 0.0,
            changes_seen: 0,
            reduction: 1.0,
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
        self.iteration_scores = [self.previous.map_or(0, |(_, best)| best); 4];
        self.iteration_index = 0;
        self.best_move = None;
        self.best_move_depth = 0;
        self.changes = 0.0;
        self.changes_seen = 0;
        self.reduction = self.previous_reduction;
        if !pondering {
            self.time_plan =
                time::plan(&shared.limits, pos.side_to_move(), pos.game_ply(), &shared.config.time);
        }
    }

    /// A new game: the previous move's search says nothing about this one's.
    pub fn new_game(&mut self) {
        self.previous = None;
        self.previous_reduction = 1.0;
    }

    /// After a completed iteration of `depth` whose best move is `best_move` with `best`: how
    /// settled the search is (the factor [`Settledness::scale`] on the time before no new
    /// iteration starts).
    pub fn settle(&mut self, shared: &SharedState, best_move: Move, best: Value, depth: i32) -> f64 {
        if self.best_move != Some(best_move) {
            self.best_move = Some(best_move);
            self.best_move_depth = depth;
        }
        let seen = shared.best_move_changes();
        self.changes = self.changes / 2.0 + seen.saturating_sub(self.changes_seen) as f64;
        self.changes_seen = seen;
        let settledness = Settledness {
            best,
            previous_average: self.previous.map(|(average, _)| average),
            four_iterations_ago: self.iteration_scores[self.iteration_index],
            depth,
            best_move_depth: self.best_move_depth,
            changes_per_thread: self.changes / shared.counters.len().max(1) as f64,
            previous_reduction: self.previous_reduction,
        };
        self.iteration_scores[self.iteration_index] = best;
        self.iteration_index = (self.iteration_index + 1) % self.iteration_scores.len();
        self.reduction = settledness.reduction();
        settledness.scale()
    }

    /// At the end of the search: what the next move's search will compare with (the best move's
    /// average score and score, and the last time reduction).
    pub fn finish(&mut self, average: Value, best: Value) {
        self.previous = Some((average, best));
        self.previous_reduction = self.reduction;
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
