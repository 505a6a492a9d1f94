//! The feature-transformer accumulators and the incremental, lazily updated stack that follows a
//! search through do/undo.
//!
//! `acc[p][j] = ft_bias[j] + sum over the active features f of p of ft_weight[f][j]` (wrapping
//! `i16`; the sum is order-independent because wrapping addition is). One accumulator per
//! perspective; a position's pair is an [`Accumulator`].
//!
//! [`NnueState`] keeps one stack entry per ply. Making a move only records what it changes (a
//! [`FeatureDelta`], a few table lookups, no vector work); the accumulators are brought up to date
//! on the first [`NnueState::evaluate`] after the moves. Then, per perspective, the stack is walked
//! back to the nearest computed entry and the recorded deltas are applied forward (every entry on
//! the way is filled in, so siblings evaluated later start closer). The walk stops, and the
//! perspective is refreshed from the position instead, when it meets a move of that side's king
//! (every feature index of that side changes) or when the deltas would cost more than a refresh.
//! Positions whose moves are never evaluated (pruned, or in check) never pay for vector work.

use super::features::{self, active_features, FeatureDelta, PIECES};
use super::layers::scale;
use super::network::Network;
use super::simd::{prefetch_row, Simd};
use super::FT_OUT;
use crate::position::{MoveObserver, Position};
use crate::types::{Color, Move};
use std::sync::Arc;

/// Both perspectives' transformer outputs for one position, indexed by `Color::index()`.
#[derive(Clone, PartialEq, Eq, Debug)]
#[repr(C, align(64))]
pub struct Accumulator {
    v: [[i16; FT_OUT]; 2],
}

impl Accumulator {
    const ZERO: Accumulator = Accumulator { v: [[0; FT_OUT]; 2] };

    /// The accumulator of perspective `c`.
    #[inline(always)]
    pub fn get(&self, c: Color) -> &[i16; FT_OUT] {
        &self.v[c.index()]
    }

    /// Computes both accumulators of `pos` from scratch; `None` if a king is missing.
    pub fn refreshed(net: &Network, pos: &Position, simd: Simd) -> Option<Accumulator> {
        let mut acc = Accumulator::ZERO;
        for c in Color::ALL {
            refresh(net, pos, c, simd, &mut acc.v[c.index()])?;
        }
        Some(acc)
    }

    /// The evaluation of a position with these accumulators and side to move `stm`, from the side
    /// to move's view (`fv_scale` below 1 counts as 1).
    #[inline]
    pub fn evaluate(&self, net: &Network, stm: Color, fv_scale: i32, simd: Simd) -> i32 {
        let out = simd.propagate(&net.layers, self.get(stm), self.get(!stm));
        scale(out, fv_scale)
    }
}

/// Recomputes perspective `c`'s accumulator of `pos` into `out`; `None` if `c` has no king.
#[inline]
fn refresh(net: &Network, pos: &Position, c: Color, simd: Simd, out: &mut [i16; FT_OUT]) -> Option<()> {
    let list = active_features(pos, c)?;
    simd.update(net, &net.ft_bias.0, out, &[], list.as_slice());
    Some(())
}

/// The plain, non-incremental evaluation of `pos` (side to move's view, after `/ fv_scale` and the
/// clamp), or `None` when a king is missing. The reference the incremental path is tested against.
pub fn evaluate_full(net: &Network, pos: &Position, fv_scale: i32) -> Option<i32> {
    evaluate_full_with(net, pos, fv_scale, Simd::detect())
}

/// [`evaluate_full`] with the kernels chosen by the caller (tests compare both).
pub fn evaluate_full_with(net: &Network, pos: &Position, fv_scale: i32, simd: Simd) -> Option<i32> {
    let acc = Accumulator::refreshed(net, pos, simd)?;
    Some(acc.evaluate(net, pos.side_to_move(), fv_scale, simd))
}

/// One ply of the stack.
#[derive(Clone)]
struct Entry {
    acc: Accumulator,
    /// Whether `acc` holds the right values for each perspective.
    computed: [bool; 2],
    /// What the move into this ply changed (`refresh` is set for both sides at the root).
    delta: FeatureDelta,
}

