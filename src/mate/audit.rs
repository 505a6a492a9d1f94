//! The proof tree, walked move by move: an independent check of a proof, and the mating line.
//!
//! The search's claims rest on the table, proof and disproof hands, superiority and the
//! repetition rules. The audit trusts none of it: it only takes the attacker's moves the table
//! suggests, and itself enumerates every legal reply of the defender (`MoveList::legal`) at every
//! node, checks that every attacker move is legal and gives check, and that every leaf is
//! checkmate. A tree that passes is a forced mate within the plies it was given, whatever the
//! search did to find it. Each attacker position is verified once (keeping the shortest
//! strategy found for it), so the cost is the size of the proof as a graph.
//!
//! The verified tree also gives the line: the attacker plays the tree's moves, the defender the
//! reply with the longest remaining line in the tree. Its length is at least the true length of
//! the mate (no attacker strategy mates faster against best defence than the shortest one) and at
//! most the plies given; when those are equal (the shortest mate is proven), the line is exact:
//! shortest mate, longest resistance.
//!
//! Memory: the walk's one map (an entry of 16 bytes per attacker position verified) lives outside
//! the table, and may take at most as many bytes as the table itself (`max_bytes`, so `MateHash`
//! bounds it too); a map that would outgrow that ends the walk with an error, and the line then
//! comes from elsewhere (see `mate/mod.rs`).

use super::dfpn::{Budget, Search, POLL_INTERVAL};
use super::movegen;
use crate::position::MoveList;
use crate::types::Move;
use std::collections::HashMap;

/// Verifies the proof tree of the current position within `plies`; returns the line (see the
/// module docs). `budget` bounds the searches that re-prove nodes the table has lost, and its
/// deadline and stop flag the walk itself; `limit` the positions the audit may visit;
/// `max_bytes` the memory of its map.
pub(crate) fn line(
    s: &mut Search,
    plies: u16,
    budget: Budget,
    limit: u64,
    max_bytes: usize,
) -> Result<Vec<Move>, String> {
    let mut a = Audit {
        nodes: HashMap::new(),
        visited: 0,
        limit,
        max_bytes,
        ended: None,
        budget,
        deepest: None,
        out_of_budget: false,
    };
    if let Err(e) = a.attacker(s, plies) {
        if let Some(why) = a.ended {
            return Err(why);
        }
        let mut e = e;
        if let Some((ply, why)) = &a.deepest {
            e += &format!("; deepest failure at ply {ply}: {why}");
        }
        if a.out_of_budget {
            e += "; re-proving ran out of budget";
        }
        return Err(e);
    }
    // The line: the tree's moves for the attacker, the longest branch for the defender.
    let mut moves = Vec::new();
    let result = loop {
        let key = s.pos.key();
        let Some(&Node { mv: m, .. }) = a.nodes.get(&key) else {
            break Err("a position of the line is not in the tree".to_string());
        };
        s.pos.do_move(m);
        moves.push(m);
        let replies = MoveList::legal(&s.pos, true);
        if s.mated_now(replies.as_slice()).is_some() {
            break Ok(());
        }
        let mut best = None;
        for &r in replies.iter() {
            s.pos.do_move(r);
            let d = a.tree_depth(s, 0);
            s.pos.undo_move(r);
            match d {
                Ok(d) if best.is_none_or(|(bd, _)| d > bd) => best = Some((d, r)),
                Ok(_) => {}
                Err(e) => return Err(e),
            }
        }
        let (_, r) = best.expect("a reply");
        s.pos.do_move(r);
        moves.push(r);
    };
    for &m in moves.iter().rev() {
        s.pos.undo_move(m);
    }
    result.map(|()| moves)
}

/// Verifies the proof tree within `plies`; returns the length of its longest line.
pub(crate) fn audit(
    s: &mut Search,
    plies: u16,
    budget: Budget,
    limit: u64,
    max_bytes: usize,
) -> Result<u16, String> {
    let moves = line(s, plies, budget, limit, max_bytes)?;
    Ok(moves.len() as u16)
}

/// An attacker position verified.
#[derive(Clone, Copy)]
struct Node {
    /// The length it was verified with.
    len: u16,
    /// The length of the longest line of the final tree below it (for the line); 0 until known.
    depth: u16,
    /// The move of the shortest strategy found.
    mv: Move,
}

/// Bytes of a map entry (key and [`Node`]) and its control byte.
const ENTRY_BYTES: usize = std::mem::size_of::<(u64, Node)>() + 1;

/// The bytes of a map that holds `capacity` entries: a power-of-two number of slots at most
/// seven eighths full (hashbrown's layout, counted generously: its group padding as a slot).
fn map_bytes(capacity: usize) -> usize {
    let slots = if capacity < 8 { 8 } else { capacity.saturating_mul(8).div_ceil(7).next_power_of_two() };
    slots.saturating_add(16).saturating_mul(ENTRY_BYTES)
}

