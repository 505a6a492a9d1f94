//! Quiescence search: below the main search's horizon, captures and pawn promotions (evasions
//! when in check) until the position is quiet, standing pat on the corrected static evaluation.

use super::alphabeta::{DEPTH_QS, DEPTH_UNSEARCHED};
use super::correction::CorrectionHistory;
use super::history::{piece_to, ContKeys, CONT_PLIES};
use super::movepick::{is_tactical, MovePicker, QuietContext};
use super::params;
use super::shared::SharedState;
use super::stack::STACK_OFFSET;
use super::thread::Worker;
use super::tt::Bound;
use super::tt::{value_from_tt, TtPlace};
use crate::position::see::SEE_PIECE_VALUE;
use crate::types::{is_decisive, is_loss, is_win};
use crate::types::{mated_in, Value, MAX_PLY, VALUE_INFINITE, VALUE_NONE};

impl Worker {
    /// Quiescence search: captures and pawn promotions (evasions when in check) until the
    /// position is quiet, standing pat on the (corrected) static evaluation.
    pub(super) fn qsearch<const PV: bool>(
        &mut self,
        mut alpha: Value,
        beta: Value,
        ply: i32,
        shared: &SharedState,
    ) -> Value {
        self.visit(shared);
        let s = ply as usize + STACK_OFFSET;
        if PV {
            self.pv.clear(ply as usize);
            self.sel_depth = self.sel_depth.max(ply + 1);
        }
        if self.stopped(shared) {
            return 0;
        }
        let in_check = self.pos.in_check();
        self.stack[s].in_check = in_check;
        if ply >= MAX_PLY - 1 {
            return if in_check { 0 } else { self.eval.evaluate(&self.pos) };
        }

        let key = self.pos.key();
        let (tt_hit, slot) = shared.tt.probe(key);
        let place = TtPlace { tt: &shared.tt, slot, key, ply };
        let tt_value = tt_hit.map_or(VALUE_NONE, |d| value_from_tt(d.value, ply));
        let tt_bound = tt_hit.map_or(Bound::None, |d| d.bound);
        let pv_hit = tt_hit.is_some_and(|d| d.pv);
        if !PV
            && tt_value != VALUE_NONE
            && tt_bound.includes(if tt_value >= beta { Bound::Lower } else { Bound::Upper })
        {
            return tt_value;
        }
        // A win the table holds as exact stands in PV nodes too: it is a mate in one found on an
        // earlier visit (below), usually by a quiet check, which this search does not generate,
        // so a PV re-search of the node would otherwise lose it.
        if PV && tt_bound == Bound::Exact && is_win(tt_value) {
            if let Some(m) = tt_hit.and_then(|d| d.mv).filter(|&m| self.pos.is_legal_move(m)) {
                self.pv.clear(ply as usize + 1);
                self.pv.update(ply as usize, m);
                return tt_value;
            }
        }

        // Stand pat.
        let us = self.pos.side_to_move();
        let mut unadjusted_eval = VALUE_NONE;
        let (mut best_value, futility_base) = if in_check {
            (-VALUE_INFINITE, -VALUE_INFINITE)
        } else {
            let correction = self.correction.value(
                &shared.histories.correction,
                self.pos.structure_keys(),
                us,
                self.correction_cont(s),
            );
            let static_eval;
            let mut best;
            if let Some(d) = tt_hit {
                unadjusted_eval = if d.eval != VALUE_NONE { d.eval } else { self.eval.evaluate(&self.pos) };
                static_eval = CorrectionHistory::correct(unadjusted_eval, correction);
                best = static_eval;
                if tt_value != VALUE_NONE
                    && !is_decisive(tt_value)
                    && tt_bound.includes(if tt_value > best { Bound::Lower } else { Bound::Upper })
                {
                    best = tt_value;
                }
            } else {
                // A mate in one by a quiet check (a drop, usually) is what a captures-only horizon
                // misses most.
                if let Some(v) = self.mate_in_one_value::<PV>(place) {
                    return v;
                }
                unadjusted_eval = self.eval.evaluate(&self.pos);
                static_eval = CorrectionHistory::correct(unadjusted_eval, correction);
                best = static_eval;
            }
            self.stack[s].static_eval = static_eval;
            if best >= beta {
                if !is_decisive(best) {
                    best = (best + beta) / 2;
                }
                if tt_hit.is_none() {
                    place.store(None, best, unadjusted_eval, DEPTH_UNSEARCHED, Bound::Lower, false);
                }
                return best;
            }
            alpha = alpha.max(best);
            (best, static_eval + params::QsFutility())
        };

        let prev_to = self.stack[s - 1].current_move.map(|m| m.to());
        let mut cont_keys: ContKeys = [None; CONT_PLIES];
        cont_keys[0] = self.stack[s - 1].cont_key;
        let ctx = QuietContext { cont_keys, pawns: 0, ply: ply as usize };
        let tt_move = tt_hit.and_then(|d| d.mv);
        let mut picker = MovePicker::new_qsearch(&self.pos, tt_move, ctx, shared.config.generate_all_moves);
        let mut best_move = None;
        let mut move_count = 0;
        while let Some(m) = picker.next(&self.pos, &self.history, &shared.histories.pawn) {
            if !self.pos.is_legal(m) {
                continue;
            }
            let gives_check = self.pos.gives_check(m);
            let capture = is_tactical(&self.pos, m);
            move_count += 1;
            if !is_loss(best_value) {
                if !gives_check && Some(m.to()) != prev_to && !is_loss(futility_base) {
                    // Futility: beyond the first two, and those that cannot reach alpha, go.
                    if move_count > params::QsFutilityMoves() {
                        continue;
                    }
                    let captured_value = self.capture_kind(m).map_or(0, |c| SEE_PIECE_VALUE[c.index()]);
                    let futility_value = futility_base + captured_value;
                    if futility_value <= alpha {
                        best_value = best_value.max(futility_value);
                        continue;
                    }
                    if !self.pos.see_ge(m, alpha - futility_base) {
                        best_value = best_value.max(alpha.min(futility_base));
                        continue;
                    }
                }
                // With a move that does not lose found, quiet evasions and losing captures go.
                if !capture || !self.pos.see_ge(m, -params::QsSeeMargin()) {
                    continue;
                }
            }
            let move_key = piece_to(self.pos.moved_piece_after(m), m.to());
            self.make_move(shared, s, m, move_key, capture, self.pos.is_capture(m));
            let value = -self.qsearch::<PV>(-beta, -alpha, ply + 1, shared);
            self.pos.undo_move_observed(m, &mut self.eval);
            if self.stopped(shared) {
                return 0;
            }
            if value > best_value {
                best_value = value;
                if value > alpha {
                    best_move = Some(m);
                    if PV {
                        self.pv.update(ply as usize, m);
                    }
                    if value >= beta {
                        break;
                    }
                    alpha = value;
                }
            }
        }
        if in_check && best_value == -VALUE_INFINITE {
            return mated_in(ply);
        }
        if !is_decisive(best_value) && best_value > beta {
            best_value = (best_value + beta) / 2;
        }
        let bound = if best_value >= beta { Bound::Lower } else { Bound::Upper };
        place.store(best_move, best_value, unadjusted_eval, DEPTH_QS, bound, pv_hit);
        best_value
    }
}