impl Entry {
    fn new() -> Entry {
        Entry { acc: Accumulator::ZERO, computed: [false; 2], delta: FeatureDelta::NONE }
    }
}

/// A delta chain longer than this many changed features costs more than refreshing the 38
/// features from scratch (each changed feature is one row, like each refreshed one; a refresh also
/// skips the per-ply loads and stores).
const MAX_DELTA_COST: usize = PIECES;

/// One search thread's NNUE evaluator: a shared net, the kernels chosen once, FV_SCALE, and the
/// accumulator stack that follows the position through [`MoveObserver`].
///
/// Use: `reset(&pos)` whenever the root position is set (a new state follows no position, and
/// its `evaluate` returns `None`, until then); make and take back every move with
/// `pos.do_move_observed(m, &mut state)` / `pos.undo_move_observed(m, &mut state)` (and the null
/// move variants); call `evaluate(&pos)` with the current position whenever a value is needed.
///
/// Positions without both kings (tsume problems) have no HalfKP features: `evaluate` returns
/// `None` for them and the caller falls back to another evaluation. Moves are still followed (the
/// stack depth must match), at no cost.
pub struct NnueState {
    net: Arc<Network>,
    simd: Simd,
    fv_scale: i32,
    stack: Vec<Entry>,
    top: usize,
    /// Both kings were present at `reset`. Kings are never captured, so this holds for the whole
    /// line; when false, nothing is computed and `evaluate` returns `None`.
    kings: bool,
}

impl NnueState {
    /// An evaluator for `net` with the best kernels of this CPU. `fv_scale` is the output divisor
    /// (16 for most nets, 24 for Suisho5); values below 1 are taken as 1.
    pub fn new(net: Arc<Network>, fv_scale: i32) -> NnueState {
        NnueState::with_simd(net, fv_scale, Simd::detect())
    }

    /// An evaluator using the given kernels (e.g. [`Simd::SCALAR`] to force the scalar path).
    pub fn with_simd(net: Arc<Network>, fv_scale: i32, simd: Simd) -> NnueState {
        let mut stack = Vec::with_capacity(128);
        stack.push(Entry::new());
        NnueState { net, simd, fv_scale: fv_scale.max(1), stack, top: 0, kings: false }
    }

    pub fn network(&self) -> &Arc<Network> {
        &self.net
    }

    pub fn simd(&self) -> Simd {
        self.simd
    }

    pub fn fv_scale(&self) -> i32 {
        self.fv_scale
    }

    /// Changes FV_SCALE (values below 1 are taken as 1). Takes effect at the next `evaluate`.
    pub fn set_fv_scale(&mut self, fv_scale: i32) {
        self.fv_scale = fv_scale.max(1);
    }

    /// Starts following `pos` as a new root: forgets the stack. The root accumulators are computed
    /// at the first `evaluate`.
    pub fn reset(&mut self, pos: &Position) {
        self.top = 0;
        self.kings = pos.king_square(Color::Black).is_some() && pos.king_square(Color::White).is_some();
        let root = &mut self.stack[0];
        root.computed = [false; 2];
        root.delta = FeatureDelta::NONE;
        root.delta.refresh = [true; 2];
    }

    /// The static evaluation of `pos`, the position the state currently follows, from the side to
    /// move's point of view; `None` if a king is missing (see the type docs).
    #[inline]
    pub fn evaluate(&mut self, pos: &Position) -> Option<i32> {
        if !self.kings {
            return None;
        }
        self.update(pos, Color::Black);
        self.update(pos, Color::White);
        let acc = &self.stack[self.top].acc;
        Some(acc.evaluate(&self.net, pos.side_to_move(), self.fv_scale, self.simd))
    }

    /// The accumulators of `pos` (the current position), brought up to date; `None` if a king is
    /// missing. For tests and diagnostics.
    pub fn accumulator(&mut self, pos: &Position) -> Option<&Accumulator> {
        if !self.kings {
            return None;
        }
        self.update(pos, Color::Black);
        self.update(pos, Color::White);
        Some(&self.stack[self.top].acc)
    }

