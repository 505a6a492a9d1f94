//! Depth-first proof-number search (df-pn) over the checks of the attacker and the replies of the
//! defender.
//!
//! The attacker's nodes are OR nodes (one mating check suffices), the defender's AND nodes (every
//! reply must be mated). Each node has a proof number `pn` (how much work a proof still seems to
//! need) and a disproof number `dn`; `mid` searches below a node until one of them reaches its
//! threshold, always descending into the most promising child with thresholds widened by the
//! 1+epsilon trick (the second-best child's number times 1 + epsilon, plus one), so that the
//! search does not bounce between two siblings of nearly equal value. Epsilon is 1/4 for the
//! proof numbers of an attacker node's checks and 1/16 for the disproof numbers of a defender
//! node's replies ([`OR_INVERSE_EPSILON`], [`AND_INVERSE_EPSILON`]).
//!
//! Refinements:
//! - **Remaining depth.** Every call carries the plies left (`depth`); a proof records the length
//!   of the mate it found and a disproof the depth up to which it holds, so the same table serves
//!   the unlimited search and the depth-limited ones that establish the shortest mate. An
//!   unlimited search runs with [`MAX_DEPTH`] plies, which also bounds the recursion.
//! - **Hands.** Results are stored with proof and disproof hands (see `hand.rs`) and found again
//!   for any hand they cover (hand superiority).
//! - **Short mates at the leaves.** A new attacker node first asks [`Position::mate_in_one`]
//!   (once: its later expansions below a defender node know it has none); a new defender node
//!   probes each reply for a mate in one, so a mate in three is found on expansion; an attacker
//!   node with 3 or 4 plies left settles the mate in three directly (`mate_in_three`), without
//!   the table. By tsume convention ([`Search::set_futile`]) a defender node with only futile
//!   interpositions left is mated too (`futile.rs`), and where a search relies on knowing every
//!   mate in one, `futile_mate_in_one` finds those that end so.
//! - **Initial numbers.** A new attacker node starts with the number of its checks as its
//!   disproof number, so that a defender node tries first the reply that leaves the attacker the
//!   fewest checks; in an unlimited search, a new defender node starts with the number of squares
//!   its replies go to as its proof number (df-pn+ style). Interposing drops of several kinds on
//!   one square count once in a defender node's proof number (`aggregate_and`), and an attacker
//!   node's disproof number is the largest of its checks' plus one for each other check, not
//!   their sum (`aggregate_or`).
//! - **Other hands' estimates.** In an unlimited search a new attacker node starts with a proof
//!   number no lower than that of an unknown entry of its board whose attacker hand dominates its
//!   own, and a disproof number no lower than that of one whose hand its own dominates
//!   ([`Table::dominance_floors`]): more pieces in hand never make a mate harder.
//! - **Delayed expansion.** A defender node expands the interposing drops on one square one at
//!   a time, the next once the one before it is proven ([`link_drops`]), and an attacker node
//!   the non-promotion of a pawn, bishop or rook once the promotion is disproven
//!   ([`Search::link_promotions`]): the later moves are usually settled the same way, often by
//!   the table's hand superiority at once. In an unlimited search a defender node with drops
//!   still waiting counts one more in its proof number.
//! - **Sacrifices and distant drops.** An attacker node weighs the proof number of a drop that
//!   the king can simply take by half as much again plus four, and of a drop that checks from a
//!   distance (every square between open to an interposition) by half as much again plus two
//!   ([`Search::drop_add`], [`or_pn`]), so that it tries the other checks first: against a bare
//!   king, the attacker's checks are mostly such drops.
//! - **Repetitions.** A child that repeats a position of the current line, or has the same board
//!   as one with the attacker holding no less in hand, is disproven: a mate exists only if one
//!   without such a cycle does (the cycle can be cut out of any proof), and perpetual check loses
//!   for the attacker anyway. Such a disproof depends on the line it was found on (the
//!   graph-history interaction), so it carries the ply of the earliest repeated position (`rep`).
//!   While that position lies above a node, the node's disproof is returned to its parent (which
//!   keeps it for the rest of its own search) but not stored: the table keeps the node's earlier
//!   estimate, which is what the node is worth reached by another line. Once the search unwinds
//!   to the repeated position itself, the cycle lies wholly inside the node's own subtree, the
//!   disproof holds from any history, and it is stored as final. Proofs never rest on
//!   repetitions, so they are always stored.
//! - **Disproofs that rest on the line, kept.** A depth-limited search (the rounds that establish
//!   the shortest mate) also keeps such a disproof, in the table's part for them
//!   ([`Table::store_rep`]), with the ply of the deepest repeated position above the node
//!   (`rep_hi`, or the parent's ply where that is not known) and a hash of the line down to it.
//!   A probe on a line that is the same down to that ply finds it again: all the repeated
//!   positions it rests on lie above the node then too, so it holds. Without this, each visit
//!   from above derived such a disproof anew, which was most of the work of Microcosmos's last
//!   round (no mate of 1523 plies): 180 M nodes, now 0.1 M. The unlimited search that finds
//!   the first mate does not keep them: it found its first proofs later with them
//!   (docs/records/mate.md, 2026-12-02).

use super::futile;
use super::hand as hands;
use super::movegen;
use super::table::{Probe, Table, INF, PN_MAX, UNLIMITED};
use crate::attacks;
use crate::position::Position;
use crate::sys::time::Instant;
use crate::types::{Color, Hand, Move, MoveKind, PieceType};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};

/// What ends a solve early besides its limits: the caller's stop flag, looked at every 1024
/// nodes (64 on WebAssembly). An `AtomicBool` set from another thread is one; a front end
/// without threads gives one that reads the commands that came while the solver had handed
/// control to its host (`crate::sys::host_yield`; the WebAssembly build, see `crate::engine::mate`).
pub trait Stop: Sync {
    fn stopped(&self) -> bool;
    /// Called when the solver got control back from its host (never where there are threads).
    fn resumed(&self) {}
}

impl Stop for AtomicBool {
    fn stopped(&self) -> bool {
        self.load(Ordering::Relaxed)
    }
}

