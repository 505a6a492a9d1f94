//! Perft: counting the leaves of the legal move tree, the proof of move generation.
//!
//! Bulk mode counts the last ply with [`MoveCounter`] (destination sets are popcounted, nothing is
//! listed or made); `--no-bulk` makes and unmakes every leaf move.

use crate::position::{generate_legal, MoveCounter, MoveList, Position};
use crate::types::Move;

/// Leaf nodes `depth` plies below `pos`.
pub fn perft(pos: &mut Position, depth: u32, bulk: bool) -> u64 {
    if depth == 0 {
        return 1;
    }
    if bulk && depth == 1 {
        let mut counter = MoveCounter::default();
        generate_legal(pos, &mut counter);
        return counter.count;
    }
    let mut list = MoveList::new(true);
    generate_legal(pos, &mut list);
    let mut nodes = 0;
    for &m in &list {
        pos.do_move(m);
        nodes += perft(pos, depth - 1, bulk);
        pos.undo_move(m);
    }
    nodes
}

/// The leaf count below each legal root move, in generation order.
pub fn divide(pos: &mut Position, depth: u32, bulk: bool) -> Vec<(Move, u64)> {
    let list = MoveList::legal(pos, true);
    let mut out = Vec::with_capacity(list.len());
    for &m in &list {
        pos.do_move(m);
        let n = if depth <= 1 { 1 } else { perft(pos, depth - 1, bulk) };
        pos.undo_move(m);
        out.push((m, n));
    }
    out
}

/// Leaf statistics at exactly `depth` plies, as in the published tables: how many leaves were
/// reached by a capture, a promotion or a drop, how many leave the side to move in check, and how
/// many are checkmate.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct PerftStats {
    pub nodes: u64,
    pub captures: u64,
    pub promotions: u64,
    pub drops: u64,
    pub checks: u64,
    pub mates: u64,
}

impl std::ops::AddAssign for PerftStats {
    fn add_assign(&mut self, o: PerftStats) {
        self.nodes += o.nodes;
        self.captures += o.captures;
        self.promotions += o.promotions;
        self.drops += o.drops;
        self.checks += o.checks;
        self.mates += o.mates;
    }
}

/// Perft with leaf statistics. Leaves are judged without being made, except checks, which are
/// made to see whether the other side has a reply (`gives_check` is exact, so the counts are the
/// same as making every leaf).
pub fn perft_stats(pos: &mut Position, depth: u32) -> PerftStats {
    let mut stats = PerftStats::default();
    if depth == 0 {
        stats.nodes = 1;
        return stats;
    }
    let mut list = MoveList::new(true);
    generate_legal(pos, &mut list);
    for &m in &list {
        if depth > 1 {
            pos.do_move(m);
            stats += perft_stats(pos, depth - 1);
            pos.undo_move(m);
            continue;
        }
        stats.nodes += 1;
        stats.captures += u64::from(pos.is_capture(m));
        stats.promotions += u64::from(m.is_promotion());
        stats.drops += u64::from(m.is_drop());
        if pos.gives_check(m) {
            stats.checks += 1;
            pos.do_move(m);
            let mut replies = MoveCounter::default();
            generate_legal(pos, &mut replies);
            stats.mates += u64::from(replies.count == 0);
            pos.undo_move(m);
        }
    }
    stats
}
