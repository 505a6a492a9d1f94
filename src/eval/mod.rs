//! Evaluation: the embedded default evaluation (no file needed) and YaneuraOu-compatible NNUE.
//!
//! `evaluate` is the one entry point the search calls; the `Evaluator` it goes through follows
//! moves as a `MoveObserver`, so incremental evaluations stay in step without the position
//! knowing about them.

pub mod embedded;
pub mod nnue;

use crate::position::{MoveObserver, Position};
use crate::types::Value;

/// The evaluation a search thread uses.
#[derive(Clone, Default)]
pub struct Evaluator {}

impl Evaluator {
    /// Prepares for searching from `pos` (resets any incremental state).
    pub fn reset(&mut self, _pos: &Position) {}

    /// The static evaluation of `pos` for the side to move.
    #[inline]
    pub fn evaluate(&mut self, pos: &Position) -> Value {
        embedded::evaluate(pos)
    }
}

impl MoveObserver for Evaluator {}
