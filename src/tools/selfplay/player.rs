//! One self-play game: the engine against itself, one single-threaded search per move with a
//! node or depth limit, ended by the rules or by adjudication, each position marked as a
//! training position or not.

use super::game::{EndReason, Outcome, Ply};
use crate::eval::nnue::Network;
use crate::eval::EvalType;
use crate::position::{Position, Repetition};
use crate::search::{BestMove, Limits, Recorder, Reporter, SearchConfig, ThreadPool, TranspositionTable};
use crate::types::{is_mate_score, Color, Move, Score, Value, VALUE_MATE};
use std::sync::Arc;

/// How games are played and which positions are kept.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayConfig {
    /// Nodes per move (the search stops at the first check past it, every 2048 nodes).
    pub nodes: Option<u64>,
    /// Depth per move.
    pub depth: Option<i32>,
    /// A game whose move number passes this is a draw.
    pub max_ply: u32,
    /// Adjudication: once both sides' scores agree (same sign, from black's view) on at least
    /// `resign_score` for `resign_plies` plies in a row, the side ahead wins.
    pub resign_score: i32,
    pub resign_plies: u32,
    /// Positions with a larger absolute score are not kept.
    pub eval_limit: i32,
    /// Positions before this move number are not kept.
    pub min_ply: u32,
}

impl Default for PlayConfig {
    fn default() -> PlayConfig {
        PlayConfig {
            nodes: Some(5000),
            depth: None,
            max_ply: 320,
            resign_score: 3000,
            resign_plies: 6,
            eval_limit: 3000,
            min_ply: 16,
        }
    }
}

/// A played game, from the position where the searches began.
#[derive(Clone, Debug)]
pub struct PlayedGame {
    pub plies: Vec<Ply>,
    pub outcome: Outcome,
    pub end: EndReason,
    /// Nodes searched in the game.
    pub nodes: u64,
}

/// The search value of a reported score (mate scores back to plies from mate).
fn value_of(score: Score) -> Value {
    match score {
        Score::Cp(v) => v,
        Score::Mate(n) if n >= 0 => VALUE_MATE - n,
        Score::Mate(n) => -VALUE_MATE - n,
    }
}

/// What one search found.
pub struct SearchResult {
    pub best: BestMove,
    /// The score of the best move for the side to move, if an iteration completed.
    pub score: Option<Value>,
    pub nodes: u64,
}

/// A search engine for one game thread: a one-thread pool and its own table, kept from game to
/// game (cleared between games, so that every game is the same whatever ran before it).
pub struct Player {
    pool: ThreadPool,
    tt: Arc<TranspositionTable>,
    search_config: SearchConfig,
}

impl Player {
    /// A player with a `hash_mb` table, evaluating with `network` (an NNUE net and its
    /// FV_SCALE) or else the embedded net (`EvalType`'s default).
    pub fn new(hash_mb: usize, network: Option<&(Arc<Network>, i32)>) -> Player {
        let mut pool = ThreadPool::new(1);
        if let Some((net, fv_scale)) = network {
            pool.set_network(EvalType::Auto, Some(net), *fv_scale);
        }
        Player {
            pool,
            tt: Arc::new(TranspositionTable::new(hash_mb)),
            // Draws are worth 0 to both sides: the data should not carry a contempt.
            search_config: SearchConfig {
                draw_value_black: 0,
                draw_value_white: 0,
                ..SearchConfig::default()
            },
        }
    }

    /// Evaluates with `kind` from now on, with the embedded net where `kind` uses a net.
    pub fn set_eval(&mut self, kind: EvalType) {
        self.pool.set_network(kind, None, crate::eval::nnue::DEFAULT_FV_SCALE);
    }

    /// Forgets everything learned (table and histories): the next game plays as in a fresh
    /// process.
    pub fn new_game(&mut self) {
        self.tt.clear();
        self.pool.clear();
    }

    /// Searches `pos` under `limits`.
    pub fn search(&mut self, pos: &Position, limits: Limits) -> SearchResult {
        let recorder = Arc::new(Recorder::default());
        let reporter = Arc::clone(&recorder) as Arc<dyn Reporter>;
        self.pool.start(pos, limits, self.search_config.clone(), Arc::clone(&self.tt), reporter);
        let nodes = self.pool.finish();
        let best = recorder.best().unwrap_or(BestMove::Resign);
        // The score of the last completed iteration's first line.
        let score = recorder.infos().iter().rev().find(|i| i.multipv == 1).map(|i| value_of(i.score));
        SearchResult { best, score, nodes }
    }