/// Nodes between looks at the budget and the stop flag. On WebAssembly the look is also where the
/// solver hands control to its host (see [`Stop`]), so it comes more often there.
pub(crate) const POLL_INTERVAL: u64 = if cfg!(target_family = "wasm") { 64 } else { 1024 };

/// The remaining depth of an unlimited search (and the deepest line it follows).
pub(crate) const MAX_DEPTH: u16 = 2000;
/// The key salt of searches in which white attacks (bit 0, the side-to-move bit of board keys,
/// left alone).
const WHITE_ATTACKS: u64 = 0x5bd1_e995_7f4a_7c14;
/// The key salt of searches by tsume convention (see [`Search::set_futile`]; bit 0 left alone).
const FUTILE: u64 = 0x2545_f491_4f6c_dd1c;

/// A salt for the pieces in play: how many of each kind exist on the board and in both hands
/// (see [`Search::key`]).
fn material_salt(pos: &Position) -> u64 {
    let mut counts = [0u64; PieceType::NUM];
    for c in Color::ALL {
        for pt in PieceType::HAND {
            counts[pt.index()] += u64::from(pos.hand(c).count(pt));
        }
    }
    for sq in crate::types::Square::ALL {
        if let Some(pc) = pos.piece_on(sq) {
            counts[pc.piece_type().unpromote().index()] += 1;
        }
    }
    let mut h = 0u64;
    for pt in PieceType::HAND {
        h = (h ^ counts[pt.index()]).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(23);
    }
    h & !1
}

/// The inverse of epsilon in the 1+epsilon threshold of an attacker node's checks (their proof
/// numbers): epsilon 1/4.
const OR_INVERSE_EPSILON: u64 = 4;
/// The same for a defender node's replies (their disproof numbers): epsilon 1/16, so that
/// the search stays longer with the reply it tries to refute a check with. On the suite's long
/// rows 28.1 M nodes against 37.4 M with 1/4 (docs/records/mate.md, 2026-12-02).
const AND_INVERSE_EPSILON: u64 = 16;

/// An attacker node weighs the proof number of a sacrifice (a drop next to the defender's king
/// that no other attacker piece covers) or of a distant drop (one that checks along a line with
/// squares between) by this many percent more (see [`Search::drop_add`])...
const DROP_PERCENT: u64 = 50;
/// ... plus this for a sacrifice: such a drop gives the king a free capture and the attacker a
/// piece less, so it is tried after the checks of equal numbers. Against a bare king most checks
/// are such drops: on the bare-king ladder of docs/records/mate.md (2026-12-05) the first proofs of
/// 14 positions took 23.4 M nodes with these weights (sacrifices only); without, 34.2 M for 12 of
/// them and none for the other two within 30 M each (of 25/2, 50/4 and 100/8, 50/4 was best).
const SACRIFICE_ADD: u32 = 4;
/// ... plus this for a distant drop: the defender may interpose on every square between, so such
/// a check has many replies. On the bare-king ladder of docs/records/mate.md, adds of 1, 2 and 4
/// took 23.1 M, 18.1 M and 19.2 M nodes against 23.4 M without.
const DISTANT_DROP_ADD: u32 = 2;

/// `rep` of a result that rests on no repetition.
const NO_REP: u16 = u16::MAX;

/// The value of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NodeValue {
    pub pn: u32,
    pub dn: u32,
    /// Proof hand (proven), disproof hand (disproven), the node's attacker hand otherwise.
    pub hand: Hand,
    /// Mate length (proven) or depth of validity (disproven).
    pub len: u16,
    /// For a disproof resting on a repetition of the current line: the ply of the earliest
    /// repeated position that lies above the node; `NO_REP` otherwise.
    pub rep: u16,
    /// With `rep`: a ply at or above the node's parent and at or below the deepest repeated
    /// position the disproof rests on above the node (the line down to it keeps the disproof).
    pub rep_hi: u16,
    /// The proving move (proven attacker nodes).
    pub best: Option<Move>,
}

impl NodeValue {
    fn unknown(pn: u32, dn: u32, hand: Hand) -> NodeValue {
        NodeValue { pn, dn, hand, len: 0, rep: NO_REP, rep_hi: NO_REP, best: None }
    }

    fn proven(hand: Hand, len: u16, best: Option<Move>) -> NodeValue {
        NodeValue { pn: 0, dn: INF, hand, len, rep: NO_REP, rep_hi: NO_REP, best }
    }

    fn disproven(hand: Hand, len: u16, rep: u16) -> NodeValue {
        NodeValue { pn: INF, dn: 0, hand, len, rep, rep_hi: rep, best: None }
    }

    fn from_probe(p: Probe) -> NodeValue {
        NodeValue { pn: p.pn, dn: p.dn, hand: p.hand, len: p.len, rep: NO_REP, rep_hi: NO_REP, best: p.best }
    }

    #[inline(always)]
    pub fn is_proven(&self) -> bool {
        self.pn == 0
    }

    #[inline(always)]
    pub fn is_disproven(&self) -> bool {
        self.dn == 0
    }
}

/// One move of a node being searched, with what is known of the position it leads to.
#[derive(Clone, Copy)]
struct Child {
    mv: Move,
    /// Board key after the move.
    key: u64,
    /// Attacker's hand after the move.
    hand: Hand,
    v: NodeValue,
    /// The move expanded once this one is resolved (see [`link_drops`] and
    /// [`Search::link_promotions`]), if any.
    next: u16,
    /// Not expanded yet: it waits for the move whose `next` it is.
    delayed: bool,
    /// At an attacker node: what its proof number counts more than it is, a sacrifice's or a
    /// distant drop's (see [`Search::drop_add`] and [`or_pn`]); 0 for any other check.
    add: u32,
}

/// No next sibling (see [`Child::next`]).
const NO_NEXT: u16 = u16::MAX;

/// Zobrist keys are already uniformly distributed: hash them as they are.
#[derive(Default)]
struct IdentityHasher(u64);

