//! The staged move picker: moves come out in the order most likely to cut off early, and each
//! stage is generated only when the previous ones are exhausted.
//!
//! - Main search: the TT move; good captures (by capture history and the captured piece's
//!   value, kept when SEE allows); good quiets (by the histories, with a bonus for checks); bad
//!   captures; bad quiets. The search may ask to skip the quiets that are left.
//! - In check: the TT move, then every evasion (captures first).
//! - Quiescence: the TT move (if a capture), then captures and pawn promotions.
//! - ProbCut: the TT move and the captures (pawn promotions included) whose SEE reaches a
//!   threshold.
//!
//! Pawn promotions count as captures everywhere. The picker yields pseudo-legal moves; the
//! search checks `is_legal` before making one.

use super::history::{from_to_board, from_to_drop, piece_to, ContKeys, History, PawnHistory};
use super::params;
use crate::position::{generate, see::SEE_PIECE_VALUE, uninit_array, GenType, MoveList, Position, MAX_MOVES};
use crate::types::{Move, Piece, PieceType};
use std::mem::MaybeUninit;

#[derive(Clone, Copy, PartialEq, Eq, Debug, PartialOrd, Ord)]
enum Stage {
    MainTt,
    CaptureInit,
    GoodCapture,
    QuietInit,
    GoodQuiet,
    BadCapture,
    BadQuiet,
    EvasionTt,
    EvasionInit,
    Evasion,
    QsTt,
    QsCaptureInit,
    QsCapture,
    ProbCutTt,
    ProbCutInit,
    ProbCut,
    Done,
}

/// What scoring a quiet move reads besides the histories.
#[derive(Clone, Copy)]
pub struct QuietContext {
    pub cont_keys: ContKeys,
    /// The pawn-structure hash (pawn history).
    pub pawns: u64,
    /// Plies from the root (low-ply history).
    pub ply: usize,
}

pub struct MovePicker {
    stage: Stage,
    tt_move: Option<Move>,
    ctx: QuietContext,
    depth: i32,
    /// ProbCut's SEE threshold.
    threshold: i32,
    skip_quiets: bool,
    list: MoveList,
    /// The ordering key of each move of `list`: the score in the high 32 bits, then the move's
    /// generation index (reversed, so that ties keep the generation order) and the move's bits.
    /// Written by the scoring pass of the stage that generated the move (`list[..scored]`)
    /// before any read; left uninitialised beyond (a picker is made at every node).
    keys: [MaybeUninit<i64>; MAX_MOVES],
    scored: usize,
    /// Next move to look at, and the end of the current range.
    cur: usize,
    end_cur: usize,
    /// Bad captures are kept in `list[..end_bad]`.
    end_bad: usize,
    /// End of the captures; quiets follow up to `end_generated`. The quiets' order is held in
    /// their keys (which carry the moves), not in `list`.
    end_captures: usize,
    end_generated: usize,
    /// The quiets scored at or above the sorting limit are `keys[end_captures..end_above]`; the
    /// first few are picked by selection, the rest sorted when that many were not enough.
    end_above: usize,
    quiet_picks: u32,
    quiets_sorted: bool,
}

/// The value of the piece a move captures (0 for a pawn promotion without capture).
#[inline(always)]
fn captured_value(pos: &Position, m: Move) -> i32 {
    pos.piece_on(m.to()).map_or(0, |p| SEE_PIECE_VALUE[p.piece_type().index()])
}

/// A capture's ordering score: capture history plus `CaptureValueWeight` times the captured
/// piece's value.
#[inline]
fn capture_score(pos: &Position, history: &History, m: Move) -> i32 {
    let captured = pos.piece_on(m.to()).map(|p| p.piece_type());
    history.capture(pos.moved_piece_after(m), m.to(), captured)
        + params::CaptureValueWeight() * captured_value(pos, m)
}

/// What scoring quiet moves reads at one node, looked up once: the rows of the histories and
/// the check squares of each kind.
struct QuietScorer {
    main: usize,
    pawn: usize,
    cont: [usize; 5],
    low_ply: Option<(usize, i32)>,
    /// The squares from which each kind gives check, one bit per square index (a bitboard's
    /// halves joined), for a test without vector registers.
    checks: [u128; PieceType::NUM],
}

