//! The feature-transformer accumulators and the incremental, lazily updated stack that follows a
//! search through do/undo, compiled for one feature set and one set of widths.
//!
//! `acc[p][j] = ft_bias[j] + sum over the active rows f of p of ft_weight[f][j]` (wrapping
//! `i16`; the sum is order-independent because wrapping addition is). One accumulator per
//! perspective.
//!
//! `Stack` keeps one entry per ply. Making a move only records what it changes (a
//! [`FeatureDelta`], a few table lookups, no vector work); the accumulators are brought up to date
//! on the first `Stack::evaluate` after the moves. Then, per perspective, the stack is walked
//! back to the nearest computed entry and the recorded deltas are applied forward (every entry on
//! the way is filled in, so siblings evaluated later start closer). The walk stops, and the
//! perspective is refreshed from the position instead, when it meets a move of that side's king
//! in a king-relative feature set (every row of that side changes) or when the deltas would cost
//! more than a refresh. In transformers 512 wide and more, refreshes start from the accumulator
//! cached for the king's square ([`super::refresh_cache`]). Positions whose moves are never
//! evaluated (pruned, or in check) never pay for vector work.
//!
//! halfkpe9 ([`super::effects`]) also keeps, per ply, the attack counts of its position and the
//! rows the move into it changed: besides the moving and captured pieces, every piece whose
//! square's counts the move changed. They are recorded when the move has been made
//! (`on_moved`, which sees the new position), as the walk forward has only the current position.

use super::aligned::AlignedVec;
use super::bona::{board_piece, orient, FeatureDelta, PIECES};
use super::effects::{with_counts, Effects, PLANE};
use super::features::FeatureSet;
use super::layers::scale;
use super::network::{Network, NnueError};
use super::refresh_cache::{refresh, RefreshCache};
use super::sfnn_pass;
use super::simd::{prefetch_row, Dims, Simd};
use crate::bitboard::Bitboard;
use crate::position::Position;
use crate::types::{Color, Move, PieceType};
use std::marker::PhantomData;
use std::sync::Arc;

/// One ply's bookkeeping (its accumulators live in [`Stack`]'s buffer).
#[derive(Clone, Copy)]
struct Meta {
    /// Whether the accumulator of each perspective holds the right values.
    computed: [bool; 2],
    /// The root: both perspectives are computed from the position.
    root: bool,
    /// What the move into this ply changed.
    delta: FeatureDelta,
}

impl Meta {
    const ROOT: Meta = Meta { computed: [false; 2], root: true, delta: FeatureDelta::NONE };
}

/// Most pieces a halfkpe9 ply records (a game has 38 besides the kings); a move that changes more
/// (only in composed positions with extra pieces) makes the plies after it refresh.
const E9_CHANGES: usize = PIECES + 2;

/// A halfkpe9 ply: the attack counts of its position, and the rows (without the king's part,
/// `PLANE * plane + bp`, per perspective) that the move into it took away and added.
#[derive(Clone, Copy)]
struct E9Ply {
    effects: Effects,
    /// `effects` are those of this ply's position (false: a move was made without `on_moved`,
    /// and the next ply cannot be derived from this one).
    known: bool,
    /// Rows recorded, or [`E9Ply::FULL`]: more than fit, or not derivable; the ply refreshes.
    n: u8,
    old: [[u32; 2]; E9_CHANGES],
    new: [[u32; 2]; E9_CHANGES],
}

impl E9Ply {
    const FULL: u8 = u8::MAX;
    const UNKNOWN: E9Ply = E9Ply {
        effects: Effects::NONE,
        known: false,
        n: E9Ply::FULL,
        old: [[0; 2]; E9_CHANGES],
        new: [[0; 2]; E9_CHANGES],
    };

    #[inline(always)]
    fn record(&mut self, old: [u32; 2], new: [u32; 2]) {
        let n = self.n as usize;
        if n < E9_CHANGES {
            self.old[n] = old;
            self.new[n] = new;
            self.n += 1;
        } else {
            self.n = E9Ply::FULL;
        }
    }
}