impl Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// The positions of the current line, for repetition detection.
#[derive(Default)]
pub(crate) struct Path {
    /// By ply: the board key, the attacker hand, and the ply of the board's previous occurrence
    /// on the line ([`NO_PLY`] if none).
    stack: Vec<(u64, Hand, u32)>,
    /// The ply of each board key's deepest occurrence on the line: with the links on the stack,
    /// a repetition check visits only the occurrences of its own board, however long the line.
    last: HashMap<u64, u32, BuildHasherDefault<IdentityHasher>>,
    /// By ply, a hash of the line from its first position down to that ply.
    lines: Vec<u64>,
}

/// No ply (see [`Path::stack`]).
const NO_PLY: u32 = u32::MAX;

impl Path {
    pub fn len(&self) -> usize {
        self.stack.len()
    }

    pub fn push(&mut self, key: u64, hand: Hand) {
        let above = self.lines.last().copied().unwrap_or(0);
        let line = (above.rotate_left(29) ^ key ^ u64::from(hand.bits()).wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .wrapping_mul(0xBF58_476D_1CE4_E5B9);
        self.lines.push(line);
        let prev = self.last.insert(key, self.stack.len() as u32).unwrap_or(NO_PLY);
        self.stack.push((key, hand, prev));
    }

    pub fn pop(&mut self) {
        let (key, _, prev) = self.stack.pop().expect("a position on the path");
        self.lines.pop();
        if prev == NO_PLY {
            self.last.remove(&key);
        } else {
            self.last.insert(key, prev);
        }
    }

    /// The hashes of the line by ply (see [`Table::probe_rep`]).
    #[inline(always)]
    pub fn lines(&self) -> &[u64] {
        &self.lines
    }

    /// The ply of the deepest position on the line with this board and an attacker hand that
    /// dominates `hand` (the attacker is no better off now), if any.
    #[inline]
    pub fn repeats(&self, key: u64, hand: Hand) -> Option<u16> {
        let mut ply = *self.last.get(&key)?;
        loop {
            let (_, h, prev) = self.stack[ply as usize];
            if h.dominates(hand) {
                return Some(ply as u16);
            }
            if prev == NO_PLY {
                return None;
            }
            ply = prev;
        }
    }
}

/// When to give up.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Budget {
    /// Stop once the node count reaches this.
    pub nodes: u64,
    pub deadline: Option<Instant>,
    /// Whether the caller's stop flag counts.
    pub use_stop: bool,
}

/// The search state: the position, the table, the current line, the counters.
pub(crate) struct Search<'a> {
    pub pos: Position,
    pub tt: &'a mut Table,
    /// The side that checks.
    pub attacker: Color,
    /// Xored into every key (see [`Search::key`]).
    salt: u64,
    pub nodes: u64,
    pub budget: Budget,
    stop: &'a dyn Stop,
    /// Set once the budget is spent; every `mid` then unwinds at once.
    pub aborted: bool,
    /// Tsume convention: a defender with only futile interpositions left is mated (`futile.rs`).
    pub futile: bool,
    /// Give a new defender node the number of squares its replies go to as its initial proof
    /// number (set for unlimited searches: it finds first proofs faster, but slows down the
    /// exhaustive depth-limited searches that establish the shortest mate).
    count_replies: bool,
    /// Keep disproofs that rest on the current line in the table's part for them, and use them
    /// again while the line down to their repeated positions is the same (set for the
    /// depth-limited searches; see the module docs).
    line_disproofs: bool,
    pub path: Path,
    /// Per-ply child lists, reused.
    pool: Vec<Vec<Child>>,
    /// Scratch move lists.
    moves: Vec<Move>,
    replies: Vec<Move>,
    checks: Vec<Move>,
}

impl<'a> Search<'a> {
    pub fn new(pos: Position, tt: &'a mut Table, budget: Budget, stop: &'a dyn Stop) -> Self {
        let attacker = pos.side_to_move();
        let salt = material_salt(&pos)
            ^ match attacker {
                Color::Black => 0,
                Color::White => WHITE_ATTACKS,
            };
        Search {
            pos,
            tt,
            attacker,
            salt,
            nodes: 0,
            budget,
            stop,
            aborted: false,
            futile: false,
            count_replies: false,
            line_disproofs: false,
            path: Path::default(),
            pool: Vec::new(),
            moves: Vec::with_capacity(crate::position::MAX_MOVES),
            replies: Vec::with_capacity(crate::position::MAX_MOVES),
            checks: Vec::with_capacity(crate::position::MAX_MOVES),
        }
    }

    /// Searches by tsume convention from now on: futile interpositions do not count (see
    /// `futile.rs`). Results differ from those of the plain rules, so the keys do too.
    pub fn set_futile(&mut self) {
        if !self.futile {
            self.futile = true;
            self.salt ^= FUTILE;
        }
    }

    /// At a defender node with legal moves `replies`: whether it is mated now, and the attacker's
    /// hand that proof needs. By convention every interposition may be futile, which holds for
    /// any hands; else an ordinary mate needs [`Search::interposition_hand`].
    pub fn mated_now(&mut self, replies: &[Move]) -> Option<Hand> {
        if self.futile && futile::mated_with(&mut self.pos, replies) {
            Some(Hand::EMPTY)
        } else if replies.is_empty() {
            Some(self.interposition_hand())
        } else {
            None
        }
    }

    /// At an attacker node without an ordinary mate in one, by convention: a check after which the
    /// defender has only futile interpositions, as a proven value. (Used where a search relies on
    /// knowing every mate in one.)
    fn futile_mate_in_one(&mut self) -> Option<NodeValue> {
        if !self.futile {
            return None;
        }
        let hand = self.attacker_hand();
        let mut checks = std::mem::take(&mut self.checks);
        checks.clear();
        movegen::checks(&self.pos, &mut checks);
        let mut found = None;
        for &m in &checks {
            self.pos.do_move(m);
            let checkers = self.pos.checkers();
            // A mate by convention that is not an ordinary one checks alone from a distance.
            let distant = !checkers.more_than_one()
                && match (checkers.lsb(), self.pos.king_square(self.pos.side_to_move())) {
                    (Some(c), Some(k)) => !attacks::between(k, c).is_empty(),
                    _ => false,
                };
            let mated = distant && futile::mated(&mut self.pos);
            self.pos.undo_move(m);
            if mated {
                let p = hands::min(self.hand_before_attack(Hand::EMPTY, m), hand);
                found = Some(NodeValue::proven(p, 1, Some(m)));
                break;
            }
        }
        self.checks = checks;
        found
    }