impl QuietScorer {
    fn new(pos: &Position, ctx: &QuietContext, pawn: &PawnHistory) -> QuietScorer {
        let k = &ctx.cont_keys;
        let mut checks = [0u128; PieceType::NUM];
        for pt in PieceType::ALL {
            if pt != PieceType::King {
                let b = pos.check_squares(pt);
                checks[pt.index()] = b.lo() as u128 | (b.hi() as u128) << 63;
            }
        }
        QuietScorer {
            main: History::main_base(pos.side_to_move()),
            pawn: pawn.row(ctx.pawns),
            cont: [k[0], k[1], k[2], k[3], k[5]].map(History::cont_row),
            low_ply: (ctx.ply < super::history::LOW_PLY).then_some((ctx.ply, 1 + ctx.ply as i32)),
            checks,
        }
    }

    /// A quiet move's ordering score: main and pawn histories (doubled), the continuation
    /// histories of the moves 1, 2, 3, 4 and 6 plies back, the low-ply history near the root, and
    /// a bonus for a check that does not lose material (`QuietCheckBonus`, `QuietCheckSee`). `pc`
    /// is the piece the move leaves on its destination; `ft` its (origin, destination) index.
    #[inline(always)]
    fn score(
        &self,
        pos: &Position,
        history: &History,
        pawn: &PawnHistory,
        m: Move,
        pc: Piece,
        ft: usize,
    ) -> i32 {
        let key = piece_to(pc, m.to());
        let c = &self.cont;
        let mut v = 2 * history.main_at(self.main, ft) + 2 * pawn.at(self.pawn, key);
        v += history.cont_at(c[0], key)
            + history.cont_at(c[1], key)
            + history.cont_at(c[2], key)
            + history.cont_at(c[3], key)
            + history.cont_at(c[4], key);
        if self.checks[pc.piece_type().index()] >> m.to().index() & 1 != 0
            && pos.see_ge(m, -params::QuietCheckSee())
        {
            v += params::QuietCheckBonus();
        }
        if let Some((ply, div)) = self.low_ply {
            v += params::QuietLowPlyWeight() * history.low_ply_at(ply, ft) / div;
        }
        v
    }
}

/// Packs a score with the move and its index among the moves scored together.
#[inline(always)]
fn pack(score: i32, index: usize, m: Move) -> i64 {
    ((score as i64) << 32) | ((0xffff - index as i64) << 16) | m.bits() as i64
}

/// The move a key carries.
#[inline(always)]
fn move_of(key: i64) -> Move {
    // SAFETY: every key is made by `pack`, whose low 16 bits are the bits of a move.
    unsafe { Move::from_bits_unchecked(key as u16) }
}

#[inline(always)]
fn score_of(key: i64) -> i32 {
    (key >> 32) as i32
}

/// Sorts the keys at or above `(limit << 32)` to the front in descending order; the order of the
/// rest is left as it comes. (Keys are unique, so an unstable sort gives one order.)
fn partial_sort(keys: &mut [i64], limit: i32) {
    let limit = (limit as i64) << 32;
    let mut above = 0;
    for i in 0..keys.len() {
        if keys[i] >= limit {
            keys.swap(above, i);
            above += 1;
        }
    }
    keys[..above].sort_unstable_by(|a, b| b.cmp(a));
}

impl MovePicker {
    fn with(
        stage: Stage,
        tt_move: Option<Move>,
        ctx: QuietContext,
        depth: i32,
        all_moves: bool,
    ) -> MovePicker {
        MovePicker {
            stage,
            tt_move,
            ctx,
            depth,
            threshold: 0,
            skip_quiets: false,
            list: MoveList::new(all_moves),
            keys: uninit_array(),
            scored: 0,
            cur: 0,
            end_cur: 0,
            end_bad: 0,
            end_captures: 0,
            end_generated: 0,
            end_above: 0,
            quiet_picks: 0,
            quiets_sorted: false,
        }
    }

