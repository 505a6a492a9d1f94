//! The root: root-move list, iterative deepening with aspiration windows, MultiPV, time checks
//! and progress reports (main thread), and the decisions taken before any search (no legal move,
//! declaration).

use super::params;
use super::report::{BestMove, ScoreBound, SearchInfo};
use super::root_move::RootMove;
use super::shared::SharedState;
use super::stack::Frame;
use super::thread::Worker;
use crate::position::{Declaration, MoveList, Position};
use crate::types::{Move, Score, MAX_PLY, VALUE_INFINITE, VALUE_MATE};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

impl Worker {
    /// The main thread's search: decides at the root, iterates, waits out ponder/infinite, and
    /// returns what to play (the caller runs the thread vote on `BestMove::Move`).
    pub fn search_main(&mut self, shared: &Arc<SharedState>) -> BestMove {
        let pondering = shared.control.pondering.load(Ordering::SeqCst);
        let manager = self.manager.as_mut().expect("the main worker has the search manager");
        manager.start(shared, &self.pos, pondering);
        let decided = match self.pos.declaration(shared.config.entering_king_rule) {
            Declaration::Win => Some(BestMove::Win),
            Declaration::TryMove(m) => Some(BestMove::Move { best: m, ponder: None }),
            Declaration::None | Declaration::Draw => None,
        };
        self.init_root_moves(shared);
        let result = if let Some(d) = decided {
            d
        } else if self.root_moves.is_empty() {
            BestMove::Resign
        } else {
            self.iterate(shared);
            self.release_held_report(shared);
            let best = &self.root_moves[0];
            let manager = self.manager.as_mut().expect("the main worker has the search manager");
            manager.finish(best.average_score, best.score);
            BestMove::Move { best: self.root_moves[0].mv, ponder: None }
        };
        // A pondering or infinite search reports only after `stop` (or, pondering, `ponderhit`).
        while !shared.stopped() && (shared.control.pondering.load(Ordering::SeqCst) || shared.limits.infinite)
        {
            wait_a_moment(shared);
        }
        self.publish_counters(shared);
        result
    }

    /// A helper thread's search: the same iterative deepening, silently.
    pub fn search_helper(&mut self, shared: &Arc<SharedState>) {
        self.root_color = self.pos.side_to_move();
        self.init_root_moves(shared);
        if !self.root_moves.is_empty() {
            self.iterate(shared);
        }
        self.publish_counters(shared);
    }

    fn init_root_moves(&mut self, shared: &SharedState) {
        self.root_color = self.pos.side_to_move();
        self.nodes = 0;
        self.best_move_changes = 0;
        self.check_mask = super::control::check_interval(shared.limits.nodes) - 1;
        self.completed_depth = 0;
        self.sel_depth = 0;
        self.restart = false;
        self.history.new_search();
        self.last_iteration_pv.clear();
        self.completed_lines.clear();
        self.stack.iter_mut().for_each(|f| *f = Frame::default());
        let only = &shared.limits.searchmoves;
        // The moves `searchmoves` names are all searched, the non-promotions the search leaves
        // out by default (pawn, bishop, rook) included.
        let legal = MoveList::legal(&self.pos, shared.config.generate_all_moves || !only.is_empty());
        self.root_moves =
            legal.iter().filter(|m| only.is_empty() || only.contains(m)).map(|&m| RootMove::new(m)).collect();
    }

    /// The number of lines to search now: `MultiPV`, at most one per root move.
    fn lines(&self, shared: &SharedState) -> usize {
        shared.multi_pv().min(self.root_moves.len()).max(1)
    }

    #[inline]
    pub(super) fn publish_counters(&self, shared: &SharedState) {
        let counters = &shared.counters[self.id];
        counters.nodes.store(self.nodes, Ordering::Relaxed);
        counters.best_move_changes.store(self.best_move_changes, Ordering::Relaxed);
    }

