//! The generation run: game threads, the files of one shard, resuming, progress.
//!
//! Game `g` of a run is a function of the seed, `g` and the settings alone: its start comes from
//! `Rng::for_game(seed, g)`, and each game thread clears its table and histories before a game.
//! Shard `i` of `n` plays the games with `g % n == i`, in order of `g`; finished games are
//! written in that order too (a game that finishes early waits for the ones before it), so a
//! shard's files are the same whatever the number of threads, and a restart knows exactly where
//! to go on: after the last complete game in the file.

use super::convert::psv_of_game;
use super::record::{self, GameRecord, Header, ReadError};
use crate::eval::nnue::Network;
use crate::tools::selfplay::game::{EndReason, Outcome};
use crate::tools::selfplay::opening::{game_start, Opening, Rng};
use crate::tools::selfplay::player::{PlayConfig, Player};
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Everything a run needs.
pub struct GenConfig {
    /// Output folder (created if missing).
    pub out: PathBuf,
    /// Games of the whole run (all shards): indices 0..games; `None`: no end.
    pub games: Option<u64>,
    pub seed: u64,
    pub shard: u64,
    pub shards: u64,
    pub threads: usize,
    pub openings: Vec<Opening>,
    /// How the openings are named in the header: file name and content hash ("none" without).
    pub openings_id: String,
    pub random_plies: usize,
    pub play: PlayConfig,
    pub hash_mb: usize,
    /// An NNUE net with its FV_SCALE, else the net embedded in the binary.
    pub network: Option<(Arc<Network>, i32)>,
    /// How the evaluation is named in the header.
    pub eval_id: String,
    /// Seconds between progress lines on stderr.
    pub progress_secs: u64,
}

impl GenConfig {
    /// The header of this shard's game file: every setting the games depend on.
    pub fn header(&self) -> Header {
        let mut h = Header::default();
        h.push("format", "hayate-gensfen 1");
        h.push("engine", concat!("hayate ", env!("CARGO_PKG_VERSION")));
        h.push("seed", self.seed);
        h.push("shard", self.shard);
        h.push("shards", self.shards);
        h.push("nodes", self.play.nodes.map_or("-".to_string(), |n| n.to_string()));
        h.push("depth", self.play.depth.map_or("-".to_string(), |d| d.to_string()));
        h.push("openings", &self.openings_id);
        h.push("random-plies", self.random_plies);
        h.push("min-ply", self.play.min_ply);
        h.push("max-ply", self.play.max_ply);
        h.push("eval-limit", self.play.eval_limit);
        h.push("resign-score", self.play.resign_score);
        h.push("resign-plies", self.play.resign_plies);
        h.push("hash-mb", self.hash_mb);
        h.push("eval", &self.eval_id);
        h
    }

    /// The number of games of this shard (`None`: no end).
    fn shard_games(&self) -> Option<u64> {
        self.games.map(|g| if g > self.shard { (g - self.shard).div_ceil(self.shards) } else { 0 })
    }
}

/// The two files of a shard: game records and training positions.
pub fn shard_paths(out: &Path, shard: u64, shards: u64) -> (PathBuf, PathBuf) {
    let stem = format!("shard-{shard}-of-{shards}");
    (out.join(format!("{stem}.hgr")), out.join(format!("{stem}.bin")))
}

/// Counts of a run, for progress and the summary.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub games: u64,
    pub positions: u64,
    pub plies: u64,
    pub nodes: u64,
    /// Black wins, draws, white wins.
    pub outcomes: [u64; 3],
    pub ends: [u64; EndReason::ALL.len()],
}

impl Stats {
    fn add(&mut self, game: &GameRecord, positions: u64, nodes: u64) {
        self.games += 1;
        self.positions += positions;
        self.plies += game.plies.len() as u64;
        self.nodes += nodes;
        self.outcomes[match game.outcome {
            Outcome::BlackWins => 0,
            Outcome::Draw => 1,
            Outcome::WhiteWins => 2,
        }] += 1;
        self.ends[EndReason::ALL.iter().position(|&e| e == game.end).expect("listed")] += 1;
    }