    /// For the main search (in check or not).
    pub fn new(
        pos: &Position,
        tt_move: Option<Move>,
        depth: i32,
        ctx: QuietContext,
        all_moves: bool,
    ) -> MovePicker {
        let tt_move = tt_move.filter(|&m| pos.is_pseudo_legal(m));
        let stage = if pos.in_check() { Stage::EvasionTt } else { Stage::MainTt };
        MovePicker::with(stage, tt_move, ctx, depth, all_moves)
    }

    /// For quiescence search: captures and pawn promotions (all evasions when in check).
    pub fn new_qsearch(
        pos: &Position,
        tt_move: Option<Move>,
        ctx: QuietContext,
        all_moves: bool,
    ) -> MovePicker {
        let in_check = pos.in_check();
        let tt_move =
            tt_move.filter(|&m| pos.is_pseudo_legal(m)).filter(|&m| in_check || is_tactical(pos, m));
        let stage = if in_check { Stage::EvasionTt } else { Stage::QsTt };
        MovePicker::with(stage, tt_move, ctx, 0, all_moves)
    }

    /// For ProbCut: captures and pawn promotions whose SEE is at least `threshold` (the position
    /// is not in check).
    pub fn new_probcut(pos: &Position, tt_move: Option<Move>, threshold: i32, all_moves: bool) -> MovePicker {
        debug_assert!(!pos.in_check());
        let tt_move = tt_move
            .filter(|&m| pos.is_pseudo_legal(m))
            .filter(|&m| is_tactical(pos, m) && pos.see_ge(m, threshold));
        let ctx = QuietContext { cont_keys: [None; super::history::CONT_PLIES], pawns: 0, ply: 0 };
        let mut mp = MovePicker::with(Stage::ProbCutTt, tt_move, ctx, 0, all_moves);
        mp.threshold = threshold;
        mp
    }

    /// No more quiet moves from this picker (move-count pruning).
    pub fn skip_quiet_moves(&mut self) {
        self.skip_quiets = true;
    }

    /// The key of move `i` (scored already).
    #[inline(always)]
    fn key(&self, i: usize) -> i64 {
        assert!(i < self.scored);
        // SAFETY: `keys[..scored]` are written (`score_range` writes every index up to the list's
        // length and sets `scored` to it), as the assertion above checks.
        unsafe { self.keys[i].assume_init() }
    }

    /// Scores `list[from..]` with `score`, sorts the scored keys at or above `limit` to the front
    /// of the range, and puts the moves in the keys' order.
    fn score_range(&mut self, from: usize, limit: i32, score: impl Fn(Move) -> i32) {
        let end = self.list.len();
        for i in from..end {
            let m = self.list.as_slice()[i];
            self.keys[i] = MaybeUninit::new(pack(score(m), i - from, m));
        }
        self.scored = end;
        // SAFETY: `keys[from..end]` are written (just above), and `MaybeUninit<i64>` has the
        // layout of `i64`.
        let keys = unsafe {
            std::slice::from_raw_parts_mut(self.keys.as_mut_ptr().add(from).cast::<i64>(), end - from)
        };
        partial_sort(keys, limit);
        for (i, &key) in (from..end).zip(keys.iter()) {
            self.list.as_mut_slice()[i] = move_of(key);
        }
    }

