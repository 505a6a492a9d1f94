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
    /// Tune the embedded evaluation: make self-play data, then fit the weights to it.
    #[command(subcommand)]
    Tune(TuneCommand),
    /// Self-play training data for NNUE (YaneuraOu PackedSfenValue .bin and compact game
    /// records); `gensfen convert` and `gensfen merge` work on the records.
    Gensfen(hayate::tools::gensfen::GensfenArgs),
}

#[derive(Subcommand)]
enum TuneCommand {
    /// Play self-play games and write one quiet position per line (`sfen<TAB>score<TAB>result`).
    Gen {
        /// Output file (appended to).
        #[arg(long)]
        out: std::path::PathBuf,
        #[arg(long, default_value_t = 1000)]
        games: usize,
        /// Nodes per move.
        #[arg(long, default_value_t = 3000)]
        nodes: u64,
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// File of start positions, one `position` argument list per line
        /// (`startpos moves ...` or `sfen ...`); default: the start position.
        #[arg(long)]
        openings: Option<std::path::PathBuf>,
        /// Random legal moves played after the opening.
        #[arg(long, default_value_t = 4)]
        random_plies: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Fit the evaluation weights to data files made by `tune gen`; writes a new weights source
    /// file (rebuild to use it).
    Fit {
        /// Data files.
        #[arg(required = true)]
        data: Vec<std::path::PathBuf>,
        /// Where to write the weights (Rust source).
        #[arg(long, default_value = "src/eval/weights.rs")]
        out: std::path::PathBuf,
        /// Weight of the search score in the target (0: results only, 1: scores only).
        #[arg(long, default_value_t = 0.5)]
        lambda: f64,
        #[arg(long, default_value_t = 1500)]
        iterations: usize,
        #[arg(long, default_value_t = 2.0)]
        learning_rate: f64,
        #[arg(long, default_value_t = 2)]
        threads: usize,
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

fn run_tune_gen(
    out: std::path::PathBuf,
    games: usize,
    nodes: u64,
    threads: usize,
    openings: Option<std::path::PathBuf>,
    random_plies: usize,
    seed: u64,
) -> Result<(), String> {
    use hayate::tune::selfplay::{play, SelfPlayConfig};
    use std::io::Write;
    let openings = match openings {
        Some(path) => std::fs::read_to_string(&path)
            .map_err(|e| format!("{}: {e}", path.display()))?
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(String::from)
            .collect(),
        None => Vec::new(),
    };
    let config =
        SelfPlayConfig { games, nodes, threads, openings, random_plies, seed, ..SelfPlayConfig::default() };
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&out)
        .map_err(|e| format!("{}: {e}", out.display()))?;
    let writer = std::sync::Mutex::new(std::io::BufWriter::new(file));
    let start = Instant::now();
    let totals = std::sync::Mutex::new((0usize, 0usize, [0usize; 3]));
    play(&config, |_, game| {
        let mut w = writer.lock().expect("not poisoned");
        for r in &game.records {
            writeln!(w, "{}", r.to_line()).expect("write the data file");
        }
        w.flush().expect("write the data file");
        let mut t = totals.lock().expect("not poisoned");
        t.0 += 1;
        t.1 += game.records.len();
        t.2[(game.black_result * 2.0) as usize] += 1;
        if t.0.is_multiple_of(20) || t.0 == games {
            eprintln!(
                "games {}/{games}  positions {}  black W/D/L {}/{}/{}  {:.0} s",
                t.0,
                t.1,
                t.2[2],
                t.2[1],
                t.2[0],
                start.elapsed().as_secs_f64()
            );
        }
    })
}

fn run_tune_fit(
    files: &[std::path::PathBuf],
    out: &std::path::Path,
    config: hayate::tune::texel::TexelConfig,
) -> Result<(), String> {
    use hayate::tune::texel::{biggest_changes, fit, weights_source, DataSet};
    let mut text = String::new();
    for f in files {
        text.push_str(&std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?);
        text.push('\n');
    }
    let t = Instant::now();
    let (data, bad) = DataSet::from_lines(text.lines().filter(|l| !l.trim().is_empty()));
    drop(text);
    eprintln!(
        "{} positions ({bad} bad lines skipped), features in {:.1} s",
        data.len(),
        t.elapsed().as_secs_f64()
    );
    if data.is_empty() {
        return Err("no positions to fit".into());
    }
    let start = hayate::eval::weights::WEIGHTS.to_vec();
    let report = fit(&data, &start, &config, |it, loss| {
        if it.is_multiple_of(100) {
            eprintln!("iteration {it:>5}  train loss {loss:.6}  {:.0} s", t.elapsed().as_secs_f64());
        }
    });
    println!("K = {:.1}", report.k);
    println!("train loss   {:.6} -> {:.6}", report.train_loss_before, report.train_loss_after);
    println!("holdout loss {:.6} -> {:.6}", report.holdout_loss_before, report.holdout_loss_after);
    println!("largest changes:");
    for line in biggest_changes(&start, &report.weights, 25) {
        println!("  {line}");
    }
    let header = format!(
        "Fit: {} positions, lambda {}, {} iterations, K {:.1}; holdout loss {:.6} -> {:.6}.",
        data.len(),
        config.lambda,
        config.iterations,
        report.k,
        report.holdout_loss_before,
        report.holdout_loss_after
    );
    std::fs::write(out, weights_source(&report.weights, &header))
        .map_err(|e| format!("{}: {e}", out.display()))?;
    println!("wrote {}", out.display());
    Ok(())
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
        Some(Command::Tune(TuneCommand::Gen {
            out,
            games,
            nodes,
            threads,
            openings,
            random_plies,
            seed,
        })) => run_tune_gen(out, games, nodes, threads, openings, random_plies, seed),
        Some(Command::Tune(TuneCommand::Fit { data, out, lambda, iterations, learning_rate, threads })) => {
            let config = hayate::tune::texel::TexelConfig {
                lambda,
                iterations,
                learning_rate,
                threads,
                ..Default::default()
            };
            run_tune_fit(&data, &out, config)
        }
        Some(Command::Gensfen(args)) => hayate::tools::gensfen::main(args),
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