struct Audit {
    /// Attacker positions (full key) verified.
    nodes: HashMap<u64, Node>,
    visited: u64,
    limit: u64,
    /// The most memory `nodes` may take, while growing included (the old and the new slots).
    max_bytes: usize,
    /// Why the walk ended before its verdict (a limit reached), if it did: every node then fails
    /// at once, and this is the error of the whole walk.
    ended: Option<String>,
    budget: Budget,
    /// The deepest node that failed, and why (for the report).
    deepest: Option<(usize, String)>,
    /// Whether a search to re-prove a node ran out of budget.
    out_of_budget: bool,
}

impl Audit {
    fn visit(&mut self, s: &Search) -> Result<(), String> {
        self.visited += 1;
        if self.visited > self.limit {
            return self.end(format!("audit limit of {} positions reached", self.limit));
        }
        // The first position too: a walk begun past the deadline ends at once.
        if (self.visited == 1 || self.visited.is_multiple_of(POLL_INTERVAL)) && s.limits_reached(&self.budget)
        {
            return self.end("the deadline or a stop came before the walk's end".to_string());
        }
        Ok(())
    }

    /// Ends the walk (see [`Audit::ended`]).
    fn end(&mut self, why: String) -> Result<(), String> {
        self.ended.get_or_insert(why.clone());
        Err(why)
    }

    /// Room for one more node: within `max_bytes` (the map grows by doubling, and holds its old
    /// slots while it moves them), and granted by the allocator. The map lives outside the table:
    /// memory refused ends the walk with an error, never an abort.
    fn reserve_node(&mut self) -> Result<(), String> {
        let capacity = self.nodes.capacity();
        if self.nodes.len() == capacity {
            let need = map_bytes(capacity).saturating_add(map_bytes(capacity + 1));
            if capacity > 0 && need > self.max_bytes {
                return self.end(format!(
                    "the audit's map would take {} KiB, more than the table's {} KiB",
                    need >> 10,
                    self.max_bytes >> 10
                ));
            }
        }
        match self.nodes.try_reserve(1) {
            Ok(()) => Ok(()),
            Err(e) => self.end(format!("the audit's map: {e}")),
        }
    }

    /// An attacker node: some check must lead to a verified defender node.
    fn attacker(&mut self, s: &mut Search, plies: u16) -> Result<u16, String> {
        self.visit(s)?;
        let key = s.pos.key();
        if let Some(n) = self.nodes.get(&key) {
            if n.len <= plies {
                return Ok(n.len);
            }
        }
        if plies == 0 {
            return Err("no plies left at an attacker node".to_string());
        }
        for attempt in 0..2 {
            // The checks the table holds proven within the plies left, shortest first.
            let hand = s.attacker_hand();
            let mut checks = Vec::new();
            movegen::checks(&s.pos, &mut checks);
            let mut proven: Vec<(u16, Move)> = checks
                .iter()
                .filter_map(|&m| {
                    let p = s.tt.probe(s.key_after(m), s.hand_after_attack(hand, m), plies - 1, 1, 1);
                    (p.pn == 0).then_some((p.len, m))
                })
                .collect();
            if attempt == 1 {
                // The table lost the children: search this node again; its proving move first.
                s.budget = self.budget;
                let v = s.run(plies);
                self.out_of_budget |= s.aborted;
                if let (true, Some(m)) = (v.is_proven(), v.best) {
                    proven.insert(0, (v.len.saturating_sub(1), m));
                }
            }
            proven.sort_by_key(|&(len, _)| len);
            for (_, m) in proven {
                if !MoveList::legal(&s.pos, true).contains(m) || !s.pos.gives_check(m) {
                    return Err(format!("{m} is not a legal check"));
                }
                s.pos.do_move(m);
                let r = self.defender(s, plies - 1);
                s.pos.undo_move(m);
                if let Some(why) = &self.ended {
                    return Err(why.clone());
                }
                if let Ok(len) = r {
                    // Keep the shortest strategy found for this position.
                    self.reserve_node()?;
                    let e = self.nodes.entry(key).or_insert(Node { len: len + 1, depth: 0, mv: m });
                    if len + 1 < e.len {
                        *e = Node { len: len + 1, depth: 0, mv: m };
                    }
                    return Ok(len + 1);
                }
            }
        }
        let why = format!("no verified mate within {plies} in {}", s.pos.to_sfen());
        let ply = s.pos.moves_played();
        if self.deepest.as_ref().is_none_or(|(p, _)| ply > *p) {
            self.deepest = Some((ply, why.clone()));
        }
        Err(why)
    }