    /// Plays a game from `pos` (which carries the setup moves as history, for repetitions).
    pub fn play(&mut self, mut pos: Position, config: &PlayConfig) -> PlayedGame {
        self.new_game();
        let limits = Limits { nodes: config.nodes, depth: config.depth, ..Limits::default() };
        let mut plies = Vec::with_capacity(256);
        let mut nodes = 0;
        // Consecutive plies with a score (black's view) beyond the resignation bound, and its sign.
        let mut streak = (0u32, 0i32);
        let (outcome, end) = loop {
            let us = pos.side_to_move();
            if pos.game_ply() > config.max_ply {
                break (Outcome::Draw, EndReason::MaxPly);
            }
            match pos.fourfold_repetition() {
                Some(Repetition::Win) => break (Outcome::win_for(us), EndReason::PerpetualCheck),
                Some(Repetition::Lose) => break (Outcome::win_for(!us), EndReason::PerpetualCheck),
                Some(_) => break (Outcome::Draw, EndReason::Repetition),
                None => {}
            }
            let found = self.search(&pos, limits.clone());
            nodes += found.nodes;
            let m: Move = match found.best {
                BestMove::Move { best, .. } => best,
                BestMove::Win => break (Outcome::win_for(us), EndReason::Declaration),
                BestMove::Resign => break (Outcome::win_for(!us), EndReason::NoLegalMove),
            };
            let score = found.score.unwrap_or(0);
            if found.score.is_some_and(is_mate_score) {
                break (Outcome::win_for(if score > 0 { us } else { !us }), EndReason::MateScore);
            }
            let keep = found.score.is_some()
                && score.abs() <= config.eval_limit
                && pos.game_ply() >= config.min_ply
                && !pos.in_check()
                && !pos.is_capture(m)
                && !m.is_promotion();
            plies.push(Ply { mv: m, score, keep });
            pos.do_move(m);
            let black = if us == Color::Black { score } else { -score };
            if black.abs() >= config.resign_score && found.score.is_some() {
                streak =
                    if streak.1 == black.signum() { (streak.0 + 1, streak.1) } else { (1, black.signum()) };
                if streak.0 >= config.resign_plies {
                    let winner = if streak.1 > 0 { Color::Black } else { Color::White };
                    break (Outcome::win_for(winner), EndReason::Adjudicated);
                }
            } else {
                streak = (0, 0);
            }
        };
        PlayedGame { plies, outcome, end, nodes }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_values_come_back_from_scores() {
        for v in [VALUE_MATE - 3, -VALUE_MATE + 4, 120, -7] {
            assert_eq!(value_of(Score::from_value(v)), v);
        }
    }

    #[test]
    fn a_short_game_follows_the_rules_and_the_filters() {
        let mut player = Player::new(1, None);
        let config = PlayConfig { nodes: Some(300), max_ply: 40, min_ply: 4, ..PlayConfig::default() };
        let game = player.play(Position::startpos(), &config);
        assert!(!game.plies.is_empty() && game.plies.len() <= 40);
        let mut pos = Position::startpos();
        for p in &game.plies {
            assert!(pos.is_legal_move(p.mv));
            if p.keep {
                assert!(!pos.in_check() && !pos.is_capture(p.mv) && !p.mv.is_promotion());
                assert!(p.score.abs() <= config.eval_limit && pos.game_ply() >= 4);
            }
            if pos.game_ply() < 4 {
                assert!(!p.keep);
            }
            pos.do_move(p.mv);
        }
        // The same game again: the player forgets the previous one.
        let again = player.play(Position::startpos(), &config);
        assert_eq!(again.plies, game.plies);
        assert_eq!((again.outcome, again.end), (game.outcome, game.end));
    }

    #[test]
    fn games_end_by_the_rules() {
        let mut player = Player::new(1, None);
        let config = PlayConfig { nodes: Some(2000), ..PlayConfig::default() };
        // Black to move has no legal move (mated): the game ends at once, white wins.
        let mated = Position::from_sfen("k8/9/9/9/9/9/7s1/8g/8K b 2r2b3g3s4n4l18p 1").unwrap();
        let g = player.play(mated, &config);
        assert_eq!((g.outcome, g.end, g.plies.len()), (Outcome::WhiteWins, EndReason::NoLegalMove, 0));
        // Mate in one for black: found by the search and adjudicated.
        let pos = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/4K4 b G 1").unwrap();
        let g = player.play(pos, &config);
        assert_eq!((g.outcome, g.end), (Outcome::BlackWins, EndReason::MateScore));
        assert!(g.plies.is_empty());
        // Past the move limit: a draw before any search.
        let late = Position::from_sfen(&crate::position::STARTPOS.replace(" 1", " 400")).unwrap();
        let g = player.play(late, &config);
        assert_eq!((g.outcome, g.end, g.plies.len()), (Outcome::Draw, EndReason::MaxPly, 0));
    }
}
