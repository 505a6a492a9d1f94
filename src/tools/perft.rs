//! Perft: counting the leaves of the legal move tree, the proof of move generation; and the
//! reports of `hayate perft` and USI `go perft`.
//!
//! Bulk mode counts the last ply with [`MoveCounter`] (destination sets are popcounted, nothing is
//! listed or made); `--no-bulk` makes and unmakes every leaf move.

use crate::position::{generate_legal, MoveCounter, PieceLimits, Position, WideMoveList, STARTPOS};
use crate::sys::time::Instant;
use crate::types::Move;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The deepest count the commands take (each ply holds a move list on the stack; and a count
/// much beyond 10 plies would not end anyway).
pub const MAX_DEPTH: u32 = 64;

/// Leaf nodes `depth` plies below `pos`.
pub fn perft(pos: &mut Position, depth: u32, bulk: bool) -> u64 {
    count(pos, depth, bulk, &AtomicBool::new(false)).expect("never stopped")
}

/// Leaf nodes `depth` plies below `pos`, or `None` when `stop` was set before the count ended
/// (checked at every node above the last ply).
fn count(pos: &mut Position, depth: u32, bulk: bool, stop: &AtomicBool) -> Option<u64> {
    if depth == 0 {
        return Some(1);
    }
    if bulk && depth == 1 {
        return Some(count_moves(pos));
    }
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    let mut list = WideMoveList::new(true);
    generate_legal(pos, &mut list);
    let mut nodes = 0;
    for &m in &list {
        pos.do_move(m);
        // (The last ply counted here, not in a call that could be stopped: a stop is seen
        // within one node's children.)
        let below =
            if bulk && depth == 2 { Some(count_moves(pos)) } else { count(pos, depth - 1, bulk, stop) };
        pos.undo_move(m);
        nodes += below?;
    }
    Some(nodes)
}

/// The legal moves of `pos`, counted in bulk.
#[inline(always)]
fn count_moves(pos: &Position) -> u64 {
    let mut counter = MoveCounter::default();
    generate_legal(pos, &mut counter);
    counter.count
}

/// The leaf count below each legal root move, in generation order.
pub fn divide(pos: &mut Position, depth: u32, bulk: bool) -> Vec<(Move, u64)> {
    divide_until(pos, depth, bulk, &AtomicBool::new(false)).0
}

/// [`divide`] until `stop` is set: the root moves counted in full, and how many root moves there
/// are.
pub fn divide_until(
    pos: &mut Position,
    depth: u32,
    bulk: bool,
    stop: &AtomicBool,
) -> (Vec<(Move, u64)>, usize) {
    let list = WideMoveList::legal(pos, true);
    let mut out = Vec::with_capacity(list.len());
    for &m in &list {
        pos.do_move(m);
        let n = if depth <= 1 { Some(1) } else { count(pos, depth - 1, bulk, stop) };
        pos.undo_move(m);
        match n {
            Some(n) => out.push((m, n)),
            None => break,
        }
    }
    (out, list.len())
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
    let mut list = WideMoveList::new(true);
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

/// The count below each root move, then the total, the time and the speed (`hayate perft
/// --divide`, USI `go perft`).
pub fn report_divide(
    pos: &mut Position,
    depth: u32,
    bulk: bool,
    stop: &AtomicBool,
    out: &mut dyn FnMut(&str),
) {
    let start = Instant::now();
    let mut total = 0;
    let (counts, root_moves) = divide_until(pos, depth.max(1), bulk, stop);
    for &(m, n) in &counts {
        out(&format!("{m}: {n}"));
        total += n;
    }
    let elapsed = start.elapsed().max(Duration::from_micros(1));
    out("");
    if counts.len() < root_moves {
        out(&format!("Stopped: {} of {root_moves} root moves counted", counts.len()));
    }
    out(&format!("Nodes searched: {total}"));
    out(&format!("Time: {} ms", elapsed.as_millis()));
    out(&format!("Nodes/second: {}", (total as f64 / elapsed.as_secs_f64()) as u64));
}

/// CPU time of the calling thread, where Linux reports it (robust against other processes on the
/// machine); wall time otherwise.
fn thread_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

/// The count, repeated `reps` times: the median wall time and, where Linux reports it, the median
/// CPU time of this thread, with the speeds (`hayate perft`).
pub fn report_timed(pos: &mut Position, depth: u32, bulk: bool, reps: u32, out: &mut dyn FnMut(&str)) {
    let mut walls = Vec::new();
    let mut cpus = Vec::new();
    let mut nodes = 0;
    for _ in 0..reps.max(1) {
        let cpu0 = thread_seconds();
        let t = Instant::now();
        nodes = perft(pos, depth, bulk);
        walls.push(t.elapsed().as_secs_f64());
        if let (Some(a), Some(b)) = (cpu0, thread_seconds()) {
            cpus.push(b - a);
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let wall = median(&mut walls);
    out(&format!("Nodes searched: {nodes}"));
    let mut line = format!(
        "Time: {:.3} s wall (median of {}), {:.1} M nodes/s",
        wall,
        walls.len(),
        nodes as f64 / wall / 1e6
    );
    if !cpus.is_empty() {
        let cpu = median(&mut cpus);
        line.push_str(&format!("; {:.3} s cpu, {:.1} M nodes/s", cpu, nodes as f64 / cpu / 1e6));
    }
    line.push_str(&format!(" ({})", if bulk { "bulk" } else { "no-bulk" }));
    out(&line);
}

/// `hayate perft`: from `sfen` (default: the start position; more pieces than a standard set are
/// accepted), divided or timed.
pub fn run(
    depth: u32,
    sfen: Option<&str>,
    divided: bool,
    bulk: bool,
    reps: u32,
    out: &mut dyn FnMut(&str),
) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!("depth {depth} is beyond the deepest perft, {MAX_DEPTH}"));
    }
    let mut pos = Position::from_sfen_with(sfen.unwrap_or(STARTPOS), PieceLimits::Extended)
        .map_err(|e| e.to_string())?;
    if divided {
        report_divide(&mut pos, depth, bulk, &AtomicBool::new(false), out);
    } else {
        report_timed(&mut pos, depth, bulk, reps, out);
    }
    Ok(())
}
