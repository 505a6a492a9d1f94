//! Merging game-record files (the shards of a run, or several runs) into one, in a fixed order,
//! without duplicates: a game present twice (same seed, index and moves) is written once, and a
//! training position (board, hands, side to move) already kept in an earlier game is no longer
//! kept. The merged `.bin` is the conversion of the merged games.
//!
//! Order: by seed, then game index; games sharing both (same seed, other settings) follow the
//! order of the inputs. Every input must itself be in that order, as generation and merge write.
//! So the shards of a run merge into the same file as the run played in one piece, and merged.

use super::codec::fnv1a64;
use super::convert::psv_of_game;
use super::record::{self, frame, GameReader, GameRecord, Header, ReadError};
use std::collections::{BinaryHeap, HashSet};
use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

/// What a merge did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MergeSummary {
    pub games_in: u64,
    pub games_out: u64,
    pub duplicate_games: u64,
    pub positions_in: u64,
    pub positions_out: u64,
}

/// The merged header: each setting the inputs agree on, `mixed` for the others; the shard
/// settings are left out (the merged file is no one shard).
fn merged_header(headers: &[Header]) -> Header {
    let mut h = Header::default();
    let Some(first) = headers.first() else { return h };
    for (k, v) in &first.0 {
        if k == "shard" || k == "shards" {
            continue;
        }
        if headers.iter().all(|o| o.get(k) == Some(v.as_str())) {
            h.push(k, v);
        } else {
            h.push(k, "mixed");
        }
    }
    h
}

/// One input and its next game.
struct Input {
    path: PathBuf,
    reader: GameReader<BufReader<File>>,
    head: Option<(u64, u64, Vec<u8>)>,
}

impl Input {
    fn advance(&mut self) -> Result<(), String> {
        let before = self.head.as_ref().map(|h| (h.0, h.1));
        self.head = match self.reader.next_payload() {
            Ok(Some(p)) => {
                let (seed, index, _) =
                    GameRecord::skim(&p).map_err(|e| format!("{}: {e}", self.path.display()))?;
                if before.is_some_and(|b| b > (seed, index)) {
                    return Err(format!(
                        "{}: game {index} of seed {seed} comes after a later game: not a generation or merge output",
                        self.path.display()
                    ));
                }
                Some((seed, index, p))
            }
            Ok(None) => None,
            Err(ReadError::Truncated { offset }) => {
                eprintln!(
                    "gensfen: {}: the last record (byte {offset}) is incomplete; skipped",
                    self.path.display()
                );
                None
            }
            Err(e) => return Err(format!("{}: {e}", self.path.display())),
        };
        Ok(())
    }
}

/// Merges `inputs` into `out_hgr` and its conversion `out_bin`.
pub fn merge(inputs: &[PathBuf], out_hgr: &Path, out_bin: &Path) -> Result<MergeSummary, String> {
    // Before anything is opened: creating an output empties it.
    let named: Vec<(&str, &Path)> = inputs.iter().map(|p| ("input", p.as_path())).collect();
    crate::tools::file_identity::check_outputs(&named, &[("--out", out_hgr), ("--bin", out_bin)])?;
    let mut sources = Vec::new();
    for path in inputs {
        let mut input = Input { path: path.clone(), reader: record::open(path)?, head: None };
        input.advance()?;
        sources.push(input);
    }
    let header = merged_header(&sources.iter().map(|s| s.reader.header.clone()).collect::<Vec<_>>());
    let create = |p: &Path| File::create(p).map(BufWriter::new).map_err(|e| format!("{}: {e}", p.display()));
    let (mut hgr, mut bin) = (create(out_hgr)?, create(out_bin)?);
    hgr.write_all(&header.to_bytes()).map_err(|e| format!("{}: {e}", out_hgr.display()))?;

    // Smallest (seed, index, input number) first.
    let mut heap = BinaryHeap::new();
    for (i, s) in sources.iter().enumerate() {
        if let Some((seed, index, _)) = &s.head {
            heap.push(std::cmp::Reverse((*seed, *index, i)));
        }
    }
    let mut summary = MergeSummary::default();
    let mut seen_positions: HashSet<u64> = HashSet::new();
    // Fingerprints of the games written under the current (seed, index).
    let mut current: ((u64, u64), Vec<u64>) = ((u64::MAX, u64::MAX), Vec::new());
    let mut psv = Vec::new();
    while let Some(std::cmp::Reverse((seed, index, i))) = heap.pop() {
        let (_, _, payload) = sources[i].head.take().expect("queued inputs have a game");
        sources[i].advance()?;
        if let Some((s, x, _)) = &sources[i].head {
            heap.push(std::cmp::Reverse((*s, *x, i)));
        }
        summary.games_in += 1;
        let fingerprint = fnv1a64(&payload);
        if current.0 != (seed, index) {
            current = ((seed, index), Vec::new());
        }
        let mut keys = Vec::new();
        let mut game = GameRecord::decode_with(&payload, |pos, _| keys.push(pos.key()))
            .map_err(|e| format!("{}: game {index}: {e}", sources[i].path.display()))?;
        summary.positions_in += game.kept() as u64;
        if current.1.contains(&fingerprint) {
            summary.duplicate_games += 1;
            continue;
        }
        current.1.push(fingerprint);
        let mut changed = false;
        for (ply, key) in game.plies.iter_mut().zip(keys) {
            if ply.keep && !seen_positions.insert(key) {
                ply.keep = false;
                changed = true;
            }
        }
        let payload = if changed { game.encode()? } else { payload };
        psv.clear();
        summary.positions_out += psv_of_game(&payload, &mut psv, &Default::default())?;
        summary.games_out += 1;
        bin.write_all(&psv).map_err(|e| format!("{}: {e}", out_bin.display()))?;
        hgr.write_all(&frame(&payload)).map_err(|e| format!("{}: {e}", out_hgr.display()))?;
    }
    hgr.flush().map_err(|e| format!("{}: {e}", out_hgr.display()))?;
    bin.flush().map_err(|e| format!("{}: {e}", out_bin.display()))?;
    Ok(summary)
}
