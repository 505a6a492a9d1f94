//! [`NnueState`], a search thread's evaluator for a net of any supported shape: one of the
//! `Stack`s (`accumulator.rs`) compiled for a shape, picked when the evaluator is made.
//!
//! The shapes of the well-known nets are compiled with their widths as constants (the kernels'
//! loops then have fixed trip counts); every other shape of a supported feature set runs on the
//! build for that feature set that reads the widths from the net. A call dispatches on the shape
//! with one `match` (a jump predicted every time: the shape never changes), and from there every
//! loop is the shape's own.

use super::accumulator::Stack;
use super::features::{FeatureSet, HalfKa1, HalfKa2, HalfKaHm1, HalfKaHm2, HalfKp, HalfKpE9, HalfKpVm, Kp};
use super::network::{Network, NnueError};
use super::simd::Simd;
use crate::position::{MoveObserver, Position};
use crate::types::{Color, Move};
use std::sync::Arc;

/// Declares the evaluators: `Inner`, one variant per compiled shape, how one is picked for a net,
/// and the dispatch of every method.
macro_rules! evaluators {
    ($d:tt fixed: [ $( $(#[$cfg:meta])* $v:ident => $f:ty, $ft:literal, $h1:literal, $h2:literal; )* ]
     any: [ $( $dv:ident => $df:ty; )* ]) => {
        enum Inner {
            $( $(#[$cfg])* $v(Stack<$f, $ft, $h1, $h2>), )*
            $( $dv(Stack<$df, 0, 0, 0>), )*
        }

        impl Inner {
            fn new(net: Arc<Network>, fv_scale: i32, simd: Simd) -> Result<Inner, NnueError> {
                let s = net.shape();
                // SFNN nets run on the general build of their feature set (their forward pass
                // is their own).
                let plain = net.sfnn.is_none();
                $(
                    $(#[$cfg])*
                    if plain && s.features == <$f>::KIND && (s.ft, s.h1, s.h2) == ($ft, $h1, $h2) {
                        return Ok(Inner::$v(Stack::new(net, fv_scale, simd)?));
                    }
                )*
                Inner::any_width(net, fv_scale, simd)
            }

            fn any_width(net: Arc<Network>, fv_scale: i32, simd: Simd) -> Result<Inner, NnueError> {
                let s = net.shape();
                $(
                    if s.features == <$df>::KIND {
                        return Ok(Inner::$dv(Stack::new(net, fv_scale, simd)?));
                    }
                )*
                Err(NnueError::Unsupported { shape: s })
            }
        }

        /// Whether an evaluator with `shape`'s widths compiled in is part of this build (else
        /// nets of that shape run on the general build of their feature set).
        pub fn compiled_for(shape: super::Shape) -> bool {
            $( $(#[$cfg])* if shape.features == <$f>::KIND && (shape.ft, shape.h1, shape.h2) == ($ft, $h1, $h2) {
                return true;
            } )*
            false
        }

        /// `dispatch!(self, s => expr)`: `expr` with `s` bound to the evaluator, whatever its shape.
        macro_rules! dispatch {
            ($d self_:expr, $d s:ident => $d e:expr) => {
                match $d self_ {
                    $( $(#[$cfg])* Inner::$v($d s) => $d e, )*
                    $( Inner::$dv($d s) => $d e, )*
                }
            };
        }
    };
}

evaluators! {
    $ fixed: [
        HalfKp256 => HalfKp, 256, 32, 32;
        #[cfg(not(target_family = "wasm"))] HalfKp128 => HalfKp, 128, 32, 32;
        #[cfg(not(target_family = "wasm"))] HalfKp512x8x64 => HalfKp, 512, 8, 64;
        #[cfg(not(target_family = "wasm"))] HalfKp512x8x96 => HalfKp, 512, 8, 96;
        #[cfg(not(target_family = "wasm"))] HalfKp512x16x32 => HalfKp, 512, 16, 32;
        #[cfg(not(target_family = "wasm"))] HalfKp768x16x64 => HalfKp, 768, 16, 64;
        #[cfg(not(target_family = "wasm"))] HalfKp1024x8x32 => HalfKp, 1024, 8, 32;
        #[cfg(not(target_family = "wasm"))] HalfKp1024x8x64 => HalfKp, 1024, 8, 64;
        #[cfg(not(target_family = "wasm"))] Kp256 => Kp, 256, 32, 32;
        #[cfg(not(target_family = "wasm"))] HalfKpVm256 => HalfKpVm, 256, 32, 32;
        #[cfg(not(target_family = "wasm"))] HalfKpE9x256 => HalfKpE9, 256, 32, 32;
        #[cfg(not(target_family = "wasm"))] HalfKa1x256 => HalfKa1, 256, 32, 32;
        #[cfg(not(target_family = "wasm"))] HalfKaHm1x256 => HalfKaHm1, 256, 32, 32;
        #[cfg(not(target_family = "wasm"))] HalfKa2x256 => HalfKa2, 256, 32, 32;
        HalfKaHm2x256 => HalfKaHm2, 256, 32, 32;
    ]
    any: [
        AnyHalfKp => HalfKp;
        AnyKp => Kp;
        AnyHalfKpVm => HalfKpVm;
        AnyHalfKpE9 => HalfKpE9;
        AnyHalfKa1 => HalfKa1;
        AnyHalfKaHm1 => HalfKaHm1;
        AnyHalfKa2 => HalfKa2;
        AnyHalfKaHm2 => HalfKaHm2;
    ]
}

/// One search thread's NNUE evaluator: a shared net, the kernels chosen once, FV_SCALE, and the
/// accumulator stack that follows the position through [`MoveObserver`].
///
/// Use: `reset(&pos)` whenever the root position is set (a new state follows no position, and
/// its `evaluate` returns `None`, until then); make and take back every move with
/// `pos.do_move_observed(m, &mut state)` / `pos.undo_move_observed(m, &mut state)` (and the null
/// move variants); call `evaluate(&pos)` with the current position whenever a value is needed.
///
/// Positions without both kings (tsume problems) have no features: `evaluate` returns `None`
/// for them and the caller falls back to another evaluation. Moves are still followed (the
/// stack depth must match), at no cost.
pub struct NnueState(Inner);

impl NnueState {
    /// An evaluator for `net` with the best kernels of this CPU. `fv_scale` is the output divisor
    /// (16 for most nets, 24 for Suisho5); values below 1 are taken as 1. Fails only when the
    /// memory of its stack cannot be had.
    pub fn new(net: Arc<Network>, fv_scale: i32) -> Result<NnueState, NnueError> {
        NnueState::with_simd(net, fv_scale, Simd::detect())
    }

    /// An evaluator using the given kernels (e.g. [`Simd::SCALAR`] to force the scalar path).
    pub fn with_simd(net: Arc<Network>, fv_scale: i32, simd: Simd) -> Result<NnueState, NnueError> {
        Inner::new(net, fv_scale, simd).map(NnueState)
    }

    /// An evaluator that reads the widths from the net even where a build with the net's widths
    /// fixed exists: the general path, for tests (both must give the same numbers) and for
    /// measuring what the fixed widths gain.
    pub fn with_simd_any_width(net: Arc<Network>, fv_scale: i32, simd: Simd) -> Result<NnueState, NnueError> {
        Inner::any_width(net, fv_scale, simd).map(NnueState)
    }

    pub fn network(&self) -> &Arc<Network> {
        dispatch!(&self.0, s => s.network())
    }

    pub fn simd(&self) -> Simd {
        dispatch!(&self.0, s => s.simd())
    }

    pub fn fv_scale(&self) -> i32 {
        dispatch!(&self.0, s => s.fv_scale())
    }

    /// Changes FV_SCALE (values below 1 are taken as 1). Takes effect at the next `evaluate`.
    pub fn set_fv_scale(&mut self, fv_scale: i32) {
        dispatch!(&mut self.0, s => s.set_fv_scale(fv_scale))
    }

    /// Starts following `pos` as a new root: forgets the stack. The root accumulators are computed
    /// at the first `evaluate`.
    pub fn reset(&mut self, pos: &Position) {
        dispatch!(&mut self.0, s => s.reset(pos))
    }

    /// The static evaluation of `pos`, the position the state currently follows, from the side to
    /// move's point of view; `None` if a king is missing (see the type docs).
    #[inline]
    pub fn evaluate(&mut self, pos: &Position) -> Option<i32> {
        dispatch!(&mut self.0, s => s.evaluate(pos))
    }

    /// Brings the accumulators of `pos` (the current position) up to date without the forward
    /// pass: `false` if a king is missing. For benchmarks.
    pub fn update_accumulators(&mut self, pos: &Position) -> bool {
        dispatch!(&mut self.0, s => s.update_accumulators(pos))
    }

    /// The accumulators of `pos` (the current position), brought up to date; `None` if a king is
    /// missing. For tests and diagnostics.
    pub fn accumulator(&mut self, pos: &Position) -> Option<Accumulator> {
        dispatch!(&mut self.0, s => s.accumulators(pos)).map(|v| Accumulator { v })
    }

    /// Whether this evaluator was compiled for its net's widths (`false`: the build that reads
    /// the widths from the net).
    pub fn fixed_widths(&self) -> bool {
        !matches!(
            self.0,
            Inner::AnyHalfKp(_)
                | Inner::AnyKp(_)
                | Inner::AnyHalfKpVm(_)
                | Inner::AnyHalfKpE9(_)
                | Inner::AnyHalfKa1(_)
                | Inner::AnyHalfKaHm1(_)
                | Inner::AnyHalfKa2(_)
                | Inner::AnyHalfKaHm2(_)
        )
    }
}

impl MoveObserver for NnueState {
    #[inline]
    fn on_do_move(&mut self, before: &Position, m: Move) {
        dispatch!(&mut self.0, s => s.on_do_move(before, m))
    }

    /// halfkpe9 records what the move changed from the new position; the other sets did so
    /// before the move.
    #[inline]
    fn on_moved(&mut self, after: &Position, m: Move) {
        dispatch!(&mut self.0, s => s.on_moved(after, m))
    }

    #[inline]
    fn on_undo_move(&mut self) {
        dispatch!(&mut self.0, s => s.on_undo_move())
    }

    /// A null move changes no feature: the next entry is a copy of this one.
    #[inline]
    fn on_do_null_move(&mut self, _before: &Position) {
        dispatch!(&mut self.0, s => s.on_do_null_move())
    }

    #[inline]
    fn on_undo_null_move(&mut self) {
        dispatch!(&mut self.0, s => s.on_undo_null_move())
    }
}

/// Both perspectives' transformer outputs for one position (a copy, for tests and diagnostics).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Accumulator {
    v: [Vec<i16>; 2],
}

impl Accumulator {
    /// The accumulator of perspective `c`.
    pub fn get(&self, c: Color) -> &[i16] {
        &self.v[c.index()]
    }

    /// Both accumulators of `pos` computed from scratch with kernels `simd`; `None` if a king is
    /// missing or the memory could not be had.
    pub fn refreshed(net: &Arc<Network>, pos: &Position, simd: Simd) -> Option<Accumulator> {
        let mut state = NnueState::with_simd(Arc::clone(net), 1, simd).ok()?;
        state.reset(pos);
        state.accumulator(pos)
    }
}

/// The plain, non-incremental evaluation of `pos` (side to move's view, after `/ fv_scale` and the
/// clamp), or `None` when a king is missing. The reference the incremental path is tested against.
pub fn evaluate_full(net: &Arc<Network>, pos: &Position, fv_scale: i32) -> Option<i32> {
    evaluate_full_with(net, pos, fv_scale, Simd::detect())
}

/// [`evaluate_full`] with the kernels chosen by the caller (tests compare both).
pub fn evaluate_full_with(net: &Arc<Network>, pos: &Position, fv_scale: i32, simd: Simd) -> Option<i32> {
    let mut state = NnueState::with_simd(Arc::clone(net), fv_scale, simd).ok()?;
    state.reset(pos);
    state.evaluate(pos)
}
