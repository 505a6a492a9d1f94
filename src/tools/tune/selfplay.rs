//! Self-play data for tuning the linear evaluation: games between two copies of the engine at a
//! fixed node count (played by `gensfen`'s player), each quiet position kept with the search's
//! score and, once the game is over, its result.
//!
//! A record is one line: `<sfen>\t<score>\t<result>`, both from the side to move's view: the
//! search score in evaluation units and the game result (1 win, 0.5 draw, 0 loss).

use crate::position::Position;
use crate::tools::selfplay::game::Outcome;
use crate::tools::selfplay::opening::{game_start, Opening, Rng};
use crate::tools::selfplay::player::{PlayConfig, Player};
use crate::types::Color;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// How the games are played.
#[derive(Clone, Debug)]
pub struct SelfPlayConfig {
    pub games: usize,
    /// Nodes per move.
    pub nodes: u64,
    pub threads: usize,
    /// Start positions as `position` arguments (`startpos moves ...` or `sfen ...`); empty: the
    /// start position.
    pub openings: Vec<String>,
    /// Random legal moves (among those that do not lose material by SEE) played after the
    /// opening, for variety.
    pub random_plies: usize,
    pub seed: u64,
    /// A game whose move number passes this is a draw.
    pub max_plies: u32,
    /// A game is adjudicated once both sides' scores agree on at least this for `adjudicate_plies`
    /// plies in a row.
    pub adjudicate_score: i32,
    pub adjudicate_plies: u32,
    /// Positions with a larger absolute score are not kept (the game goes on).
    pub max_record_score: i32,
    pub hash_mb: usize,
}

impl Default for SelfPlayConfig {
    fn default() -> SelfPlayConfig {
        SelfPlayConfig {
            games: 100,
            nodes: 3000,
            threads: 1,
            openings: Vec::new(),
            random_plies: 4,
            seed: 1,
            max_plies: 320,
            adjudicate_score: 2500,
            adjudicate_plies: 6,
            max_record_score: 2500,
            hash_mb: 16,
        }
    }
}

/// One kept position.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub sfen: String,
    /// Search score for the side to move.
    pub score: i32,
    /// Game result for the side to move: 1 win, 0.5 draw, 0 loss.
    pub result: f32,
}

impl Record {
    /// The record as one line of the data file (no newline).
    pub fn to_line(&self) -> String {
        format!("{}\t{}\t{}", self.sfen, self.score, self.result)
    }

    /// Parses a line written by [`Record::to_line`].
    pub fn parse(line: &str) -> Result<Record, String> {
        let mut fields = line.split('\t');
        let (Some(sfen), Some(score), Some(result), None) =
            (fields.next(), fields.next(), fields.next(), fields.next())
        else {
            return Err(format!("expected 'sfen<TAB>score<TAB>result', got '{line}'"));
        };
        let score = score.trim().parse().map_err(|_| format!("bad score '{score}'"))?;
        let result: f32 = result.trim().parse().map_err(|_| format!("bad result '{result}'"))?;
        if !(0.0..=1.0).contains(&result) {
            return Err(format!("result {result} outside 0..1"));
        }
        Ok(Record { sfen: sfen.to_string(), score, result })
    }
}

/// The outcome of one game.
#[derive(Clone, Debug, Default)]
pub struct GameSummary {
    pub plies: u32,
    /// Result for black: 1, 0.5 or 0.
    pub black_result: f32,
    pub records: Vec<Record>,
}

/// Plays one game from `pos` (the shared self-play player of `gensfen`) and turns its kept
/// positions into records.
fn play_game(pos: Position, config: &SelfPlayConfig, player: &mut Player) -> GameSummary {
    let play = PlayConfig {
        nodes: Some(config.nodes),
        depth: None,
        max_ply: config.max_plies,
        resign_score: config.adjudicate_score,
        resign_plies: config.adjudicate_plies,
        eval_limit: config.max_record_score,
        min_ply: 0,
    };
    let game = player.play(pos.clone(), &play);
    let black_result = match game.outcome {
        Outcome::BlackWins => 1.0,
        Outcome::Draw => 0.5,
        Outcome::WhiteWins => 0.0,
    };
    let mut pos = pos;
    let mut records = Vec::new();
    for p in &game.plies {
        if p.keep {
            let us = pos.side_to_move();
            records.push(Record {
                sfen: pos.to_sfen(),
                score: p.score,
                result: if us == Color::Black { black_result } else { 1.0 - black_result },
            });
        }
        pos.do_move(p.mv);
    }
    GameSummary { plies: game.plies.len() as u32, black_result, records }
}

/// Plays `config.games` games on `config.threads` threads; `on_game(index, summary)` receives
/// each finished game (from any thread, one at a time).
pub fn play(
    config: &SelfPlayConfig,
    mut on_game: impl FnMut(usize, GameSummary) + Send,
) -> Result<(), String> {
    // Check the openings up front, so a bad file fails before any game.
    let openings: Vec<Opening> =
        config.openings.iter().map(|l| Opening::parse(l)).collect::<Result<_, _>>()?;
    let next = AtomicUsize::new(0);
    let sink = Mutex::new(&mut on_game);
    std::thread::scope(|s| {
        for _ in 0..config.threads.max(1) {
            s.spawn(|| {
                let mut player = Player::new(config.hash_mb, None);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= config.games {
                        break;
                    }
                    let mut rng = Rng::new(config.seed.wrapping_mul(1_000_003).wrapping_add(i as u64));
                    let (_, _, pos) = game_start(&openings, config.random_plies, &mut rng);
                    let summary = play_game(pos, config, &mut player);
                    (*sink.lock().expect("not poisoned"))(i, summary);
                }
            });
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::STARTPOS;

    #[test]
    fn record_round_trip_and_bad_lines() {
        let r = Record { sfen: STARTPOS.to_string(), score: -37, result: 0.5 };
        assert_eq!(Record::parse(&r.to_line()).unwrap(), r);
        assert!(Record::parse("only a sfen").is_err());
        assert!(Record::parse(&format!("{STARTPOS}\tx\t1")).is_err());
        assert!(Record::parse(&format!("{STARTPOS}\t10\t2")).is_err());
    }

    #[test]
    fn short_games_finish_with_consistent_results() {
        let config = SelfPlayConfig { games: 2, nodes: 200, max_plies: 40, ..SelfPlayConfig::default() };
        let games = Mutex::new(Vec::new());
        play(&config, |_, g| games.lock().unwrap().push(g)).unwrap();
        let games = games.into_inner().unwrap();
        assert_eq!(games.len(), 2);
        for g in &games {
            assert!(g.plies <= 40);
            for r in &g.records {
                let pos = Position::from_sfen(&r.sfen).unwrap();
                assert!(!pos.in_check());
                let black = if pos.side_to_move() == Color::Black { r.result } else { 1.0 - r.result };
                assert_eq!(black, g.black_result);
            }
        }
    }
}
