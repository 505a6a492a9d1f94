//! Evaluation: YaneuraOu-compatible NNUE (the default plays Hayate's own net, embedded in the
//! binary, when no net file is loaded), the linear evaluation (`linear/`, which needs no file
//! either), and a material-only evaluation for comparing searches.
//!
//! [`Evaluator`] is the one entry point the search calls. It follows moves as a
//! `MoveObserver`, so the NNUE accumulators (and the material balance) stay in step without the
//! position knowing about them, and it falls back to the linear evaluation when it has no net
//! or a position has no NNUE value (a king missing).

pub mod linear;
pub mod material;
pub mod nnue;

use crate::position::{MoveObserver, Position};
use crate::types::{Move, Value, VALUE_EVAL_MAX};
use material::MaterialState;
use nnue::{Network, NnueState};
use std::sync::Arc;

/// Which evaluation the engine plays with (the `EvalType` option).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum EvalType {
    /// The net of `EvalFile`/`EvalDir` when one is loaded, else the linear evaluation.
    Auto,
    /// The net of `EvalFile`/`EvalDir` when one is loaded, else the net embedded in the binary
    /// ([`nnue::embedded_net`]).
    Nnue,
    /// The linear evaluation, even when a net is loaded.
    Linear,
    /// Material only, at YaneuraOu's MATERIAL_LEVEL 1 piece values (to compare searches).
    Material,
}

impl Default for EvalType {
    fn default() -> EvalType {
        EvalType::DEFAULT
    }
}

impl EvalType {
    /// The option's default: `Nnue`, the net of `EvalFile`/`EvalDir` or else the embedded net,
    /// which beats the linear evaluation in play (nets/README.md, "Generation 4"). The bench
    /// signature and `engine-options.toml` follow this value.
    pub const DEFAULT: EvalType = EvalType::Nnue;
    /// The default's option value.
    pub const DEFAULT_NAME: &'static str = EvalType::DEFAULT.name();

    /// The option's values, in declaration order.
    pub const NAMES: [&'static str; 4] = ["Auto", "NNUE", "Linear", "Material"];

    pub fn from_name(name: &str) -> Option<EvalType> {
        match name {
            "Auto" => Some(EvalType::Auto),
            "NNUE" => Some(EvalType::Nnue),
            "Linear" => Some(EvalType::Linear),
            "Material" => Some(EvalType::Material),
            _ => None,
        }
    }

    /// The option value that names this type.
    pub const fn name(self) -> &'static str {
        match self {
            EvalType::Auto => "Auto",
            EvalType::Nnue => "NNUE",
            EvalType::Linear => "Linear",
            EvalType::Material => "Material",
        }
    }

    /// What plays when no net loads from a file, for messages.
    pub fn fallback(self) -> String {
        match self {
            EvalType::Nnue if nnue::embedded_net::network().is_some() => {
                format!("the embedded net {}", nnue::embedded_net::NAME)
            }
            EvalType::Nnue => "the linear evaluation (the embedded net could not be decoded)".to_string(),
            EvalType::Material => "material only".to_string(),
            _ => "the linear evaluation".to_string(),
        }
    }

    /// The net this type plays with, given the net loaded from a file (if any).
    pub fn network(self, file_net: Option<&Arc<Network>>) -> Option<&Arc<Network>> {
        match self {
            EvalType::Auto => file_net,
            EvalType::Nnue => match file_net {
                Some(net) => Some(net),
                None => nnue::embedded_net::network(),
            },
            EvalType::Linear | EvalType::Material => None,
        }
    }
}

/// The evaluation a search thread uses.
#[derive(Default)]
pub struct Evaluator {
    /// The net's state; None when no net is loaded or `EvalType` says not to use one.
    nnue: Option<NnueState>,
    /// Some in material mode.
    material: Option<MaterialState>,
    /// The linear evaluation's incremental part; Some when it is what the evaluator plays with.
    linear: Option<linear::LinearState>,
}

