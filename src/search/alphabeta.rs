//! The alpha-beta search proper: principal variation search over the staged move picker, with
//! the transposition table, and quiescence search at the horizon.
//!
//! Node types are compile-time flags (`PV`, `ROOT`). The body is written in numbered steps; the
//! pruning and extension steps of a Stockfish-style search slot in between them.

use super::history::{piece_to, ContKeys};
use super::movepick::{quiet_score, MovePicker};
use super::params;
use super::report::ScoreBound;
use super::thread::{SharedState, Worker};
use super::tt::Bound;
use crate::position::{Declaration, Repetition};
use crate::types::{
    mate_in, mated_in, Depth, Move, PieceType, Value, MAX_PLY, VALUE_INFINITE, VALUE_MATED_IN_MAX_PLY,
    VALUE_MATE_IN_MAX_PLY, VALUE_NONE,
};

/// Mate scores are stored in the table relative to the node, not the root.
#[inline]
pub fn value_to_tt(v: Value, ply: i32) -> Value {
    if v >= VALUE_MATE_IN_MAX_PLY {
        v + ply
    } else if v <= VALUE_MATED_IN_MAX_PLY {
        v - ply
    } else {
        v
    }
}

#[inline]
pub fn value_from_tt(v: Value, ply: i32) -> Value {
    if v == VALUE_NONE {
        v
    } else if v >= VALUE_MATE_IN_MAX_PLY {
        v - ply
    } else if v <= VALUE_MATED_IN_MAX_PLY {
        v + ply
    } else {
        v
    }
}

/// How many nodes pass between the main thread's time checks.
const CHECK_INTERVAL: u64 = 2048;

impl Worker {
    /// The kind a move captures, if it captures.
    #[inline]
    fn capture_kind(&self, m: Move) -> Option<PieceType> {
        if m.is_drop() {
            None
        } else {
            self.pos.piece_on(m.to()).map(|p| p.piece_type())
        }
    }

    /// The late-move reduction for the `move_count`-th move at `depth`, in 1/1024 plies.
    #[inline]
    fn reduction(&self, depth: Depth, move_count: i32) -> i32 {
        let d = (depth as usize).min(63);
        let m = (move_count as usize).min(63);
        self.lmr[d][m]
    }

    /// Counts a node; the main thread checks its limits every `CHECK_INTERVAL` nodes.
    #[inline(always)]
    fn visit(&mut self, shared: &SharedState) {
        self.nodes += 1;
        if self.nodes.is_multiple_of(CHECK_INTERVAL) {
            if self.id == 0 {
                self.check_time(shared);
            } else {
                self.publish_nodes(shared);
            }
        }
    }

    /// The verdict of the shogi rules at a node before searching it, if any: repetition (with
    /// perpetual check and superior/inferior positions), the move limit, declaration.
    #[inline]
    fn rule_verdict(&self, shared: &SharedState, ply: i32) -> Option<Value> {
        let pos = &self.pos;
        match pos.repetition(16 + ply as usize) {
            Repetition::None => {}
            Repetition::Draw => return Some(shared.config.draw_value(self.root_color, pos.side_to_move())),
            Repetition::Win => return Some(mate_in(ply)),
            Repetition::Lose => return Some(mated_in(ply)),
            Repetition::Superior => return Some(params::SuperiorValue()),
            Repetition::Inferior => return Some(-params::SuperiorValue()),
        }
        if pos.is_move_limit_reached(shared.config.max_moves_to_draw) {
            // Drawn, unless the side to move is already mated.
            let mated = pos.in_check() && crate::position::MoveList::legal(pos, false).is_empty();
            return Some(if mated {
                mated_in(ply)
            } else {
                shared.config.draw_value(self.root_color, pos.side_to_move())
            });
        }
        if pos.declaration(shared.config.entering_king_rule) == Declaration::Win {
            return Some(mate_in(ply + 1));
        }
        None
    }

