//! The staged move picker: moves come out in the order most likely to cut off early, and each
//! stage is generated only when the previous ones are exhausted.
//!
//! Main search: TT move, good captures (MVV-LVA plus capture history, SEE >= 0; pawn promotions
//! count as captures), two killers, the counter move, quiets by butterfly and continuation
//! histories, then the bad captures. In check: TT move, then every evasion
//! (captures first). Quiescence: TT move (if a capture), then captures and pawn promotions.
//! The picker yields pseudo-legal moves; the search checks `is_legal` before making one.

use super::history::{piece_to, ContKeys, History};
use crate::position::{generate, see::capture_value, uninit_array, GenType, MoveList, Position, MAX_MOVES};
use crate::types::{Move, PieceType};
use std::mem::MaybeUninit;

#[derive(Clone, Copy, PartialEq, Eq, Debug, PartialOrd, Ord)]
enum Stage {
    MainTt,
    CaptureInit,
    GoodCapture,
    Killer0,
    Killer1,
    Counter,
    QuietInit,
    Quiet,
    BadCapture,
    EvasionTt,
    EvasionInit,
    Evasion,
    QsTt,
    QsCaptureInit,
    QsCapture,
    Done,
}

pub struct MovePicker {
    stage: Stage,
    tt_move: Option<Move>,
    killers: [Option<Move>; 2],
    counter: Option<Move>,
    cont_keys: ContKeys,
    list: MoveList,
    /// The score of each move of `list`, written by the scoring pass of the stage that generated
    /// it (`list[..scored]`) before any read; left uninitialised beyond (a picker is made at every
    /// node, and clearing the whole array cost more than the rest of its set-up).
    scores: [MaybeUninit<i64>; MAX_MOVES],
    /// How many leading entries of `scores` are written.
    scored: usize,
    /// Next move to look at.
    cur: usize,
    /// Bad captures are kept in `list[..end_bad]`.
    end_bad: usize,
    /// End of the captures; quiets follow.
    end_captures: usize,
}

/// A capture's ordering score: most valuable victim first, least valuable attacker first;
/// promotions add their gain; the capture history refines it.
#[inline]
fn capture_score(pos: &Position, history: &History, m: Move) -> i32 {
    let victim = pos.piece_on(m.to());
    let attacker = pos.moved_piece(m).piece_type();
    let promo = if m.is_promotion() { promotion_gain(attacker) } else { 0 };
    let hist = victim.map_or(0, |v| history.capture(pos.moved_piece_after(m), m.to(), v.piece_type()));
    victim.map_or(0, |v| capture_value(v.piece_type())) * 8 + promo * 8
        - crate::position::see::SEE_PIECE_VALUE[attacker.index()] / 8
        + hist / 16
}

/// A quiet move's ordering score: butterfly history (doubled) plus continuation histories.
#[inline]
pub fn quiet_score(pos: &Position, history: &History, keys: &ContKeys, m: Move) -> i32 {
    let key = piece_to(pos.moved_piece_after(m), m.to());
    2 * history.butterfly(pos.side_to_move(), m) + history.continuations(keys, key)
}

#[inline]
fn promotion_gain(pt: PieceType) -> i32 {
    let v = &crate::position::see::SEE_PIECE_VALUE;
    v[pt.promote().index()] - v[pt.index()]
}

impl MovePicker {
    /// For the main search (in check or not).
    pub fn new(
        pos: &Position,
        tt_move: Option<Move>,
        killers: [Option<Move>; 2],
        counter: Option<Move>,
        cont_keys: ContKeys,
        all_moves: bool,
    ) -> MovePicker {
        let in_check = pos.in_check();
        let tt_move = tt_move.filter(|&m| pos.is_pseudo_legal(m));
        MovePicker {
            stage: if in_check { Stage::EvasionTt } else { Stage::MainTt },
            tt_move,
            killers,
            counter,
            cont_keys,
            list: MoveList::new(all_moves),
            scores: uninit_array(),
            scored: 0,
            cur: 0,
            end_bad: 0,
            end_captures: 0,
        }
    }

    /// For quiescence search: captures and pawn promotions (all evasions when in check).
    pub fn new_qsearch(pos: &Position, tt_move: Option<Move>, all_moves: bool) -> MovePicker {
        let in_check = pos.in_check();
        let tt_move = tt_move
            .filter(|&m| pos.is_pseudo_legal(m))
            .filter(|&m| in_check || pos.is_capture(m) || is_pawn_promotion(pos, m));
        MovePicker {
            stage: if in_check { Stage::EvasionTt } else { Stage::QsTt },
            tt_move,
            killers: [None; 2],
            counter: None,
            cont_keys: [None; 3],
            list: MoveList::new(all_moves),
            scores: uninit_array(),
            scored: 0,
            cur: 0,
            end_bad: 0,
            end_captures: 0,
        }
    }

