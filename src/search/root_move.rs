//! A move at the root and what the iterations learned about it: its score, the averages that
//! centre the aspiration window, and its principal variation.

use super::report::ScoreBound;
use crate::types::{Move, Value, VALUE_INFINITE};

/// A root move with what the search learned about it.
#[derive(Clone, Debug)]
pub struct RootMove {
    pub mv: Move,
    pub score: Value,
    pub previous_score: Value,
    /// The running average of this move's scores (each new score weighs half), and of their
    /// squares with the sign kept; they centre and size the aspiration window.
    pub average_score: Value,
    pub mean_squared_score: i64,
    /// Whether `score` is exact or only a bound (the aspiration window failed).
    pub bound: ScoreBound,
    pub sel_depth: i32,
    pub pv: Vec<Move>,
}

impl RootMove {
    /// Takes a new score of this move into the averages.
    pub fn add_score(&mut self, value: Value) {
        let first = self.average_score == -VALUE_INFINITE;
        self.average_score = if first { value } else { (value + self.average_score) / 2 };
        let square = value as i64 * (value as i64).abs();
        self.mean_squared_score = if first { square } else { (square + self.mean_squared_score) / 2 };
    }

    pub fn new(mv: Move) -> RootMove {
        RootMove {
            mv,
            score: -VALUE_INFINITE,
            previous_score: -VALUE_INFINITE,
            average_score: -VALUE_INFINITE,
            mean_squared_score: -(VALUE_INFINITE as i64).pow(2),
            bound: ScoreBound::Exact,
            sel_depth: 0,
            pv: vec![mv],
        }
    }
}