    /// A defender node: every legal reply must lead to a verified attacker node.
    fn defender(&mut self, s: &mut Search, plies: u16) -> Result<u16, String> {
        self.visit(s)?;
        let replies = MoveList::legal(&s.pos, true);
        if replies.is_empty() {
            return if s.pos.in_check() { Ok(0) } else { Err("no legal move but not in check".to_string()) };
        }
        if s.futile && super::futile::mated_with(&mut s.pos, replies.as_slice()) {
            // Only futile interpositions left: mated by convention.
            return Ok(0);
        }
        if plies == 0 {
            return Err("the defender still has moves".to_string());
        }
        let mut longest = 0;
        for &r in replies.iter() {
            s.pos.do_move(r);
            let v = self.attacker(s, plies - 1);
            s.pos.undo_move(r);
            longest = longest.max(v? + 1);
        }
        Ok(longest)
    }

    /// The length of the longest line of the final tree below the current attacker position
    /// (`nesting` guards against a cycle, which the shortest-strategy rule should rule out).
    fn tree_depth(&mut self, s: &mut Search, nesting: usize) -> Result<u16, String> {
        let key = s.pos.key();
        let Some(&Node { depth, mv: m, .. }) = self.nodes.get(&key) else {
            return Err("a position of the tree is not verified".to_string());
        };
        if depth != 0 {
            return Ok(depth);
        }
        if nesting > 4096 {
            return Err("the tree has a cycle".to_string());
        }
        s.pos.do_move(m);
        let mut longest = 0;
        // By convention, a defender with only futile interpositions left is a leaf.
        let replies = MoveList::legal(&s.pos, true);
        let leaf = s.futile && super::futile::mated_with(&mut s.pos, replies.as_slice());
        let mut result = Ok(());
        for &r in replies.iter().filter(|_| !leaf) {
            s.pos.do_move(r);
            let d = self.tree_depth(s, nesting + 1);
            s.pos.undo_move(r);
            match d {
                Ok(d) => longest = longest.max(d + 1),
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        s.pos.undo_move(m);
        result?;
        let d = longest + 1;
        if let Some(n) = self.nodes.get_mut(&key) {
            n.depth = d;
        }
        Ok(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mate::dfpn::MAX_DEPTH;
    use crate::mate::table::Table;
    use crate::position::Position;
    use crate::sys::time::Instant;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// Shogi Zuko No. 7 (13 plies): a proof tree of a few dozen attacker positions.
    const ZUKOU_7: &str = "1nkg5/2s6/3rp4/1B7/r8/1PN6/9/9/9 b BG3SN2gn4l16p 1";

    /// Zuko No. 7 proven from an empty table, then `check` given the search, the proof's length,
    /// the table's bytes, a walk's budget (2 M nodes for re-proving beyond those searched) and the
    /// stop flag.
    fn with_zukou_7_proven(check: impl FnOnce(&mut Search, u16, usize, Budget, &AtomicBool)) {
        let mut table = Table::try_new(256).unwrap();
        let stop = AtomicBool::new(false);
        let budget = Budget { nodes: 5_000_000, deadline: None, use_stop: false };
        let mut s = Search::new(Position::from_sfen(ZUKOU_7).unwrap(), &mut table, budget, &stop);
        let v = s.run(MAX_DEPTH);
        assert!(v.is_proven());
        let bytes = s.tt.bytes();
        let walk = Budget { nodes: s.nodes + 2_000_000, ..budget };
        check(&mut s, v.len, bytes, walk, &stop);
    }

    #[test]
    fn the_walk_keeps_within_its_memory() {
        with_zukou_7_proven(|s, len, bytes, walk, _| {
            let moves = line(s, len, walk, 1_000_000, bytes).unwrap();
            assert!(moves.len() >= 13 && moves.len() % 2 == 1 && moves.len() <= len as usize);
            // A map allowed less than its second growth stops the walk, with the reason.
            let walk = Budget { nodes: s.nodes + 2_000_000, ..walk };
            let e = line(s, len, walk, 1_000_000, map_bytes(3)).unwrap_err();
            assert!(e.contains("more than the table's"), "{e}");
        });
    }

    #[test]
    fn the_walk_ends_at_the_deadline_or_a_stop() {
        with_zukou_7_proven(|s, len, bytes, walk, stop| {
            // A deadline already passed: the walk ends at its first position, with the reason.
            let late = Budget { deadline: Some(Instant::now()), ..walk };
            let e = line(s, len, late, 1_000_000, bytes).unwrap_err();
            assert!(e.contains("deadline or a stop"), "{e}");
            // A stop ends it where the walk heeds the flag, and only there.
            stop.store(true, Ordering::Relaxed);
            assert!(line(s, len, walk, 1_000_000, bytes).is_ok());
            let e = line(s, len, Budget { use_stop: true, ..walk }, 1_000_000, bytes).unwrap_err();
            assert!(e.contains("deadline or a stop"), "{e}");
        });
    }
}
