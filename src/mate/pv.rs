//! From a proof to a mating line: the shortest mate, and the line that shows it.
//!
//! df-pn proves *a* mate, not the shortest one. [`shorten`] asks again, at the root, for a mate
//! two plies shorter than the best one known, until such a search fails (the length is then the
//! shortest: a depth-limited disproof) or the budget runs out. The table keeps proofs and
//! disproofs with their lengths and depths, so each round reuses the work of the earlier ones.
//! Before the rounds at the root, the same rounds run at each attacker node of the first proof's
//! line, the deepest first (`suffixes`): a shorter mate found low in the line is then found
//! by a small search below that node, not by a search from the root, and each node's rounds
//! leave the table the proofs and disproofs that those further up need. On Microcosmos
//! (1525 plies) this took the shortening from 118 M nodes to 96 M (docs/records/mate.md).
//!
//! The line itself normally comes from the audit of the proof tree (`audit.rs`). [`extract`] is
//! the cheap fallback that walks a single line from the root with the number of plies left
//! (`budget`), read from the table (nodes whose children were overwritten are searched again):
//! at an attacker node the check whose proven mate is shortest, at a defender node the reply
//! with the largest bound. The table's lengths are upper bounds, so that line is a forced mate
//! but not necessarily the longest resistance.

use super::dfpn::{Budget, Search};
use super::movegen;
use crate::sys::time::Instant;
use crate::types::Move;

/// Lowers the proven mate length `len` of the current position while the budget lasts. Returns
/// the length and whether it is proven to be the shortest.
pub(crate) fn shorten(s: &mut Search, len: u16) -> (u16, bool) {
    // The pass gets half of what is left, so that the rounds at the root still run when it
    // cannot finish (they then start from what it found).
    let budget = s.budget;
    let now = Instant::now();
    let half = Budget {
        nodes: s.nodes.saturating_add(budget.nodes.saturating_sub(s.nodes) / 2),
        deadline: budget.deadline.map(|d| now.checked_add(d.duration_since(now) / 2).unwrap_or(d)),
        ..budget
    };
    if let Some(line) = extract(s, len, half) {
        s.budget = half;
        suffixes(s, len, &line);
    }
    s.budget = budget;
    rounds(s, len)
}

/// Depth-limited searches of the current position for a mate two plies under the shortest one
/// known (`len`), until one fails: the shortest length found, and whether it is proven the
/// shortest (false: the budget ran out).
fn rounds(s: &mut Search, mut len: u16) -> (u16, bool) {
    while len > 1 {
        let v = s.run(len - 2);
        if v.is_proven() {
            debug_assert!(v.len <= len - 2);
            len = v.len;
        } else {
            return (len, v.is_disproven());
        }
    }
    (len, true)
}

/// The [`rounds`] at each attacker node of `line` (a mate of the current position within `len`
/// plies) below the current position, from the deepest up: the shortest mate of each from
/// there, given the line above it, until the budget runs out.
fn suffixes(s: &mut Search, len: u16, line: &[Move]) {
    for &m in line {
        let (key, hand) = (s.key(), s.attacker_hand());
        s.path.push(key, hand);
        s.pos.do_move(m);
    }
    let mut budget_left = true;
    // Plies from the current position; the attacker moves at the even ones.
    for ply in (0..line.len()).rev() {
        s.pos.undo_move(line[ply]);
        s.path.pop();
        if budget_left && ply > 0 && ply.is_multiple_of(2) {
            // The line's remaining plies bound the mate here; the table may know a shorter one.
            budget_left = rounds(s, len - ply as u16).1;
        }
    }
}

/// Walks a mating line of the current position, proven within `len` plies, from the table: the
/// attacker's shortest proven check, the defender's reply with the largest bound. `required`
/// bounds the searches that re-prove nodes the table lost. Returns None if a needed proof could
/// not be re-established.
pub(crate) fn extract(s: &mut Search, len: u16, required: Budget) -> Option<Vec<Move>> {
    let mut moves = Vec::new();
    let mut budget = len;
    let base = s.path.len();
    let mated = loop {
        let key = s.key();
        let hand = s.attacker_hand();
        let step = if s.pos.side_to_move() == s.attacker {
            attacker_step(s, budget, required)
        } else {
            let mut replies = Vec::new();
            s.defender_replies(&mut replies);
            if s.mated_now(&replies).is_some() {
                break true;
            }
            defender_step(s, budget, &replies, required)
        };
        let Some((m, child_len)) = step else {
            break false;
        };
        s.path.push(key, hand);
        s.pos.do_move(m);
        moves.push(m);
        budget = child_len;
    };
    for &m in moves.iter().rev() {
        s.pos.undo_move(m);
        s.path.pop();
    }
    debug_assert_eq!(s.path.len(), base);
    mated.then_some(moves)
}

