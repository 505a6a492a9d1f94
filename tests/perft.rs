//! Move generation proven by perft against the published and cross-verified counts in
//! `tests/data/` (copied from the shared reference data). Rows up to `FAST_LIMIT` leaves run in
//! `make test`; the rest are `#[ignore]`d and run by `make perft-full`.

use hayate::position::{MoveList, PieceLimits, Position};
mod common;

use hayate::tools::perft::{divide, perft, perft_stats, PerftStats};
use hayate::types::Move;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

const FAST_LIMIT: u64 = 50_000_000;

struct Row {
    name: String,
    sfen: String,
    depth: u32,
    nodes: u64,
}

fn perft_rows() -> Vec<Row> {
    common::tsv_rows("perft.tsv")
        .into_iter()
        .map(|r| Row {
            name: r[0].clone(),
            sfen: r[1].clone(),
            depth: r[2].parse().unwrap(),
            nodes: r[3].parse().unwrap(),
        })
        .collect()
}

/// Rows bigger than this are split into one job per root move, so that a single deep row keeps
/// every core busy.
const SPLIT_ABOVE: u64 = 1_000_000;

/// Runs `count(position, depth)` for every `(sfen, depth, size)` on all cores, biggest jobs first;
/// returns the total per row.
fn run_jobs<T, F>(rows: &[(String, u32, u64)], count: F) -> Vec<T>
where
    T: Default + Copy + Send + std::ops::AddAssign,
    F: Fn(&mut Position, u32) -> T + Sync,
{
    // A job: row index, the root move to make first (if split) and its size estimate.
    let mut jobs: Vec<(usize, Option<Move>, u64)> = Vec::new();
    for (i, (sfen, depth, size)) in rows.iter().enumerate() {
        let pos =
            Position::from_sfen_with(sfen, PieceLimits::Extended).unwrap_or_else(|e| panic!("{sfen}: {e}"));
        let moves = MoveList::legal(&pos, true);
        if *size > SPLIT_ABOVE && *depth >= 2 && !moves.is_empty() {
            let share = size / moves.len() as u64;
            jobs.extend(moves.iter().map(|&m| (i, Some(m), share)));
        } else {
            jobs.push((i, None, *size));
        }
    }
    jobs.sort_by_key(|j| std::cmp::Reverse(j.2));
    let next = AtomicUsize::new(0);
    let totals = Mutex::new(vec![T::default(); rows.len()]);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let j = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(i, root, _)) = jobs.get(j) else { break };
                let (sfen, depth, _) = &rows[i];
                let mut pos = Position::from_sfen_with(sfen, PieceLimits::Extended).unwrap();
                let got = match root {
                    Some(m) => {
                        pos.do_move(m);
                        count(&mut pos, depth - 1)
                    }
                    None => count(&mut pos, *depth),
                };
                totals.lock().unwrap()[i] += got;
            });
        }
    });
    totals.into_inner().unwrap()
}

/// Checks the rows on all cores and reports every mismatch at once.
fn check_rows(rows: Vec<Row>, bulk: bool) {
    let specs: Vec<(String, u32, u64)> = rows.iter().map(|r| (r.sfen.clone(), r.depth, r.nodes)).collect();
    let got = run_jobs(&specs, |pos, depth| perft(pos, depth, bulk));
    let failures: Vec<String> = rows
        .iter()
        .zip(&got)
        .filter(|(r, &g)| g != r.nodes)
        .map(|(r, g)| format!("{} depth {}: {} expected {}", r.name, r.depth, g, r.nodes))
        .collect();
    assert!(failures.is_empty(), "perft mismatches:\n{}", failures.join("\n"));
}

#[test]
fn perft_rows_up_to_50m_nodes() {
    let rows: Vec<Row> = perft_rows().into_iter().filter(|r| r.nodes <= FAST_LIMIT).collect();
    assert!(rows.len() > 780, "only {} rows", rows.len());
    check_rows(rows, true);
}

#[test]
fn perft_without_bulk_counting_agrees() {
    let rows: Vec<Row> = perft_rows().into_iter().filter(|r| r.nodes <= 2_000_000).collect();
    check_rows(rows, false);
}

#[test]
#[ignore = "deep rows: run with `make perft-full`"]
fn perft_rows_above_50m_nodes() {
    let rows: Vec<Row> = perft_rows().into_iter().filter(|r| r.nodes > FAST_LIMIT).collect();
    check_rows(rows, true);
}

fn check_details(limit: u64) {
    let rows: Vec<Vec<String>> = common::tsv_rows("perft_details.tsv")
        .into_iter()
        .filter(|r| {
            let nodes: u64 = r[3].parse().unwrap();
            (limit == 0) == (nodes > FAST_LIMIT)
        })
        .collect();
    let specs: Vec<(String, u32, u64)> =
        rows.iter().map(|r| (r[1].clone(), r[2].parse().unwrap(), r[3].parse().unwrap())).collect();
    let got = run_jobs(&specs, perft_stats);
    for (r, got) in rows.iter().zip(got) {
        let depth = &r[2];
        let field =
            |i: usize| -> Option<u64> { r.get(i).filter(|s| !s.is_empty()).map(|s| s.parse().unwrap()) };
        let want = [field(3), field(4), field(5), field(6), field(7), field(8)];
        let have = [got.nodes, got.captures, got.promotions, got.drops, got.checks, got.mates];
        let names = ["nodes", "captures", "promotions", "drops", "checks", "mates"];
        for i in 0..6 {
            if let Some(w) = want[i] {
                assert_eq!(have[i], w, "{} depth {depth} {}: {got:?}", r[0], names[i]);
            }
        }
    }
}

#[test]
fn perft_details_captures_promotions_drops_checks_mates() {
    check_details(FAST_LIMIT);
    // The statistics add up like nodes do.
    let mut s = PerftStats::default();
    s += PerftStats { nodes: 1, checks: 1, ..Default::default() };
    assert_eq!(s.checks, 1);
}

#[test]
#[ignore = "deep rows: run with `make perft-full`"]
fn perft_details_deep() {
    check_details(0);
}

#[test]
fn perft_divide_start_position() {
    let rows = common::tsv_rows("perft_divide.tsv");
    let mut pos = Position::from_sfen(&rows[0][0]).unwrap();
    for (depth, column) in [(4u32, 2usize), (5, 3)] {
        let got = divide(&mut pos, depth, true);
        assert_eq!(got.len(), rows.len());
        for r in &rows {
            let m = Move::from_usi(&r[1]).unwrap();
            let want: u64 = r[column].parse().unwrap();
            let have = got.iter().find(|(gm, _)| *gm == m).map(|x| x.1);
            assert_eq!(have, Some(want), "divide depth {depth} {}", r[1]);
        }
    }
}