    /// Milliseconds on the main thread's clock (main worker only).
    fn elapsed_ms(&self) -> u64 {
        self.manager.as_ref().expect("the main worker has the search manager").elapsed_ms()
    }

    /// Main thread, every few thousand nodes: stop on the hard deadline or the node limit (once
    /// depth 1 is complete), switch from pondering to timed thinking after a ponder hit, and
    /// abandon the iteration when `MultiPV` changed (the deepening starts again with the new
    /// number of lines).
    pub(super) fn check_time(&mut self, shared: &SharedState) {
        if crate::sys::host_yield::pause_if_due() {
            shared.reporter.checkpoint(&shared.control);
        }
        self.publish_counters(shared);
        if self.lines(shared) != self.iteration_multi_pv {
            self.restart = true;
        }
        if shared.control.pondering.load(Ordering::Relaxed) {
            return;
        }
        // The limits stop a search only once it has completed depth 1, so that its best move
        // is a searched one: cut inside depth 1, `go nodes 1` played the first move generated
        // and left a piece hanging. (Depth 1 takes a few hundred nodes at most.)
        let searched = self.completed_depth > 0;
        if let Some(limit) = shared.limits.nodes {
            if searched && shared.total_nodes() >= limit {
                shared.control.stop();
                return;
            }
        }
        let manager = self.manager.as_mut().expect("the main worker has the search manager");
        manager.apply_ponderhit(shared, &self.pos);
        if searched && manager.out_of_time() {
            shared.control.stop();
        }
    }