/// The narrowest transformer whose refreshes start from the refresh cache.
const REFRESH_CACHE_MIN_FT: usize = 512;

/// Plies of room a new stack starts with; it doubles when a line goes deeper.
const INITIAL_PLIES: usize = 64;

/// Lanes of one perspective's accumulator in the buffer: `ft` rounded up to a whole number of
/// 64-byte lines, so that every accumulator starts on one.
const fn stride(ft: usize) -> usize {
    ft.div_ceil(32) * 32
}

/// One search thread's evaluator for nets of feature set `F` and widths `FT`, `H1`, `H2` (all 0:
/// the widths are read from the net): a shared net, the kernels chosen once, FV_SCALE, and the
/// accumulator stack that follows the position.
pub(crate) struct Stack<F: FeatureSet, const FT: usize, const H1: usize, const H2: usize> {
    net: Arc<Network>,
    simd: Simd,
    fv_scale: i32,
    ft: usize,
    meta: Vec<Meta>,
    /// `2 * stride(ft)` lanes per ply: black's accumulator, then white's.
    acc: AlignedVec<i16>,
    /// A perspective pair for plies beyond the buffer when it could not grow.
    spare: AlignedVec<i16>,
    /// The forward pass's scratch space (zeroed once; see `Simd::propagate`).
    scratch: AlignedVec<u8>,
    /// The refresh cache of the king-relative feature sets, for wide transformers (K+P never
    /// refreshes).
    cache: Option<RefreshCache>,
    /// halfkpe9's plies, one per entry of `meta` (empty for the other feature sets).
    e9: Vec<E9Ply>,
    top: usize,
    /// Plies pushed beyond the buffer (only when it could not grow: evaluated from scratch).
    overflow: usize,
    /// Both kings were present at `reset`. Kings are never captured, so this holds for the whole
    /// line; when false, nothing is computed and `evaluate` returns `None`.
    kings: bool,
    _features: PhantomData<F>,
}

impl<F: FeatureSet, const FT: usize, const H1: usize, const H2: usize> Stack<F, FT, H1, H2> {
    /// An evaluator for `net`, which must be of feature set `F` and, unless they are 0, widths
    /// `FT`, `H1`, `H2`.
    pub(crate) fn new(net: Arc<Network>, fv_scale: i32, simd: Simd) -> Result<Self, NnueError> {
        let shape = net.shape();
        assert!(shape.features == F::KIND, "an evaluator compiled for {:?} given a {shape} net", F::KIND);
        assert!(FT == 0 || (FT, H1, H2) == (shape.ft, shape.h1, shape.h2), "widths of a {shape} net");
        let oom = |bytes| NnueError::OutOfMemory { bytes };
        let ft = shape.ft;
        let scratch = match &net.sfnn {
            Some(sfnn) => sfnn.scratch_bytes(),
            None => {
                let d = Dims::of::<FT, H1, H2>(&net.layers);
                // The forward pass relies on this (`Simd::propagate`); checked once, as the layers
                // never change. A net's own layers always fit the widths read from it.
                assert!(
                    d.fit(&net.layers) && d.ft == ft,
                    "the layers of a {shape} net do not fit its widths"
                );
                d.scratch()
            }
        };
        let s = stride(ft);
        let mut meta = Vec::new();
        meta.try_reserve_exact(INITIAL_PLIES)
            .map_err(|_| oom(INITIAL_PLIES * std::mem::size_of::<Meta>()))?;
        meta.push(Meta::ROOT);
        let mut e9 = Vec::new();
        if F::EFFECTS {
            e9.try_reserve_exact(INITIAL_PLIES)
                .map_err(|_| oom(INITIAL_PLIES * std::mem::size_of::<E9Ply>()))?;
            e9.push(E9Ply::UNKNOWN);
        }
        // Measured (tools/nnue_nps, the same build with and without): 1.11x nps with the cache on
        // halfkp_1024x2-8-32, 0.99x on halfkp_256x2-32-32, whose 512-byte rows are cheap to add.
        // (The cache's row sets span one king's plane: not halfkpe9's nine.)
        let cached = F::KING_RELATIVE && !F::EFFECTS && ft >= REFRESH_CACHE_MIN_FT;
        let cache = if cached { Some(RefreshCache::new(&net, ft, s)?) } else { None };
        Ok(Stack {
            cache,
            acc: AlignedVec::try_new(INITIAL_PLIES * 2 * s).map_err(oom)?,
            spare: AlignedVec::try_new(2 * s).map_err(oom)?,
            scratch: AlignedVec::try_new(scratch).map_err(oom)?,
            net,
            simd,
            fv_scale: fv_scale.max(1),
            ft,
            meta,
            e9,
            top: 0,
            overflow: 0,
            kings: false,
            _features: PhantomData,
        })
    }

