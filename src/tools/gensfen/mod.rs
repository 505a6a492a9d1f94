//! `hayate gensfen`: self-play training data for NNUE.
//!
//! Games of the engine against itself (one single-threaded search per move, a node or depth
//! limit) from opening lines plus random moves; the quiet positions with their search score, best
//! move, move number and game result become YaneuraOu `PackedSfenValue` records (`.bin`), and
//! every game is also kept in a compact record (`.hgr`, about 2.5 bytes a ply) from which the
//! `.bin` is rebuilt exactly. Runs are seeded, sharded and resumable. The packed position itself
//! is `position::PackedSfen`.

pub mod codec;
pub mod convert;
pub mod generate;
pub mod merge;
pub mod psv;
pub mod record;

use crate::eval::nnue::Network;
use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::sync::Arc;

/// `hayate gensfen`: generate (the options below), or `convert` / `merge`.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct GensfenArgs {
    #[command(subcommand)]
    pub command: Option<GensfenCommand>,
    #[command(flatten)]
    pub generate: GenerateArgs,
}

#[derive(Subcommand, Debug)]
pub enum GensfenCommand {
    /// Rebuild training positions (.bin, or text) from game records (.hgr).
    Convert(ConvertArgs),
    /// Merge game-record files (e.g. the shards of a run) into one, dropping duplicate games and
    /// positions; writes the .hgr and its .bin.
    Merge(MergeArgs),
}

/// Generation options.
#[derive(Args, Debug)]
pub struct GenerateArgs {
    /// Output folder; the shard's files are shard-I-of-N.hgr (games) and .bin (positions).
    /// Running the same command again goes on where it stopped.
    #[arg(long, required = true)]
    pub out: Option<PathBuf>,
    /// Games of the whole run, all shards together (game numbers 0..N); default: no end.
    #[arg(long)]
    pub games: Option<u64>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// This shard's number, 0..shards: it plays the games whose number modulo --shards is this.
    #[arg(long, default_value_t = 0)]
    pub shard: u64,
    #[arg(long, default_value_t = 1)]
    pub shards: u64,
    /// Game threads (each game searches on one thread).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Nodes per move (default 5000 unless --depth is given).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Depth per move (with --nodes too, whichever comes first).
    #[arg(long)]
    pub depth: Option<i32>,
    /// Opening lines, one `startpos moves ...` or `sfen ... moves ...` a line; default: the start
    /// position only.
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Random moves after the opening (among those that lose no material by SEE).
    #[arg(long, default_value_t = 8)]
    pub random_plies: usize,
    /// Keep positions from this move number on.
    #[arg(long, default_value_t = 16)]
    pub min_ply: u32,
    /// Draw a game whose move number passes this.
    #[arg(long, default_value_t = 320)]
    pub max_ply: u32,
    /// Keep only positions whose |score| is at most this.
    #[arg(long, default_value_t = 3000)]
    pub eval_limit: i32,
    /// Adjudicate a win once both sides' scores agree beyond this ...
    #[arg(long, default_value_t = 3000)]
    pub resign_score: i32,
    /// ... for this many plies in a row.
    #[arg(long, default_value_t = 6)]
    pub resign_plies: u32,
    /// Hash table per game thread, MB.
    #[arg(long, default_value_t = 16)]
    pub hash: usize,
    /// NNUE file to play with (default: the net embedded in the binary).
    #[arg(long)]
    pub eval_file: Option<PathBuf>,
    #[arg(long, default_value_t = 16)]
    pub fv_scale: i32,
    /// Seconds between progress lines on stderr.
    #[arg(long, default_value_t = 30)]
    pub progress: u64,
}

#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// Game-record files, converted in order.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Output file.
    #[arg(long)]
    pub out: PathBuf,
    /// Write text (`sfen<TAB>move<TAB>score<TAB>ply<TAB>result` a line) instead of .bin.
    #[arg(long)]
    pub text: bool,
    /// Keep only positions whose |score| is at most this (in addition to the recorded choice).
    #[arg(long)]
    pub eval_limit: Option<i32>,
    /// Keep only positions from this move number on.
    #[arg(long)]
    pub min_ply: Option<u32>,
}

#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Game-record files to merge.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Merged game records (.hgr).
    #[arg(long)]
    pub out: PathBuf,
    /// Merged positions (default: --out with the extension .bin).
    #[arg(long)]
    pub bin: Option<PathBuf>,
}

/// A file's content fingerprint, for a header. The name is left out, so that a copy of the file
/// elsewhere, or under another name, resumes the same run.
fn file_id(bytes: &[u8]) -> String {
    format!("fnv:{:016x}", codec::fnv1a64(bytes))
}