    /// Scores the quiets `list[end_captures..]` into their keys and moves those at or above the
    /// sorting limit (`-QuietSortDepth * depth`) to the front of the range. (Out of line, like the
    /// other stage set-ups: `next` runs at every node and must stay small in the instruction
    /// cache.)
    #[inline(never)]
    fn score_quiets(&mut self, pos: &Position, history: &History, pawn: &PawnHistory) {
        let scorer = QuietScorer::new(pos, &self.ctx, pawn);
        let (from, end) = (self.end_captures, self.list.len());
        let limit = ((-params::QuietSortDepth() * self.depth) as i64) << 32;
        let moves = &self.list.as_slice()[from..end];
        let keys = &mut self.keys[from..end];
        let mut above = 0;
        let mut put = |i: usize, m: Move, score: i32| {
            let key = pack(score, i, m);
            keys[i] = MaybeUninit::new(key);
            if key >= limit {
                // The slot at `above` holds a key below the limit (or is `i` itself).
                keys.swap(above, i);
                above += 1;
            }
        };
        // The generator lists the board moves before the drops: each part is scored without
        // asking every move which it is.
        let drops_from = moves.partition_point(|m| !m.is_drop());
        debug_assert!(moves[drops_from..].iter().all(|m| m.is_drop()));
        for (i, &m) in moves[..drops_from].iter().enumerate() {
            let pc = pos.piece_on(m.from()).expect("a move starts on a piece");
            let pc = if m.is_promotion() { pc.promoted() } else { pc };
            put(i, m, scorer.score(pos, history, pawn, m, pc, from_to_board(m)));
        }
        let us = pos.side_to_move();
        for (i, &m) in moves.iter().enumerate().skip(drops_from) {
            let pt = m.dropped_piece();
            put(i, m, scorer.score(pos, history, pawn, m, Piece::new(us, pt), from_to_drop(pt, m.to())));
        }
        self.scored = end;
        self.end_above = from + above;
        self.quiet_picks = 0;
        self.quiets_sorted = false;
    }

    /// The key of the next quiet in order, advancing `cur`: among the keys at or above the
    /// limit the greatest first (by selection for the first few, then by sorting the rest),
    /// then the others as they lie.
    fn next_quiet_key(&mut self) -> i64 {
        /// Picks by selection before the rest is sorted.
        const SELECTIONS: u32 = 6;
        let i = self.cur;
        if i < self.end_above && !self.quiets_sorted {
            if self.quiet_picks < SELECTIONS {
                let mut best = i;
                let mut best_key = self.key(i);
                for j in i + 1..self.end_above {
                    let k = self.key(j);
                    if k > best_key {
                        best = j;
                        best_key = k;
                    }
                }
                self.keys.swap(i, best);
                self.quiet_picks += 1;
            } else {
                // SAFETY: `keys[i..end_above]` are written (`end_above <= scored`), and
                // `MaybeUninit<i64>` has the layout of `i64`.
                let keys = unsafe {
                    std::slice::from_raw_parts_mut(
                        self.keys.as_mut_ptr().add(i).cast::<i64>(),
                        self.end_above - i,
                    )
                };
                keys.sort_unstable_by(|a, b| b.cmp(a));
                self.quiets_sorted = true;
            }
        }
        self.cur += 1;
        self.key(i)
    }

    /// Generates and orders the evasions: captures first (by the captured value), then the rest
    /// by main and continuation history.
    #[inline(never)]
    fn generate_evasions(&mut self, pos: &Position, history: &History) {
        self.list.clear();
        generate(pos, GenType::Evasions, &mut self.list);
        let us = pos.side_to_move();
        let prev = self.ctx.cont_keys[0];
        self.score_range(0, i32::MIN, |m| {
            if pos.is_capture(m) {
                (1 << 28) + captured_value(pos, m)
            } else {
                let key = piece_to(pos.moved_piece_after(m), m.to());
                history.main(us, m) + history.continuation(prev, key)
            }
        });
        self.cur = 0;
        self.end_cur = self.list.len();
    }

    /// Generates and orders the captures and pawn promotions.
    #[inline(never)]
    fn generate_captures(&mut self, pos: &Position, history: &History) {
        self.list.clear();
        generate(pos, GenType::CapturesProPlus, &mut self.list);
        self.score_range(0, i32::MIN, |m| capture_score(pos, history, m));
        self.cur = 0;
        self.end_bad = 0;
        self.end_captures = self.list.len();
        self.end_cur = self.end_captures;
    }

    /// The next move of `cur..end_cur` other than the TT move for which `keep` holds (moves
    /// for which it fails are passed over).
    #[inline]
    fn select(&mut self, mut keep: impl FnMut(&mut MovePicker, usize) -> bool) -> Option<Move> {
        while self.cur < self.end_cur {
            let i = self.cur;
            let m = self.list.as_slice()[i];
            if Some(m) != self.tt_move && keep(self, i) {
                self.cur += 1;
                return Some(m);
            }
            self.cur += 1;
        }
        None
    }

