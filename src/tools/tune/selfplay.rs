//! Self-play data for tuning the embedded evaluation: games between two copies of the engine at a
//! fixed node count, each quiet position kept with the search's score and, once the game is over,
//! its result.
//!
//! A record is one line: `<sfen>\t<score>\t<result>`, both from the side to move's view: the
//! search score in evaluation units and the game result (1 win, 0.5 draw, 0 loss).

use crate::position::{MoveList, Position, Repetition};
use crate::search::{BestMove, Limits, Recorder, SearchConfig, ThreadPool, TranspositionTable};
use crate::types::{Color, Move, Score};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

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
    /// A game still running after this many plies is a draw.
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

/// A small deterministic generator (xorshift64*), so a seed reproduces the games.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n.max(1)
    }
}

/// The position an opening line (`position` arguments) sets up; an illegal move is an error.
fn parse_opening(line: &str) -> Result<Position, String> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    match Position::from_usi_args(&tokens) {
        Ok((p, None)) => Ok(p),
        Ok((_, Some(illegal))) => Err(format!("opening '{line}': {illegal}")),
        Err(e) => Err(format!("opening '{line}': {e}")),
    }
}

/// A game's start: one of `openings` (the start position when there are none), then the random
/// moves.
fn start_position(openings: &[Position], random_plies: usize, rng: &mut Rng) -> Position {
    let mut pos =
        if openings.is_empty() { Position::startpos() } else { openings[rng.below(openings.len())].clone() };
    for _ in 0..random_plies {
        // Moves that do not hand material over at once (SEE >= 0), so the random part varies the
        // game without deciding it.
        let moves: Vec<Move> =
            MoveList::legal(&pos, false).iter().copied().filter(|&m| pos.see_ge(m, 0)).collect();
        if moves.is_empty() {
            break;
        }
        let m = moves[rng.below(moves.len())];
        pos.do_move(m);
    }
    pos
}

/// Plays one game from `pos`; the result is for black.
fn play_game(
    mut pos: Position,
    config: &SelfPlayConfig,
    pool: &mut ThreadPool,
    tt: &Arc<TranspositionTable>,
) -> GameSummary {
    let search_config = SearchConfig { draw_value_black: 0, draw_value_white: 0, ..SearchConfig::default() };
    tt.clear();
    pool.clear();
    let mut kept: Vec<(String, i32, Color)> = Vec::new();
    let mut plies = 0;
    // Consecutive plies whose score (for black) is beyond the adjudication bound, and its sign.
    let mut streak = (0u32, 0i32);
    let black_result = loop {
        let us = pos.side_to_move();
        let for_us = |r: f32| if us == Color::Black { r } else { 1.0 - r };
        if plies >= config.max_plies {
            break 0.5;
        }
        match pos.fourfold_repetition() {
            Some(Repetition::Win) => break for_us(1.0),
            Some(Repetition::Lose) => break for_us(0.0),
            Some(_) => break 0.5,
            None => {}
        }
        if MoveList::legal(&pos, false).is_empty() {
            break for_us(0.0);
        }
        let recorder = Arc::new(Recorder::default());
        let limits = Limits { nodes: Some(config.nodes), ..Limits::default() };
        pool.search_sync(&pos, limits, search_config.clone(), Arc::clone(tt), Arc::clone(&recorder) as _);
        let best = recorder.best();
        // The last score of the first line.
        let score = recorder.infos().iter().rev().find(|i| i.multipv == 1).map(|i| i.score);
        let m: Move = match best {
            Some(BestMove::Move { best, .. }) => best,
            Some(BestMove::Win) => break for_us(1.0),
            Some(BestMove::Resign) | None => break for_us(0.0),
        };
        match score {
            Some(Score::Mate(n)) => break for_us(if n > 0 { 1.0 } else { 0.0 }),
            Some(Score::Cp(cp)) => {
                let black_cp = if us == Color::Black { cp } else { -cp };
                let sign = black_cp.signum();
                if black_cp.abs() >= config.adjudicate_score {
                    streak = if streak.1 == sign { (streak.0 + 1, sign) } else { (1, sign) };
                    if streak.0 >= config.adjudicate_plies {
                        break if sign > 0 { 1.0 } else { 0.0 };
                    }
                } else {
                    streak = (0, 0);
                }
                let quiet = !pos.is_capture(m) && !m.is_promotion();
                if quiet && !pos.in_check() && cp.abs() <= config.max_record_score {
                    kept.push((pos.to_sfen(), cp, us));
                }
            }
            None => {}
        }
        pos.do_move(m);
        plies += 1;
    };
    let records = kept
        .into_iter()
        .map(|(sfen, score, c)| Record {
            sfen,
            score,
            result: if c == Color::Black { black_result } else { 1.0 - black_result },
        })
        .collect();
    GameSummary { plies, black_result, records }
}

/// Plays `config.games` games on `config.threads` threads; `on_game(index, summary)` receives
/// each finished game (from any thread, one at a time).
pub fn play(
    config: &SelfPlayConfig,
    mut on_game: impl FnMut(usize, GameSummary) + Send,
) -> Result<(), String> {
    // Check the openings up front, so a bad file fails before any game. (Each thread parses its
    // own copies: a position is not shared between threads.)
    for line in &config.openings {
        parse_opening(line)?;
    }
    let next = AtomicUsize::new(0);
    let sink = Mutex::new(&mut on_game);
    std::thread::scope(|s| {
        for _ in 0..config.threads.max(1) {
            s.spawn(|| {
                let mut pool = ThreadPool::new(1);
                let tt = Arc::new(TranspositionTable::new(config.hash_mb));
                let openings: Vec<Position> =
                    config.openings.iter().map(|l| parse_opening(l).expect("checked above")).collect();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= config.games {
                        break;
                    }
                    let mut rng = Rng::new(config.seed.wrapping_mul(1_000_003).wrapping_add(i as u64));
                    let pos = start_position(&openings, config.random_plies, &mut rng);
                    let summary = play_game(pos, config, &mut pool, &tt);
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