    /// The score of move `i` (scored already).
    #[inline(always)]
    fn score(&self, i: usize) -> i64 {
        assert!(i < self.scored);
        // SAFETY: `scores[..scored]` are written (`set_score` writes index `scored` or below, and
        // advances `scored` past it), as the assertion above checks.
        unsafe { self.scores[i].assume_init() }
    }

    /// Writes the score of move `i`; `i` is at most one past the scored entries.
    #[inline(always)]
    fn set_score(&mut self, i: usize, v: i64) {
        debug_assert!(i <= self.scored);
        self.scores[i] = MaybeUninit::new(v);
        self.scored = self.scored.max(i + 1);
    }

    fn score_captures(&mut self, pos: &Position, history: &History, from: usize) {
        for i in from..self.list.len() {
            self.set_score(i, capture_score(pos, history, self.list.as_slice()[i]) as i64);
        }
    }

    /// Scores the quiets in `from..` and sorts them by descending score, ties in generation
    /// order. Each score is packed with the move and its generation index into one key whose
    /// order is exactly that, so an unstable sort of unique keys gives the stable order.
    fn score_and_sort_quiets(&mut self, pos: &Position, history: &History, from: usize) {
        let end = self.list.len();
        for i in from..end {
            let m = self.list.as_slice()[i];
            let s = quiet_score(pos, history, &self.cont_keys, m) as i64;
            let key = (s << 32) | ((0xffff - (i - from) as i64) << 16) | m.bits() as i64;
            self.set_score(i, key);
        }
        debug_assert!(end <= self.scored);
        // SAFETY: `scores[from..end]` are written (just above), and `MaybeUninit<i64>` has the
        // layout of `i64`.
        let keys = unsafe {
            std::slice::from_raw_parts_mut(self.scores.as_mut_ptr().add(from).cast::<i64>(), end - from)
        };
        keys.sort_unstable_by(|a, b| b.cmp(a));
        for (i, &key) in (from..end).zip(keys.iter()) {
            self.list.as_mut_slice()[i] = Move::from_bits(key as u16).expect("a packed move");
        }
    }

    /// Moves the best-scored move of `cur..end` to `cur` (selection step).
    fn select_best(&mut self, end: usize) -> Move {
        let mut best = self.cur;
        let mut best_score = self.score(best);
        for i in self.cur + 1..end {
            let s = self.score(i);
            if s > best_score {
                best = i;
                best_score = s;
            }
        }
        self.swap(self.cur, best);
        let m = self.list.as_slice()[self.cur];
        self.cur += 1;
        m
    }

    fn swap(&mut self, a: usize, b: usize) {
        self.list.as_mut_slice().swap(a, b);
        self.scores.swap(a, b);
    }

    fn is_killer_candidate(&self, pos: &Position, k: Option<Move>) -> Option<Move> {
        let k = k?;
        if Some(k) == self.tt_move
            || pos.is_capture(k)
            || is_pawn_promotion(pos, k)
            || !pos.is_pseudo_legal(k)
        {
            return None;
        }
        Some(k)
    }