    /// The next move, or `None` when every stage is exhausted.
    pub fn next(&mut self, pos: &Position, history: &History, pawn: &PawnHistory) -> Option<Move> {
        loop {
            match self.stage {
                Stage::MainTt | Stage::EvasionTt | Stage::QsTt | Stage::ProbCutTt => {
                    self.stage = match self.stage {
                        Stage::MainTt => Stage::CaptureInit,
                        Stage::EvasionTt => Stage::EvasionInit,
                        Stage::QsTt => Stage::QsCaptureInit,
                        _ => Stage::ProbCutInit,
                    };
                    if self.tt_move.is_some() {
                        return self.tt_move;
                    }
                }
                Stage::CaptureInit | Stage::QsCaptureInit | Stage::ProbCutInit => {
                    self.generate_captures(pos, history);
                    self.stage = match self.stage {
                        Stage::CaptureInit => Stage::GoodCapture,
                        Stage::QsCaptureInit => Stage::QsCapture,
                        _ => Stage::ProbCut,
                    };
                }
                Stage::GoodCapture => {
                    let found = self.select(|mp, i| {
                        let m = mp.list.as_slice()[i];
                        if pos.see_ge(m, -score_of(mp.key(i)) / params::CaptureSeeDivisor()) {
                            return true;
                        }
                        // Keep it for the bad-capture stage at the front of the list.
                        mp.list.as_mut_slice().swap(mp.end_bad, i);
                        mp.keys.swap(mp.end_bad, i);
                        mp.end_bad += 1;
                        false
                    });
                    if found.is_some() {
                        return found;
                    }
                    self.stage = Stage::QuietInit;
                }
                Stage::QuietInit => {
                    if !self.skip_quiets {
                        generate(pos, GenType::QuietsProMinus, &mut self.list);
                        self.score_quiets(pos, history, pawn);
                    }
                    self.end_generated = self.list.len();
                    self.cur = self.end_captures;
                    self.stage = Stage::GoodQuiet;
                }
                Stage::GoodQuiet => {
                    if !self.skip_quiets {
                        while self.cur < self.end_generated {
                            let key = self.next_quiet_key();
                            let m = move_of(key);
                            if Some(m) != self.tt_move && score_of(key) > params::GoodQuietThreshold() {
                                return Some(m);
                            }
                        }
                    }
                    self.cur = 0;
                    self.end_cur = self.end_bad;
                    self.stage = Stage::BadCapture;
                }
                Stage::BadCapture => {
                    let found = self.select(|_, _| true);
                    if found.is_some() {
                        return found;
                    }
                    self.cur = self.end_captures;
                    self.stage = Stage::BadQuiet;
                }
                Stage::BadQuiet => {
                    if !self.skip_quiets {
                        while self.cur < self.end_generated {
                            let key = self.key(self.cur);
                            self.cur += 1;
                            let m = move_of(key);
                            if Some(m) != self.tt_move && score_of(key) <= params::GoodQuietThreshold() {
                                return Some(m);
                            }
                        }
                    }
                    self.stage = Stage::Done;
                }
                Stage::EvasionInit => {
                    self.generate_evasions(pos, history);
                    self.stage = Stage::Evasion;
                }
                Stage::Evasion | Stage::QsCapture => {
                    let found = self.select(|_, _| true);
                    if found.is_some() {
                        return found;
                    }
                    self.stage = Stage::Done;
                }
                Stage::ProbCut => {
                    let threshold = self.threshold;
                    let found = self.select(|mp, i| pos.see_ge(mp.list.as_slice()[i], threshold));
                    if found.is_some() {
                        return found;
                    }
                    self.stage = Stage::Done;
                }
                Stage::Done => return None,
            }
        }
    }
}