    pub(crate) fn network(&self) -> &Arc<Network> {
        &self.net
    }

    pub(crate) fn simd(&self) -> Simd {
        self.simd
    }

    pub(crate) fn fv_scale(&self) -> i32 {
        self.fv_scale
    }

    pub(crate) fn set_fv_scale(&mut self, fv_scale: i32) {
        self.fv_scale = fv_scale.max(1);
    }

    #[inline(always)]
    fn ft(&self) -> usize {
        if FT == 0 {
            self.ft
        } else {
            FT
        }
    }

    /// Where perspective `p` of ply `ply` starts in the buffer.
    #[inline(always)]
    fn offset(&self, ply: usize, p: usize) -> usize {
        (2 * ply + p) * stride(self.ft())
    }

    /// Starts following `pos` as a new root: forgets the stack. The root accumulators are computed
    /// at the first `evaluate`.
    pub(crate) fn reset(&mut self, pos: &Position) {
        self.top = 0;
        self.overflow = 0;
        self.kings = pos.king_square(Color::Black).is_some() && pos.king_square(Color::White).is_some();
        self.meta[0] = Meta::ROOT;
        if F::EFFECTS {
            self.e9[0] = E9Ply { effects: Effects::of(pos), known: true, n: 0, ..E9Ply::UNKNOWN };
        }
    }

    /// The static evaluation of `pos`, the position the stack currently follows, from the side
    /// to move's point of view; `None` if a king is missing.
    #[inline]
    pub(crate) fn evaluate(&mut self, pos: &Position) -> Option<i32> {
        if !self.kings {
            return None;
        }
        let stm = pos.side_to_move().index();
        let out = if self.overflow > 0 {
            // Beyond the buffer: from scratch, in the spare pair.
            let s = stride(self.ft());
            for c in Color::ALL {
                let (net, simd, ft) = (&*self.net, self.simd, self.ft());
                let p = c.index();
                refresh::<F, FT>(None, net, simd, ft, pos, c, &mut self.spare[p * s..(p + 1) * s])?;
            }
            let (us, them) = (&self.spare[stm * s..(stm + 1) * s], &self.spare[(1 - stm) * s..(2 - stm) * s]);
            match &self.net.sfnn {
                Some(sfnn) => sfnn_pass::forward(
                    sfnn,
                    pos,
                    &us[..self.ft()],
                    &them[..self.ft()],
                    &mut self.scratch,
                    self.simd,
                ),
                // SAFETY: the layers were checked in `new`; `us` and `them` hold `stride(ft) >= ft`
                // values and `scratch` was made `Dims::scratch` bytes long.
                None => unsafe {
                    self.simd.propagate::<FT, H1, H2>(&self.net.layers, us, them, &mut self.scratch)
                },
            }
        } else {
            self.update(pos, Color::Black);
            self.update(pos, Color::White);
            let (us, them) = (self.offset(self.top, stm), self.offset(self.top, 1 - stm));
            let ft = self.ft();
            let acc = &*self.acc;
            let (us, them) = (&acc[us..us + ft], &acc[them..them + ft]);
            match &self.net.sfnn {
                Some(sfnn) => sfnn_pass::forward(sfnn, pos, us, them, &mut self.scratch, self.simd),
                // SAFETY: the layers were checked in `new`; `us` and `them` hold `ft` values and
                // `scratch` was made `Dims::scratch` bytes long.
                None => unsafe {
                    self.simd.propagate::<FT, H1, H2>(&self.net.layers, us, them, &mut self.scratch)
                },
            }
        };
        Some(scale(out, self.fv_scale))
    }

