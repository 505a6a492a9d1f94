//! Mate solver benchmark: solves mate problems from `tests/data/mate.tsv` and prints nodes, time
//! and nodes per second for each, then the total. Run with `cargo bench --bench mate`; pass row
//! names (substrings) to choose problems, `--nodes N` to change the per-problem budget, and
//! `--mate1` to time `Position::mate_in_one` alone.

use hayate::mate::{MateLimits, MateResult, MateSolver};
use hayate::position::{MoveList, Position};
use std::hint::black_box;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// The default selection: the problems that take more than a few thousand nodes.
const DEFAULT: &[&str] = &[
    "antma_tsume5_10",
    "antma_tsume9_2",
    "antma_tsume9_3",
    "mogami_bench_s4_karolina_mate13",
    "mogami_bench_s7_mate13",
    "mogami_spec_longest_11",
    "antma_tsume1_3",
    "TSUME_zukou_005",
    "TSUME_zukou_007",
    "TSUME_zukou_012",
    "TSUME_zukou_094_tasuki_zume",
];

fn rows() -> Vec<(String, String)> {
    let path = format!("{}/tests/data/mate.tsv", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0].to_string(), f[1].to_string())
        })
        .collect()
}

/// Times `mate_in_one` over every position of short random walks from the problems.
fn bench_mate1(rows: &[(String, String)]) {
    let mut positions = Vec::new();
    let mut s = 1u64;
    for (_, sfen) in rows {
        let mut pos = Position::from_sfen(sfen).unwrap();
        for _ in 0..8 {
            positions.push(pos.clone());
            let moves = MoveList::legal(&pos, true);
            if moves.is_empty() {
                break;
            }
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            pos.do_move(moves.as_slice()[(s >> 33) as usize % moves.len()]);
        }
    }
    let t = Instant::now();
    let mut found = 0;
    let rounds = 2000;
    for _ in 0..rounds {
        for p in &positions {
            found += black_box(p).mate_in_one().is_some() as usize;
        }
    }
    let calls = rounds * positions.len();
    println!(
        "mate_in_one: {} positions, {:.0} ns/call, {} with a mate",
        positions.len(),
        t.elapsed().as_secs_f64() * 1e9 / calls as f64,
        found / rounds
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let rows = rows();
    if args.iter().any(|a| a == "--mate1") {
        bench_mate1(&rows);
        return;
    }
    let mut nodes_limit = 50_000_000;
    let mut names = Vec::new();
    let mut i = 0;
    while i < args.len() {
        if args[i] == "--nodes" {
            nodes_limit = args[i + 1].parse().expect("--nodes N");
            i += 2;
        } else {
            names.push(args[i].clone());
            i += 1;
        }
    }
    let selected: Vec<&(String, String)> = rows
        .iter()
        .filter(|(n, _)| {
            if names.is_empty() {
                DEFAULT.contains(&n.as_str())
            } else {
                names.iter().any(|s| n.contains(s.as_str()))
            }
        })
        .collect();
    let mut solver = MateSolver::new(256);
    let stop = AtomicBool::new(false);
    let (mut total_nodes, mut total_secs) = (0u64, 0f64);
    for (name, sfen) in selected {
        let pos = Position::from_sfen(sfen).unwrap();
        solver.clear();
        let limits = MateLimits { nodes: Some(nodes_limit), ..MateLimits::default() };
        let t = Instant::now();
        let result = solver.solve(&pos, &limits, &stop);
        let secs = t.elapsed().as_secs_f64();
        let info = solver.info();
        let what = match result {
            MateResult::Mate(line) => format!(
                "mate {}{} (first {} in {}, proven {})",
                line.len(),
                if info.shortest { " shortest" } else { "" },
                info.first_len.unwrap_or(0),
                info.first_nodes,
                info.proven_len.unwrap_or(0)
            ),
            other => format!("{other:?}"),
        };
        println!(
            "{name:<36} {what:<34} {:>10} nodes {:>8.3}s {:>8.0} knps",
            info.nodes,
            secs,
            info.nodes as f64 / secs / 1e3
        );
        total_nodes += info.nodes;
        total_secs += secs;
    }
    println!("total: {total_nodes} nodes {total_secs:.3}s {:.0} knps", total_nodes as f64 / total_secs / 1e3);
}