impl Evaluator {
    /// Chooses the evaluation: `kind`, with the net it names (`net`: the one loaded from a
    /// file, if any) and FV_SCALE. Keeps the NNUE state when the net is unchanged.
    pub fn configure(&mut self, kind: EvalType, net: Option<&Arc<Network>>, fv_scale: i32) {
        self.set_network(kind.network(net), fv_scale);
        self.material = (kind == EvalType::Material).then(MaterialState::default);
        self.linear = (self.nnue.is_none() && self.material.is_none()).then(linear::LinearState::default);
    }

    /// Uses `net` (or the linear evaluation for `None`) with the given FV_SCALE. Keeps the
    /// state when the net is unchanged.
    pub fn set_network(&mut self, net: Option<&Arc<Network>>, fv_scale: i32) {
        match net {
            None => self.nnue = None,
            Some(net) => match &mut self.nnue {
                Some(state) if Arc::ptr_eq(state.network(), net) => state.set_fv_scale(fv_scale),
                _ => {
                    // Fails only when the few megabytes of its stack cannot be had: then the
                    // thread plays with the linear evaluation rather than not at all.
                    self.nnue = NnueState::new(Arc::clone(net), fv_scale)
                        .inspect_err(|e| log::warn!("NNUE evaluator: {e}; using the linear evaluation"))
                        .ok();
                }
            },
        }
    }

    /// Prepares for searching from `pos` (resets the incremental state).
    pub fn reset(&mut self, pos: &Position) {
        if let Some(n) = &mut self.nnue {
            n.reset(pos);
        }
        if let Some(m) = &mut self.material {
            m.reset(pos);
        }
        if let Some(l) = &mut self.linear {
            l.reset(pos);
        }
    }

    /// The static evaluation of `pos` (the position this evaluator follows) for the side to move.
    #[inline]
    pub fn evaluate(&mut self, pos: &Position) -> Value {
        if let Some(m) = &self.material {
            return m.evaluate(pos).clamp(-VALUE_EVAL_MAX, VALUE_EVAL_MAX);
        }
        let v = match (&mut self.nnue, &mut self.linear) {
            (Some(n), _) => n.evaluate(pos).unwrap_or_else(|| linear::evaluate(pos)),
            (None, Some(l)) => l.evaluate(pos),
            (None, None) => linear::evaluate(pos),
        };
        v.clamp(-VALUE_EVAL_MAX, VALUE_EVAL_MAX)
    }

    /// Takes the last move back in the material and linear evaluations, which take a null move
    /// back alike (the net keeps a null move apart).
    #[inline(always)]
    fn undo_material_and_linear(&mut self) {
        if let Some(mat) = &mut self.material {
            mat.on_undo_move();
        }
        if let Some(l) = &mut self.linear {
            l.on_undo_move();
        }
    }
}

impl MoveObserver for Evaluator {
    #[inline]
    fn on_do_move(&mut self, before: &Position, m: Move) {
        if let Some(n) = &mut self.nnue {
            n.on_do_move(before, m);
        }
        if let Some(mat) = &mut self.material {
            mat.on_do_move(before, m);
        }
        if let Some(l) = &mut self.linear {
            l.on_do_move(before, m);
        }
    }

    #[inline]
    fn on_moved(&mut self, after: &Position, m: Move) {
        if let Some(n) = &mut self.nnue {
            n.on_moved(after, m);
        }
    }

    #[inline]
    fn on_undo_move(&mut self) {
        if let Some(n) = &mut self.nnue {
            n.on_undo_move();
        }
        self.undo_material_and_linear();
    }

    #[inline]
    fn on_do_null_move(&mut self, before: &Position) {
        if let Some(n) = &mut self.nnue {
            n.on_do_null_move(before);
        }
        if let Some(mat) = &mut self.material {
            mat.on_do_null_move(before);
        }
        if let Some(l) = &mut self.linear {
            l.on_do_null_move();
        }
    }

    #[inline]
    fn on_undo_null_move(&mut self) {
        if let Some(n) = &mut self.nnue {
            n.on_undo_null_move();
        }
        self.undo_material_and_linear();
    }
}