    /// Brings both perspectives of the top entry up to date (no forward pass); `false` if a king
    /// is missing.
    pub(crate) fn update_accumulators(&mut self, pos: &Position) -> bool {
        if !self.kings || self.overflow > 0 {
            return self.kings;
        }
        self.update(pos, Color::Black);
        self.update(pos, Color::White);
        true
    }

    /// Both perspectives' accumulators of `pos` (the current position), brought up to date;
    /// `None` if a king is missing. For tests and diagnostics.
    pub(crate) fn accumulators(&mut self, pos: &Position) -> Option<[Vec<i16>; 2]> {
        if !self.kings {
            return None;
        }
        let ft = self.ft();
        if self.overflow > 0 {
            self.evaluate(pos)?;
            let s = stride(ft);
            return Some([self.spare[..ft].to_vec(), self.spare[s..s + ft].to_vec()]);
        }
        self.update(pos, Color::Black);
        self.update(pos, Color::White);
        let (b, w) = (self.offset(self.top, 0), self.offset(self.top, 1));
        Some([self.acc[b..b + ft].to_vec(), self.acc[w..w + ft].to_vec()])
    }

    /// Rows the move into ply `j` changes for one perspective (removed plus added); `None` when
    /// that ply cannot be derived from the one before.
    #[inline(always)]
    fn cost(&self, j: usize) -> Option<usize> {
        if F::EFFECTS {
            let n = self.e9[j].n;
            return (n != E9Ply::FULL).then_some(2 * n as usize);
        }
        let d = &self.meta[j].delta;
        Some(2 * d.n as usize + if F::KINGS && d.king_moved().is_some() { 2 } else { 0 })
    }

    /// Whether `d` makes perspective `c` start again from the position.
    #[inline(always)]
    fn refreshes(d: &FeatureDelta, c: Color) -> bool {
        F::KING_RELATIVE && d.king_moved() == Some(c)
    }