    /// The next move, or `None` when every stage is exhausted.
    pub fn next(&mut self, pos: &Position, history: &History) -> Option<Move> {
        loop {
            match self.stage {
                Stage::MainTt | Stage::EvasionTt | Stage::QsTt => {
                    self.stage = match self.stage {
                        Stage::MainTt => Stage::CaptureInit,
                        Stage::EvasionTt => Stage::EvasionInit,
                        _ => Stage::QsCaptureInit,
                    };
                    if self.tt_move.is_some() {
                        return self.tt_move;
                    }
                }
                Stage::CaptureInit | Stage::QsCaptureInit => {
                    self.list.clear();
                    generate(pos, GenType::CapturesProPlus, &mut self.list);
                    self.score_captures(pos, history, 0);
                    self.cur = 0;
                    self.end_bad = 0;
                    self.end_captures = self.list.len();
                    self.stage =
                        if self.stage == Stage::CaptureInit { Stage::GoodCapture } else { Stage::QsCapture };
                }
                Stage::GoodCapture => {
                    if self.cur < self.end_captures {
                        let m = self.select_best(self.end_captures);
                        if Some(m) == self.tt_move {
                            continue;
                        }
                        if pos.see_ge(m, 0) {
                            return Some(m);
                        }
                        // Keep it for the bad-capture stage at the front of the list.
                        self.swap(self.end_bad, self.cur - 1);
                        self.end_bad += 1;
                        continue;
                    }
                    self.stage = Stage::Killer0;
                }
                Stage::Killer0 | Stage::Killer1 => {
                    let i = if self.stage == Stage::Killer0 { 0 } else { 1 };
                    self.stage = if i == 0 { Stage::Killer1 } else { Stage::Counter };
                    if i == 1 && self.killers[1] == self.killers[0] {
                        continue;
                    }
                    if let Some(k) = self.is_killer_candidate(pos, self.killers[i]) {
                        return Some(k);
                    }
                }
                Stage::Counter => {
                    self.stage = Stage::QuietInit;
                    if self.killers.contains(&self.counter) {
                        continue;
                    }
                    if let Some(c) = self.is_killer_candidate(pos, self.counter) {
                        return Some(c);
                    }
                }
                Stage::QuietInit => {
                    generate(pos, GenType::QuietsProMinus, &mut self.list);
                    self.score_and_sort_quiets(pos, history, self.end_captures);
                    self.cur = self.end_captures;
                    self.stage = Stage::Quiet;
                }
                Stage::Quiet => {
                    if self.cur < self.list.len() {
                        let m = self.list.as_slice()[self.cur];
                        self.cur += 1;
                        if Some(m) == self.tt_move
                            || Some(m) == self.killers[0]
                            || Some(m) == self.killers[1]
                            || Some(m) == self.counter
                        {
                            continue;
                        }
                        return Some(m);
                    }
                    self.cur = 0;
                    self.stage = Stage::BadCapture;
                }
                Stage::BadCapture => {
                    if self.cur < self.end_bad {
                        let m = self.list.as_slice()[self.cur];
                        self.cur += 1;
                        return Some(m);
                    }
                    self.stage = Stage::Done;
                }
                Stage::EvasionInit => {
                    self.list.clear();
                    generate(pos, GenType::Evasions, &mut self.list);
                    let us = pos.side_to_move();
                    for i in 0..self.list.len() {
                        let m = self.list.as_slice()[i];
                        let score = if pos.is_capture(m) {
                            (1 << 28) + capture_score(pos, history, m)
                        } else {
                            history.butterfly(us, m)
                        };
                        self.set_score(i, score as i64);
                    }
                    self.cur = 0;
                    self.end_captures = self.list.len();
                    self.stage = Stage::Evasion;
                }
                Stage::Evasion | Stage::QsCapture => {
                    if self.cur < self.end_captures {
                        let m = self.select_best(self.end_captures);
                        if Some(m) == self.tt_move {
                            continue;
                        }
                        return Some(m);
                    }
                    self.stage = Stage::Done;
                }
                Stage::Done => return None,
            }
        }
    }
}

#[inline]
fn is_pawn_promotion(pos: &Position, m: Move) -> bool {
    m.is_promotion() && pos.moved_piece(m).piece_type() == PieceType::Pawn
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::STARTPOS;

    /// Walks the tree through the picker: every legal move exactly once, so the counts equal
    /// perft's (with all moves generated).
    fn picker_perft(pos: &mut Position, depth: u32, history: &History) -> u64 {
        if depth == 0 {
            return 1;
        }
        let legal = MoveList::legal(pos, true);
        // TT move and killers from the legal list (the picker must not repeat them).
        let pick = |i: usize| legal.as_slice().get(i * 7 % legal.len().max(1)).copied();
        let mut picker =
            MovePicker::new(pos, pick(0), [pick(1), pick(2)], pick(3), [Some(5), None, Some(9)], true);
        let mut seen = Vec::new();
        let mut n = 0;
        while let Some(m) = picker.next(pos, history) {
            if !pos.is_legal(m) {
                continue;
            }
            assert!(!seen.contains(&m), "{m} twice in {}", pos.to_sfen());
            seen.push(m);
            pos.do_move(m);
            n += picker_perft(pos, depth - 1, history);
            pos.undo_move(m);
        }
        assert_eq!(seen.len(), legal.len(), "picker missed moves in {}", pos.to_sfen());
        n
    }

    #[test]
    fn picker_yields_every_legal_move_once() {
        let history = History::default();
        let mut pos = Position::from_sfen(STARTPOS).unwrap();
        assert_eq!(picker_perft(&mut pos, 3, &history), 25_470);
        let mut pos =
            Position::from_sfen("l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1")
                .unwrap();
        assert_eq!(picker_perft(&mut pos, 2, &history), 28_684);
        let mut pos = Position::from_sfen("R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1").unwrap();
        assert_eq!(picker_perft(&mut pos, 2, &history), 105_677);
    }
}