    fn iterate(&mut self, shared: &Arc<SharedState>) {
        let main = self.id == 0;
        let max_depth = shared.limits.depth.unwrap_or(MAX_PLY - 1).clamp(1, MAX_PLY - 1);
        let mut stop_on_ponderhit = false;
        let mut depth = 0;
        while depth < max_depth {
            depth += 1;
            if shared.stopped() {
                break;
            }
            // A node limit is not checked while pondering (the `go` ends only at `stop` or
            // `ponderhit`), but no deeper iteration starts past it: a weak level's budget holds
            // when it ponders too, give or take the iteration that crossed it.
            if main && self.completed_depth > 0 && shared.control.pondering.load(Ordering::Relaxed) {
                self.publish_counters(shared);
                if shared.limits.nodes.is_some_and(|limit| shared.total_nodes() >= limit) {
                    break;
                }
            }
            // Read at each iteration: a GUI may change MultiPV during an analysis (the main
            // worker's time checks then abandon the iteration, see `check_time`).
            let multi_pv = self.lines(shared);
            self.iteration_multi_pv = multi_pv;
            self.root_depth = depth;
            for rm in &mut self.root_moves {
                rm.previous_score = rm.score;
            }
            for pv_idx in 0..multi_pv {
                self.pv_idx = pv_idx;
                self.sel_depth = 0;
                // The aspiration window: around the move's average score, as wide as its scores
                // have varied (the whole range until it has one).
                let rm = &self.root_moves[pv_idx];
                let spread = rm.mean_squared_score.abs() / params::AspirationSquareDivisor() as i64;
                let mut delta =
                    (params::AspirationDelta() as i64 + spread).min(2 * VALUE_INFINITE as i64) as i32;
                let avg = rm.average_score;
                let mut alpha = (avg - delta).max(-VALUE_INFINITE);
                let mut beta = (avg + delta).min(VALUE_INFINITE);
                // Each fail high in a row searches the next try a ply shallower.
                let mut failed_high = 0;
                loop {
                    self.root_delta = beta - alpha;
                    let d = (depth - failed_high).max(1);
                    let value = self.search::<true, true>(alpha, beta, d, 0, false, shared);
                    self.root_moves[pv_idx..].sort_by_key(|r| std::cmp::Reverse((r.score, r.previous_score)));
                    if self.stopped(shared) {
                        break;
                    }
                    if main && (value <= alpha || value >= beta) && self.elapsed_ms() > 3000 {
                        self.report_paced(shared, depth, multi_pv);
                    }
                    if value <= alpha {
                        beta = alpha;
                        alpha = (value - delta).max(-VALUE_INFINITE);
                        failed_high = 0;
                    } else if value >= beta {
                        alpha = (beta - delta).max(alpha);
                        beta = (value + delta).min(VALUE_INFINITE);
                        failed_high += 1;
                    } else {
                        break;
                    }
                    delta += delta / 3;
                }
                if self.restart {
                    break;
                }
                self.root_moves[..=pv_idx].sort_by_key(|r| std::cmp::Reverse((r.score, r.previous_score)));
                if main
                    && (pv_idx + 1 == multi_pv || self.elapsed_ms() > 3000)
                    && (!self.partial_result(shared) || shared.config.consideration_mode)
                {
                    self.report_paced(shared, depth, pv_idx + 1);
                }
            }
            if self.restart {
                // The new number of lines from depth 1: the first reports come at once, and
                // the table keeps what the abandoned iterations found.
                self.restart = false;
                depth = 0;
                continue;
            }
            if !shared.stopped() {
                self.completed_depth = depth;
                self.last_iteration_pv.clone_from(&self.root_moves[0].pv);
                if main && !shared.config.skill.is_full() {
                    self.completed_lines.clear();
                    self.completed_lines.extend_from_slice(&self.root_moves[..multi_pv]);
                }
            }
            if !main || shared.stopped() {
                continue;
            }
            // Main thread: is another iteration worth starting?
            let best = self.root_moves[0].score;
            // A mate counts as settled only at three times its length plus six: with reductions,
            // pruning and extensions, a mate found at depth N can still be longer than the
            // shortest one, which a few more iterations find (tests/search_mate.rs).
            let mate_proven =
                best.abs() >= VALUE_MATE - MAX_PLY && 3 * (VALUE_MATE - best.abs()) + 6 <= depth;
            let single = self.root_moves.len() == 1;
            let manager = self.manager.as_mut().expect("the main worker has the search manager");
            let scale = manager.settle(shared, self.root_moves[0].mv, best, depth);
            let done_by_time = manager.time_plan.is_some_and(|plan| {
                let elapsed = manager.elapsed_ms();
                let soft = plan.optimum as f64 * params::NewIterationPercent() as f64 / 100.0 * scale;
                log::debug!(
                    "depth {depth}: {elapsed} ms of {} ({:.2} x {})",
                    soft as u64,
                    scale,
                    plan.optimum
                );
                single || (elapsed >= plan.free && elapsed as f64 >= soft)
            });
            if mate_proven && shared.limits.depth.is_none() || done_by_time {
                if shared.control.pondering.load(Ordering::SeqCst) {
                    stop_on_ponderhit = true;
                } else if let (Some(plan), true) = (manager.time_plan, done_by_time) {
                    // Use the time already paid for on the server's clock, then stop.
                    let at = plan.stop_time(manager.elapsed_ms());
                    if at <= manager.elapsed_ms() {
                        shared.control.stop();
                    } else {
                        manager.stop_at = Some(at);
                    }
                } else if !shared.limits.infinite {
                    shared.control.stop();
                }
            }
            if stop_on_ponderhit && !shared.control.pondering.load(Ordering::SeqCst) {
                shared.control.stop();
            }
        }
        if main && !shared.stopped() && stop_on_ponderhit {
            // Finished early while pondering: stop as soon as the ponder hit arrives.
            while !shared.stopped() && shared.control.pondering.load(Ordering::SeqCst) {
                wait_a_moment(shared);
            }
            shared.control.stop();
        }
    }

    /// Whether the current iteration was cut short before its first move was fully searched.
    fn partial_result(&self, shared: &SharedState) -> bool {
        shared.stopped() && self.root_moves[0].score == -VALUE_INFINITE
    }

