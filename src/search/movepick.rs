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

use super::history::{
    from_to, from_to_board, from_to_drop, piece_to, ContKeys, History, PawnHistory, FROM_TO, LOW_PLY,
    PIECE_TO,
};
use super::params;
use crate::position::{generate, see::SEE_PIECE_VALUE, uninit_array, GenType, MoveList, Position, MAX_MOVES};
use crate::types::{Move, Piece, PieceType, Square};
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicI16, Ordering};

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
struct QuietScorer<'a> {
    main: &'a [i16; FROM_TO],
    pawn: &'a [AtomicI16; PIECE_TO],
    cont: [&'a [i16; PIECE_TO]; 5],
    /// The squares from which each kind gives check, one bit per square index in two words (a
    /// bitboard's halves joined), for a test without vector registers.
    checks: [[u64; 2]; PieceType::NUM],
}

impl<'a> QuietScorer<'a> {
    fn new(
        pos: &Position,
        ctx: &QuietContext,
        history: &'a History,
        pawn: &'a PawnHistory,
    ) -> QuietScorer<'a> {
        let k = &ctx.cont_keys;
        let mut checks = [[0u64; 2]; PieceType::NUM];
        for pt in PieceType::ALL {
            if pt != PieceType::King {
                let b = pos.check_squares(pt);
                let joined = b.lo() as u128 | (b.hi() as u128) << 63;
                checks[pt.index()] = [joined as u64, (joined >> 64) as u64];
            }
        }
        QuietScorer {
            main: history.main_entries(pos.side_to_move()),
            pawn: pawn.entries(ctx.pawns),
            cont: [k[0], k[1], k[2], k[3], k[5]].map(|p| history.cont_entries(p)),
            checks,
        }
    }

    /// A quiet move's ordering score from the histories: main and pawn (doubled), and the
    /// continuation histories of the moves 1, 2, 3, 4 and 6 plies back. `key` is the move's
    /// (piece, destination) index ([`piece_to`]), `ft` its (origin, destination) index
    /// ([`from_to_board`], [`from_to_drop`]).
    #[inline(always)]
    fn score(&self, key: usize, ft: usize) -> i32 {
        debug_assert!(key < PIECE_TO && ft < FROM_TO);
        let c = &self.cont;
        // SAFETY: `piece_to` of a piece (index below `Piece::NUM`) and a square (below 81) is
        // below `PIECE_TO`, and the (origin, destination) index of a square or a hand kind (1..=7)
        // and a square is below `FROM_TO`: every index is within its row.
        unsafe {
            2 * *self.main.get_unchecked(ft) as i32
                + 2 * self.pawn.get_unchecked(key).load(Ordering::Relaxed) as i32
                + *c[0].get_unchecked(key) as i32
                + *c[1].get_unchecked(key) as i32
                + *c[2].get_unchecked(key) as i32
                + *c[3].get_unchecked(key) as i32
                + *c[4].get_unchecked(key) as i32
        }
    }

    /// Whether a move that leaves a `pt` on `to` gives check.
    #[inline(always)]
    fn gives_check(&self, pt: PieceType, to: Square) -> bool {
        let i = to.index();
        self.checks[pt.index()][i / 64] >> (i % 64) & 1 != 0
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
    let above = partition_above(keys, limit);
    keys[..above].sort_unstable_by(|a, b| b.cmp(a));
}