/// The checks of the current attacker node the table holds proven within `plies` plies (the
/// check included), with the length after each; checks that repeat a position of the line are
/// left out.
fn proven_checks(s: &Search, plies: u16) -> Vec<(Move, u16)> {
    let hand = s.attacker_hand();
    let mut checks = Vec::new();
    movegen::checks(&s.pos, &mut checks);
    checks
        .into_iter()
        .filter_map(|m| {
            let (ckey, chand) = (s.key_after(m), s.hand_after_attack(hand, m));
            if s.path.repeats(ckey, chand).is_some() {
                return None;
            }
            let p = s.tt.probe(ckey, chand, plies - 1, 1, 1);
            (p.pn == 0).then_some((m, p.len))
        })
        .collect()
}

/// The attacker's move with the shortest mate within `budget` plies, and that mate's length
/// after the move.
fn attacker_step(s: &mut Search, budget: u16, required: Budget) -> Option<(Move, u16)> {
    if budget == 0 {
        return None;
    }
    let best = proven_checks(s, budget).into_iter().min_by_key(|&(_, len)| len);
    if best.is_some() {
        return best;
    }
    // The table lost the children: prove this node again.
    s.budget = required;
    let v = s.run(budget);
    if v.is_proven() && v.len >= 1 {
        if let Some(m) = v.best {
            return Some((m, v.len - 1));
        }
    }
    None
}

/// The defender's reply with the largest proven bound within `budget` plies, and that bound.
fn defender_step(s: &mut Search, budget: u16, replies: &[Move], required: Budget) -> Option<(Move, u16)> {
    if budget == 0 {
        return None;
    }
    let hand = s.attacker_hand();
    let mut best: Option<(Move, u16)> = None;
    for &m in replies {
        let p = s.tt.probe(s.key_after(m), hand, budget - 1, 1, 1);
        let len = if p.pn == 0 {
            p.len
        } else {
            s.budget = required;
            let v = below(s, m, |s| s.run(budget - 1));
            if !v.is_proven() {
                return None;
            }
            v.len
        };
        if best.is_none_or(|(_, l)| len > l) {
            best = Some((m, len));
        }
    }
    best
}

/// Runs `f` in the position after `m` (the current position put on the line first).
fn below<T>(s: &mut Search, m: Move, f: impl FnOnce(&mut Search) -> T) -> T {
    let key = s.key();
    let hand = s.attacker_hand();
    s.path.push(key, hand);
    s.pos.do_move(m);
    let out = f(s);
    s.pos.undo_move(m);
    s.path.pop();
    out
}

/// The search that checks the line's own reply at a defender node of [`principal`] first gets
/// this share of the nodes searched so far...
const WANT_SHARE: u64 = 256;
/// ... and at least this many.
const WANT_MIN: u64 = 50_000;

/// Makes `line`, a mate of the current position in `len` plies with `len` proven the shortest, a
/// principal variation: at every attacker node a check that mates in the fewest plies from
/// there, at every defender node a reply that puts that off longest. The audit's line (see
/// `audit.rs`) resists longest within the proof tree it walked, whose attacker moves below the
/// first need not be the shortest; there a reply the tree makes long may be one the attacker
/// mates sooner, and another reply the longest resistance.
///
/// At a defender node some reply takes exactly the plies left (less two); which one is settled
/// by the table where it can (every other reply known to be mated sooner), else by the search:
/// a mate within the plies left, and none two plies shorter. `line`'s own moves are kept
/// wherever they are best play. Returns None when the budget (`s.budget`) ran out first.
pub(crate) fn principal(s: &mut Search, line: &[Move], len: u16) -> Option<Vec<Move>> {
    let base = s.path.len();
    let mut walk = Walk { line, moves: Vec::new(), on_line: true };
    // The exact mate length of the current attacker node.
    let mut left = len;
    let mated = loop {
        let Some(m) = shortest_check(s, left, walk.want()) else {
            break false;
        };
        walk.play(s, m);
        let mut replies = Vec::new();
        s.defender_replies(&mut replies);
        let mated = s.mated_now(&replies).is_some();
        if mated || left < 3 {
            break mated && left == 1;
        }
        let Some(r) = longest_reply(s, left - 2, &replies, walk.want()) else {
            break false;
        };
        walk.play(s, r);
        left -= 2;
    };
    let moves = walk.moves;
    for &m in moves.iter().rev() {
        s.pos.undo_move(m);
        s.path.pop();
    }
    debug_assert_eq!(s.path.len(), base);
    mated.then_some(moves)
}

