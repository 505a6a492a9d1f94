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

use super::dfpn::{Budget, Search};
use super::movegen;
use crate::position::MoveList;
use crate::types::Move;
use std::collections::HashMap;

/// Verifies the proof tree of the current position within `plies`; returns the line (see the
/// module docs). `budget` bounds the searches that re-prove nodes the table has lost; `limit`
/// the positions the audit may visit.
pub(crate) fn line(s: &mut Search, plies: u16, budget: Budget, limit: u64) -> Result<Vec<Move>, String> {
    let mut a = Audit {
        strategy: HashMap::new(),
        depth: HashMap::new(),
        visited: 0,
        limit,
        budget,
        deepest: None,
        out_of_budget: false,
    };
    if let Err(e) = a.attacker(s, plies) {
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
        let Some(&(_, m)) = a.strategy.get(&key) else {
            break Err("a position of the line is not in the tree".to_string());
        };
        s.pos.do_move(m);
        moves.push(m);
        let replies = MoveList::legal(&s.pos, true);
        if replies.is_empty() {
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
pub(crate) fn audit(s: &mut Search, plies: u16, budget: Budget, limit: u64) -> Result<u16, String> {
    let moves = line(s, plies, budget, limit)?;
    Ok(moves.len() as u16)
}

struct Audit {
    /// Attacker positions (full key) verified: the length verified with, and the move.
    strategy: HashMap<u64, (u16, Move)>,
    /// Attacker positions: the length of the longest line of the final tree (for the line).
    depth: HashMap<u64, u16>,
    visited: u64,
    limit: u64,
    budget: Budget,
    /// The deepest node that failed, and why (for the report).
    deepest: Option<(usize, String)>,
    /// Whether a search to re-prove a node ran out of budget.
    out_of_budget: bool,
}

impl Audit {
    fn visit(&mut self) -> Result<(), String> {
        self.visited += 1;
        if self.visited > self.limit {
            return Err(format!("audit limit of {} positions reached", self.limit));
        }
        Ok(())
    }

    /// An attacker node: some check must lead to a verified defender node.
    fn attacker(&mut self, s: &mut Search, plies: u16) -> Result<u16, String> {
        self.visit()?;
        let key = s.pos.key();
        if let Some(&(len, _)) = self.strategy.get(&key) {
            if len <= plies {
                return Ok(len);
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
                if let Ok(len) = r {
                    // Keep the shortest strategy found for this position. The maps live outside
                    // the table: memory refused ends the walk with an error, never an abort.
                    self.strategy
                        .try_reserve(1)
                        .map_err(|e| format!("the audit's map of strategies: {e}"))?;
                    let e = self.strategy.entry(key).or_insert((len + 1, m));
                    if len + 1 < e.0 {
                        *e = (len + 1, m);
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
        self.visit()?;
        let replies = MoveList::legal(&s.pos, true);
        if replies.is_empty() {
            return if s.pos.in_check() { Ok(0) } else { Err("no legal move but not in check".to_string()) };
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
        if let Some(&d) = self.depth.get(&key) {
            return Ok(d);
        }
        if nesting > 4096 {
            return Err("the tree has a cycle".to_string());
        }
        let Some(&(_, m)) = self.strategy.get(&key) else {
            return Err("a position of the tree is not verified".to_string());
        };
        s.pos.do_move(m);
        let mut longest = 0;
        let replies = MoveList::legal(&s.pos, true);
        let mut result = Ok(());
        for &r in replies.iter() {
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
        self.depth.try_reserve(1).map_err(|e| format!("the audit's map of depths: {e}"))?;
        self.depth.insert(key, d);
        Ok(d)
    }
}
