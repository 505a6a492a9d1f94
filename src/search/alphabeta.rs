//! The alpha-beta search proper: principal variation search over the staged move picker, with
//! the transposition table, down to the quiescence search (`qsearch.rs`) at the horizon.
//!
//! Node types are compile-time flags (`PV`, `ROOT`). The body is written in numbered steps; the
//! pruning and extension steps of a Stockfish-style search slot in between them.

use super::correction::{CorrectionHistory, LIMIT as CORRECTION_LIMIT};
use super::history::{cont_key, piece_to, ContKeys, CONT_PLIES, LOW_PLY};
use super::movepick::{is_tactical, MovePicker, QuietContext};
use super::params;
use super::report::ScoreBound;
use super::shared::SharedState;
use super::stack::STACK_OFFSET;
use super::thread::Worker;
use super::tt::{value_from_tt, Bound, TtPlace};
use crate::position::{see::SEE_PIECE_VALUE, Declaration, Repetition};
use crate::types::{
    is_decisive, is_loss, is_win, mate_in, mated_in, Depth, Move, PieceType, Value, MAX_PLY, VALUE_INFINITE,
    VALUE_NONE,
};

impl Worker {
    /// The kind a move captures, if it captures.
    #[inline]
    pub(super) fn capture_kind(&self, m: Move) -> Option<PieceType> {
        if m.is_drop() {
            None
        } else {
            self.pos.piece_on(m.to()).map(|p| p.piece_type())
        }
    }

    /// The late-move reduction of the `move_count`-th move at `depth` in a window of width
    /// `delta`, in 1/1024 plies, before the adjustments made once the move is known.
    #[inline]
    fn reduction(&self, improving: bool, depth: Depth, move_count: i32, delta: i32) -> i32 {
        let last = self.lmr.len() - 1;
        let scale = self.lmr[(depth as usize).min(last)] * self.lmr[(move_count as usize).min(last)];
        scale - delta * params::LmrDelta() / self.root_delta.max(1)
            + (!improving) as i32 * scale * params::LmrNotImproving() / 512
            + params::LmrBase()
    }

    /// The continuation keys of the node at stack index `s`: the moves 1 to 6 plies before it.
    #[inline(always)]
    fn cont_keys(&self, s: usize) -> ContKeys {
        let mut k: ContKeys = [None; CONT_PLIES];
        for (i, key) in k.iter_mut().enumerate() {
            *key = self.stack[s - 1 - i].cont_key;
        }
        k
    }

    /// The continuation-correction keys of the node at stack index `s`.
    #[inline(always)]
    pub(super) fn correction_cont(&self, s: usize) -> (Option<usize>, Option<usize>, Option<usize>) {
        (self.stack[s - 2].piece_to, self.stack[s - 4].piece_to, self.stack[s - 1].piece_to)
    }

    /// Updates the continuation histories of the move with key `key` made at stack index `s`
    /// (after the moves 1 to 6 plies before it, weighted by distance; only 2 back when the
    /// move was made in check).
    fn update_continuations(&mut self, s: usize, key: usize, bonus: i32) {
        let weights: [i32; CONT_PLIES] = [
            params::HistContWeight1(),
            params::HistContWeight2(),
            params::HistContWeight3(),
            params::HistContWeight4(),
            params::HistContWeight5(),
            params::HistContWeight6(),
        ];
        for (i, w) in weights.iter().enumerate() {
            if self.stack[s].in_check && i >= 2 {
                break;
            }
            let prev = self.stack[s - 1 - i].cont_key;
            let first = if i == 0 { params::HistContFirstBonus() } else { 0 };
            self.history.update_continuation(prev, key, bonus * w / 1024 + first);
        }
    }

    /// Updates every history of the quiet move `m` made at stack index `s` by `bonus`.
    fn update_quiet_histories(&mut self, s: usize, m: Move, pawns: u64, bonus: i32, shared: &SharedState) {
        let us = self.pos.side_to_move();
        self.history.update_main(us, m, bonus);
        let ply = s - STACK_OFFSET;
        if ply < LOW_PLY {
            self.history.update_low_ply(ply, m, bonus * params::HistLowPly() / 1024);
        }
        let key = piece_to(self.pos.moved_piece_after(m), m.to());
        self.update_continuations(s, key, bonus * params::HistContQuiet() / 1024);
        shared.histories.pawn.update(
            pawns,
            key,
            bonus * if bonus > 0 { params::HistPawnBonus() } else { params::HistPawnMalus() } / 1024,
        );
    }

