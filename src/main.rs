//! The `hayate` binary: USI on stdin/stdout by default; `perft` and `bench` subcommands for the
//! command line.

use clap::{Parser, Subcommand};
use hayate::perft;
use hayate::position::{PieceLimits, Position, STARTPOS};
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "hayate",
    version,
    about = "Hayate, a USI shogi engine (USI on stdin/stdout without a subcommand)"
)]
struct Cli {
    /// Defaults file for the USI options (else engine-options.toml next to the binary or in the
    /// working directory).
    #[arg(long, global = true)]
    config: Option<std::path::PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaves of the legal move tree.
    Perft {
        /// Depth in plies.
        depth: u32,
        /// Position (default: the start position). Pieces beyond a standard set are accepted.
        #[arg(long)]
        sfen: Option<String>,
        /// Print the count below each root move.
        #[arg(long)]
        divide: bool,
        /// Make and unmake every leaf move instead of counting the last ply in bulk.
        #[arg(long)]
        no_bulk: bool,
        /// Repeat the count this many times and report the median time.
        #[arg(long, default_value_t = 1)]
        reps: u32,
    },
    /// Search the bench positions (1 thread, 16 MB) and print the node total.
    Bench {
        /// Search depth.
        #[arg(default_value_t = hayate::bench::DEFAULT_DEPTH)]
        depth: i32,
    },
}

/// CPU time of the calling thread, where Linux reports it (robust against other processes on the
/// machine); wall time otherwise.
fn thread_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

fn run_perft(depth: u32, sfen: Option<String>, divide: bool, bulk: bool, reps: u32) -> Result<(), String> {
    let sfen = sfen.unwrap_or_else(|| STARTPOS.to_string());
    let mut pos = Position::from_sfen_with(&sfen, PieceLimits::Extended).map_err(|e| e.to_string())?;
    if divide {
        let t = Instant::now();
        let mut total = 0;
        for (m, n) in perft::divide(&mut pos, depth, bulk) {
            println!("{m}: {n}");
            total += n;
        }
        println!("\nNodes searched: {total}");
        println!("Time: {} ms", t.elapsed().as_millis());
        return Ok(());
    }
    let mut walls = Vec::new();
    let mut cpus = Vec::new();
    let mut nodes = 0;
    for _ in 0..reps.max(1) {
        let cpu0 = thread_seconds();
        let t = Instant::now();
        nodes = perft::perft(&mut pos, depth, bulk);
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
    println!("Nodes searched: {nodes}");
    print!(
        "Time: {:.3} s wall (median of {}), {:.1} M nodes/s",
        wall,
        walls.len(),
        nodes as f64 / wall / 1e6
    );
    if !cpus.is_empty() {
        let cpu = median(&mut cpus);
        print!("; {:.3} s cpu, {:.1} M nodes/s", cpu, nodes as f64 / cpu / 1e6);
    }
    println!(" ({})", if bulk { "bulk" } else { "no-bulk" });
    Ok(())
}

fn run_bench(depth: i32) {
    let positions = hayate::bench::positions();
    let result = hayate::bench::run(depth, |i, sfen, nodes| {
        println!("Position {:>2}/{}: {nodes:>10} nodes  {sfen}", i + 1, positions.len());
    });
    let secs = result.elapsed.as_secs_f64().max(1e-6);
    println!("===========================");
    println!("Total time (ms) : {}", result.elapsed.as_millis());
    println!("Nodes searched  : {}", result.nodes);
    println!("Nodes/second    : {}", (result.nodes as f64 / secs) as u64);
}

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Perft { depth, sfen, divide, no_bulk, reps }) => {
            run_perft(depth, sfen, divide, !no_bulk, reps)
        }
        Some(Command::Bench { depth }) => {
            run_bench(depth);
            Ok(())
        }
        None => match hayate::usi::load_options(cli.config.as_deref()) {
            Ok((options, problem)) => {
                hayate::usi::run(options, problem);
                Ok(())
            }
            Err(e) => Err(e),
        },
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