    /// The key of the current position for the table and the path: the board key, salted with
    /// the attacker's colour and the pieces in play. The table outlives a search, and results
    /// are only valid among searches that agree on both: the same board with the same side to
    /// move is an attacker node when that side attacks but a defender node when it defends; and
    /// the defender's hand, which the table does not store, is whatever the board and the
    /// attacker's hand leave of the pieces in play (composed problems often leave pieces out).
    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.pos.board_key() ^ self.salt
    }

    /// [`Search::key`] of the position after `m`.
    #[inline(always)]
    pub fn key_after(&self, m: Move) -> u64 {
        movegen::board_key_after(&self.pos, m) ^ self.salt
    }

    /// The attacker's hand in the current position.
    #[inline(always)]
    pub fn attacker_hand(&self) -> Hand {
        self.pos.hand(self.attacker)
    }

    /// Checks the budget (every [`POLL_INTERVAL`] nodes).
    #[inline(always)]
    fn count_node(&mut self) {
        self.nodes += 1;
        if self.nodes.is_multiple_of(POLL_INTERVAL) {
            self.poll();
        }
    }

    fn poll(&mut self) {
        let limits_reached = self.limits_reached(&self.budget);
        if self.nodes >= self.budget.nodes || limits_reached {
            self.aborted = true;
        }
    }

    /// Gives the host its turn where it has no threads, and tells whether `budget`'s deadline
    /// has passed or, where it heeds the stop flag, a stop came: the search's look every
    /// [`POLL_INTERVAL`] nodes, and a walk's over the table every as many positions.
    pub fn limits_reached(&self, budget: &Budget) -> bool {
        if crate::sys::host_yield::pause_if_due() {
            self.stop.resumed();
        }
        (budget.use_stop && self.stop.stopped()) || budget.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Searches the current position (the line to it already on `path`) until it is proven or
    /// disproven within `depth` plies or the budget runs out.
    pub fn run(&mut self, depth: u16) -> NodeValue {
        self.aborted = false;
        self.count_replies = depth >= MAX_DEPTH;
        self.line_disproofs = !self.count_replies;
        self.poll();
        let key = self.key();
        let hand = self.attacker_hand();
        let p = self.tt.probe(key, hand, depth, 1, 1);
        if p.pn == 0 || p.dn == 0 {
            return NodeValue::from_probe(p);
        }
        if self.aborted {
            return NodeValue::unknown(p.pn, p.dn, hand);
        }
        let ply = self.path.len() as u16;
        self.path.push(key, hand);
        let v = self.mid(ply, depth, INF, INF, false);
        self.path.pop();
        v
    }

    /// The attacker's hand after the attacker's move `m` from the current position.
    #[inline]
    pub fn hand_after_attack(&self, hand: Hand, m: Move) -> Hand {
        match m.kind() {
            MoveKind::Drop { piece, .. } => hands::minus(hand, piece),
            MoveKind::Normal { to, .. } => match self.pos.piece_on(to) {
                Some(cap) => hands::plus(hand, cap.piece_type().unpromote()),
                None => hand,
            },
        }
    }

    /// A hand before the attacker's move `m` (current position) from the matching hand after it:
    /// plus the dropped piece, minus the captured one.
    #[inline]
    fn hand_before_attack(&self, after: Hand, m: Move) -> Hand {
        match m.kind() {
            MoveKind::Drop { piece, .. } => hands::plus(after, piece),
            MoveKind::Normal { to, .. } => match self.pos.piece_on(to) {
                Some(cap) => hands::minus(after, cap.piece_type().unpromote()),
                None => after,
            },
        }
    }

    /// At a defender node in check: the attacker pieces a proof must keep so that the defender
    /// gains no interposition (every kind the defender lacks, when the check can be blocked).
    fn interposition_hand(&self) -> Hand {
        let defender = self.pos.side_to_move();
        let checkers = self.pos.checkers();
        if checkers.more_than_one() {
            return Hand::EMPTY;
        }
        let (Some(checker), Some(k)) = (checkers.lsb(), self.pos.king_square(defender)) else {
            return Hand::EMPTY;
        };
        if attacks::between(k, checker).is_empty() {
            return Hand::EMPTY;
        }
        let theirs = self.pos.hand(defender);
        let ours = self.pos.hand(self.attacker);
        let mut p = Hand::EMPTY;
        for pt in PieceType::HAND {
            if theirs.count(pt) == 0 && ours.count(pt) > 0 {
                p = hands::with(p, pt, ours.count(pt));
            }
        }
        p
    }

    /// The value of the current attacker node, mated at once by `m`.
    fn mate_in_one_value(&mut self, m: Move) -> NodeValue {
        let hand = self.attacker_hand();
        self.pos.do_move(m);
        self.count_node();
        let leaf = self.interposition_hand();
        self.pos.undo_move(m);
        let p = hands::min(self.hand_before_attack(leaf, m), hand);
        NodeValue::proven(p, 1, Some(m))
    }

    /// At an attacker node with no mate in one and `depth` 3 or 4 plies left: the mate in three
    /// (or the depth-limited disproof). Each of `checks` is tried against every reply with
    /// `mate_in_one`, without the table. No repetition rule is needed: a proof holds whatever
    /// the line, and the disproof rests on trying everything.
    fn mate_in_three(&mut self, checks: &[Move], depth: u16) -> NodeValue {
        let hand = self.attacker_hand();
        let mut replies = std::mem::take(&mut self.replies);
        let mut result = NodeValue::disproven(hand, depth, NO_REP);
        for &m in checks {
            self.pos.do_move(m);
            self.count_node();
            replies.clear();
            movegen::all_legal(&self.pos, &mut replies);
            // What the proof needs below this check.
            let mut need = self.interposition_hand();
            let mut mated = true;
            let now = self.futile && futile::mated_with(&mut self.pos, &replies);
            if now {
                need = Hand::EMPTY;
            } else {
                for &r in &replies {
                    self.pos.do_move(r);
                    self.count_node();
                    match self.pos.mate_in_one() {
                        Some(m1) => need = hands::max(need, self.mate_in_one_value(m1).hand),
                        None => match self.futile_mate_in_one() {
                            Some(v) => need = hands::max(need, v.hand),
                            None => mated = false,
                        },
                    }
                    self.pos.undo_move(r);
                    if !mated {
                        break;
                    }
                }
            }
            self.pos.undo_move(m);
            if mated {
                let p = hands::min(self.hand_before_attack(need, m), hand);
                let len = if replies.is_empty() || now { 1 } else { 3 };
                result = NodeValue::proven(p, len, Some(m));
                break;
            }
        }
        self.replies = replies;
        result
    }

    /// Stores a node's value (not a disproof resting on a position above the node: see the
    /// module docs).
    fn store(&mut self, key: u64, hand: Hand, v: &NodeValue, amount: u32) {
        if v.pn == 0 {
            self.tt.store_proven(key, v.hand, v.len, v.best, amount);
        } else if v.dn == 0 {
            if v.rep == NO_REP {
                self.tt.store_disproven(key, v.hand, v.len, amount);
            } else if self.line_disproofs {
                let line = self.path.lines()[v.rep_hi as usize];
                self.tt.store_rep(key, v.hand, v.len, v.rep, v.rep_hi, line);
            }
        } else {
            self.tt.store_unknown(key, hand, v.pn, v.dn, amount);
        }
    }

    /// At an attacker node: the add of check `m` in its weighted proof number ([`or_pn`]):
    /// [`SACRIFICE_ADD`] for a sacrifice, a drop next to the defender's king on a square no other
    /// attacker piece covers (the king can simply take it); [`DISTANT_DROP_ADD`] for a drop that
    /// checks along a line with squares between (each open to an interposition); 0 otherwise.
    fn drop_add(&self, m: Move) -> u32 {
        if !m.is_drop() {
            return 0;
        }
        let Some(k) = self.pos.king_square(!self.attacker) else { return 0 };
        let to = m.to();
        if !attacks::king(k).contains(to) {
            return if attacks::between(k, to).is_empty() { 0 } else { DISTANT_DROP_ADD };
        }
        let occ = self.pos.occupied() | crate::bitboard::Bitboard::from_square(to);
        if self.pos.attackers_to(self.attacker, to, occ).is_empty() {
            SACRIFICE_ADD
        } else {
            0
        }
    }

    /// At an attacker node: delays the non-promotion of a pawn, bishop or rook (or of a lance to
    /// the second rank, where it could still move) until the promotion of the same move is
    /// disproven. The non-promotion is rarely better (pawn-drop mate aside), and the node is
    /// disproven only when both are, so this too changes the order of the search, not its
    /// result.
    fn link_promotions(&self, children: &mut [Child]) {
        // The generator emits a piece's promotions before its non-promotions.
        let mut promotion = [NO_NEXT; crate::types::Square::NUM];
        for i in 0..children.len() {
            let MoveKind::Normal { from, to, promote } = children[i].mv.kind() else { continue };
            if promote {
                promotion[to.index()] = i as u16;
                continue;
            }
            let j = promotion[to.index()];
            if j == NO_NEXT || children[j as usize].mv.from() != from {
                continue;
            }
            let Some(pc) = self.pos.piece_on(from) else { continue };
            let delay = match pc.piece_type() {
                PieceType::Pawn | PieceType::Bishop | PieceType::Rook => true,
                PieceType::Lance => to.relative_rank(self.attacker) == 1,
                _ => false,
            };
            if delay {
                children[j as usize].next = i as u16;
                children[i].delayed = true;
            }
        }
    }

    /// Reads what the path and the table know of child `c` of the current node (with
    /// `child_depth` plies left below it), expanding a new one for its initial numbers.
    fn init_child(&mut self, c: &mut Child, or: bool, child_depth: u16) {
        let (m, ckey, chand) = (c.mv, c.key, c.hand);
        if let Some(rp) = self.path.repeats(ckey, chand) {
            c.v = NodeValue::disproven(chand, UNLIMITED, rp);
        } else {
            let p = self.tt.probe(ckey, chand, child_depth, 1, 1);
            c.v = NodeValue::from_probe(p);
            let rep = if self.line_disproofs && p.pn != 0 && p.dn != 0 {
                self.tt.probe_rep(ckey, chand, child_depth, self.path.lines())
            } else {
                None
            };
            if let Some(r) = rep {
                // A disproof found before on this line, resting on it.
                c.v = NodeValue { rep_hi: r.hi, ..NodeValue::disproven(r.hand, r.len, r.lo) };
            } else if !p.found && !or {
                // A new attacker node: look for a mate in one right away.
                self.pos.do_move(m);
                self.count_node();
                if let Some(m1) = self.pos.mate_in_one() {
                    c.v = self.mate_in_one_value(m1);
                    self.tt.store_proven(ckey, c.v.hand, 1, Some(m1), 1);
                } else if let Some(v) = if child_depth == 1 { self.futile_mate_in_one() } else { None } {
                    c.v = v;
                    self.tt.store_proven(ckey, v.hand, 1, v.best, 1);
                } else if child_depth == 1 {
                    c.v = NodeValue::disproven(chand, 1, NO_REP);
                    self.tt.store_disproven(ckey, chand, 1, 1);
                } else {
                    // Its checks are what a disproof must refute: as many as its initial
                    // disproof number, so that the defender tries first the reply that
                    // leaves the fewest.
                    let (mut pn, mut dn) = (1, (movegen::count_checks(&self.pos) as u32).max(1));
                    // In an unlimited search, no less than the board's other hands say (hand
                    // dominance for estimates). Not in the rounds, nor at new defender nodes:
                    // there it cost more nodes than it saved (docs/records/mate.md, 2026-12-07).
                    if self.count_replies {
                        let (fpn, fdn) = self.tt.dominance_floors(ckey, chand);
                        pn = pn.max(fpn);
                        dn = dn.max(fdn);
                    }
                    c.v = NodeValue::unknown(pn, dn, chand);
                    self.tt.store_unknown(ckey, chand, pn, dn, 0);
                }
                self.pos.undo_move(m);
            } else if !p.found && self.count_replies {
                // A new defender node: the more squares its replies go to, the harder it
                // seems to mate (a df-pn+ style initial proof number).
                self.pos.do_move(m);
                self.count_node();
                let mut replies = std::mem::take(&mut self.replies);
                replies.clear();
                movegen::all_legal(&self.pos, &mut replies);
                if let Some(p) = self.mated_now(&replies) {
                    c.v = NodeValue::proven(p, 0, None);
                    self.tt.store_proven(ckey, p, 0, None, 1);
                } else {
                    let mut targets = crate::bitboard::Bitboard::EMPTY;
                    for r in &replies {
                        targets.set(r.to());
                    }
                    let pn = targets.count();
                    c.v = NodeValue::unknown(pn, 1, chand);
                    self.tt.store_unknown(ckey, chand, pn, 1, 0);
                }
                self.replies = replies;
                self.pos.undo_move(m);
            }
        }
    }

    /// Searches the current node (at `ply`, already on the path) until its proof number reaches
    /// `thpn`, its disproof number `thdn`, or it is resolved; stores and returns its value.
    /// `no_mate_in_one`: the node is known to have no mate in one (an attacker node that a
    /// defender node searches below: `init_child` looked for one, or the table's unknown entry
    /// for exactly this position says one was looked for), so `mid` does not look again.
    fn mid(&mut self, ply: u16, depth: u16, thpn: u32, thdn: u32, no_mate_in_one: bool) -> NodeValue {
        let start = self.nodes;
        self.count_node();
        let or = self.pos.side_to_move() == self.attacker;
        let hand = self.attacker_hand();
        let key = self.key();

        // Expansion: the leaves first.
        let mut moves = std::mem::take(&mut self.moves);
        moves.clear();
        if or {
            if depth == 0 {
                self.moves = moves;
                return NodeValue::disproven(hand, 0, NO_REP);
            }
            debug_assert!(!no_mate_in_one || self.pos.mate_in_one().is_none(), "{}", self.pos.to_sfen());
            if let Some(m) = if no_mate_in_one { None } else { self.pos.mate_in_one() } {
                self.moves = moves;
                let v = self.mate_in_one_value(m);
                self.tt.store_proven(key, v.hand, 1, Some(m), 1);
                return v;
            }
            if depth <= 2 {
                // `mate_in_one` finds every ordinary mate in one, `futile_mate_in_one` the others
                // (and mates take an odd number of plies).
                if let Some(v) = self.futile_mate_in_one() {
                    self.moves = moves;
                    self.tt.store_proven(key, v.hand, 1, v.best, 1);
                    return v;
                }
                self.moves = moves;
                let v = NodeValue::disproven(hand, depth, NO_REP);
                self.tt.store_disproven(key, hand, depth, 1);
                return v;
            }
            movegen::checks(&self.pos, &mut moves);
            if depth <= 4 && !moves.is_empty() {
                let v = self.mate_in_three(&moves, depth);
                self.moves = moves;
                if v.is_proven() {
                    self.tt.store_proven(key, v.hand, v.len, v.best, 1);
                } else {
                    self.tt.store_disproven(key, v.hand, v.len, 1);
                }
                return v;
            }
            if moves.is_empty() {
                self.moves = moves;
                // More of a kind already held adds no check; a kind not held may.
                let d = self.without_checking_drops(hands::full(), hand);
                let v = NodeValue::disproven(d, UNLIMITED, NO_REP);
                self.tt.store_disproven(key, d, UNLIMITED, 1);
                return v;
            }
        } else {
            movegen::all_legal(&self.pos, &mut moves);
            if let Some(p) = self.mated_now(&moves) {
                self.moves = moves;
                let v = NodeValue::proven(p, 0, None);
                self.tt.store_proven(key, p, 0, None, 1);
                return v;
            }
            if depth <= 1 {
                // Not mated now, and no time left to mate: a reply that stays legal with more
                // attacker pieces in hand (any board move, else a drop) keeps it so.
                let d = match moves.iter().find(|m| !m.is_drop()) {
                    Some(_) => hands::full(),
                    None => {
                        let pt = moves[0].dropped_piece();
                        hands::with(hands::full(), pt, hand.count(pt))
                    }
                };
                self.moves = moves;
                let v = NodeValue::disproven(d, depth, NO_REP);
                self.tt.store_disproven(key, d, depth, 1);
                return v;
            }
        }

        // The children, as far as the path and the table know them.
        if self.pool.len() <= ply as usize {
            self.pool.resize_with(ply as usize + 1, Vec::new);
        }
        let mut children = std::mem::take(&mut self.pool[ply as usize]);
        children.clear();
        let child_depth = depth - 1;
        for &m in &moves {
            let ckey = self.key_after(m);
            let chand = if or { self.hand_after_attack(hand, m) } else { hand };
            self.tt.prefetch(ckey, self.line_disproofs);
            children.push(Child {
                mv: m,
                key: ckey,
                hand: chand,
                v: NodeValue::unknown(1, 1, chand),
                next: NO_NEXT,
                delayed: false,
                add: if or { self.drop_add(m) } else { 0 },
            });
        }
        if or {
            self.link_promotions(&mut children);
        } else {
            link_drops(&mut children);
        }
        let mut n = 0;
        while n < children.len() {
            if !children[n].delayed {
                let mut c = children[n];
                self.init_child(&mut c, or, child_depth);
                if c.next != NO_NEXT && releases(&c.v, or) {
                    children[c.next as usize].delayed = false;
                }
                children[n] = c;
                if !or && c.v.is_disproven() {
                    // One refutation is enough.
                    n += 1;
                    break;
                }
            }
            n += 1;
        }
        children.truncate(n);
        self.moves = moves;

        // The main loop. The children's values are read from the table once, above; after that
        // each search below a child returns the child's new value, and only that changes (what
        // transpositions change elsewhere is seen when this node is expanded again).
        let (pn, dn) = loop {
            let (pn, dn, best, second, share) =
                if or { aggregate_or(&children) } else { aggregate_and(&children, self.count_replies) };
            if pn == 0 || dn == 0 || pn >= thpn || dn >= thdn || self.aborted {
                break (pn, dn);
            }
            let c = children[best];
            let (cthpn, cthdn) = if or {
                let th = thpn.min(widen(second, OR_INVERSE_EPSILON));
                (weighted_threshold(th, c.add), child_threshold(thdn, dn, share))
            } else {
                (child_threshold(thpn, pn, share), thdn.min(widen(second, AND_INVERSE_EPSILON)))
            };
            self.pos.do_move(c.mv);
            self.path.push(c.key, c.hand);
            // An attacker child's search never starts with a mate in one: `init_child` proved
            // it at once if it had one.
            let v = self.mid(ply + 1, child_depth, cthpn, cthdn, !or);
            self.path.pop();
            self.pos.undo_move(c.mv);
            children[best].v = v;
            if releases(&v, or) {
                // Expand the moves that waited for it (as many as the table resolves at once).
                let mut next = c.next;
                while next != NO_NEXT {
                    let mut d = children[next as usize];
                    d.delayed = false;
                    self.init_child(&mut d, or, child_depth);
                    children[next as usize] = d;
                    if !releases(&d.v, or) {
                        break;
                    }
                    next = d.next;
                }
            }
        };

        let mut v = if pn == 0 {
            if or {
                self.or_proof(&children)
            } else {
                self.and_proof(&children)
            }
        } else if dn == 0 {
            if or {
                self.or_disproof(&children, hand)
            } else {
                and_disproof(&children, hand)
            }
        } else {
            NodeValue::unknown(pn, dn, hand)
        };
        if v.dn == 0 && v.rep != NO_REP {
            if v.rep >= ply {
                // The repeated positions are this one or below it: the cycles lie within this
                // subtree.
                v.rep = NO_REP;
                v.rep_hi = NO_REP;
            } else {
                // Those at this ply or below no longer count.
                v.rep_hi = v.rep_hi.min(ply - 1);
            }
        }
        let amount = (self.nodes - start).min(u32::MAX as u64) as u32;
        self.store(key, hand, &v, amount);
        self.pool[ply as usize] = children;
        v
    }

    /// An attacker node with a proven child: the shortest proven mate.
    fn or_proof(&self, children: &[Child]) -> NodeValue {
        let c = children.iter().filter(|c| c.v.is_proven()).min_by_key(|c| c.v.len).expect("a proven child");
        let p = hands::min(self.hand_before_attack(c.v.hand, c.mv), self.attacker_hand());
        NodeValue::proven(p, c.v.len.saturating_add(1), Some(c.mv))
    }

    /// A defender node whose replies are all proven.
    fn and_proof(&self, children: &[Child]) -> NodeValue {
        let mut p = self.interposition_hand();
        let mut len = 0;
        for c in children {
            p = hands::max(p, c.v.hand);
            len = len.max(c.v.len);
        }
        NodeValue::proven(p, len.saturating_add(1), None)
    }

    /// An attacker node whose checks are all disproven.
    fn or_disproof(&self, children: &[Child], hand: Hand) -> NodeValue {
        let mut d = hands::full();
        let mut len = UNLIMITED;
        // The repeated positions of all the checks' disproofs: the shallowest and the deepest.
        let (mut rep, mut rep_hi) = (NO_REP, NO_REP);
        for c in children {
            d = hands::min(d, self.hand_before_attack(c.v.hand, c.mv));
            len = len.min(c.v.len.saturating_add(1));
            if c.v.rep != NO_REP {
                rep = rep.min(c.v.rep);
                rep_hi = if rep_hi == NO_REP { c.v.rep_hi } else { rep_hi.max(c.v.rep_hi) };
            }
        }
        let d = self.without_checking_drops(d, hand);
        NodeValue { rep_hi, ..NodeValue::disproven(d, len, rep) }
    }

    /// At an attacker node with hand `hand`: disproof hand `d` with no pieces of a kind the
    /// attacker lacks and could drop with check (a check square of that kind is empty), since
    /// holding one would add a check. A kind that no drop could check with keeps its count in
    /// `d`: holding it adds no check here, and the checks' own disproof hands bound it below.
    fn without_checking_drops(&self, mut d: Hand, hand: Hand) -> Hand {
        let empty = !self.pos.occupied();
        for pt in PieceType::HAND {
            if !hand.has(pt) && (self.pos.check_squares(pt) & empty).is_nonempty() {
                d = hands::with(d, pt, 0);
            }
        }
        d
    }
}