/// Captures and pawn promotions: the moves of the capture stages.
#[inline]
pub fn is_tactical(pos: &Position, m: Move) -> bool {
    pos.is_capture(m) || (m.is_promotion() && pos.moved_piece(m).piece_type() == PieceType::Pawn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::STARTPOS;

    fn ctx(ply: usize) -> QuietContext {
        QuietContext { cont_keys: [Some(5), None, Some(9), None, None, Some(11)], pawns: 12345, ply }
    }

    /// Walks the tree through the picker: every legal move exactly once, so the counts equal
    /// perft's (with all moves generated).
    fn picker_perft(pos: &mut Position, depth: u32, history: &History, pawn: &PawnHistory) -> u64 {
        if depth == 0 {
            return 1;
        }
        let legal = MoveList::legal(pos, true);
        let pick = |i: usize| legal.as_slice().get(i * 7 % legal.len().max(1)).copied();
        let mut picker = MovePicker::new(pos, pick(0), depth as i32, ctx(depth as usize), true);
        let mut seen = Vec::new();
        let mut n = 0;
        while let Some(m) = picker.next(pos, history, pawn) {
            if !pos.is_legal(m) {
                continue;
            }
            assert!(!seen.contains(&m), "{m} twice in {}", pos.to_sfen());
            seen.push(m);
            pos.do_move(m);
            n += picker_perft(pos, depth - 1, history, pawn);
            pos.undo_move(m);
        }
        assert_eq!(seen.len(), legal.len(), "picker missed moves in {}", pos.to_sfen());
        n
    }

    #[test]
    fn picker_yields_every_legal_move_once() {
        let mut history = History::default();
        let pawn = PawnHistory::try_new(1).unwrap();
        // Some history, so that good and bad quiets both occur.
        let mut pos = Position::from_sfen(STARTPOS).unwrap();
        for (i, m) in MoveList::legal(&pos, true).iter().enumerate() {
            history.update_main(pos.side_to_move(), *m, if i % 2 == 0 { 7000 } else { -7000 });
        }
        assert_eq!(picker_perft(&mut pos, 3, &history, &pawn), 25_470);
        let mut pos =
            Position::from_sfen("l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1")
                .unwrap();
        assert_eq!(picker_perft(&mut pos, 2, &history, &pawn), 28_684);
        let mut pos = Position::from_sfen("R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1").unwrap();
        assert_eq!(picker_perft(&mut pos, 2, &history, &pawn), 105_677);
    }

    #[test]
    fn skipping_quiets_leaves_only_captures() {
        let history = History::default();
        let pawn = PawnHistory::try_new(1).unwrap();
        let pos =
            Position::from_sfen("l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1")
                .unwrap();
        let mut picker = MovePicker::new(&pos, None, 5, ctx(3), false);
        picker.skip_quiet_moves();
        let mut n = 0;
        while let Some(m) = picker.next(&pos, &history, &pawn) {
            assert!(is_tactical(&pos, m), "{m}");
            n += 1;
        }
        let captures = MoveList::generate(&pos, GenType::CapturesProPlus, false);
        assert_eq!(n, captures.len());
    }

    #[test]
    fn probcut_moves_reach_the_threshold() {
        let history = History::default();
        let pawn = PawnHistory::try_new(1).unwrap();
        let pos =
            Position::from_sfen("l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1")
                .unwrap();
        for threshold in [-500, 0, 200, 1000] {
            let mut picker = MovePicker::new_probcut(&pos, None, threshold, false);
            let captures = MoveList::generate(&pos, GenType::CapturesProPlus, false);
            let expected = captures.iter().filter(|&&m| pos.see_ge(m, threshold)).count();
            let mut n = 0;
            while let Some(m) = picker.next(&pos, &history, &pawn) {
                assert!(is_tactical(&pos, m) && pos.see_ge(m, threshold));
                n += 1;
            }
            assert_eq!(n, expected, "threshold {threshold}");
        }
    }

    #[test]
    fn partial_sort_orders_keys_above_the_limit() {
        let mut keys: Vec<i64> = [5, -3, 9, 1, -8, 7, 0]
            .iter()
            .map(|&s| pack(s, 0, Move::drop(PieceType::Gold, crate::types::Square::Sq55)))
            .collect();
        partial_sort(&mut keys, 0);
        let scores: Vec<i32> = keys.iter().map(|&k| score_of(k)).collect();
        assert_eq!(&scores[..5], &[9, 7, 5, 1, 0]);
        let mut rest = scores[5..].to_vec();
        rest.sort();
        assert_eq!(rest, vec![-8, -3]);
    }
}