/// The moves [`principal`] has played, and whether they are all `line`'s own.
struct Walk<'a> {
    line: &'a [Move],
    moves: Vec<Move>,
    on_line: bool,
}

impl Walk<'_> {
    /// The line's move here, while the moves so far are its own.
    fn want(&self) -> Option<Move> {
        self.line.get(self.moves.len()).copied().filter(|_| self.on_line)
    }

    /// Plays `m` at the current node (attacker's or defender's), on the path.
    fn play(&mut self, s: &mut Search, m: Move) {
        self.on_line &= self.want() == Some(m);
        let (key, hand) = (s.key(), s.attacker_hand());
        s.path.push(key, hand);
        s.pos.do_move(m);
        self.moves.push(m);
    }
}

/// A check of the current attacker node that mates within `left` plies (`want` if it does),
/// from the table or, when the table lost them, a search.
fn shortest_check(s: &mut Search, left: u16, want: Option<Move>) -> Option<Move> {
    if left == 0 {
        return None;
    }
    let proven = proven_checks(s, left);
    if let Some(m) = want.filter(|w| proven.iter().any(|&(m, _)| m == *w)) {
        return Some(m);
    }
    if let Some((m, _)) = proven.into_iter().min_by_key(|&(_, len)| len) {
        return Some(m);
    }
    let v = s.run(left);
    v.best.filter(|_| v.is_proven())
}

/// The reply of the current defender node after which the mate takes exactly `left` plies (the
/// most any reply allows, the attacker's move being the fastest mate): `want` unless another
/// reply is it too.
fn longest_reply(s: &mut Search, left: u16, replies: &[Move], want: Option<Move>) -> Option<Move> {
    let hand = s.attacker_hand();
    // The replies the table does not know to be mated sooner.
    let open: Vec<Move> = replies
        .iter()
        .copied()
        .filter(|&r| {
            let p = s.tt.probe(s.key_after(r), hand, left, 1, 1);
            p.pn != 0 || p.len + 2 > left
        })
        .collect();
    if let [only] = open[..] {
        return Some(only);
    }
    // `want` first, on a small budget: the last rounds of [`shorten`] mostly leave what settles
    // it in the table, but where they do not, ruling out a shorter mate can take more nodes
    // than all the others' shorter mates together.
    let want = want.filter(|r| open.contains(r));
    // What is left when all the others are mated sooner.
    let mut last = want;
    if let Some(w) = want {
        let budget = s.budget;
        s.budget.nodes = budget.nodes.min(s.nodes.saturating_add((s.nodes / WANT_SHARE).max(WANT_MIN)));
        let exact = below(s, w, |s| mates_in_exactly(s, left));
        s.budget = budget;
        match exact {
            Some(true) => return Some(w),
            Some(false) => last = None,
            None => {}
        }
    }
    // Then the others: a shorter mate is mostly cheaper to find than to rule out, and with the
    // others all mated sooner `want` needs no search of its own.
    for &r in open.iter().filter(|&&r| Some(r) != want) {
        match below(s, r, |s| mates_in_exactly(s, left)) {
            Some(true) => return Some(r),
            Some(false) => {}
            None => return None,
        }
    }
    last
}

/// Whether the current attacker node mates in exactly `left` plies, given that it mates within
/// them: `Some(false)` if a mate two plies shorter exists, `None` if the budget ran out first.
fn mates_in_exactly(s: &mut Search, left: u16) -> Option<bool> {
    let v = s.run(left);
    if !v.is_proven() {
        return None;
    }
    if v.len + 2 <= left {
        return Some(false);
    }
    if left < 3 {
        return Some(true);
    }
    let shorter = s.run(left - 2);
    if shorter.is_proven() {
        Some(false)
    } else if shorter.is_disproven() {
        Some(true)
    } else {
        None
    }
}
