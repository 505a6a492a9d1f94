//! `hayate tune gen` and `hayate tune fit`: files in, files out, progress on stderr.

use super::selfplay::{play, SelfPlayConfig};
use super::texel::{biggest_changes, fit as fit_weights, weights_source, DataSet, TexelConfig};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use crate::engine::user_file::read_regular_text;
use crate::tools::file_identity::check_outputs;
use crate::tools::selfplay::opening::MAX_OPENINGS_FILE_BYTES;

/// The largest data file `tune fit` reads (the positions are held in memory, several times the
/// text's size, so a larger file could not be fitted anyway).
const DATA_LIMIT: u64 = 16 << 30;

/// The opening lines of a file: one `position` argument list per line (`startpos moves ...` or
/// `sfen ...`); blank lines and `#` comments skipped.
fn read_openings(path: &Path) -> Result<Vec<String>, String> {
    Ok(read_regular_text(path, MAX_OPENINGS_FILE_BYTES)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect())
}

/// Plays the self-play games of `config` (its openings replaced by those of `openings`, if
/// given) and appends one record per kept position to `out`.
pub fn gen(out: &Path, openings: Option<&Path>, config: SelfPlayConfig) -> Result<(), String> {
    crate::tools::check_threads(config.threads)?;
    let inputs: Vec<(&str, &Path)> = openings.iter().map(|p| ("--openings", *p)).collect();
    check_outputs(&inputs, &[("--out", out)])?;
    let config = match openings {
        Some(path) => SelfPlayConfig { openings: read_openings(path)?, ..config },
        None => config,
    };
    let games = config.games;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(out)
        .map_err(|e| format!("{}: {e}", out.display()))?;
    // The writer, and its first write error (a full disk): the games still to come are played
    // but not written, and the error is the command's result.
    let output: Mutex<(std::io::BufWriter<std::fs::File>, Option<String>)> =
        Mutex::new((std::io::BufWriter::new(file), None));
    let start = Instant::now();
    let totals = Mutex::new((0usize, 0usize, [0usize; 3]));
    play(&config, |_, game| {
        let mut guard = output.lock().expect("not poisoned");
        let (w, failed) = &mut *guard;
        if failed.is_none() {
            let written = game.records.iter().try_for_each(|r| writeln!(w, "{}", r.to_line()));
            if let Err(e) = written.and_then(|()| w.flush()) {
                let message = format!("{}: {e}", out.display());
                eprintln!("error: {message}; the games still to come are not written");
                *failed = Some(message);
            }
        }
        drop(guard);
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
    })?;
    match output.into_inner().expect("not poisoned").1 {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Fits the evaluation weights to the data `files` and writes them to `out` as Rust source; the
/// summary goes to `report`.
pub fn fit(
    files: &[PathBuf],
    out: &Path,
    config: &TexelConfig,
    report: &mut dyn FnMut(&str),
) -> Result<(), String> {
    let inputs: Vec<(&str, &Path)> = files.iter().map(|f| ("data file", f.as_path())).collect();
    check_outputs(&inputs, &[("--out", out)])?;
    let mut text = String::new();
    for f in files {
        let part = read_regular_text(f, DATA_LIMIT).map_err(|e| format!("{}: {e}", f.display()))?;
        text.try_reserve(part.len() + 1)
            .map_err(|_| format!("{}: not enough memory to hold the data files together", f.display()))?;
        text.push_str(&part);
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
    let start = crate::eval::linear::weights::WEIGHTS.to_vec();
    let result = fit_weights(&data, &start, config, |it, loss| {
        if it.is_multiple_of(100) {
            eprintln!("iteration {it:>5}  train loss {loss:.6}  {:.0} s", t.elapsed().as_secs_f64());
        }
    });
    report(&format!("K = {:.1}", result.k));
    report(&format!("train loss   {:.6} -> {:.6}", result.train_loss_before, result.train_loss_after));
    report(&format!("holdout loss {:.6} -> {:.6}", result.holdout_loss_before, result.holdout_loss_after));
    report("largest changes:");
    for line in biggest_changes(&start, &result.weights, 25) {
        report(&format!("  {line}"));
    }
    let header = format!(
        "Fit: {} positions, lambda {}, {} iterations, K {:.1}; holdout loss {:.6} -> {:.6}.",
        data.len(),
        config.lambda,
        config.iterations,
        result.k,
        result.holdout_loss_before,
        result.holdout_loss_after
    );
    std::fs::write(out, weights_source(&result.weights, &header))
        .map_err(|e| format!("{}: {e}", out.display()))?;
    report(&format!("wrote {}", out.display()));
    Ok(())
}
