//! The mate benchmark (`make bench-mate`): solves a fixed suite of mate problems and prints, for
//! each, the plies found (and whether proven shortest), the first proof, nodes and time; then the
//! solved count and the totals.
//!
//! The suite is every row of `tests/data/mate.tsv` and of `tests/data/mate_suite.tsv` (the long
//! problems of issue 58, bare-king problems, generated short mates). Rows whose name starts with
//! `LONG_` or `TSUME_LONG_` take minutes and run only with `--long`. Node counts are deterministic
//! and the fair measure on a loaded machine, times are not; but a row that comes near its time
//! limit (`--secs`) is cut by the clock (the shortening's first pass gets half the time left),
//! so its count moves with the load too.
//!
//! `cargo bench --bench mate -- [NAME...] [--long] [--nodes N] [--secs S] [--hash MB] [--futile]
//! [--mate1] [--lines]`: NAMEs (substrings) choose rows; `--nodes` and `--secs` limit each
//! problem (default 50 M nodes and 60 s); `--hash` is the table size (default 256 MiB, `MateHash`'s default);
//! `--futile` solves by tsume convention, as `go mate` does (futile interpositions not counted;
//! without it every interposition counts, as the rows' lengths do but for `TSUME_` rows);
//! `--mate1` times `Position::mate_in_one` alone; `--lines` prints each mating line (USI) too.
//! Each problem starts from an empty table.
//! Every line is replayed (`verify_line_by`).
//! `--generate N SEED` prints N new generated rows instead.

use hayate::mate::{verify_line, verify_line_by, MateLimits, MateResult, MateSolver};
use hayate::position::{board_field, MoveList, Position};
use hayate::splitmix::next as rand;
use std::hint::black_box;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

struct Row {
    name: String,
    sfen: String,
    /// The row's mate length (for `TSUME_` rows the published one, which ignores futile
    /// interpositions).
    plies: usize,
}

fn rows(file: &str) -> Vec<Row> {
    let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Row { name: f[0].to_string(), sfen: f[1].to_string(), plies: f[2].parse().unwrap_or(0) }
        })
        .collect()
}

fn is_long(name: &str) -> bool {
    name.starts_with("LONG_") || name.starts_with("TSUME_LONG_")
}