    /// Brings perspective `c` of the top entry up to date (see the module docs).
    #[inline]
    fn update(&mut self, pos: &Position, c: Color) {
        let p = c.index();
        if self.stack[self.top].computed[p] {
            return;
        }
        // Find the nearest computed entry reachable through deltas alone.
        let mut from = self.top;
        let mut cost = 0;
        let start = loop {
            let e = &self.stack[from];
            if e.computed[p] {
                break Some(from);
            }
            cost += (e.delta.n_removed + e.delta.n_added) as usize;
            if e.delta.refresh[p] || from == 0 || cost > MAX_DELTA_COST {
                break None;
            }
            from -= 1;
        };
        let net = &*self.net;
        let Some(start) = start else {
            let top = &mut self.stack[self.top];
            // `kings` guarantees both kings, so the refresh cannot fail.
            let _ = refresh(net, pos, c, self.simd, &mut top.acc.v[p]);
            top.computed[p] = true;
            return;
        };
        // The king of `c` has not moved since `start`, so its current square indexes every delta.
        let Some(ksq) = pos.king_square(c) else {
            return;
        };
        let king = features::orient(c, ksq);
        for j in start + 1..=self.top {
            let (done, rest) = self.stack.split_at_mut(j);
            let prev = &done[j - 1].acc.v[p];
            let e = &mut rest[0];
            let d = &e.delta;
            let mut removed = [0u32; 2];
            let mut added = [0u32; 2];
            for (r, bp) in removed.iter_mut().zip(&d.removed) {
                *r = features::index(king, bp[p]);
            }
            for (a, bp) in added.iter_mut().zip(&d.added) {
                *a = features::index(king, bp[p]);
            }
            self.simd.update(
                net,
                prev,
                &mut e.acc.v[p],
                &removed[..d.n_removed as usize],
                &added[..d.n_added as usize],
            );
            e.computed[p] = true;
        }
    }

    /// Pushes a ply whose accumulators are to be derived from the previous one through `delta`.
    #[inline(always)]
    fn push(&mut self, delta: FeatureDelta) {
        self.top += 1;
        if self.top == self.stack.len() {
            self.stack.push(Entry::new());
        }
        let e = &mut self.stack[self.top];
        e.computed = [false; 2];
        e.delta = delta;
    }

    /// Starts loading the rows the incremental update of `d` will read. The transformer table is
    /// 64 MB, far beyond the caches, and the update is dominated by waiting for rows (measured:
    /// about 15-20% more evaluations per second with this).
    #[inline(always)]
    fn prefetch(&self, before: &Position, d: &FeatureDelta) {
        for c in Color::ALL {
            let p = c.index();
            let Some(ksq) = before.king_square(c) else {
                continue;
            };
            if d.refresh[p] {
                continue;
            }
            let king = features::orient(c, ksq);
            for bp in &d.removed[..d.n_removed as usize] {
                prefetch_row(&self.net, features::index(king, bp[p]));
            }
            for bp in &d.added[..d.n_added as usize] {
                prefetch_row(&self.net, features::index(king, bp[p]));
            }
        }
    }

    #[inline(always)]
    fn pop(&mut self) {
        debug_assert!(self.top > 0, "NNUE stack: undo without a move");
        self.top = self.top.saturating_sub(1);
    }
}

impl MoveObserver for NnueState {
    #[inline]
    fn on_do_move(&mut self, before: &Position, m: Move) {
        let delta = if self.kings {
            let d = FeatureDelta::of_move(before, m);
            self.prefetch(before, &d);
            d
        } else {
            FeatureDelta::NONE
        };
        self.push(delta);
    }

    #[inline]
    fn on_undo_move(&mut self) {
        self.pop();
    }

    /// A null move changes no feature: the next entry is a copy of this one.
    #[inline]
    fn on_do_null_move(&mut self, _before: &Position) {
        self.push(FeatureDelta::NONE);
    }

    #[inline]
    fn on_undo_null_move(&mut self) {
        self.pop();
    }
}