    /// Reports the first `lines` principal variations, or holds the report back while the last
    /// one is less than `PvInterval` old (a later report replaces it; the last one held goes out
    /// before the best move). A search that has been stopped reports at once.
    fn report_paced(&mut self, shared: &SharedState, depth: i32, lines: usize) {
        let interval = shared.config.pv_interval;
        let manager = self.manager.as_mut().expect("the main worker has the search manager");
        let now = manager.elapsed_ms();
        if interval > 0
            && !shared.stopped()
            && manager.last_report_ms.is_some_and(|last| now < last.saturating_add(interval))
        {
            manager.held_report = Some((depth, lines));
            return;
        }
        manager.last_report_ms = Some(now);
        manager.held_report = None;
        self.report(shared, depth, lines);
    }

    /// Sends the report `PvInterval` held back, if any.
    fn release_held_report(&mut self, shared: &SharedState) {
        let manager = self.manager.as_mut().expect("the main worker has the search manager");
        if let Some((depth, lines)) = manager.held_report.take() {
            self.report(shared, depth, lines);
        }
    }

    /// Reports the first `lines` principal variations.
    fn report(&self, shared: &SharedState, depth: i32, lines: usize) {
        let elapsed = shared.start.elapsed().max(Duration::from_millis(1));
        let nodes = shared.total_nodes().max(self.nodes);
        let hashfull = shared.tt.hashfull();
        for (i, rm) in self.root_moves.iter().take(lines).enumerate() {
            let updated = rm.score != -VALUE_INFINITE;
            if !updated && i > 0 {
                continue;
            }
            let (d, v) = if updated { (depth, rm.score) } else { ((depth - 1).max(1), rm.previous_score) };
            if v.abs() > VALUE_INFINITE - 1 {
                continue;
            }
            let bound = if i == self.pv_idx && updated { rm.bound } else { ScoreBound::Exact };
            shared.reporter.info(&SearchInfo {
                depth: d,
                sel_depth: rm.sel_depth.max(d),
                time_ms: elapsed.as_millis() as u64,
                nodes,
                nps: (nodes as f64 / elapsed.as_secs_f64()) as u64,
                hashfull,
                score: Score::from_value(v),
                bound,
                multipv: i + 1,
                pv: self.legal_prefix(&rm.pv),
            });
        }
    }

    /// The moves of `pv` up to the first that is not legal where it comes, played from the root
    /// (`self.pos` between iterations). The search keeps its lines legal; this is the guard that
    /// no illegal move leaves the engine, in a PV either, should one go stale, with a warning on
    /// stderr that `tests/command_line.rs` looks for in `hayate bench`.
    fn legal_prefix(&self, pv: &[Move]) -> Vec<Move> {
        let mut pos = self.pos.clone();
        let mut out = Vec::with_capacity(pv.len());
        for &m in pv {
            if !pos.is_legal_move(m) {
                log::warn!(
                    "search: a PV went stale at move {} of {}; reported up to there",
                    out.len() + 1,
                    pv.len()
                );
                break;
            }
            pos.do_move(m);
            out.push(m);
        }
        out
    }

    /// The expected reply to `best`, from the table, when the PV has none.
    pub fn ponder_from_tt(&self, shared: &SharedState, best: Move) -> Option<Move> {
        let mut pos: Position = self.pos.clone();
        pos.do_move(best);
        let (found, _) = shared.tt.probe(pos.key());
        found.and_then(|d| d.mv).filter(|&m| pos.is_legal_move(m))
    }
}

/// The main thread's wait for `stop` or `ponderhit` once its search has ended: a millisecond's
/// sleep between looks where there are threads (the front end's input thread flips the flags);
/// on a WebAssembly host, a pause that hands control to the host, then the reporter's
/// checkpoint, which reads what came meanwhile.
fn wait_a_moment(shared: &SharedState) {
    if crate::sys::host_yield::pause_for(crate::sys::host_yield::WAIT_MS) {
        shared.reporter.checkpoint(&shared.control);
    } else {
        std::thread::sleep(Duration::from_millis(1));
    }
}
