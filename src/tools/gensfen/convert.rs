//! From game records to training positions: every kept ply of a game becomes one
//! `PackedSfenValue`, in game order; optional filters keep fewer. Without filters this is exactly
//! what generation wrote to the `.bin` (generation writes through this same function).

use super::psv::{to_move16, PackedSfenValue};
use super::record::{self, GameRecord, ReadError};
use crate::types::Color;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Extra conditions on the kept positions (all off by default).
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Keep only positions with |score| at most this.
    pub eval_limit: Option<i32>,
    /// Keep only positions from this move number on.
    pub min_ply: Option<u32>,
}

/// Output form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `PackedSfenValue` records, 40 bytes each.
    Bin,
    /// One line a position: `sfen<TAB>move<TAB>score<TAB>ply<TAB>result` (USI move, side-to-move
    /// score and result), for reading.
    Text,
}

struct Kept {
    sfen: String,
    psv: PackedSfenValue,
    color: Color,
}

/// The kept positions of a game payload (checked: every move must be legal).
fn kept_positions(payload: &[u8], filter: &Filter, text: bool) -> Result<Vec<Kept>, String> {
    let mut kept = Vec::new();
    let mut error = None;
    let game = GameRecord::decode_with(payload, |pos, ply| {
        if !ply.keep
            || filter.eval_limit.is_some_and(|l| ply.score.abs() > l)
            || filter.min_ply.is_some_and(|m| pos.game_ply() < m)
            || error.is_some()
        {
            return;
        }
        match pos.to_packed() {
            Ok(sfen) => kept.push(Kept {
                sfen: if text { pos.to_sfen() } else { String::new() },
                psv: PackedSfenValue {
                    sfen,
                    score: ply.score.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
                    move16: to_move16(ply.mv),
                    game_ply: pos.game_ply().min(u16::MAX as u32) as u16,
                    game_result: 0,
                },
                color: pos.side_to_move(),
            }),
            Err(e) => error = Some(format!("{}: {e}", pos.to_sfen())),
        }
    })?;
    if let Some(e) = error {
        return Err(e);
    }
    for k in &mut kept {
        k.psv.game_result = game.outcome.for_color(k.color);
    }
    Ok(kept)
}

/// Appends the `PackedSfenValue` records of a game payload to `out`; returns how many.
pub fn psv_of_game(payload: &[u8], out: &mut Vec<u8>, filter: &Filter) -> Result<u64, String> {
    let kept = kept_positions(payload, filter, false)?;
    for k in &kept {
        out.extend_from_slice(&k.psv.to_bytes());
    }
    Ok(kept.len() as u64)
}

/// Appends the text lines of a game payload to `out`; returns how many.
fn text_of_game(payload: &[u8], out: &mut Vec<u8>, filter: &Filter) -> Result<u64, String> {
    let kept = kept_positions(payload, filter, true)?;
    for k in &kept {
        let m = super::psv::from_move16(k.psv.move16).expect("written from a move");
        writeln!(out, "{}\t{m}\t{}\t{}\t{}", k.sfen, k.psv.score, k.psv.game_ply, k.psv.game_result)
            .expect("writing to memory");
    }
    Ok(kept.len() as u64)
}

/// Calls `each` with every game payload of `path`, in order. A torn last record (a run still
/// writing, or stopped mid-write) ends the file with a warning; other damage is an error.
pub fn for_each_game(
    path: &Path,
    mut each: impl FnMut(&record::Header, Vec<u8>) -> Result<(), String>,
) -> Result<(), String> {
    let mut reader = record::open(path)?;
    loop {
        match reader.next_payload() {
            Ok(Some(p)) => each(&reader.header, p).map_err(|e| format!("{}: {e}", path.display()))?,
            Ok(None) => return Ok(()),
            Err(ReadError::Truncated { offset }) => {
                eprintln!(
                    "gensfen: {}: the last record (byte {offset}) is incomplete; skipped",
                    path.display()
                );
                return Ok(());
            }
            Err(e) => return Err(format!("{}: {e}", path.display())),
        }
    }
}

/// Writes the positions of every game of `inputs` (in order) to `out` in `format`; returns the
/// number of positions. An `out` that is one of the inputs is refused before it is created.
pub fn convert_files_as(
    inputs: &[PathBuf],
    out: &Path,
    filter: &Filter,
    format: Format,
) -> Result<u64, String> {
    let named: Vec<(&str, &Path)> = inputs.iter().map(|p| ("input", p.as_path())).collect();
    crate::tools::file_identity::check_outputs(&named, &[("--out", out)])?;
    let file = std::fs::File::create(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut w = std::io::BufWriter::new(file);
    let mut buf = Vec::new();
    let mut n = 0;
    for input in inputs {
        for_each_game(input, |_, payload| {
            buf.clear();
            n += match format {
                Format::Bin => psv_of_game(&payload, &mut buf, filter)?,
                Format::Text => text_of_game(&payload, &mut buf, filter)?,
            };
            w.write_all(&buf).map_err(|e| format!("{}: {e}", out.display()))
        })?;
    }
    w.flush().map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(n)
}

/// [`convert_files_as`] to `.bin`.
pub fn convert_files(inputs: &[PathBuf], out: &Path, filter: &Filter) -> Result<u64, String> {
    convert_files_as(inputs, out, filter, Format::Bin)
}