/// Builds the generation settings from the options (reads the openings and the net).
pub fn generate_config(a: &GenerateArgs) -> Result<generate::GenConfig, String> {
    let out = a.out.clone().ok_or("--out is required")?;
    // The shard's files are appended to or created: neither may be a file the run reads.
    let (hgr, bin) = generate::shard_paths(&out, a.shard, a.shards);
    let inputs: Vec<(&str, &std::path::Path)> = [("--openings", &a.openings), ("--eval-file", &a.eval_file)]
        .into_iter()
        .filter_map(|(what, p)| p.as_deref().map(|p| (what, p)))
        .collect();
    crate::tools::file_identity::check_outputs(&inputs, &[("game file", &hgr), ("position file", &bin)])?;
    let (openings, openings_id) = match &a.openings {
        Some(path) => {
            let (list, bytes) = crate::tools::selfplay::opening::read_openings(path)?;
            (list, file_id(&bytes))
        }
        None => (Vec::new(), "none".to_string()),
    };
    let (network, eval_id) = match &a.eval_file {
        Some(path) => {
            // Only a regular file of a net's size: a FIFO or a device would never end reading.
            let limit = crate::eval::nnue::network::MAX_FILE_BYTES;
            let bytes = crate::engine::user_file::read_regular(path, limit)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            let net = Network::from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
            (Some((Arc::new(net), a.fv_scale)), format!("nnue {} fv_scale {}", file_id(&bytes), a.fv_scale))
        }
        None => (None, "embedded".to_string()),
    };
    crate::tools::check_threads(a.threads)?;
    let nodes = if a.nodes.is_none() && a.depth.is_none() { Some(5000) } else { a.nodes };
    if nodes == Some(0) || a.depth.is_some_and(|d| d < 1) {
        return Err("--nodes and --depth must be positive".into());
    }
    Ok(generate::GenConfig {
        out,
        games: a.games,
        seed: a.seed,
        shard: a.shard,
        shards: a.shards,
        threads: a.threads,
        openings,
        openings_id,
        random_plies: a.random_plies,
        play: crate::tools::selfplay::player::PlayConfig {
            nodes,
            depth: a.depth,
            max_ply: a.max_ply,
            resign_score: a.resign_score,
            resign_plies: a.resign_plies,
            eval_limit: a.eval_limit,
            min_ply: a.min_ply,
        },
        hash_mb: a.hash.max(1),
        network,
        eval_id,
        progress_secs: a.progress,
    })
}

/// Runs `hayate gensfen ...`; the summary goes to `out`, progress to stderr.
pub fn main(args: GensfenArgs, out: &mut dyn FnMut(&str)) -> Result<(), String> {
    match args.command {
        None => {
            let config = generate_config(&args.generate)?;
            let s = generate::run(&config)?;
            let secs = s.elapsed.as_secs_f64().max(1e-3);
            out(&format!(
                "gensfen: {} games, {} positions in {:.0} s ({:.0} positions/s, {:.0} per thread); {}",
                s.stats.games,
                s.stats.positions,
                secs,
                s.stats.positions as f64 / secs,
                s.stats.positions as f64 / secs / config.threads as f64,
                s.stats.ends_text()
            ));
            out(&format!(
                "gensfen: {} and {} now hold {} games, {} positions",
                s.hgr.display(),
                s.bin.display(),
                s.earlier_games + s.stats.games,
                s.earlier_positions + s.stats.positions
            ));
            Ok(())
        }
        Some(GensfenCommand::Convert(c)) => {
            let filter = convert::Filter { eval_limit: c.eval_limit, min_ply: c.min_ply };
            let format = if c.text { convert::Format::Text } else { convert::Format::Bin };
            let n = convert::convert_files_as(&c.inputs, &c.out, &filter, format)?;
            out(&format!("gensfen convert: {n} positions to {}", c.out.display()));
            Ok(())
        }
        Some(GensfenCommand::Merge(m)) => {
            let bin = m.bin.clone().unwrap_or_else(|| m.out.with_extension("bin"));
            let s = merge::merge(&m.inputs, &m.out, &bin)?;
            out(&format!(
                "gensfen merge: {} games in, {} out ({} duplicates); {} positions in, {} out; {} and {}",
                s.games_in,
                s.games_out,
                s.duplicate_games,
                s.positions_in,
                s.positions_out,
                m.out.display(),
                bin.display()
            ));
            Ok(())
        }
    }
}