    /// After a node with a best move: the best move gains, the moves tried before it lose, and
    /// the previous move loses when it was answered at once.
    #[allow(clippy::too_many_arguments)]
    fn update_all_stats(
        &mut self,
        s: usize,
        best: Move,
        tt_move: Option<Move>,
        pawns: u64,
        quiets: &[Option<Move>],
        captures: &[Option<Move>],
        depth: Depth,
        shared: &SharedState,
    ) {
        let bonus = (params::HistBonusMul() * depth - params::HistBonusOffset()).min(params::HistBonusMax())
            + params::HistBonusTtMove() * (Some(best) == tt_move) as i32
            + self.stack[s - 1].stat_score / params::HistStatScoreDivisor();
        let malus = (params::HistMalusMul() * depth - params::HistMalusOffset()).min(params::HistMalusMax());
        if !is_tactical(&self.pos, best) {
            self.update_quiet_histories(s, best, pawns, bonus * params::HistBestQuiet() / 1024, shared);
            let mut actual = malus * params::HistQuietMalus() / 1024;
            for q in quiets.iter().flatten() {
                actual = actual * params::HistQuietMalusDecay() / 1024;
                self.update_quiet_histories(s, *q, pawns, -actual, shared);
            }
        } else {
            let cap = self.capture_kind(best);
            self.history.update_capture(
                self.pos.moved_piece_after(best),
                best.to(),
                cap,
                bonus * params::HistBestCapture() / 1024,
            );
        }
        let prev = &self.stack[s - 1];
        if let Some(prev_key) = prev.piece_to {
            if prev.move_count == 1 + prev.tt_hit as i32 && !prev.captured {
                self.update_continuations(s - 1, prev_key, -malus * params::HistPrevMalus() / 1024);
            }
        }
        for c in captures.iter().flatten() {
            let cap = self.capture_kind(*c);
            self.history.update_capture(
                self.pos.moved_piece_after(*c),
                c.to(),
                cap,
                -malus * params::HistCaptureMalus() / 1024,
            );
        }
    }

    /// When the side to move mates at once by a contact or knight check
    /// ([`contact_mate_in_one`](crate::position::Position::contact_mate_in_one)): the node's
    /// value, with its PV and table entry set.
    #[inline]
    pub(super) fn mate_in_one_value<const PV: bool>(&mut self, place: TtPlace) -> Option<Value> {
        let m = self.pos.contact_mate_in_one()?;
        let ply = place.ply;
        let v = mate_in(ply + 1);
        if PV {
            self.pv.clear(ply as usize + 1);
            self.pv.update(ply as usize, m);
        }
        place.store(Some(m), v, VALUE_NONE, MAX_PLY, Bound::Exact, PV);
        Some(v)
    }

    /// The order to search the root moves of this line in (`root_moves[pv_idx..]`), each with
    /// its index in `root_moves`: the move picker's order, as at any other node (the line's best
    /// move so far, good captures, quiets by history...), then any root move the picker does not
    /// generate (a non-promotion that `searchmoves` names).
    fn root_order(&self, picker: &mut MovePicker, shared: &SharedState) -> Vec<(Move, usize)> {
        // The candidates by their bits, each with its index and whether it is ordered yet:
        // looked up by binary search, where a scan of the list for each move the picker gave
        // (and for each result) took a few percent of `gensfen`'s short searches.
        let mut pending: Vec<(u16, usize, bool)> =
            (self.pv_idx..self.root_moves.len()).map(|i| (self.root_moves[i].mv.bits(), i, false)).collect();
        pending.sort_unstable();
        let find = |pending: &[(u16, usize, bool)], m: Move| pending.binary_search_by_key(&m.bits(), |p| p.0);
        let mut order = Vec::with_capacity(pending.len());
        while let Some(m) = picker.next(&self.pos, &self.history, &shared.histories.pawn) {
            if let Ok(i) = find(&pending, m) {
                if !pending[i].2 {
                    pending[i].2 = true;
                    order.push((m, pending[i].1));
                }
            }
        }
        for i in self.pv_idx..self.root_moves.len() {
            let m = self.root_moves[i].mv;
            if find(&pending, m).is_ok_and(|j| !pending[j].2) {
                order.push((m, i));
            }
        }
        order
    }

    /// Makes move `m` (with (piece, destination) key `move_key`; `capture_stage` as
    /// [`is_tactical`], `captured` whether it takes a piece) at stack index `s`: records it in
    /// the frame, with its continuation key from the frame's in-check flag, prefetches the
    /// child's table entry and plays it.
    #[inline(always)]
    pub(super) fn make_move(
        &mut self,
        shared: &SharedState,
        s: usize,
        m: Move,
        move_key: usize,
        capture_stage: bool,
        captured: bool,
    ) {
        let frame = &mut self.stack[s];
        frame.current_move = Some(m);
        frame.piece_to = Some(move_key);
        frame.cont_key = Some(cont_key(frame.in_check, capture_stage, move_key));
        frame.captured = captured;
        shared.tt.prefetch(self.pos.key_after(m));
        self.pos.do_move_observed(m, &mut self.eval);
    }

    /// Counts a node; the main thread checks its limits every
    /// [`check_interval`](super::control::check_interval) nodes, the helpers publish their counts
    /// as often.
    #[inline(always)]
    pub(super) fn visit(&mut self, shared: &SharedState) {
        self.nodes += 1;
        if self.nodes & self.check_mask == 0 {
            if self.id == 0 {
                self.check_time(shared);
            } else {
                self.publish_counters(shared);
            }
        }
    }

    /// The value of a draw in the search: the configured draw value, one more or one less by
    /// the node count, so that a search does not settle on a drawing line only because every
    /// move ties with it.
    #[inline]
    fn draw_value(&self, shared: &SharedState) -> Value {
        shared.config.draw_value(self.root_color, self.pos.side_to_move()) - 1 + (self.nodes & 2) as Value
    }