    /// Brings perspective `c` of the top entry up to date (see the module docs).
    #[inline]
    fn update(&mut self, pos: &Position, c: Color) {
        let p = c.index();
        if self.meta[self.top].computed[p] {
            return;
        }
        // A delta chain costing more rows than a refresh lists is not worth walking.
        let max_cost = PIECES + if F::KINGS { 2 } else { 0 };
        let mut from = self.top;
        let mut cost = 0;
        let start = loop {
            let e = &self.meta[from];
            if e.computed[p] {
                break Some(from);
            }
            let Some(rows) = self.cost(from) else {
                break None;
            };
            cost += rows;
            if e.root || Self::refreshes(&e.delta, c) || from == 0 || cost > max_cost {
                break None;
            }
            from -= 1;
        };
        let (net, simd, ft) = (&*self.net, self.simd, self.ft());
        let Some(start) = start else {
            let o = self.offset(self.top, p);
            let out = &mut self.acc[o..o + ft];
            // `kings` guarantees both kings, so the refresh cannot fail.
            let _ = refresh::<F, FT>(self.cache.as_mut(), net, simd, ft, pos, c, out);
            self.meta[self.top].computed[p] = true;
            return;
        };
        // The king of `c` has not moved since `start` (or, in K+P, keys nothing), so its current
        // square keys every delta.
        let Some(ksq) = pos.king_square(c) else {
            return;
        };
        let key = F::key(orient(c, ksq));
        let s = stride(ft);
        let acc: &mut [i16] = &mut self.acc;
        if F::EFFECTS {
            let base = F::index(key, 0);
            for (j, m) in self.meta.iter_mut().enumerate().take(self.top + 1).skip(start + 1) {
                let e = &self.e9[j];
                let n = e.n as usize;
                let mut removed = [0u32; E9_CHANGES];
                let mut added = [0u32; E9_CHANGES];
                for i in 0..n {
                    removed[i] = base + e.old[i][p];
                    added[i] = base + e.new[i][p];
                }
                let (lo, hi) = acc.split_at_mut((2 * j + p) * s);
                let prev = &lo[(2 * j - 2 + p) * s..][..ft];
                simd.update::<FT>(net, ft, prev, &mut hi[..ft], &removed[..n], &added[..n]);
                m.computed[p] = true;
            }
            return;
        }
        for (j, m) in self.meta.iter_mut().enumerate().take(self.top + 1).skip(start + 1) {
            let d = &m.delta;
            let mut removed = [0u32; 3];
            let mut added = [0u32; 3];
            let mut n = 0;
            for ch in d.changes() {
                removed[n] = F::index(key, ch.old[p]);
                added[n] = F::index(key, ch.new[p]);
                n += 1;
            }
            if F::KINGS && d.king_moved().is_some() {
                removed[n] = F::index(key, d.king.old[p]);
                added[n] = F::index(key, d.king.new[p]);
                n += 1;
            }
            // Ply j - 1's accumulator of `p`, and ply j's.
            let (lo, hi) = acc.split_at_mut((2 * j + p) * s);
            let prev = &lo[(2 * j - 2 + p) * s..][..ft];
            simd.update::<FT>(net, ft, prev, &mut hi[..ft], &removed[..n], &added[..n]);
            m.computed[p] = true;
        }
    }

    /// Pushes a ply whose accumulators are to be derived from the previous one through `delta`.
    #[inline(always)]
    fn push(&mut self, delta: FeatureDelta) {
        if self.overflow > 0 || (self.top + 1 == self.meta.len() && !self.grow()) {
            self.overflow += 1;
            return;
        }
        self.top += 1;
        self.meta[self.top] = Meta { computed: [false; 2], root: false, delta };
    }

    /// Makes room for one more ply: `false` when the memory could not be had.
    #[cold]
    fn grow(&mut self) -> bool {
        let plies = self.meta.len();
        let room = self.acc.len() / (2 * stride(self.ft()));
        if plies >= room {
            let Ok(mut bigger) = AlignedVec::try_new(2 * self.acc.len()) else {
                return false;
            };
            bigger[..self.acc.len()].copy_from_slice(&self.acc);
            self.acc = bigger;
        }
        if self.meta.try_reserve(1).is_err() || (F::EFFECTS && self.e9.try_reserve(1).is_err()) {
            return false;
        }
        self.meta.push(Meta::ROOT);
        if F::EFFECTS {
            self.e9.push(E9Ply::UNKNOWN);
        }
        true
    }

    #[inline(always)]
    fn pop(&mut self) {
        if self.overflow > 0 {
            self.overflow -= 1;
            return;
        }
        debug_assert!(self.top > 0, "NNUE stack: undo without a move");
        self.top = self.top.saturating_sub(1);
    }

    /// Starts loading the rows the incremental update of `d` will read. The transformer table is
    /// far beyond the caches, and the update is dominated by waiting for rows (measured on the
    /// classic shape: about 15-20% more evaluations per second with this).
    #[inline(always)]
    fn prefetch(&self, before: &Position, d: &FeatureDelta) {
        let ft = self.ft();
        for c in Color::ALL {
            let p = c.index();
            if Self::refreshes(d, c) {
                continue;
            }
            let Some(ksq) = before.king_square(c) else {
                continue;
            };
            let key = F::key(orient(c, ksq));
            for ch in d.changes() {
                prefetch_row(&self.net, F::index(key, ch.old[p]), ft);
                prefetch_row(&self.net, F::index(key, ch.new[p]), ft);
            }
        }
    }