    pub(super) fn search<const PV: bool, const ROOT: bool>(
        &mut self,
        mut alpha: Value,
        mut beta: Value,
        mut depth: Depth,
        ply: i32,
        cut_node: bool,
        shared: &SharedState,
    ) -> Value {
        // Step 1. Quiescence search at the horizon.
        if depth <= 0 {
            return self.qsearch::<PV>(alpha, beta, ply, shared);
        }
        debug_assert!(-VALUE_INFINITE <= alpha && alpha < beta && beta <= VALUE_INFINITE);
        self.visit(shared);
        let u = ply as usize;
        if PV {
            self.pv.clear(u);
            self.sel_depth = self.sel_depth.max(ply + 1);
        }

        // Step 2. Stop, rules (repetition, move limit, declaration), maximum ply. At the root only
        // the move limit matters: a game already over by it is a draw whatever is played.
        if ROOT && self.pos.is_move_limit_reached(shared.config.max_moves_to_draw) {
            let v = shared.config.draw_value(self.root_color, self.pos.side_to_move());
            for rm in &mut self.root_moves {
                rm.score = v;
                rm.pv.truncate(1);
            }
            return v;
        }
        if !ROOT {
            if shared.stopped() {
                return 0;
            }
            if let Some(v) = self.rule_verdict(shared, ply) {
                return v;
            }
            if ply >= MAX_PLY - 1 {
                return if self.pos.in_check() { 0 } else { self.eval.evaluate(&self.pos) };
            }
            // Step 3. Mate distance pruning.
            alpha = alpha.max(mated_in(ply));
            beta = beta.min(mate_in(ply + 1));
            if alpha >= beta {
                return alpha;
            }
        }

        // Step 4. Transposition table lookup.
        let key = self.pos.key();
        let (tt_hit, slot) = shared.tt.probe(key);
        let tt_value = tt_hit.map_or(VALUE_NONE, |d| value_from_tt(d.value, ply));
        let tt_move = if ROOT { Some(self.root_moves[self.pv_idx].mv) } else { tt_hit.and_then(|d| d.mv) };
        // In a singular-extension search one move is left out: the table's verdict, which
        // includes that move, must not end the node, nor be overwritten by a verdict without it.
        let excluded = self.stack[u].excluded_move;
        if !PV && excluded.is_none() {
            if let Some(d) = tt_hit {
                let cut = if tt_value >= beta { Bound::Lower } else { Bound::Upper };
                if d.depth >= depth && tt_value != VALUE_NONE && d.bound.includes(cut) {
                    return tt_value;
                }
            }
        }

        // Step 5. Mate in one. Cheap next to a search (check candidates judged on bitboards), and
        // it finds mates that the pruning below would never look at. Only on table misses: a hit
        // already carries what an earlier visit learned, a mate in one included.
        let in_check = self.pos.in_check();
        if !ROOT && !in_check && tt_hit.is_none() && excluded.is_none() {
            if let Some(m) = self.pos.mate_in_one() {
                let v = mate_in(ply + 1);
                if PV {
                    self.pv.clear(u + 1);
                    self.pv.update(u, m);
                }
                shared.tt.store(
                    slot,
                    key,
                    Some(m),
                    value_to_tt(v, ply),
                    VALUE_NONE,
                    MAX_PLY,
                    Bound::Exact,
                    PV,
                );
                return v;
            }
        }

        // Step 6. Static evaluation. The raw evaluation is cached in the table; `eval`, used for
        // pruning decisions, takes the table's value instead where its bound says it is better.
        let (static_eval, eval) = if in_check {
            (VALUE_NONE, VALUE_NONE)
        } else {
            let se = match tt_hit {
                Some(d) if d.eval != VALUE_NONE => d.eval,
                _ => self.eval.evaluate(&self.pos),
            };
            let refined = match tt_hit {
                Some(d)
                    if tt_value != VALUE_NONE
                        && d.bound.includes(if tt_value > se { Bound::Lower } else { Bound::Upper }) =>
                {
                    tt_value
                }
                _ => se,
            };
            (se, refined)
        };
        self.stack[u].static_eval = static_eval;
        self.stack[u + 2].killers = [None; 2];
        // Whether the position got better for us over our last move (pruning may be bolder when not).
        let improving = u >= 2 && static_eval != VALUE_NONE && {
            let before = self.stack[u - 2].static_eval;
            before == VALUE_NONE || static_eval > before
        };

        // Step 7. Razoring: far below alpha, ask quiescence search whether anything helps.
        if !PV && !in_check && eval < alpha - params::RazorBase() - params::RazorDepth() * depth * depth {
            let v = self.qsearch::<false>(alpha - 1, alpha, ply, shared);
            if v < alpha && v > VALUE_MATED_IN_MAX_PLY {
                return v;
            }
        }

        // Step 8. Reverse futility pruning: far enough above beta at low depth, assume a cut-off.
        if !PV
            && !in_check
            && depth < params::RfpMaxDepth()
            && eval - params::RfpMargin() * (depth - improving as i32) >= beta
            && beta > VALUE_MATED_IN_MAX_PLY
            && eval < VALUE_MATE_IN_MAX_PLY
        {
            return beta + (eval - beta) / 3;
        }

        // Step 9. Null move search with verification search. If passing still fails high with a
        // reduced search, a real move surely would. Not after another null move, and below the
        // ply where a verification search is running (its null moves must not prove themselves).
        if !PV
            && !in_check
            && u >= 1
            && self.stack[u - 1].current_move.is_some()
            && eval >= beta
            && static_eval >= beta - params::NmpDepthMargin() * depth + params::NmpBase()
            && ply >= self.nmp_min_ply
            && excluded.is_none()
            && beta > VALUE_MATED_IN_MAX_PLY
        {
            let r = params::NmpReduction() + depth / 3 + ((eval - beta) / params::NmpEvalDivisor()).min(6);
            self.stack[u].current_move = None;
            self.stack[u].piece_to = None;
            self.pos.do_null_move_observed(&mut self.eval);
            let null_value =
                -self.search::<false, false>(-beta, -beta + 1, depth - r, ply + 1, !cut_node, shared);
            self.pos.undo_null_move_observed(&mut self.eval);
            if shared.stopped() {
                return 0;
            }
            if null_value >= beta && null_value < VALUE_MATE_IN_MAX_PLY {
                if self.nmp_min_ply != 0 || depth < params::NmpVerifyDepth() {
                    return null_value;
                }
                // At high depth, verify with a reduced search without null moves near here.
                self.nmp_min_ply = ply + 3 * (depth - r) / 4;
                let v = self.search::<false, false>(beta - 1, beta, depth - r, ply, false, shared);
                self.nmp_min_ply = 0;
                if v >= beta {
                    return null_value;
                }
            }
        }

        // Step 10. Internal iterative reductions: a node the table knows nothing about, where a good
        // move matters (PV, or expected to cut), is searched a ply shallower; by the next visit the
        // table holds a move to search first, and the node gets its full depth.
        if (PV || cut_node) && !ROOT && depth >= params::IirMinDepth() && tt_move.is_none() {
            depth -= 1;
        }

        // Step 11. Loop through the moves.
        // The table's move is a candidate for a singular extension (step 13) when its entry is a
        // lower bound from nearly this depth, not a mate, and no other move is already excluded.
        let singular_candidate = !ROOT
            && excluded.is_none()
            && depth >= params::SingularMinDepth()
            && ply < 2 * self.root_depth
            && tt_value != VALUE_NONE
            && tt_value.abs() < VALUE_MATE_IN_MAX_PLY
            && tt_hit.is_some_and(|d| d.bound.includes(Bound::Lower) && d.depth >= depth - 3);
        let us = self.pos.side_to_move();
        let mut best_value = -VALUE_INFINITE;
        let mut best_move: Option<Move> = None;
        let mut move_count = 0;
        let mut quiets_tried: [Option<Move>; 32] = [None; 32];
        let mut quiet_count = 0;
        let mut captures_tried: [Option<Move>; 32] = [None; 32];
        let mut capture_count = 0;
        let all_moves = shared.config.generate_all_moves;
        let key_back = |n: usize| if u >= n { self.stack[u - n].piece_to } else { None };
        let cont_keys: ContKeys = [key_back(1), key_back(2), key_back(4)];
        let counter = self.history.counter_move(cont_keys[0]);
        let mut picker =
            MovePicker::new(&self.pos, tt_move, self.stack[u].killers, counter, cont_keys, all_moves);
        let mut root_index = self.pv_idx;
        loop {
            let m = if ROOT {
                if root_index >= self.root_moves.len() {
                    break;
                }
                root_index += 1;
                self.root_moves[root_index - 1].mv
            } else {
                match picker.next(&self.pos, &self.history) {
                    Some(m) => m,
                    None => break,
                }
            };
            if Some(m) == excluded || (!ROOT && !self.pos.is_legal(m)) {
                continue;
            }
            move_count += 1;
            let captured = if m.is_drop() { None } else { self.pos.piece_on(m.to()) };
            let is_quiet = captured.is_none() && !m.is_promotion();
            let gives_check = self.pos.gives_check(m);
            let mut new_depth = depth - 1;

            // Step 12. Pruning at shallow depth: once some move has saved us from being mated,
            // skip moves that look hopeless here.
            let prune = !ROOT && best_value > VALUE_MATED_IN_MAX_PLY;
            // Move count pruning: enough quiet moves tried at this depth. (Only this move: later
            // quiet checks are still searched; a quiet mate is a quiet check, and skipping the
            // rest of the quiets would drop them.) Decided first: it needs nothing else.
            if prune
                && is_quiet
                && !gives_check
                && move_count >= params::LmpBase() + depth * depth / (2 - improving as i32)
            {
                continue;
            }
            let stat_score = if is_quiet { quiet_score(&self.pos, &self.history, &cont_keys, m) } else { 0 };
            if prune {
                let lmr_depth = (new_depth - self.reduction(depth, move_count) / 1024).max(0);
                if is_quiet && !gives_check {
                    // History pruning: quiet moves that have failed everywhere.
                    if lmr_depth < 6 && stat_score < -params::HistoryPruneScale() * depth {
                        continue;
                    }
                    // Futility pruning: even a generous gain would not reach alpha.
                    if !in_check
                        && lmr_depth < 10
                        && static_eval + params::FutilityBase() + params::FutilityScale() * lmr_depth <= alpha
                    {
                        continue;
                    }
                    // SEE pruning of quiets that lose material.
                    if !self.pos.see_ge(m, -params::SeeQuietScale() * lmr_depth * lmr_depth) {
                        continue;
                    }
                } else {
                    // Futility pruning of captures that cannot reach alpha.
                    if !gives_check && !in_check && lmr_depth < 7 {
                        let gain =
                            captured.map_or(0, |c| crate::position::see::capture_value(c.piece_type()));
                        if static_eval
                            + params::CaptureFutilityBase()
                            + params::FutilityScale() * lmr_depth
                            + gain
                            <= alpha
                        {
                            continue;
                        }
                    }
                    // SEE pruning of captures, promotions and checks that lose material.
                    if !self.pos.see_ge(m, -params::SeeCaptureScale() * depth) {
                        continue;
                    }
                }
            }

            // Step 13. Singular extension: when the table's move is much better than every other
            // here (a search without it at half depth fails low against a margin below the
            // table's value), search it one ply deeper; two when far better. When even without it
            // the search fails high, the node is cut (multi-cut); when the table's move is not
            // the only good one, it is searched shallower.
            let mut extension = 0;
            if singular_candidate && Some(m) == tt_move {
                let singular_beta = tt_value - params::SingularMargin() * depth / 16;
                self.stack[u].excluded_move = Some(m);
                let v = self.search::<false, false>(
                    singular_beta - 1,
                    singular_beta,
                    new_depth / 2,
                    ply,
                    cut_node,
                    shared,
                );
                self.stack[u].excluded_move = None;
                if shared.stopped() {
                    return 0;
                }
                if v < singular_beta {
                    extension = 1;
                    if !PV
                        && v < singular_beta - params::DoubleExtensionMargin()
                        && self.stack[u].double_extensions <= params::DoubleExtensionLimit()
                    {
                        extension = 2;
                    }
                } else if singular_beta >= beta {
                    return singular_beta;
                } else if tt_value >= beta {
                    extension = -2 + PV as i32;
                } else if cut_node {
                    extension = -1;
                }
            }
            new_depth += extension;
            self.stack[u + 1].double_extensions = self.stack[u].double_extensions + (extension == 2) as i32;

            // Step 14. Make the move.
            let moved_key = piece_to(self.pos.moved_piece_after(m), m.to());
            self.stack[u].current_move = Some(m);
            self.stack[u].piece_to = Some(moved_key);
            self.pos.do_move_observed(m, &mut self.eval);
            shared.tt.prefetch(self.pos.key());

            // Step 15. Late move reductions: quiet moves late in the order are searched shallower
            // first, and at full depth only when they beat alpha. Checks are not reduced: a
            // reduced check sequence falls into quiescence search, which misses quiet mates.
            let mut value = -VALUE_INFINITE;
            let full_depth_null_window =
                if depth >= 2 && move_count > 1 + ROOT as i32 && is_quiet && !gives_check {
                    let mut r = self.reduction(depth, move_count);
                    if !PV {
                        r += 1024;
                    }
                    if !improving {
                        r += params::LmrNotImproving();
                    }
                    r -= stat_score * 1024 / params::LmrHistoryDivisor();
                    let d = (new_depth - r / 1024).clamp(1, new_depth);
                    value = -self.search::<false, false>(-alpha - 1, -alpha, d, ply + 1, true, shared);
                    value > alpha && d < new_depth
                } else {
                    !PV || move_count > 1
                };
            // Step 16. Full-depth null-window search, then the full window for a new PV move.
            if full_depth_null_window {
                value =
                    -self.search::<false, false>(-alpha - 1, -alpha, new_depth, ply + 1, !cut_node, shared);
            }
            if PV && (move_count == 1 || (value > alpha && (ROOT || value < beta))) {
                value = -self.search::<true, false>(-beta, -alpha, new_depth, ply + 1, false, shared);
            }
            self.pos.undo_move_observed(m, &mut self.eval);

            // Step 17. Results.
            if shared.stopped() {
                return 0;
            }
            if ROOT {
                let sel_depth = self.sel_depth;
                let child_pv = self.pv.line(u + 1);
                let rm =
                    self.root_moves.iter_mut().find(|r| r.mv == m).expect("root moves come from the list");
                if move_count == 1 || value > alpha {
                    rm.score = value;
                    rm.sel_depth = sel_depth;
                    rm.bound = if value >= beta {
                        ScoreBound::Lower
                    } else if value <= alpha {
                        ScoreBound::Upper
                    } else {
                        ScoreBound::Exact
                    };
                    rm.pv.clear();
                    rm.pv.push(m);
                    rm.pv.extend(child_pv);
                } else {
                    // Only the best move's score is exact; the others are upper bounds.
                    rm.score = -VALUE_INFINITE;
                }
            }
            if value > best_value {
                best_value = value;
                if value > alpha {
                    best_move = Some(m);
                    if PV && !ROOT {
                        self.pv.update(u, m);
                    }
                    if value >= beta {
                        break;
                    }
                    alpha = value;
                }
            }
            if Some(m) != best_move {
                if is_quiet && quiet_count < quiets_tried.len() {
                    quiets_tried[quiet_count] = Some(m);
                    quiet_count += 1;
                } else if !is_quiet && capture_count < captures_tried.len() {
                    captures_tried[capture_count] = Some(m);
                    capture_count += 1;
                }
            }
        }

        // Step 18. No legal move: in shogi that loses, in check or not.
        if move_count == 0 {
            return if excluded.is_some() { alpha } else { mated_in(ply) };
        }

        // Step 19. Histories: the move that cut off gains, the moves tried before it lose; a quiet
        // cut-off move also becomes a killer and the counter move to the previous move.
        if let Some(bm) = best_move {
            if best_value >= beta {
                let bonus = super::history::stat_bonus(depth);
                let bm_quiet = !self.pos.is_capture(bm) && !bm.is_promotion();
                if bm_quiet {
                    self.history.update_butterfly(us, bm, bonus);
                    let key = piece_to(self.pos.moved_piece_after(bm), bm.to());
                    self.history.update_continuations(&cont_keys, key, bonus);
                    for q in quiets_tried[..quiet_count].iter().flatten() {
                        self.history.update_butterfly(us, *q, -bonus);
                        let qk = piece_to(self.pos.moved_piece_after(*q), q.to());
                        self.history.update_continuations(&cont_keys, qk, -bonus);
                    }
                    let k = &mut self.stack[u].killers;
                    if k[0] != Some(bm) {
                        k[1] = k[0];
                        k[0] = Some(bm);
                    }
                    self.history.set_counter_move(cont_keys[0], bm);
                } else if let Some(cap) = self.capture_kind(bm) {
                    self.history.update_capture(self.pos.moved_piece_after(bm), bm.to(), cap, bonus);
                }
                for c in captures_tried[..capture_count].iter().flatten() {
                    if let Some(cap) = self.capture_kind(*c) {
                        self.history.update_capture(self.pos.moved_piece_after(*c), c.to(), cap, -bonus);
                    }
                }
            }
        }

        // Step 20. Store in the table.
        let bound = if best_value >= beta {
            Bound::Lower
        } else if PV && best_move.is_some() {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if excluded.is_none() {
            shared.tt.store(
                slot,
                key,
                best_move,
                value_to_tt(best_value, ply),
                static_eval,
                depth,
                bound,
                PV,
            );
        }
        best_value
    }

    /// Quiescence search: captures and pawn promotions (all evasions when in check) until the
    /// position is quiet, standing pat on the static evaluation.
    pub(super) fn qsearch<const PV: bool>(
        &mut self,
        mut alpha: Value,
        beta: Value,
        ply: i32,
        shared: &SharedState,
    ) -> Value {
        self.visit(shared);
        let u = ply as usize;
        if PV {
            self.pv.clear(u);
            self.sel_depth = self.sel_depth.max(ply + 1);
        }
        if shared.stopped() {
            return 0;
        }
        let in_check = self.pos.in_check();
        if ply >= MAX_PLY - 1 {
            return if in_check { 0 } else { self.eval.evaluate(&self.pos) };
        }

        let key = self.pos.key();
        let (tt_hit, slot) = shared.tt.probe(key);
        let tt_value = tt_hit.map_or(VALUE_NONE, |d| value_from_tt(d.value, ply));
        if !PV {
            if let Some(d) = tt_hit {
                let cut = if tt_value >= beta { Bound::Lower } else { Bound::Upper };
                if tt_value != VALUE_NONE && d.bound.includes(cut) {
                    return tt_value;
                }
            }
        }

        // Stand pat.
        let (mut best_value, static_eval) = if in_check {
            (-VALUE_INFINITE, VALUE_NONE)
        } else {
            let e = match tt_hit {
                Some(d) if d.eval != VALUE_NONE => d.eval,
                _ => self.eval.evaluate(&self.pos),
            };
            if e >= beta {
                if tt_hit.is_none() {
                    shared.tt.store(slot, key, None, value_to_tt(e, ply), e, -1, Bound::Lower, false);
                }
                return e;
            }
            // A mate in one by a quiet check (a drop, usually) is what a captures-only horizon
            // misses most; look for it where standing pat does not already decide.
            if tt_hit.is_none() {
                if let Some(m) = self.pos.mate_in_one() {
                    let v = mate_in(ply + 1);
                    if PV {
                        self.pv.clear(u + 1);
                        self.pv.update(u, m);
                    }
                    shared.tt.store(slot, key, Some(m), value_to_tt(v, ply), e, MAX_PLY, Bound::Exact, PV);
                    return v;
                }
            }
            (e, e)
        };
        alpha = alpha.max(best_value);

        let mut best_move = None;
        let mut move_count = 0;
        let mut picker =
            MovePicker::new_qsearch(&self.pos, tt_hit.and_then(|d| d.mv), shared.config.generate_all_moves);
        while let Some(m) = picker.next(&self.pos, &self.history) {
            if !self.pos.is_legal(m) {
                continue;
            }
            move_count += 1;
            // Losing captures are not worth it unless escaping check.
            if !in_check && best_value > VALUE_MATED_IN_MAX_PLY && !self.pos.see_ge(m, 0) {
                continue;
            }
            self.pos.do_move_observed(m, &mut self.eval);
            shared.tt.prefetch(self.pos.key());
            let value = -self.qsearch::<PV>(-beta, -alpha, ply + 1, shared);
            self.pos.undo_move_observed(m, &mut self.eval);
            if shared.stopped() {
                return 0;
            }
            if value > best_value {
                best_value = value;
                if value > alpha {
                    best_move = Some(m);
                    if PV {
                        self.pv.update(u, m);
                    }
                    if value >= beta {
                        break;
                    }
                    alpha = value;
                }
            }
        }
        if in_check && move_count == 0 {
            return mated_in(ply);
        }
        let bound = if best_value >= beta { Bound::Lower } else { Bound::Upper };
        let depth = if in_check { 0 } else { -1 };
        shared.tt.store(slot, key, best_move, value_to_tt(best_value, ply), static_eval, depth, bound, PV);
        best_value
    }
}
