//! An independent check of a proof: walks the whole proof tree and verifies it move by move.
//!
//! The search's claims rest on the table, proof and disproof hands, superiority and the
//! repetition rules. The audit trusts none of it: it only takes the attacker's moves the table
//! suggests, and itself enumerates every legal reply of the defender (`MoveList::legal`) at every
//! node, checks that every attacker move is legal and gives check, and that every leaf is
//! checkmate. A tree that passes is a forced mate of at most the returned length, whatever the
//! search did to find it. Positions already verified (with the length they were verified for)
//! are not walked again, so the cost is the size of the proof as a graph.

use super::dfpn::{Budget, Search};
use super::movegen;
use crate::position::MoveList;
use crate::types::Move;
use std::collections::HashMap;

/// Verifies the proof tree of the current position within `plies`; returns the length of the
/// longest line of the verified tree. `budget` bounds the searches that re-prove nodes the table
/// has lost; `limit` the positions the audit may visit.
pub(crate) fn audit(s: &mut Search, plies: u16, budget: Budget, limit: u64) -> Result<u16, String> {
    let mut a = Audit {
        verified: HashMap::new(),
        visited: 0,
        limit,
        budget,
    };
    a.attacker(s, plies)
}

struct Audit {
    /// Full position key -> the mate length it was verified with.
    verified: HashMap<u64, u16>,
    visited: u64,
    limit: u64,
    budget: Budget,
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
        if let Some(&len) = self.verified.get(&key) {
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
                    let p = s.tt.probe(
                        s.key_after(m),
                        s.hand_after_attack(hand, m),
                        plies - 1,
                        1,
                        1,
                    );
                    (p.pn == 0).then_some((p.len, m))
                })
                .collect();
            if attempt == 1 {
                // The table lost the children: search this node again; its proving move first.
                s.budget = self.budget;
                let v = s.run(plies);
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
                    self.verified.insert(key, len + 1);
                    return Ok(len + 1);
                }
            }
        }
        Err(format!(
            "no verified mate within {plies} in {}",
            s.pos.to_sfen()
        ))
    }

    /// A defender node: every legal reply must lead to a verified attacker node.
    fn defender(&mut self, s: &mut Search, plies: u16) -> Result<u16, String> {
        self.visit()?;
        let replies = MoveList::legal(&s.pos, true);
        if replies.is_empty() {
            return if s.pos.in_check() {
                Ok(0)
            } else {
                Err("no legal move but not in check".to_string())
            };
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
}