/// Moves the keys whose score is at or above `limit` to the front, in their order, and returns
/// how many there are.
#[inline(always)]
fn partition_above(keys: &mut [i64], limit: i32) -> usize {
    let limit = (limit as i64) << 32;
    let mut above = 0;
    for i in 0..keys.len() {
        if keys[i] >= limit {
            // The slot at `above` holds a key below the limit (or is `i` itself).
            keys.swap(above, i);
            above += 1;
        }
    }
    above
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
        let scorer = QuietScorer::new(pos, &self.ctx, history, pawn);
        let (from, end) = (self.end_captures, self.list.len());
        let moves = &self.list.as_slice()[from..end];
        let keys = &mut self.keys[from..end];
        // The moves that give check, for the check bonus after the loop (which then calls
        // nothing, and keeps the history rows in registers).
        let mut checking = [MaybeUninit::<u16>::uninit(); MAX_MOVES];
        let mut checks = 0;
        let mut mark = |i: usize, check: bool| {
            // SAFETY: the loops below mark each index once, in order from 0, so `checks <= i`, and
            // `i < end - from <= MAX_MOVES`.
            unsafe { checking.get_unchecked_mut(checks) }.write(i as u16);
            checks += check as usize;
        };
        // The generator lists the board moves before the drops: each part is scored without
        // asking every move which it is.
        let drops_from = moves.partition_point(|m| !m.is_drop());
        debug_assert!(moves[drops_from..].iter().all(|m| m.is_drop()));
        for (i, &m) in moves[..drops_from].iter().enumerate() {
            let pc = pos.piece_on(m.from()).expect("a move starts on a piece");
            let pc = if m.is_promotion() { pc.promoted() } else { pc };
            let score = scorer.score(piece_to(pc, m.to()), from_to_board(m));
            keys[i] = MaybeUninit::new(pack(score, i, m));
            mark(i, scorer.gives_check(pc.piece_type(), m.to()));
        }
        let us = pos.side_to_move();
        for (i, &m) in moves.iter().enumerate().skip(drops_from) {
            let pt = m.dropped_piece();
            let score = scorer.score(piece_to(Piece::new(us, pt), m.to()), from_to_drop(pt, m.to()));
            keys[i] = MaybeUninit::new(pack(score, i, m));
            mark(i, scorer.gives_check(pt, m.to()));
        }
        // SAFETY: every key of the range is written (just above), and `MaybeUninit<i64>` has the
        // layout of `i64`.
        let keys = unsafe { std::slice::from_raw_parts_mut(keys.as_mut_ptr().cast::<i64>(), end - from) };
        // A check that does not lose material gets a bonus (`QuietCheckBonus`, `QuietCheckSee`);
        // adding to a key's high half adds to its score.
        for i in &checking[..checks] {
            // SAFETY: `mark` wrote `checking[..checks]`.
            let i = unsafe { i.assume_init() } as usize;
            if pos.see_ge(moves[i], -params::QuietCheckSee()) {
                keys[i] += (params::QuietCheckBonus() as i64) << 32;
            }
        }
        // Near the root, the low-ply history.
        if self.ctx.ply < LOW_PLY {
            let row = history.low_ply_entries(self.ctx.ply);
            let div = 1 + self.ctx.ply as i32;
            for (key, &m) in keys.iter_mut().zip(moves) {
                let v = params::QuietLowPlyWeight() * row[from_to(m)] as i32 / div;
                *key += (v as i64) << 32;
            }
        }
        // The keys at or above the sorting limit (`-QuietSortDepth * depth`) go to the front.
        let above = partition_above(keys, -params::QuietSortDepth() * self.depth);
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

    /// A middle game, white to move, with many captures and quiet moves.
    const MIDGAME: &str = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1";

    /// Empty histories and the position `sfen`.
    fn fresh_at(sfen: &str) -> (History, PawnHistory, Position) {
        (History::default(), PawnHistory::try_new(1).unwrap(), Position::from_sfen(sfen).unwrap())
    }

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
        let (mut history, pawn, mut pos) = fresh_at(STARTPOS);
        // Some history, so that good and bad quiets both occur.
        for (i, m) in MoveList::legal(&pos, true).iter().enumerate() {
            history.update_main(pos.side_to_move(), *m, if i % 2 == 0 { 7000 } else { -7000 });
        }
        assert_eq!(picker_perft(&mut pos, 3, &history, &pawn), 25_470);
        let mut pos = Position::from_sfen(MIDGAME).unwrap();
        assert_eq!(picker_perft(&mut pos, 2, &history, &pawn), 28_684);
        let mut pos = Position::from_sfen("R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1").unwrap();
        assert_eq!(picker_perft(&mut pos, 2, &history, &pawn), 105_677);
    }

    #[test]
    fn skipping_quiets_leaves_only_captures() {
        let (history, pawn, pos) = fresh_at(MIDGAME);
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
        let (history, pawn, pos) = fresh_at(MIDGAME);
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

    /// The quiets' keys against the scoring formula written out move by move: each score, the
    /// check bonus, the low-ply history near the root, and the keys at or above the sorting
    /// limit first, in generation order.
    #[test]
    fn quiet_keys_follow_the_histories() {
        let mut checks = 0;
        for sfen in [MIDGAME, "l4S2l/4g1gs1/5p1p1/pr2N1pkp/4Gn3/PP3PPPP/2GPP4/1K7/L3r+s2L w BS2N5Pb 1"] {
            check_quiet_keys(sfen, &mut checks);
        }
        assert!(checks > 0, "the positions have quiet checks that keep their material");
    }

    fn check_quiet_keys(sfen: &str, checks: &mut usize) {
        let (mut history, pawn, pos) = fresh_at(sfen);
        let us = pos.side_to_move();
        let quiets = MoveList::generate(&pos, GenType::QuietsProMinus, false);
        // Histories that differ from move to move (a fixed pseudo-random walk).
        let mut x = 12345u32;
        let mut bonus = || {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (x >> 16) as i32 % 4001 - 2000
        };
        for &m in quiets.iter() {
            let key = piece_to(pos.moved_piece_after(m), m.to());
            history.update_main(us, m, bonus());
            for previous in [5, 9, 11] {
                history.update_continuation(Some(previous), key, bonus());
            }
            pawn.update(12345, key, bonus());
            for ply in 0..LOW_PLY {
                history.update_low_ply(ply, m, bonus());
            }
        }
        for (ply, depth) in [(0, 1), (2, 4), (7, 1), (9, 6)] {
            let ctx = ctx(ply);
            let mut picker = MovePicker::new(&pos, None, depth, ctx, false);
            picker.list.clear();
            generate(&pos, GenType::QuietsProMinus, &mut picker.list);
            picker.end_captures = 0;
            picker.score_quiets(&pos, &history, &pawn);
            let expected: Vec<i64> = quiets
                .iter()
                .enumerate()
                .map(|(i, &m)| {
                    let key = piece_to(pos.moved_piece_after(m), m.to());
                    let cont = |p: Option<usize>| history.continuation(p, key);
                    let k = ctx.cont_keys;
                    let mut v = 2 * history.main(us, m) + 2 * pawn.get(12345, key);
                    v += cont(k[0]) + cont(k[1]) + cont(k[2]) + cont(k[3]) + cont(k[5]);
                    if pos.gives_check(m) && pos.see_ge(m, -params::QuietCheckSee()) {
                        v += params::QuietCheckBonus();
                        *checks += 1;
                    }
                    if ply < LOW_PLY {
                        v += params::QuietLowPlyWeight() * history.low_ply(ply, m) / (1 + ply as i32);
                    }
                    pack(v, i, m)
                })
                .collect();
            let limit = ((-params::QuietSortDepth() * depth) as i64) << 32;
            let above: Vec<i64> = expected.iter().copied().filter(|&k| k >= limit).collect();
            let mut below: Vec<i64> = expected.iter().copied().filter(|&k| k < limit).collect();
            let n = quiets.len();
            let keys: Vec<i64> = (0..n).map(|i| picker.key(i)).collect();
            assert_eq!(picker.end_above, above.len(), "ply {ply}");
            assert_eq!(&keys[..above.len()], &above[..], "ply {ply}");
            let mut rest = keys[above.len()..].to_vec();
            rest.sort();
            below.sort();
            assert_eq!(rest, below, "ply {ply}");
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