/// Times `mate_in_one` over every position of short random walks from the problems.
fn bench_mate1(rows: &[Row]) {
    let mut positions = Vec::new();
    let mut s = 1u64;
    for r in rows {
        let mut pos = Position::from_sfen(&r.sfen).unwrap();
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

/// A random tsume-like position: the white king on one of its first three ranks, a few pieces of
/// both sides within three squares of it, a small black hand; black to move, no black king.
fn random_tsume(s: &mut u64) -> Option<Position> {
    let mut board = [[""; 9]; 9];
    let (kr, kf) = ((rand(s) % 3) as usize, (rand(s) % 9) as usize);
    board[kr][kf] = "k";
    const BLACK: [&str; 11] = ["P", "L", "N", "S", "G", "B", "R", "+P", "+S", "+B", "+R"];
    const WHITE: [&str; 11] = ["p", "l", "n", "s", "g", "b", "r", "+p", "+s", "+b", "+r"];
    for (count, kinds) in [(2 + rand(s) % 4, &BLACK), (1 + rand(s) % 4, &WHITE)] {
        for _ in 0..count {
            let r = kr as i64 + (rand(s) % 7) as i64 - 3;
            let f = kf as i64 + (rand(s) % 7) as i64 - 3;
            if (0..9).contains(&r) && (0..9).contains(&f) && board[r as usize][f as usize].is_empty() {
                board[r as usize][f as usize] = kinds[(rand(s) % kinds.len() as u64) as usize];
            }
        }
    }
    let field = board_field(|r, f| Some(board[r][f]).filter(|p| !p.is_empty()));
    let mut hand = String::new();
    for k in ["R", "B", "G", "S", "N", "L", "P"] {
        if rand(s).is_multiple_of(3) {
            hand += k;
        }
    }
    if hand.is_empty() {
        hand.push('G');
    }
    // The defender holds every piece not on the board or in the attacker's hand (tsume rules).
    let pos = Position::from_sfen(&format!("{field} b {hand} 1")).ok()?;
    let sfen = pos.to_sfen();
    let mut counts = [("r", 2), ("b", 2), ("g", 4), ("s", 4), ("n", 4), ("l", 4), ("p", 18)];
    for c in sfen.split(' ').next()?.chars().chain(hand.chars()) {
        if let Some(e) = counts.iter_mut().find(|(k, _)| k.eq_ignore_ascii_case(&c.to_string())) {
            e.1 -= 1;
        }
    }
    let mut theirs = String::new();
    for (k, n) in counts {
        if n > 0 {
            theirs += &if n > 1 { format!("{n}{k}") } else { k.to_string() };
        }
    }
    let pos = Position::from_sfen(&format!("{field} b {hand}{theirs} 1")).ok()?;
    (!pos.in_check()).then_some(pos)
}

/// Prints `count` rows of generated mates of 1 to 15 plies (proven shortest with a 64 MiB table
/// and 2 M nodes each, the line replayed by `verify_line`), at most `count / 8` of each length, in
/// the order found from the seed: the `GEN_` rows of `tests/data/mate_suite.tsv` are the first 45
/// of `--generate 48 58` (15-ply mates are rare: the last three take long to find).
fn generate(count: usize, seed: u64) {
    let mut s = seed;
    let mut solver = MateSolver::new(64);
    let stop = AtomicBool::new(false);
    let per_len = count.div_ceil(8);
    let mut have = [0usize; 16];
    let mut tried = 0u64;
    while have.iter().sum::<usize>() < count && tried < 1_000_000 {
        tried += 1;
        let Some(pos) = random_tsume(&mut s) else { continue };
        solver.clear();
        let limits = MateLimits { nodes: Some(2_000_000), ..MateLimits::default() };
        let MateResult::Mate(line) = solver.solve(&pos, &limits, &stop) else { continue };
        let n = line.len();
        if !solver.info().shortest || n > 15 || have[n] >= per_len || verify_line(&pos, &line).is_err() {
            continue;
        }
        have[n] += 1;
        println!(
            "GEN_{seed}_{tried}\t{}\t{n}\t{}\tgenerated (benches/mate.rs --generate {count} {seed}): \
             shortest proven by go mate, line checked move by move",
            pos.to_sfen(),
            line[0].to_usi()
        );
    }
}

fn value<T: std::str::FromStr>(args: &[String], i: usize, what: &str) -> T {
    args.get(i + 1).and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("{what} needs a number"))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let mut all = rows("mate.tsv");
    all.extend(rows("mate_suite.tsv"));
    if args.iter().any(|a| a == "--mate1") {
        bench_mate1(&all);
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--generate") {
        generate(value(&args, i, "--generate"), value(&args, i + 1, "--generate N SEED"));
        return;
    }
    let (mut nodes, mut secs, mut hash, mut long, mut futile, mut lines) =
        (50_000_000u64, 60f64, 256usize, false, false, false);
    let mut names = Vec::new();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--nodes" => nodes = value(&args, i, "--nodes"),
            "--secs" => secs = value(&args, i, "--secs"),
            "--hash" => hash = value(&args, i, "--hash"),
            "--long" => {
                long = true;
                i += 1;
                continue;
            }
            "--futile" => {
                futile = true;
                i += 1;
                continue;
            }
            "--lines" => {
                lines = true;
                i += 1;
                continue;
            }
            name => {
                names.push(name.to_string());
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    let selected: Vec<&Row> = all
        .iter()
        .filter(|r| {
            if names.is_empty() {
                long || !is_long(&r.name)
            } else {
                names.iter().any(|n| r.name.contains(n))
            }
        })
        .collect();
    println!(
        "mate suite: {} problems, {nodes} nodes / {secs} s each, table {hash} MiB{}",
        selected.len(),
        if futile { ", futile interpositions not counted" } else { "" }
    );
    let mut solver = MateSolver::new(hash);
    let stop = AtomicBool::new(false);
    let (mut total_nodes, mut total_secs, mut solved, mut shortest) = (0u64, 0f64, 0, 0);
    for r in &selected {
        let pos = Position::from_sfen(&r.sfen).unwrap();
        solver.clear();
        let deadline = Instant::now().checked_add(Duration::from_secs_f64(secs));
        let limits = MateLimits { nodes: Some(nodes), deadline, futile, ..MateLimits::default() };
        let t = Instant::now();
        let result = solver.solve(&pos, &limits, &stop);
        let took = t.elapsed().as_secs_f64();
        let info = solver.info();
        let what = match &result {
            MateResult::Mate(line) => {
                if let Err(e) = verify_line_by(&pos, line, futile) {
                    panic!("{}: a wrong line: {e}", r.name);
                }
                solved += 1;
                shortest += info.shortest as usize;
                format!(
                    "mate {:>4}{} first {:>4} in {:>10} nodes",
                    line.len(),
                    match (info.line_verified, info.shortest) {
                        (false, _) => "?",
                        (true, true) => "=",
                        (true, false) => "+",
                    },
                    info.first_len.unwrap_or(0),
                    info.first_nodes,
                )
            }
            other => format!("{other:?}"),
        };
        println!(
            "{:<44} {:>4} {what:<38} {:>11} nodes {:>8.2} s {:>5} gc",
            r.name,
            r.plies,
            info.nodes,
            took,
            solver.collections()
        );
        if let (true, MateResult::Mate(line)) = (lines, &result) {
            let usi: Vec<String> = line.iter().map(|m| m.to_string()).collect();
            println!("  {}", usi.join(" "));
        }
        total_nodes += info.nodes;
        total_secs += took;
    }
    println!(
        "solved {solved}/{} ({shortest} proven shortest, `=`; `+`: the shortest not proven in time; \
         `?`: the line read from the table, the proof tree too big to walk): \
         {total_nodes} nodes {total_secs:.2} s",
        selected.len()
    );
}
