//! `hayate openings`: a file of match openings (`startpos moves ...` a line), as many as a long
//! match needs.
//!
//! Why: with one thread and a node limit a game is a function of its opening and colours (a fresh
//! engine process, the same nodes, the same moves), so a match of more games than twice its
//! openings plays the same games again, and an SPRT over it counts them again: 400 openings give
//! 800 distinct games at most, whatever the seed. A book of a few thousand openings keeps every
//! game of a long node-limited SPRT a new one.
//!
//! How: opening `i` of a run is a reproducible random line from the start position (a number of
//! plies drawn from a range, each a legal move that loses no material by static exchange, as
//! `gensfen` starts its games), kept when the side to move is not in check, the position has not
//! been kept before, and a search to a fixed depth (one thread, cleared table and histories)
//! scores it within a margin of equality. The kept lines come out in the order of `i`, so the file
//! depends on the settings and the engine's search, not on the number of threads.

use crate::eval::EvalType;
use crate::position::Position;
use crate::search::Limits;
use crate::tools::selfplay::opening::{random_moves, Rng};
use crate::tools::selfplay::player::Player;
use crate::types::{is_mate_score, Value, MAX_PLY};
use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// What to generate.
#[derive(Clone, Debug, PartialEq)]
pub struct OpeningsConfig {
    /// Openings to write.
    pub count: usize,
    pub seed: u64,
    /// The number of random plies of a line, drawn evenly from this range (inclusive).
    pub min_plies: usize,
    pub max_plies: usize,
    /// Depth of the balance search.
    pub depth: i32,
    /// Keep a line whose balance score is at most this far from 0.
    pub margin: Value,
    /// The evaluation of the balance search.
    pub eval: EvalType,
    /// Search threads, each checking its own lines.
    pub threads: usize,
    /// Hash table of each thread, MB.
    pub hash_mb: usize,
}

impl Default for OpeningsConfig {
    /// The settings `tests/data/openings.txt` was made with (6-12 random plies, kept within 120
    /// of equality by a depth-10 search), but judged by the embedded net: material alone passes
    /// almost every line that loses no material (50 of the first 51), the net about 5 in 8.
    fn default() -> OpeningsConfig {
        OpeningsConfig {
            count: 4000,
            seed: 1,
            min_plies: 6,
            max_plies: 12,
            depth: 10,
            margin: 120,
            eval: EvalType::Nnue,
            threads: 1,
            hash_mb: 4,
        }
    }
}

impl OpeningsConfig {
    /// The settings as a comment line for the head of the file.
    pub fn header(&self) -> String {
        format!(
            "# hayate openings --count {} --seed {} --min-plies {} --max-plies {} --depth {} --margin {} --eval {}",
            self.count,
            self.seed,
            self.min_plies,
            self.max_plies,
            self.depth,
            self.margin,
            self.eval.name()
        )
    }

    fn check(&self) -> Result<(), String> {
        if self.count == 0 {
            return Err("--count must be at least 1".into());
        }
        if self.min_plies == 0 || self.min_plies > self.max_plies || self.max_plies > 100 {
            return Err(format!(
                "the plies must satisfy 1 <= --min-plies <= --max-plies <= 100, not {}..{}",
                self.min_plies, self.max_plies
            ));
        }
        if !(1..=MAX_PLY).contains(&self.depth) {
            return Err(format!("--depth must be from 1 to {MAX_PLY}, not {}", self.depth));
        }
        if self.margin < 0 {
            return Err(format!("--margin must not be negative, not {}", self.margin));
        }
        crate::tools::check_threads(self.threads)?;
        if self.hash_mb == 0 {
            return Err("the hash table needs at least 1 MB".into());
        }
        Ok(())
    }
}

/// A candidate line that passed the search: its moves in USI and its final position's key.
struct Candidate {
    line: String,
    key: u64,
}

/// Candidate `index`: the random line, or `None` where it is cut short, ends in check, or its
/// balance search scores it beyond the margin (or finds a mate).
fn candidate(config: &OpeningsConfig, index: u64, player: &mut Player) -> Option<Candidate> {
    let mut rng = Rng::for_game(config.seed, index);
    let plies = config.min_plies + rng.below(config.max_plies - config.min_plies + 1);
    let mut pos = Position::startpos();
    let moves = random_moves(&mut pos, plies, &mut rng);
    if moves.len() < plies || pos.in_check() {
        return None;
    }
    player.new_game();
    let found = player.search(&pos, Limits { depth: Some(config.depth), ..Limits::default() });
    let score = found.score?;
    if is_mate_score(score) || score.abs() > config.margin {
        return None;
    }
    let usi: Vec<String> = moves.iter().map(|m| m.to_usi()).collect();
    Some(Candidate { line: format!("startpos moves {}", usi.join(" ")), key: pos.key() })
}

/// What a run did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpeningsSummary {
    /// Lines written.
    pub written: usize,
    /// Candidate lines looked at (in index order, up to the last one written).
    pub tried: u64,
    /// Of those, the ones dropped as repeats of a position already written.
    pub repeats: u64,
}

/// Candidates a run may look at before it gives up: settings that keep almost nothing (a margin
/// of 0 with a net, say) end with a message instead of running on.
fn max_tries(count: usize) -> u64 {
    100 * count as u64 + 1000
}