    /// Whether `m` moves again the piece that the side to move has moved with its last two
    /// moves (a -> b -> c -> ...), deep in the tree: the table's move is then not extended.
    #[inline]
    fn is_shuffling(&self, s: usize, m: Move, capture: bool) -> bool {
        if capture || m.is_drop() || s < STACK_OFFSET + 18 {
            return false;
        }
        // A null move within the last seven plies: not a shuffle.
        if (1..=7).any(|i| self.stack[s - i].current_move.is_none()) {
            return false;
        }
        match (self.stack[s - 2].current_move, self.stack[s - 4].current_move) {
            (Some(m2), Some(m4)) if !m2.is_drop() && !m4.is_drop() => {
                m.from() == m2.to() && m2.from() == m4.to()
            }
            _ => false,
        }
    }

    /// The verdict of the shogi rules at a node before searching it, if any: repetition (with
    /// perpetual check and superior/inferior positions), the move limit, declaration.
    #[inline]
    fn rule_verdict(&self, shared: &SharedState, ply: i32) -> Option<Value> {
        let pos = &self.pos;
        match pos.repetition(16 + ply as usize) {
            Repetition::None => {}
            Repetition::Draw => return Some(self.draw_value(shared)),
            Repetition::Win => return Some(mate_in(ply)),
            Repetition::Lose => return Some(mated_in(ply)),
            Repetition::Superior => return Some(params::SuperiorValue()),
            Repetition::Inferior => return Some(-params::SuperiorValue()),
        }
        if pos.is_move_limit_reached(shared.config.max_moves_to_draw) {
            // Drawn, unless the side to move is already mated.
            let mated = pos.in_check() && crate::position::MoveList::legal(pos, false).is_empty();
            return Some(if mated { mated_in(ply) } else { self.draw_value(shared) });
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
        // Step 1. Quiescence search at the horizon; the node's frame.
        if depth <= 0 {
            return self.qsearch::<PV>(alpha, beta, ply, shared);
        }
        depth = depth.min(MAX_PLY - 1);
        debug_assert!(-VALUE_INFINITE <= alpha && alpha < beta && beta <= VALUE_INFINITE);
        self.visit(shared);
        let s = ply as usize + STACK_OFFSET;
        let all_node = !(PV || cut_node);
        if PV {
            self.pv.clear(ply as usize);
            self.sel_depth = self.sel_depth.max(ply + 1);
        }
        let in_check = self.pos.in_check();
        self.stack[s].in_check = in_check;
        self.stack[s].move_count = 0;
        self.stack[s + 2].cutoff_cnt = 0;
        let prior_reduction = self.stack[s - 1].reduction;
        self.stack[s - 1].reduction = 0;
        let prior_capture = self.stack[s - 1].captured;
        let prev_key = self.stack[s - 1].piece_to;
        let follow_pv = ROOT
            || (self.stack[s - 1].follow_pv
                && self.stack[s - 1].current_move.is_some()
                && self.last_iteration_pv.get(ply as usize - 1).copied() == self.stack[s - 1].current_move);
        self.stack[s].follow_pv = follow_pv;

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
            if self.stopped(shared) {
                return 0;
            }
            if let Some(v) = self.rule_verdict(shared, ply) {
                return v;
            }
            if ply >= MAX_PLY - 1 {
                return if in_check { 0 } else { self.eval.evaluate(&self.pos) };
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
        let place = TtPlace { tt: &shared.tt, slot, key, ply };
        let tt_value = tt_hit.map_or(VALUE_NONE, |d| value_from_tt(d.value, ply));
        let tt_depth = tt_hit.map_or(-100, |d| d.depth);
        let tt_bound = tt_hit.map_or(Bound::None, |d| d.bound);
        let tt_move = if ROOT {
            Some(self.root_moves[self.pv_idx].mv)
        } else {
            tt_hit.and_then(|d| d.mv).filter(|&m| self.pos.is_pseudo_legal(m))
        };
        // In a singular-extension search one move is left out: the table's verdict, which
        // includes that move, must not end the node, nor be overwritten by a verdict without it.
        let excluded = self.stack[s].excluded_move;
        if excluded.is_none() {
            self.stack[s].tt_pv = PV || tt_hit.is_some_and(|d| d.pv);
        }
        let tt_pv = self.stack[s].tt_pv;
        self.stack[s].tt_hit = tt_hit.is_some();
        let tt_capture = tt_move.is_some_and(|m| is_tactical(&self.pos, m));
        let us = self.pos.side_to_move();
        let pawns = self.pos.structure_keys().pawn;

        // A table cut-off: a deep enough bound on the right side of the window (near the
        // horizon, only where the node type agrees with it).
        if !PV
            && excluded.is_none()
            && tt_value != VALUE_NONE
            && tt_depth > depth - (tt_value <= beta) as i32
            && tt_bound.includes(if tt_value >= beta { Bound::Lower } else { Bound::Upper })
            && (cut_node == (tt_value >= beta) || depth > params::TtCutNodeTypeDepth())
        {
            if let (Some(m), true) = (tt_move, tt_value >= beta) {
                if !tt_capture {
                    self.update_quiet_histories(
                        s,
                        m,
                        pawns,
                        (params::TtCutBonusMul() * depth - params::TtCutBonusOffset())
                            .min(params::TtCutBonusMax()),
                        shared,
                    );
                }
                if let Some(pk) = prev_key {
                    if self.stack[s - 1].move_count <= params::TtCutPrevMoves() && !prior_capture {
                        self.update_continuations(s - 1, pk, -params::TtCutPrevMalus());
                    }
                }
            }
            return tt_value;
        }

        // Step 5. Mate in one, by a contact or knight check (the cheap answer: mates by distant or
        // discovered checks are rarer and left to the search). Cheap next to a search (check
        // candidates judged on bitboards), and it finds mates that the pruning below would never
        // look at. Only on table misses: a hit already carries what an earlier visit learned.
        if !ROOT && !in_check && tt_hit.is_none() && excluded.is_none() {
            if let Some(v) = self.mate_in_one_value::<PV>(place) {
                return v;
            }
        }

        // Step 6. Static evaluation, corrected by the correction history. The raw evaluation is
        // cached in the table; `eval`, used for pruning decisions, takes the table's value
        // instead where its bound says it is better.
        let correction = if in_check {
            0
        } else {
            self.correction.value(
                &shared.histories.correction,
                self.pos.structure_keys(),
                us,
                self.correction_cont(s),
            )
        };
        let mut improving = false;
        let mut opponent_worsening = false;
        let unadjusted_eval;
        let static_eval;
        let mut eval;
        if in_check {
            unadjusted_eval = VALUE_NONE;
            static_eval = self.stack[s - 2].static_eval;
            eval = static_eval;
            self.stack[s].static_eval = static_eval;
        } else {
            if excluded.is_some() {
                unadjusted_eval = self.stack[s].static_eval;
                static_eval = unadjusted_eval;
                eval = static_eval;
            } else if let Some(d) = tt_hit {
                unadjusted_eval = if d.eval != VALUE_NONE { d.eval } else { self.eval.evaluate(&self.pos) };
                static_eval = CorrectionHistory::correct(unadjusted_eval, correction);
                eval = static_eval;
                if tt_value != VALUE_NONE
                    && tt_bound.includes(if tt_value > eval { Bound::Lower } else { Bound::Upper })
                {
                    eval = tt_value;
                }
            } else {
                unadjusted_eval = self.eval.evaluate(&self.pos);
                static_eval = CorrectionHistory::correct(unadjusted_eval, correction);
                eval = static_eval;
                shared.tt.store(
                    slot,
                    key,
                    None,
                    VALUE_NONE,
                    unadjusted_eval,
                    DEPTH_UNSEARCHED,
                    Bound::None,
                    tt_pv,
                );
            }
            self.stack[s].static_eval = static_eval;

            // The change of the evaluation over the last (quiet) move teaches the histories how
            // good that move was.
            let prev = self.stack[s - 1];
            if let (Some(pm), Some(pk)) = (prev.current_move, prev.piece_to) {
                if !prev.in_check && !prior_capture && prev.static_eval != VALUE_NONE {
                    let diff = (-(prev.static_eval + static_eval))
                        .clamp(params::EvalDiffMin(), params::EvalDiffMax())
                        + params::EvalDiffOffset();
                    self.history.update_main(!us, pm, diff * params::EvalDiffHistory());
                    let moved = self.pos.piece_on(pm.to()).map(|p| p.piece_type());
                    if tt_hit.is_none() && moved != Some(PieceType::Pawn) && !pm.is_promotion() {
                        shared.histories.pawn.update(pawns, pk, diff * params::EvalDiffPawnHistory());
                    }
                }
            }

            let before = self.stack[s - 2].static_eval;
            improving = before != VALUE_NONE && static_eval > before;
            let prev_eval = self.stack[s - 1].static_eval;
            opponent_worsening = prev_eval == VALUE_NONE || static_eval > -prev_eval;

            // Hindsight: a child searched much shallower than it deserved gets a ply back
            // unless the opponent's position got worse; an easy one gives a ply up.
            if prior_reduction >= params::HindsightDeeperReduction() && !opponent_worsening {
                depth += 1;
            }
            if prior_reduction >= params::HindsightShallowerReduction()
                && depth >= 2
                && prev_eval != VALUE_NONE
                && static_eval + prev_eval > params::HindsightShallowerMargin()
            {
                depth -= 1;
            }
        }

        if !ROOT && !in_check {
            // Step 7. Razoring: far below alpha, let quiescence search decide.
            if !PV && eval < alpha - params::RazorBase() - params::RazorDepth() * depth * depth {
                return self.qsearch::<false>(alpha, beta, ply, shared);
            }

            // Step 8. Reverse futility pruning: far enough above beta, assume a cut-off.
            let mult = params::RfpMargin() - params::RfpNoTtHit() * tt_hit.is_none() as i32;
            let margin = mult * depth
                - (params::RfpImproving() * improving as i32
                    + params::RfpOpponentWorsening() * opponent_worsening as i32)
                    * mult
                    / 1024
                + correction.abs() / params::RfpCorrectionDivisor();
            if !tt_pv
                && depth < params::RfpMaxDepth()
                && eval >= beta
                && eval - margin >= beta
                && (tt_move.is_none() || tt_capture)
                && !is_loss(beta)
                && !is_win(eval)
            {
                return (2 * beta + eval) / 3;
            }

            // Step 9. Null move search with verification search. If passing still fails high
            // with a reduced search, a real move surely would. Only at expected cut nodes (a
            // null move's child is not one, so two null moves never follow each other), and
            // not below the ply where a verification search runs.
            if cut_node
                && static_eval
                    >= beta - params::NmpDepthMargin() * depth - params::NmpImproving() * improving as i32
                        + params::NmpBase()
                && excluded.is_none()
                && ply >= self.nmp_min_ply
                && !is_loss(beta)
                && self.stack[s - 1].current_move.is_some()
            {
                let r = params::NmpReduction() + depth / 3;
                self.stack[s].current_move = None;
                self.stack[s].piece_to = None;
                self.stack[s].cont_key = None;
                self.stack[s].captured = false;
                self.pos.do_null_move_observed(&mut self.eval);
                let null_value =
                    -self.search::<false, false>(-beta, -beta + 1, depth - r, ply + 1, false, shared);
                self.pos.undo_null_move_observed(&mut self.eval);
                if self.stopped(shared) {
                    return 0;
                }
                if null_value >= beta && !is_win(null_value) {
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

            improving |= static_eval >= beta;

            // Step 10. Internal iterative reductions: a node the table knows nothing about, where a
            // good move matters, is searched a ply shallower; by the next visit the table holds a
            // move to search first.
            if !follow_pv
                && !all_node
                && depth >= params::IirMinDepth()
                && tt_move.is_none()
                && prior_reduction <= params::IirMaxPriorReduction()
            {
                depth -= 1;
            }

            // Step 11. ProbCut: when a good capture, searched shallower against a beta raised by a
            // margin, still beats it, the full search would very likely beat beta too.
            let probcut_beta = beta + params::ProbCutMargin() - params::ProbCutImproving() * improving as i32;
            if depth >= params::ProbCutMinDepth()
                && depth <= params::ProbCutMaxDepth()
                && !is_decisive(beta)
                && !(tt_value != VALUE_NONE && tt_value < probcut_beta)
            {
                let divisor = params::ProbCutEvalDivisor();
                let by_eval = if divisor > 0 { (static_eval - beta) / divisor } else { 0 };
                let fixed = depth - params::ProbCutReduction();
                // The dynamic part never makes it deeper than this node, nor shallower than 0
                // (or than the fixed depth where that is already below 0, as at depths 3 and 4).
                let probcut_depth = (fixed - by_eval).clamp(fixed.min(0), depth);
                let mut picker = MovePicker::new_probcut(
                    &self.pos,
                    tt_move,
                    probcut_beta - static_eval,
                    shared.config.generate_all_moves,
                );
                while let Some(m) = picker.next(&self.pos, &self.history, &shared.histories.pawn) {
                    if Some(m) == excluded || !self.pos.is_legal(m) {
                        continue;
                    }
                    let move_key = piece_to(self.pos.moved_piece_after(m), m.to());
                    self.make_move(shared, s, m, move_key, true, self.pos.is_capture(m));
                    let mut value = -self.qsearch::<false>(-probcut_beta, -probcut_beta + 1, ply + 1, shared);
                    if value >= probcut_beta && probcut_depth > 0 {
                        value = -self.search::<false, false>(
                            -probcut_beta,
                            -probcut_beta + 1,
                            probcut_depth,
                            ply + 1,
                            !cut_node,
                            shared,
                        );
                    }
                    self.pos.undo_move_observed(m, &mut self.eval);
                    if self.stopped(shared) {
                        return 0;
                    }
                    if value >= probcut_beta {
                        place.store(Some(m), value, unadjusted_eval, probcut_depth + 1, Bound::Lower, tt_pv);
                        if !is_decisive(value) {
                            return value - (probcut_beta - beta);
                        }
                    }
                }
            }
        }

        // Step 12. Small ProbCut: a table lower bound from nearly this depth far above beta.
        if !ROOT {
            let probcut_beta = beta + params::SmallProbCutMargin();
            if tt_bound.includes(Bound::Lower)
                && tt_depth >= depth - params::SmallProbCutDepth()
                && tt_value != VALUE_NONE
                && tt_value >= probcut_beta
                && !is_decisive(beta)
                && !is_decisive(tt_value)
            {
                return probcut_beta;
            }
        }

        // Step 13. Loop through the moves.
        let mut best_value = -VALUE_INFINITE;
        let mut best_move: Option<Move> = None;
        let mut move_count = 0;
        let mut quiets_tried: [Option<Move>; 32] = [None; 32];
        let mut quiet_count = 0;
        let mut captures_tried: [Option<Move>; 32] = [None; 32];
        let mut capture_count = 0;
        let cont_keys = self.cont_keys(s);
        let ctx = QuietContext { cont_keys, pawns, ply: ply as usize };
        let mut picker = MovePicker::new(&self.pos, tt_move, depth, ctx, shared.config.generate_all_moves);
        let mut root_order = if ROOT { self.root_order(&mut picker, shared) } else { Vec::new() }.into_iter();
        loop {
            // At the root, the move's index in `root_moves` too.
            let (m, root_index) = if ROOT {
                match root_order.next() {
                    Some(next) => next,
                    None => break,
                }
            } else {
                match picker.next(&self.pos, &self.history, &shared.histories.pawn) {
                    Some(m) => (m, 0),
                    None => break,
                }
            };
            if Some(m) == excluded || (!ROOT && !self.pos.is_legal(m)) {
                continue;
            }
            move_count += 1;
            self.stack[s].move_count = move_count;
            let captured = self.capture_kind(m);
            let capture = is_tactical(&self.pos, m);
            let moved = self.pos.moved_piece_after(m);
            let move_key = piece_to(moved, m.to());
            let gives_check = self.pos.gives_check(m);
            let mut new_depth = depth - 1;
            let mut r = self.reduction(improving, depth, move_count, beta - alpha);
            if tt_pv {
                r += params::LmrTtPvEarly();
            }
            let captured_value = captured.map_or(0, |c| SEE_PIECE_VALUE[c.index()]);

            // Step 14. Pruning at shallow depth: once some move has saved us from being mated,
            // skip moves that look hopeless here.
            if !ROOT && !is_loss(best_value) {
                // Move count pruning: enough moves tried at this depth; no more quiets.
                if move_count >= (params::LmpBase() + depth * depth) / (2 - improving as i32) {
                    picker.skip_quiet_moves();
                }
                let mut lmr_depth = new_depth - r / 1024;
                if capture || gives_check {
                    let capture_history = self.history.capture(moved, m.to(), captured);
                    // Futility pruning of captures that cannot reach alpha.
                    if !gives_check && lmr_depth < params::CaptureFutilityMaxDepth() {
                        let futility_value = static_eval
                            + params::CaptureFutilityBase()
                            + params::CaptureFutilityDepth() * lmr_depth
                            + captured_value
                            + params::CaptureFutilityHistory() * capture_history / 1024;
                        if futility_value <= alpha {
                            continue;
                        }
                    }
                    // SEE pruning of captures and checks that lose material, unless alpha is
                    // below a draw (a side that is losing tries its sacrifices).
                    let margin = (params::SeeCaptureDepth() * depth
                        + capture_history * params::SeeCaptureHistory() / 1024)
                        .max(0);
                    if alpha >= 0 && !self.pos.see_ge(m, -margin) {
                        continue;
                    }
                } else if !follow_pv || !PV {
                    // (Quiet moves on the last iteration's PV are not pruned.)
                    // History pruning: quiet moves that have failed everywhere.
                    let mut history = self.history.continuation(cont_keys[0], move_key)
                        + self.history.continuation(cont_keys[1], move_key)
                        + shared.histories.pawn.get(pawns, move_key);
                    if history < -params::HistoryPruneScale() * depth {
                        continue;
                    }
                    history += params::HistoryLmrMain() * self.history.main(us, m) / 32;
                    lmr_depth += history / params::HistoryLmrDivisor();
                    // Futility pruning: even a generous gain would not reach alpha.
                    let futility_value = static_eval
                        + params::FutilityBase()
                        + params::FutilityNoBestMove() * best_move.is_none() as i32
                        + params::FutilityDepth() * lmr_depth
                        + params::FutilityAboveAlpha() * (static_eval > alpha) as i32;
                    if !in_check && lmr_depth < params::FutilityMaxDepth() && futility_value <= alpha {
                        if best_value <= futility_value && !is_decisive(best_value) && !is_win(futility_value)
                        {
                            best_value = futility_value;
                        }
                        continue;
                    }
                    // SEE pruning of quiets that lose material.
                    let lmr_depth = lmr_depth.max(0);
                    if !self.pos.see_ge(m, -params::SeeQuietScale() * lmr_depth * lmr_depth) {
                        continue;
                    }
                }
            }

            // Step 15. Singular extension: when the table's move is much better than every other
            // here (a search without it at half depth fails low against a margin below the
            // table's value), search it deeper: one ply, two or three when far better. When
            // even without it the search fails high, the node is cut (multi-cut); when the
            // table's move is not the only good one, it is searched shallower.
            let mut extension = 0;
            if !ROOT
                && Some(m) == tt_move
                && excluded.is_none()
                && depth >= params::SingularMinDepth() + tt_pv as i32
                && ply < 2 * self.root_depth
                && tt_value != VALUE_NONE
                && !is_decisive(tt_value)
                && tt_bound.includes(Bound::Lower)
                && tt_depth >= depth - params::SingularTtDepth()
                && !self.is_shuffling(s, m, capture)
            {
                let singular_beta = tt_value
                    - (params::SingularMargin() + params::SingularTtPvMargin() * (tt_pv && !PV) as i32)
                        * depth
                        / params::SingularDivisor();
                self.stack[s].excluded_move = Some(m);
                let v = self.search::<false, false>(
                    singular_beta - 1,
                    singular_beta,
                    new_depth / 2,
                    ply,
                    cut_node,
                    shared,
                );
                self.stack[s].excluded_move = None;
                if self.stopped(shared) {
                    return 0;
                }
                if v < singular_beta {
                    let correction_adjustment = correction.abs() / params::ExtCorrectionDivisor();
                    let deep = (ply > self.root_depth) as i32;
                    let double_margin = params::DoubleExtBase() + params::DoubleExtPv() * PV as i32
                        - params::DoubleExtQuiet() * !tt_capture as i32
                        - correction_adjustment
                        - params::DoubleExtTtMoveHist() * self.history.tt_move()
                            / params::TtMoveHistDivisor()
                        - deep * params::DoubleExtDeep();
                    let triple_margin = params::TripleExtBase() + params::TripleExtPv() * PV as i32
                        - params::TripleExtQuiet() * !tt_capture as i32
                        + params::TripleExtTtPv() * tt_pv as i32
                        - correction_adjustment
                        - deep * params::TripleExtDeep();
                    extension = 1
                        + (v < singular_beta - double_margin) as i32
                        + (v < singular_beta - triple_margin) as i32;
                    depth += 1;
                } else if v >= beta && !is_decisive(v) {
                    self.history.update_tt_move(
                        -(params::TtMoveHistCutBase() + params::TtMoveHistCutDepth() * depth)
                            .min(params::TtMoveHistCutMax()),
                    );
                    return v;
                } else if tt_value >= beta {
                    extension = -params::SingularNegExt();
                } else if cut_node {
                    extension = -params::SingularNegExtCut();
                }
            }

            // Step 16. Make the move.
            self.make_move(shared, s, m, move_key, capture, captured.is_some());
            new_depth += extension;

            // Step 17. Late move reductions: every move but the first is searched shallower
            // first (by how unpromising it looks), and at full depth only when it beats alpha.
            if tt_pv {
                r -= params::LmrTtPvBase()
                    + params::LmrTtPvPv() * PV as i32
                    + params::LmrTtPvAlpha() * (tt_value != VALUE_NONE && tt_value > alpha) as i32
                    + (tt_depth >= depth) as i32
                        * (params::LmrTtPvDepth() + params::LmrTtPvCut() * cut_node as i32);
            }
            r += params::LmrOffset();
            r -= move_count * params::LmrMoveCount();
            r -= correction.abs() / params::LmrCorrectionDivisor();
            if cut_node {
                r += params::LmrCutNode() + params::LmrCutNodeNoTtMove() * tt_move.is_none() as i32;
            }
            if tt_capture {
                r += params::LmrTtCapture();
            }
            let child_cutoffs = self.stack[s + 1].cutoff_cnt;
            if child_cutoffs > 1 {
                r += params::LmrCutoffs()
                    + params::LmrCutoffsMany() * (child_cutoffs > 2) as i32
                    + params::LmrCutoffsAllNode() * all_node as i32;
            }
            if Some(m) == tt_move {
                r -= params::LmrTtMove();
            }
            let stat_score = if capture {
                params::LmrCaptureValue() * captured_value / 128
                    + self.history.capture(moved, m.to(), captured)
            } else {
                2 * self.history.main(us, m)
                    + self.history.continuation(cont_keys[0], move_key)
                    + self.history.continuation(cont_keys[1], move_key)
            };
            self.stack[s].stat_score = stat_score;
            r -= stat_score * params::LmrStatScore() / 4096;
            if all_node {
                r += r * params::LmrAllNode() / (256 * depth + params::LmrAllNodeOffset());
            }

            let mut value = -VALUE_INFINITE;
            if depth >= 2 && move_count > 1 {
                let d = (new_depth - r / 1024).min(new_depth + 2).max(1) + PV as i32;
                self.stack[s].reduction = new_depth - d;
                value = -self.search::<false, false>(-alpha - 1, -alpha, d, ply + 1, true, shared);
                self.stack[s].reduction = 0;
                if value > alpha {
                    // Beaten alpha: search again at full depth, a ply deeper when it did so by
                    // far, a ply shallower when barely.
                    let deeper = d < new_depth && value > best_value + params::LmrDeeperMargin();
                    let shallower = value < best_value + params::LmrShallowerMargin();
                    new_depth += deeper as i32 - shallower as i32;
                    if new_depth > d {
                        value = -self.search::<false, false>(
                            -alpha - 1,
                            -alpha,
                            new_depth,
                            ply + 1,
                            !cut_node,
                            shared,
                        );
                    }
                    self.update_continuations(s, move_key, params::LmrResearchBonus());
                }
            } else if !PV || move_count > 1 {
                // Step 18. Full-depth null-window search when LMR is skipped (a ply or two less
                // for moves that would have been reduced much).
                if tt_move.is_none() {
                    r += params::FullSearchNoTtMove();
                }
                let d = new_depth
                    - (r > params::FullSearchReduce1()) as i32
                    - (r > params::FullSearchReduce2() && new_depth > 2) as i32;
                value = -self.search::<false, false>(-alpha - 1, -alpha, d, ply + 1, !cut_node, shared);
            }
            // The full window for the first move of a PV node and for a new best move.
            if PV && (move_count == 1 || value > alpha) {
                if Some(m) == tt_move
                    && ((tt_value != VALUE_NONE && is_decisive(tt_value) && tt_depth > 0) || tt_depth > 1)
                {
                    new_depth = new_depth.max(1);
                }
                value = -self.search::<true, false>(-beta, -alpha, new_depth, ply + 1, false, shared);
            }

            // Step 19. Undo the move.
            self.pos.undo_move_observed(m, &mut self.eval);
            if self.stopped(shared) {
                return 0;
            }

            // Step 20. Results.
            if ROOT {
                let sel_depth = self.sel_depth;
                let child_pv = self.pv.line(ply as usize + 1);
                let rm = &mut self.root_moves[root_index];
                debug_assert!(rm.mv == m);
                rm.add_score(value);
                if move_count == 1 || value > alpha {
                    if move_count > 1 && self.pv_idx == 0 {
                        self.best_move_changes += 1;
                    }
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
            // Among equal values deep in the tree, now and then the later move is taken: with a
            // coarse evaluation many moves tie, and always keeping the first would make the
            // table's moves (and so the ordering) depend on the generation order alone.
            let tie = (value == best_value
                && ply + 2 >= self.root_depth
                && self.nodes & 14 == 0
                && !is_win(value.abs() + 1)) as i32;
            if value + tie > best_value {
                best_value = value;
                if value + tie > alpha {
                    best_move = Some(m);
                    if PV && !ROOT {
                        // A move taken on a tie (value == alpha) had no full-window search, so
                        // the line at `ply + 1` is still a sibling's: it is left out.
                        if value <= alpha {
                            self.pv.clear(ply as usize + 1);
                        }
                        self.pv.update(ply as usize, m);
                    }
                    if value >= beta {
                        self.stack[s].cutoff_cnt += (extension < 2 || PV) as i32;
                        break;
                    }
                    // A new best move at a PV node: the rest can be searched a little shallower.
                    if depth > params::PvBestMinDepth()
                        && depth < params::PvBestMaxDepth()
                        && !is_decisive(value)
                    {
                        depth -= params::PvBestReduction();
                    }
                    alpha = value;
                }
            }
            if Some(m) != best_move {
                if !capture && quiet_count < quiets_tried.len() {
                    quiets_tried[quiet_count] = Some(m);
                    quiet_count += 1;
                } else if capture && capture_count < captures_tried.len() {
                    captures_tried[capture_count] = Some(m);
                    capture_count += 1;
                }
            }
        }

        // Step 21. No legal move: in shogi that loses, in check or not. A fail high is pulled
        // towards beta (a cut-off's value is an overestimate at low depth).
        if best_value >= beta && !is_decisive(best_value) && !is_decisive(alpha) {
            best_value = (best_value * depth + beta) / (depth + 1);
        }
        if move_count == 0 {
            if excluded.is_some() {
                return alpha;
            }
            best_value = mated_in(ply);
        } else if let Some(bm) = best_move {
            if !PV {
                self.history.update_tt_move(if Some(bm) == tt_move {
                    params::TtMoveHistBest()
                } else {
                    -params::TtMoveHistOther()
                });
            }
            self.update_all_stats(
                s,
                bm,
                tt_move,
                pawns,
                &quiets_tried[..quiet_count],
                &captures_tried[..capture_count],
                depth,
                shared,
            );
        } else if let (Some(pk), Some(pm)) = (prev_key, self.stack[s - 1].current_move) {
            let prev = self.stack[s - 1];
            if !prior_capture {
                // The previous move was refuted by nothing here: it was good; reward it by how
                // surprising that is.
                let mut scale = -params::PriorBase() - prev.stat_score / params::PriorStatScoreDivisor()
                    + (params::PriorDepthMul() * depth).min(params::PriorDepthMax());
                scale += params::PriorLateMove() * (prev.move_count > params::PriorLateMoveCount()) as i32;
                scale += params::PriorBelowEval()
                    * (!in_check && best_value <= static_eval - params::PriorBelowEvalMargin()) as i32;
                scale += params::PriorBelowPrevEval()
                    * (!prev.in_check
                        && prev.static_eval != VALUE_NONE
                        && best_value <= -prev.static_eval - params::PriorBelowPrevEvalMargin())
                        as i32;
                let scaled = (params::PriorBonusMul() * depth - params::PriorBonusOffset())
                    .min(params::PriorBonusMax())
                    * scale.max(0);
                self.update_continuations(s - 1, pk, scaled * params::PriorCont() / 16384);
                self.history.update_main(!us, pm, scaled * params::PriorMain() / 32768);
                let moved = self.pos.piece_on(pm.to()).map(|p| p.piece_type());
                if moved != Some(PieceType::Pawn) && !pm.is_promotion() {
                    shared.histories.pawn.update(pawns, pk, scaled * params::PriorPawn() / 8192);
                }
            } else if let (Some(pc), Some(cap)) = (self.pos.piece_on(pm.to()), self.pos.captured_piece()) {
                self.history.update_capture(pc, pm.to(), Some(cap.piece_type()), params::PriorCaptureBonus());
            }
        }
        if best_value <= alpha {
            self.stack[s].tt_pv = tt_pv || self.stack[s - 1].tt_pv;
        }

        // Step 22. Store in the table, and teach the correction history how far the static
        // evaluation was from the result.
        if excluded.is_none() && !(ROOT && self.pv_idx > 0) {
            let bound = if best_value >= beta {
                Bound::Lower
            } else if PV && best_move.is_some() {
                Bound::Exact
            } else {
                Bound::Upper
            };
            let store_depth = if move_count != 0 { depth } else { (depth + 6).min(MAX_PLY - 1) };
            let pv = self.stack[s].tt_pv;
            place.store(best_move, best_value, unadjusted_eval, store_depth, bound, pv);
        }
        if !in_check
            && !best_move.is_some_and(|m| self.pos.is_capture(m))
            && (best_value > static_eval) == best_move.is_some()
        {
            let per = if best_move.is_some() { params::CorrBonusBest() } else { params::CorrBonusNone() };
            let bonus = ((best_value - static_eval) * depth * per / 128)
                .clamp(-CORRECTION_LIMIT / 4, CORRECTION_LIMIT / 4);
            let cont = self.correction_cont(s);
            self.correction.update(
                &shared.histories.correction,
                self.pos.structure_keys(),
                us,
                cont,
                bonus * params::CorrBonusScale() / 1024,
            );
        }
        best_value
    }
}

/// The depth qsearch stores its results with, and the depth of an entry that holds only the
/// static evaluation.
pub(super) const DEPTH_QS: Depth = -1;
pub(super) const DEPTH_UNSEARCHED: Depth = -2;