    #[inline]
    pub(crate) fn on_do_move(&mut self, before: &Position, m: Move) {
        let delta = if self.kings {
            let d = FeatureDelta::of_move(before, m);
            // halfkpe9's rows are known only once the move is made (`on_moved`).
            if !F::EFFECTS {
                self.prefetch(before, &d);
            }
            d
        } else {
            FeatureDelta::NONE
        };
        self.push(delta);
        if F::EFFECTS && self.overflow == 0 {
            // Until `on_moved` says otherwise, this ply cannot be derived.
            self.e9[self.top].known = false;
            self.e9[self.top].n = E9Ply::FULL;
        }
    }

    /// halfkpe9: `m` has been made and `after` is the new position. Records its attack counts
    /// and the rows the move changed: the moving and captured pieces' (their old rows with the
    /// counts before, their new ones with the counts after), and those of every other piece whose
    /// square's counts changed.
    #[inline]
    pub(crate) fn on_moved(&mut self, after: &Position, m: Move) {
        if !F::EFFECTS || !self.kings || self.overflow > 0 || self.top == 0 {
            return;
        }
        let (top, now) = (self.top, Effects::of(after));
        let (prev, derivable) = (self.e9[top - 1].effects, self.e9[top - 1].known);
        let d = self.meta[top].delta;
        let ply = &mut self.e9[top];
        ply.effects = now;
        ply.known = true;
        if !derivable {
            ply.n = E9Ply::FULL;
            return;
        }
        ply.n = 0;
        let (b, w) = (Color::Black, Color::White);
        for ch in d.changes() {
            ply.record(
                [with_counts(&prev, b, ch.old[0]), with_counts(&prev, w, ch.old[1])],
                [with_counts(&now, b, ch.new[0]), with_counts(&now, w, ch.new[1])],
            );
        }
        // The other pieces stand where they stood; the moved piece (or the king) is on `to`.
        let still =
            after.occupied().and_not(after.pieces_of(PieceType::King) | Bitboard::from_square(m.to()));
        for sq in prev.changed(&now) & still {
            let Some(pc) = after.piece_on(sq) else {
                continue;
            };
            let bp = [u32::from(board_piece(b, pc, sq)), u32::from(board_piece(w, pc, sq))];
            ply.record(
                [PLANE * prev.plane(b, sq) + bp[0], PLANE * prev.plane(w, sq) + bp[1]],
                [PLANE * now.plane(b, sq) + bp[0], PLANE * now.plane(w, sq) + bp[1]],
            );
        }
        let ply = &self.e9[top];
        if ply.n == E9Ply::FULL {
            return;
        }
        let ft = self.ft();
        for c in Color::ALL {
            let Some(ksq) = after.king_square(c) else {
                continue;
            };
            if Self::refreshes(&d, c) {
                continue;
            }
            let (base, p) = (F::index(F::key(orient(c, ksq)), 0), c.index());
            for i in 0..ply.n as usize {
                prefetch_row(&self.net, base + ply.old[i][p], ft);
                prefetch_row(&self.net, base + ply.new[i][p], ft);
            }
        }
    }

    #[inline]
    pub(crate) fn on_undo_move(&mut self) {
        self.pop();
    }

    /// A null move changes no feature.
    #[inline]
    pub(crate) fn on_do_null_move(&mut self) {
        self.push(FeatureDelta::NONE);
        if F::EFFECTS && self.overflow == 0 && self.top > 0 {
            let prev = self.e9[self.top - 1];
            self.e9[self.top] = E9Ply { n: if prev.known { 0 } else { E9Ply::FULL }, ..prev };
        }
    }

    #[inline]
    pub(crate) fn on_undo_null_move(&mut self) {
        self.pop();
    }
}