/// A defender node with a disproven reply: the refutation that depends least on the line (no
/// repetition, then the deepest validity).
fn and_disproof(children: &[Child], hand: Hand) -> NodeValue {
    let c = children
        .iter()
        .filter(|c| c.v.is_disproven())
        .max_by_key(|c| (c.v.rep == NO_REP, c.v.rep, c.v.len))
        .expect("a disproven child");
    let mut d = c.v.hand;
    if c.mv.is_drop() {
        // The defender must still hold the piece it drops.
        let pt = c.mv.dropped_piece();
        d = hands::with(d, pt, d.count(pt).min(hand.count(pt)));
    }
    NodeValue { rep_hi: c.v.rep_hi, ..NodeValue::disproven(d, c.v.len.saturating_add(1), c.v.rep) }
}

/// Whether a child's value lets the move waiting for it (its `next`) be expanded: at a defender
/// node once it is proven, at an attacker node once it is disproven.
#[inline(always)]
fn releases(v: &NodeValue, or: bool) -> bool {
    if or {
        v.is_disproven()
    } else {
        v.is_proven()
    }
}

/// At a defender node: chains the drops on each square, in the generator's order (pawn, lance,
/// knight, silver, gold, bishop, rook), and delays all but the first of each chain. A delayed
/// drop is expanded once the one before it is proven (`mid`): interpositions on one square are
/// usually refuted the same way, and once one is proven the table's hand superiority often
/// proves the next at once. The node is proven only when every drop is, so this changes the
/// order of the search, not its result. Against a bare king, whose defender holds nearly every
/// piece, this is most of the gain of the 2026-12-05 entry in docs/records/mate.md.
fn link_drops(children: &mut [Child]) {
    let mut last = [NO_NEXT; crate::types::Square::NUM];
    for i in 0..children.len() {
        let m = children[i].mv;
        if !m.is_drop() {
            continue;
        }
        let to = m.to().index();
        if last[to] != NO_NEXT {
            children[last[to] as usize].next = i as u16;
            children[i].delayed = true;
        }
        last[to] = i as u16;
    }
}

