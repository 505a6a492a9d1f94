//! The `hayate` binary: USI on stdin/stdout by default; the subcommands `perft`, `bench`, `tune`,
//! `gensfen`, `openings` and `csa` (the CSA client) for the command line. This file only reads
//! the command line: the work is in `hayate::tools`, `hayate::usi` and `hayate::csa` (over
//! `hayate::engine`).

use clap::{Parser, Subcommand};
use hayate::tools;
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "hayate",
    version,
    about = "Hayate, a USI shogi engine (USI on stdin/stdout without a subcommand)"
)]
struct Cli {
    /// Defaults file for the USI options (else engine-options.toml next to the binary or in the
    /// working directory); for `csa`, the CSA client's settings file (its [options] table goes
    /// over engine-options.toml).
    #[arg(long, global = true)]
    config: Option<PathBuf>,
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
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
        reps: u32,
    },
    /// Search the bench positions (1 thread, 16 MB) and print the node total.
    Bench {
        /// Search depth.
        #[arg(default_value_t = tools::bench::DEFAULT_DEPTH, value_parser = tools::bench::parse_depth)]
        depth: i32,
    },
    /// Tune the linear evaluation: make self-play data, then fit the weights to it.
    #[command(subcommand)]
    Tune(TuneCommand),
    /// Self-play training data for NNUE (YaneuraOu PackedSfenValue .bin and compact game
    /// records); `gensfen convert` and `gensfen merge` work on the records.
    Gensfen(hayate::tools::gensfen::GensfenArgs),
    /// Write match openings (`startpos moves ...` a line, after a `#` line of the settings):
    /// random lines from the start position that a search scores near equality.
    Openings {
        /// Openings to write.
        #[arg(long, default_value_t = 4000)]
        count: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Fewest random plies of a line.
        #[arg(long, default_value_t = 6)]
        min_plies: usize,
        /// Most random plies of a line.
        #[arg(long, default_value_t = 12)]
        max_plies: usize,
        /// Depth of the balance search.
        #[arg(long, default_value_t = 10)]
        depth: i32,
        /// Keep lines the balance search scores within this of 0.
        #[arg(long, default_value_t = 120)]
        margin: i32,
        /// Evaluation of the balance search: Material, NNUE (the embedded net) or Linear.
        #[arg(long, default_value = "NNUE", value_parser = parse_eval)]
        eval: hayate::eval::EvalType,
        /// Threads (the file is the same for any number).
        #[arg(long, default_value_t = 1)]
        threads: usize,
    },
    /// Play on a CSA server (floodgate, shogi-server): log in, play, save the records; logs on
    /// stderr.
    Csa(hayate::csa::CsaArgs),
}

#[derive(Subcommand)]
enum TuneCommand {
    /// Play self-play games and write one quiet position per line (`sfen<TAB>score<TAB>result`).
    Gen {
        /// Output file (appended to).
        #[arg(long)]
        out: PathBuf,
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
        openings: Option<PathBuf>,
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
        data: Vec<PathBuf>,
        /// Where to write the weights (Rust source).
        #[arg(long, default_value = "src/eval/linear/weights.rs")]
        out: PathBuf,
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

/// Writes a report line on stdout. A reader that closes it early (`hayate perft 6 --divide |
/// head`) wanted no more: the program ends quietly, with success; any other failure to write ends
/// it with a message.
fn print_line(line: &str) {
    use std::io::Write;
    if let Err(e) = writeln!(std::io::stdout().lock(), "{line}") {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: cannot write to stdout: {e}");
        std::process::exit(1);
    }
}

/// An evaluation name for `openings --eval` (`Auto` is refused: it means a net from a file).
fn parse_eval(name: &str) -> Result<hayate::eval::EvalType, String> {
    match hayate::eval::EvalType::from_name(name) {
        Some(kind) if kind != hayate::eval::EvalType::Auto => Ok(kind),
        _ => Err(format!("'{name}' is not one of Material, NNUE, Linear")),
    }
}

fn main() {
    let cli = Cli::parse();
    // The CSA client reports its games in the log.
    let level = if matches!(cli.command, Some(Command::Csa(_))) { "info" } else { "warn" };
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(level))
        .target(env_logger::Target::Stderr)
        .init();
    let mut print = print_line;
    let result = match cli.command {
        Some(Command::Perft { depth, sfen, divide, no_bulk, reps }) => {
            tools::perft::run(depth, sfen.as_deref(), divide, !no_bulk, reps, &mut print)
        }
        Some(Command::Bench { depth }) => {
            tools::bench::report(depth, &std::sync::atomic::AtomicBool::new(false), &mut print);
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
        })) => {
            let config = tools::tune::selfplay::SelfPlayConfig {
                games,
                nodes,
                threads,
                random_plies,
                seed,
                ..Default::default()
            };
            tools::tune::commands::gen(&out, openings.as_deref(), config)
        }
        Some(Command::Tune(TuneCommand::Fit { data, out, lambda, iterations, learning_rate, threads })) => {
            let config = tools::tune::texel::TexelConfig {
                lambda,
                iterations,
                learning_rate,
                threads,
                ..Default::default()
            };
            tools::tune::commands::fit(&data, &out, &config, &mut print)
        }
        Some(Command::Gensfen(args)) => hayate::tools::gensfen::main(args, &mut print),
        Some(Command::Openings { count, seed, min_plies, max_plies, depth, margin, eval, threads }) => {
            let config = tools::openings::OpeningsConfig {
                count,
                seed,
                min_plies,
                max_plies,
                depth,
                margin,
                eval,
                threads,
                ..Default::default()
            };
            let mut progress =
                |written, tried| eprintln!("openings: {written} of {count} from {tried} lines");
            tools::openings::generate(&config, &mut print, &mut progress).map(|s| {
                eprintln!(
                    "openings: {} written from {} lines ({} repeated a position)",
                    s.written, s.tried, s.repeats
                )
            })
        }
        Some(Command::Csa(args)) => {
            hayate::engine::options::load_options(None).and_then(|(options, problem)| {
                if let Some(p) = problem {
                    log::warn!("{p}");
                }
                let tally = hayate::csa::main(&args, cli.config.as_deref(), options)?;
                log::info!(
                    "{} games: +{} -{} ={}, {} without a result",
                    tally.played(),
                    tally.wins,
                    tally.losses,
                    tally.draws,
                    tally.unfinished
                );
                if tally.unfinished > 0 {
                    std::process::exit(2);
                }
                Ok(())
            })
        }
        None => hayate::engine::options::load_options(cli.config.as_deref())
            .map(|(options, problem)| hayate::usi::run(options, problem)),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