/// Generates `config.count` openings, handing each line to `out` in order (after
/// [`OpeningsConfig::header`]); `progress(written, tried)` is called now and then.
pub fn generate(
    config: &OpeningsConfig,
    out: &mut dyn FnMut(&str),
    progress: &mut dyn FnMut(usize, u64),
) -> Result<OpeningsSummary, String> {
    config.check()?;
    out(&config.header());
    let next = AtomicU64::new(0);
    let done = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(u64, Option<Candidate>)>();
    let mut summary = OpeningsSummary { written: 0, tried: 0, repeats: 0 };
    std::thread::scope(|scope| {
        for _ in 0..config.threads {
            let tx = tx.clone();
            let (next, done) = (&next, &done);
            scope.spawn(move || {
                let mut player = Player::new(config.hash_mb, None);
                player.set_eval(config.eval);
                while !done.load(Ordering::Relaxed) {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if tx.send((index, candidate(config, index, &mut player))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Results arrive in any order; they are taken in index order.
        let mut waiting = BTreeMap::new();
        let mut seen = HashSet::new();
        let mut last_progress = Instant::now();
        for (index, result) in rx.iter() {
            waiting.insert(index, result);
            while summary.written < config.count && summary.tried < max_tries(config.count) {
                let Some(result) = waiting.remove(&summary.tried) else { break };
                summary.tried += 1;
                if let Some(c) = result {
                    if seen.insert(c.key) {
                        out(&c.line);
                        summary.written += 1;
                    } else {
                        summary.repeats += 1;
                    }
                }
            }
            if summary.written >= config.count || summary.tried >= max_tries(config.count) {
                done.store(true, Ordering::Relaxed);
                break;
            }
            if last_progress.elapsed() >= Duration::from_secs(10) {
                progress(summary.written, summary.tried);
                last_progress = Instant::now();
            }
        }
        // Dropping the receiver ends the threads' sends; the scope waits for them.
        drop(rx);
    });
    if summary.written < config.count {
        return Err(format!(
            "only {} of {} openings after {} candidate lines: widen --margin or the plies",
            summary.written, config.count, summary.tried
        ));
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::selfplay::opening::Opening;

    fn small(threads: usize) -> OpeningsConfig {
        OpeningsConfig {
            count: 12,
            seed: 7,
            min_plies: 2,
            max_plies: 5,
            depth: 3,
            threads,
            ..Default::default()
        }
    }

    fn lines(config: &OpeningsConfig) -> (Vec<String>, OpeningsSummary) {
        let mut lines = Vec::new();
        let summary = generate(config, &mut |l| lines.push(l.to_string()), &mut |_, _| {}).unwrap();
        (lines, summary)
    }

    #[test]
    fn lines_are_legal_distinct_balanced_and_in_range() {
        let config = small(1);
        let (lines, summary) = lines(&config);
        assert_eq!(lines[0], config.header());
        assert_eq!((lines.len(), summary.written), (13, 12));
        assert!(summary.tried >= 12);
        let mut keys = HashSet::new();
        for line in &lines[1..] {
            let o = Opening::parse(line).unwrap();
            assert!((2..=5).contains(&o.moves.len()), "{line}");
            let pos = o.position();
            assert!(!pos.in_check(), "{line}");
            assert!(keys.insert(pos.key()), "{line} repeats a position");
        }
    }

    #[test]
    fn the_balance_search_keeps_only_lines_within_the_margin() {
        // The embedded net scores few lines exactly level, unlike material alone.
        let config = OpeningsConfig { count: 4, margin: 15, eval: EvalType::Nnue, ..small(1) };
        let (lines, summary) = lines(&config);
        assert!(summary.tried > summary.written as u64, "{summary:?}: some lines are dropped");
        let mut player = Player::new(config.hash_mb, None);
        for line in &lines[1..] {
            player.new_game();
            let found = player.search(
                &Opening::parse(line).unwrap().position(),
                Limits { depth: Some(config.depth), ..Limits::default() },
            );
            assert!(found.score.unwrap().abs() <= 15, "{line}");
        }
    }

    #[test]
    fn settings_that_keep_nothing_end_with_a_message() {
        let config = OpeningsConfig {
            count: 1,
            min_plies: 1,
            max_plies: 1,
            margin: 0,
            eval: EvalType::Nnue,
            depth: 1,
            ..small(2)
        };
        let mut written = 0;
        match generate(&config, &mut |_| written += 1, &mut |_, _| {}) {
            // A first move the net scores exactly level would be kept: then the run ends there.
            Ok(summary) => assert_eq!((summary.written, written), (1, 2)),
            Err(e) => assert!(e.contains("only 0 of 1 openings after 1100"), "{e}"),
        }
    }

    #[test]
    fn the_file_depends_on_the_seed_not_on_the_threads() {
        let one = lines(&small(1));
        assert_eq!(one, lines(&small(3)));
        let other = lines(&OpeningsConfig { seed: 8, ..small(1) });
        assert_ne!(one.0[1..], other.0[1..]);
    }

    #[test]
    fn bad_settings_are_refused_with_the_reason() {
        for (config, what) in [
            (OpeningsConfig { count: 0, ..small(1) }, "--count"),
            (OpeningsConfig { min_plies: 6, max_plies: 5, ..small(1) }, "--min-plies"),
            (OpeningsConfig { min_plies: 0, ..small(1) }, "--min-plies"),
            (OpeningsConfig { depth: 0, ..small(1) }, "--depth"),
            (OpeningsConfig { margin: -1, ..small(1) }, "--margin"),
            (OpeningsConfig { threads: 0, ..small(1) }, "--threads must be from 1 to 512, not 0"),
            (OpeningsConfig { threads: 513, ..small(1) }, "--threads must be from 1 to 512, not 513"),
        ] {
            let mut wrote = false;
            let e = generate(&config, &mut |_| wrote = true, &mut |_, _| {}).unwrap_err();
            assert!(e.contains(what), "{e}");
            assert!(!wrote, "nothing is written for {config:?}");
        }
    }
}