/// An attacker node's child's proof number as the node sees it: a sacrifice's or a distant
/// drop's (see [`Search::drop_add`]) counts [`DROP_PERCENT`] more, plus its `add`; a delayed
/// move's is infinite (it is not searched until it is expanded).
#[inline(always)]
fn or_pn(c: &Child) -> u32 {
    if c.delayed {
        INF
    } else if c.add != 0 && c.v.pn != 0 && c.v.pn != INF {
        let pn = c.v.pn as u64;
        (pn + pn * DROP_PERCENT / 100 + c.add as u64).min(PN_MAX as u64) as u32
    } else {
        c.v.pn
    }
}

/// The proof-number threshold of a check with `add` (see [`or_pn`]) from the one its weighted
/// number gets: the smallest proof number at which the weighted one reaches `th`.
#[inline(always)]
fn weighted_threshold(th: u32, add: u32) -> u32 {
    if th == INF || add == 0 {
        th
    } else {
        ((th.saturating_sub(add) as u64 * 100).div_ceil(100 + DROP_PERCENT)) as u32
    }
}

/// The smallest `key` of the children, the index of the first child with it, and the second
/// smallest (`INF` where there are fewer than two children).
#[inline(always)]
fn two_smallest(children: &[Child], key: impl Fn(&Child) -> u32) -> (u32, usize, u32) {
    let (mut smallest, mut best, mut second) = (INF, 0, INF);
    for (i, c) in children.iter().enumerate() {
        let k = key(c);
        if k < smallest {
            second = smallest;
            smallest = k;
            best = i;
        } else if k < second {
            second = k;
        }
    }
    (smallest, best, second)
}