    pub fn ends_text(&self) -> String {
        EndReason::ALL
            .iter()
            .zip(self.ends)
            .filter(|(_, n)| *n > 0)
            .map(|(e, n)| format!("{} {n}", e.name()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Games and positions found in the files at the start (resumed).
    pub earlier_games: u64,
    pub earlier_positions: u64,
    /// This run's games.
    pub stats: Stats,
    pub elapsed: Duration,
    pub hgr: PathBuf,
    pub bin: PathBuf,
}

/// Opens a shard's files: checks and repairs what an earlier run left (a torn last record, a
/// `.bin` longer or shorter than its games), or starts them. The game file stays locked while
/// the run holds it, so a second run on the same shard stops at once instead of interleaving.
/// Returns the files ready to append, the games already there and their positions.
fn open_shard(config: &GenConfig, hgr: &Path, bin: &Path) -> Result<(File, File, u64, u64), String> {
    let err = |p: &Path, e: &dyn std::fmt::Display| format!("{}: {e}", p.display());
    let header = config.header();
    let hgr_file =
        OpenOptions::new().read(true).append(true).create(true).open(hgr).map_err(|e| err(hgr, &e))?;
    match hgr_file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            return Err(format!("{} is being written by another run", hgr.display()))
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(err(hgr, &e)),
    }
    let (mut games, mut kept) = (0u64, 0u64);
    let is_new = hgr_file.metadata().map_err(|e| err(hgr, &e))?.len() == 0;
    if is_new {
        if std::fs::metadata(bin).is_ok_and(|m| m.len() > 0) {
            return Err(format!(
                "{} exists without games in {}: move it away first",
                bin.display(),
                hgr.display()
            ));
        }
        (&hgr_file).write_all(&header.to_bytes()).map_err(|e| err(hgr, &e))?;
        File::create(bin).map_err(|e| err(bin, &e))?;
    } else {
        let mut reader = record::open(hgr)?;
        if reader.header != header {
            let diff: Vec<String> = header
                .0
                .iter()
                .filter(|(k, v)| reader.header.get(k) != Some(v.as_str()))
                .map(|(k, v)| format!("{k}: file {}, now {v}", reader.header.get(k).unwrap_or("(none)")))
                .collect();
            return Err(format!(
                "{} was made with other settings ({}); use another --out to start a new run",
                hgr.display(),
                diff.join("; ")
            ));
        }
        let mut good_end = reader.offset();
        loop {
            match reader.next_payload() {
                Ok(Some(p)) => {
                    let (seed, index, n) =
                        GameRecord::skim(&p).map_err(|e| format!("{}: game {games}: {e}", hgr.display()))?;
                    let expected = config.shard + config.shards * games;
                    if seed != config.seed || index != expected {
                        return Err(format!(
                            "{}: game {games} is game {index} of seed {seed}, expected {expected} of seed {}",
                            hgr.display(),
                            config.seed
                        ));
                    }
                    games += 1;
                    kept += n as u64;
                    good_end = reader.offset();
                }
                Ok(None) => break,
                Err(ReadError::Io(e)) => return Err(err(hgr, &e)),
                Err(e) => {
                    eprintln!("gensfen: {}: {e}; dropping the rest from there", hgr.display());
                    break;
                }
            }
        }
        drop(reader);
        hgr_file.set_len(good_end).map_err(|e| err(hgr, &e))?;
        let want = kept * super::psv::PSV_SIZE as u64;
        let have = std::fs::metadata(bin).map(|m| m.len()).unwrap_or(0);
        if have >= want {
            if have > want {
                eprintln!("gensfen: {}: dropping the positions of an unfinished game", bin.display());
            }
            let f = OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(bin)
                .map_err(|e| err(bin, &e))?;
            f.set_len(want).map_err(|e| err(bin, &e))?;
        } else {
            eprintln!("gensfen: {} is shorter than its games need: rebuilding it", bin.display());
            let n = super::convert::convert_files(&[hgr.to_path_buf()], bin, &Default::default())?;
            if n != kept {
                return Err(format!("{}: rebuilt {n} positions, expected {kept}", bin.display()));
            }
        }
    }
    let bin_file = OpenOptions::new().append(true).open(bin).map_err(|e| err(bin, &e))?;
    Ok((hgr_file, bin_file, games, kept))
}

/// Everything the game threads share.
struct Shared {
    /// The shard's next game to start (its position in the shard, not the game number).
    next_game: AtomicU64,
    /// Set when writing failed: the threads stop.
    failed: AtomicBool,
    sink: Mutex<Sink>,
}

/// The writer side: games wait here until every earlier game of the shard is written.
struct Sink {
    next: u64,
    pending: BTreeMap<u64, (GameRecord, u64)>,
    hgr: BufWriter<File>,
    bin: BufWriter<File>,
    stats: Stats,
    error: Option<String>,
    last_report: Instant,
    psv: Vec<u8>,
}

impl Sink {
    /// Writes every game that is next in line.
    fn drain(&mut self) -> Result<(), String> {
        while let Some((game, nodes)) = self.pending.remove(&self.next) {
            let payload = game.encode()?;
            self.psv.clear();
            let n = psv_of_game(&payload, &mut self.psv, &Default::default())?;
            self.bin.write_all(&self.psv).map_err(|e| format!("writing positions: {e}"))?;
            self.bin.flush().map_err(|e| format!("writing positions: {e}"))?;
            self.hgr.write_all(&record::frame(&payload)).map_err(|e| format!("writing games: {e}"))?;
            self.hgr.flush().map_err(|e| format!("writing games: {e}"))?;
            self.stats.add(&game, n, nodes);
            self.next += 1;
        }
        Ok(())
    }
}

fn progress_line(s: &Stats, earlier: u64, elapsed: f64, threads: usize) -> String {
    let secs = elapsed.max(1e-3);
    format!(
        "gensfen: games {} (+{earlier} earlier)  positions {}  {:.0} pos/s ({:.0}/s/thread)  {:.0} nodes/s  \
         plies/game {:.0}  black/draw/white {}/{}/{}  {:.0} s",
        s.games,
        s.positions,
        s.positions as f64 / secs,
        s.positions as f64 / secs / threads as f64,
        s.nodes as f64 / secs,
        s.plies as f64 / s.games.max(1) as f64,
        s.outcomes[0],
        s.outcomes[1],
        s.outcomes[2],
        elapsed
    )
}

/// Runs the shard: resumes its files, plays the remaining games on `config.threads` threads.
pub fn run(config: &GenConfig) -> Result<Summary, String> {
    if config.shards == 0 || config.shard >= config.shards {
        return Err(format!("--shard {} must be below --shards {}", config.shard, config.shards));
    }
    if config.play.nodes.is_none() && config.play.depth.is_none() {
        return Err("give a node or depth limit per move".into());
    }
    std::fs::create_dir_all(&config.out).map_err(|e| format!("{}: {e}", config.out.display()))?;
    let (hgr_path, bin_path) = shard_paths(&config.out, config.shard, config.shards);
    let (hgr, bin, done, kept) = open_shard(config, &hgr_path, &bin_path)?;
    let total = config.shard_games();
    if done > 0 {
        eprintln!(
            "gensfen: {} holds {done} games ({kept} positions): going on from there",
            hgr_path.display()
        );
    }
    let start = Instant::now();
    let shared = Shared {
        next_game: AtomicU64::new(done),
        failed: AtomicBool::new(false),
        sink: Mutex::new(Sink {
            next: done,
            pending: BTreeMap::new(),
            hgr: BufWriter::new(hgr),
            bin: BufWriter::new(bin),
            stats: Stats::default(),
            error: None,
            last_report: start,
            psv: Vec::new(),
        }),
    };
    std::thread::scope(|s| {
        for _ in 0..config.threads.max(1) {
            s.spawn(|| {
                let mut player = Player::new(config.hash_mb, config.network.as_ref());
                while !shared.failed.load(Ordering::Relaxed) {
                    let j = shared.next_game.fetch_add(1, Ordering::Relaxed);
                    if total.is_some_and(|t| j >= t) {
                        break;
                    }
                    let index = config.shard + config.shards * j;
                    let mut rng = Rng::for_game(config.seed, index);
                    let (start_pos, setup, pos) = game_start(&config.openings, config.random_plies, &mut rng);
                    let played = player.play(pos, &config.play);
                    let game = GameRecord {
                        seed: config.seed,
                        index,
                        start: start_pos,
                        setup,
                        plies: played.plies,
                        outcome: played.outcome,
                        end: played.end,
                    };
                    let mut sink = shared.sink.lock().expect("not poisoned");
                    sink.pending.insert(j, (game, played.nodes));
                    if let Err(e) = sink.drain() {
                        sink.error = Some(e);
                        shared.failed.store(true, Ordering::Relaxed);
                        break;
                    }
                    if sink.last_report.elapsed().as_secs() >= config.progress_secs {
                        sink.last_report = Instant::now();
                        eprintln!(
                            "{}",
                            progress_line(
                                &sink.stats,
                                done,
                                start.elapsed().as_secs_f64(),
                                config.threads.max(1)
                            )
                        );
                    }
                }
            });
        }
    });
    let sink = shared.sink.into_inner().expect("not poisoned");
    if let Some(e) = sink.error {
        return Err(e);
    }
    eprintln!("{}", progress_line(&sink.stats, done, start.elapsed().as_secs_f64(), config.threads.max(1)));
    Ok(Summary {
        earlier_games: done,
        earlier_positions: kept,
        stats: sink.stats,
        elapsed: start.elapsed(),
        hgr: hgr_path,
        bin: bin_path,
    })
}
