//! Evaluation: the embedded default evaluation (no file needed) and YaneuraOu-compatible NNUE.
//!
//! [`Evaluator`] is the one entry point the search calls. It follows moves as a
//! `MoveObserver`, so the NNUE accumulators stay in step without the position knowing about them,
//! and it falls back to the embedded evaluation when no net is loaded or a position has no NNUE
//! value (a king missing).

pub mod embedded;
pub mod features;
pub mod nnue;
pub mod weights;

use crate::position::{MoveObserver, Position};
use crate::types::{Move, Value, VALUE_EVAL_MAX};
use nnue::{Network, NnueState};
use std::sync::Arc;

/// The evaluation a search thread uses.
#[derive(Default)]
pub struct Evaluator {
    nnue: Option<NnueState>,
}

impl Evaluator {
    /// Uses `net` (or the embedded evaluation for `None`) with the given FV_SCALE. Keeps the
    /// state when the net is unchanged.
    pub fn set_network(&mut self, net: Option<&Arc<Network>>, fv_scale: i32) {
        match net {
            None => self.nnue = None,
            Some(net) => match &mut self.nnue {
                Some(state) if Arc::ptr_eq(state.network(), net) => state.set_fv_scale(fv_scale),
                _ => self.nnue = Some(NnueState::new(Arc::clone(net), fv_scale)),
            },
        }
    }

    /// Prepares for searching from `pos` (resets the incremental state).
    pub fn reset(&mut self, pos: &Position) {
        if let Some(n) = &mut self.nnue {
            n.reset(pos);
        }
    }

    /// The static evaluation of `pos` (the position this evaluator follows) for the side to move.
    #[inline]
    pub fn evaluate(&mut self, pos: &Position) -> Value {
        let v = match &mut self.nnue {
            Some(n) => n.evaluate(pos).unwrap_or_else(|| embedded::evaluate(pos)),
            None => embedded::evaluate(pos),
        };
        v.clamp(-VALUE_EVAL_MAX, VALUE_EVAL_MAX)
    }
}

impl MoveObserver for Evaluator {
    #[inline]
    fn on_do_move(&mut self, before: &Position, m: Move) {
        if let Some(n) = &mut self.nnue {
            n.on_do_move(before, m);
        }
    }

    #[inline]
    fn on_undo_move(&mut self) {
        if let Some(n) = &mut self.nnue {
            n.on_undo_move();
        }
    }

    #[inline]
    fn on_do_null_move(&mut self, before: &Position) {
        if let Some(n) = &mut self.nnue {
            n.on_do_null_move(before);
        }
    }

    #[inline]
    fn on_undo_null_move(&mut self) {
        if let Some(n) = &mut self.nnue {
            n.on_undo_null_move();
        }
    }
}