/// (pn, dn, index of the child to search, second-smallest pn, the share of the child to search
/// in dn) of an attacker node.
///
/// The disproof number is the largest among the checks not yet refuted plus one for each other
/// one, not their sum: the checks of a long problem reach the same positions in other orders,
/// and a sum counts those shared subtrees once for each way there, so that a node whose few
/// checks all transpose looks as hard to refute as a bushy one.
#[inline]
fn aggregate_or(children: &[Child]) -> (u32, u32, usize, u32, u32) {
    let (pn, best, second) = two_smallest(children, or_pn);
    if pn == 0 {
        return (0, INF, best, second, 0);
    }
    let (mut max, mut open) = (0u32, 0u64);
    for c in children.iter().filter(|c| c.v.dn != 0 && !c.delayed) {
        max = max.max(c.v.dn);
        open += 1;
    }
    if open == 0 {
        return (INF, 0, best, second, 0);
    }
    // The child's disproof number may grow until it alone would take the node's to the
    // threshold: `max` stands for it in `child_threshold`.
    let dn = (max as u64 + open - 1).min(PN_MAX as u64) as u32;
    (pn, dn, best, second, max)
}

/// (pn, dn, index of the child to search, second-smallest dn, the share of the child to search
/// in pn) of a defender node.
///
/// Adjacent drops on one square (the generator emits the silver, gold, bishop and rook drops of a
/// square together) are counted once, at the largest proof number among them: such
/// interpositions are usually refuted the same way, and summing them makes a check that allows
/// them look far harder than it is. (Grouping the pawn, lance and knight drops too, by sorting,
/// measured worse on the long problems.) Delayed drops (see [`link_drops`]) count nothing
/// themselves; in an unlimited search (`unlimited`), a node with any adds one: it has more to
/// prove than its open replies show.
#[inline]
fn aggregate_and(children: &[Child], unlimited: bool) -> (u32, u32, usize, u32, u32) {
    let (dn, best, second) = two_smallest(children, |c| if c.delayed { INF } else { c.v.dn });
    let mut pn: u64 = 0;
    let mut share = 0;
    let mut i = 0;
    let mut waiting = false;
    while i < children.len() {
        let c = &children[i];
        let mut j = i + 1;
        let mut max = if c.delayed { 0 } else { c.v.pn };
        waiting |= c.delayed;
        if c.mv.is_drop() {
            while j < children.len() && children[j].mv.is_drop() && children[j].mv.to() == c.mv.to() {
                if children[j].delayed {
                    waiting = true;
                } else {
                    max = max.max(children[j].v.pn);
                }
                j += 1;
            }
        }
        if (i..j).contains(&best) {
            share = max;
        }
        pn += max as u64;
        i = j;
    }
    if dn == 0 {
        return (INF, 0, best, second, share);
    }
    if pn == 0 {
        debug_assert!(!waiting, "a delayed drop waits for an unproven one");
        return (0, INF, best, second, share);
    }
    if waiting && unlimited {
        pn += 1;
    }
    (pn.min(PN_MAX as u64) as u32, dn, best, second, share)
}

/// The 1+epsilon threshold from the second-best child's number, epsilon given as its inverse:
/// `second + second / inverse_epsilon + 1`.
#[inline(always)]
fn widen(second: u32, inverse_epsilon: u64) -> u32 {
    let s = second as u64;
    (s + s / inverse_epsilon + 1).min(INF as u64) as u32
}

/// The threshold of the summed number for a child: what the node's threshold leaves over for it.
#[inline(always)]
fn child_threshold(th: u32, sum: u32, own: u32) -> u32 {
    if th == INF {
        INF
    } else {
        (th as u64 - sum as u64 + own as u64).min(INF as u64) as u32
    }
}
