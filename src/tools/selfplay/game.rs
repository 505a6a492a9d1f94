//! What a self-played game is, whatever is made of it: where it starts, its searched plies, how it
//! ended and with what result. The `.hgr` records of gensfen (`crate::tools::gensfen::record`)
//! store these; tune's self-play reads the outcome.

use crate::position::Position;
use crate::types::{Color, Move};

/// Where a game starts, before its setup moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    Startpos,
    /// An SFEN, move number included.
    Sfen(String),
}

impl Start {
    pub fn position(&self) -> Result<Position, String> {
        match self {
            Start::Startpos => Ok(Position::startpos()),
            Start::Sfen(s) => Position::from_sfen(s).map_err(|e| e.to_string()),
        }
    }
}

/// One searched ply: the move played (the search's best move), its score for the side to move,
/// and whether the position is a training position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ply {
    pub mv: Move,
    pub score: i32,
    pub keep: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Draw,
    BlackWins,
    WhiteWins,
}

impl Outcome {
    /// The result for `c`: 1 win, 0 draw, -1 loss.
    pub fn for_color(self, c: Color) -> i8 {
        match (self, c) {
            (Outcome::Draw, _) => 0,
            (Outcome::BlackWins, Color::Black) | (Outcome::WhiteWins, Color::White) => 1,
            _ => -1,
        }
    }

    /// The outcome when `c` wins.
    pub fn win_for(c: Color) -> Outcome {
        match c {
            Color::Black => Outcome::BlackWins,
            Color::White => Outcome::WhiteWins,
        }
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// The move limit: a draw.
    MaxPly,
    /// Both sides' scores agreed beyond the resignation bound for several plies.
    Adjudicated,
    /// The search found a mate.
    MateScore,
    /// The side to move had no legal move.
    NoLegalMove,
    /// Entering-king declaration.
    Declaration,
    /// Fourfold repetition: a draw.
    Repetition,
    /// Fourfold repetition with one side checking throughout: it loses.
    PerpetualCheck,
}

impl EndReason {
    pub const ALL: [EndReason; 7] = [
        EndReason::MaxPly,
        EndReason::Adjudicated,
        EndReason::MateScore,
        EndReason::NoLegalMove,
        EndReason::Declaration,
        EndReason::Repetition,
        EndReason::PerpetualCheck,
    ];

    pub fn name(self) -> &'static str {
        match self {
            EndReason::MaxPly => "max-ply",
            EndReason::Adjudicated => "adjudicated",
            EndReason::MateScore => "mate-score",
            EndReason::NoLegalMove => "no-legal-move",
            EndReason::Declaration => "declaration",
            EndReason::Repetition => "repetition",
            EndReason::PerpetualCheck => "perpetual-check",
        }
    }
}
