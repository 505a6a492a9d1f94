//! The refresh cache ("finny tables"): for each perspective and each square of its own king, the
//! accumulator of the last position refreshed with the king there, and which rows it holds. A
//! refresh (after a move of the perspective's own king, in the king-relative feature sets) then
//! starts from that accumulator and applies only the rows that differ, instead of adding up
//! every active row from the biases: in a search the king goes back and forth between a few
//! squares while the other pieces change little, so a handful of rows instead of 38-40.
//!
//! The rows of an entry are a set over the king's plane (row minus the plane's first row) kept as
//! a bit set, plus a count of BonaPiece 0 (the handicap's missing pieces, the one row that can be
//! active more than once). A position with some other row twice (composed positions with more
//! pieces of a kind than a game has) is refreshed the plain way and leaves the entry alone.

use super::aligned::AlignedVec;
use super::features::{FeatureSet, MAX_ACTIVE};
use super::network::{Network, NnueError};
use super::simd::Simd;
use super::{bona, shape};
use crate::position::Position;
use crate::types::Color;

/// Words of an entry's bit set: room for the widest plane (1710 rows).
const WORDS: usize = shape::FE_END2.div_ceil(64);
/// King squares per perspective.
const KINGS: usize = 81;

/// Which rows one cached accumulator holds.
#[derive(Clone, Copy)]
struct Rows {
    bits: [u64; WORDS],
    /// How many times the plane's row 0 (BonaPiece 0) is active.
    zeros: u8,
}

impl Rows {
    const EMPTY: Rows = Rows { bits: [0; WORDS], zeros: 0 };
}

/// The cache of one evaluator (162 accumulators: both perspectives, every king square).
pub(crate) struct RefreshCache {
    rows: Vec<Rows>,
    /// `2 * 81` accumulators of `stride` lanes, each starting as the biases.
    acc: AlignedVec<i16>,
    stride: usize,
}

impl RefreshCache {
    /// An empty cache for accumulators of `ft` lanes stored `stride` apart: every entry holds
    /// the biases and no row.
    pub(crate) fn new(net: &Network, ft: usize, stride: usize) -> Result<RefreshCache, NnueError> {
        let oom = |bytes| NnueError::OutOfMemory { bytes };
        let mut acc = AlignedVec::try_new(2 * KINGS * stride).map_err(oom)?;
        for entry in acc.chunks_exact_mut(stride) {
            entry[..ft].copy_from_slice(&net.ft_bias[..ft]);
        }
        let mut rows = Vec::new();
        rows.try_reserve_exact(2 * KINGS).map_err(|_| oom(2 * KINGS * std::mem::size_of::<Rows>()))?;
        rows.resize(2 * KINGS, Rows::EMPTY);
        Ok(RefreshCache { rows, acc, stride })
    }
}

/// Computes perspective `c`'s accumulator of `pos` into `out` (`ft` lanes): from the one `cache`
/// holds for its king's square, or, without a cache (or where a row is active twice), from the
/// biases and every active row; `None` if a king is missing.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn refresh<F: FeatureSet, const FT: usize>(
    cache: Option<&mut RefreshCache>,
    net: &Network,
    simd: Simd,
    ft: usize,
    pos: &Position,
    c: Color,
    out: &mut [i16],
) -> Option<()> {
    let mut from_biases = || {
        let active = F::active(pos, c)?;
        simd.update::<FT>(net, ft, &net.ft_bias, out, &[], active.as_slice());
        Some(())
    };
    let Some(cache) = cache else {
        return from_biases();
    };
    let (king, kings) = bona::kings(pos, c)?;
    let key = F::key(king);
    let base = F::index(key, 0);
    let mut now = Rows::EMPTY;
    let mut repeated = false;
    let mut mark = |row: u32| {
        let i = (row - base) as usize;
        if i == 0 {
            now.zeros = now.zeros.saturating_add(1);
        } else {
            let (w, b) = (i / 64, 1u64 << (i % 64));
            repeated |= now.bits[w] & b != 0;
            now.bits[w] |= b;
        }
    };
    bona::for_each_piece(pos, c, |bp| mark(F::index(key, bp)));
    if F::KINGS {
        mark(F::index(key, kings[0]));
        mark(F::index(key, kings[1]));
    }
    if repeated {
        return from_biases();
    }
    let slot = c.index() * KINGS + king;
    let was = cache.rows[slot];
    let mut removed = [0u32; 2 * MAX_ACTIVE];
    let mut added = [0u32; 2 * MAX_ACTIVE];
    let (mut nr, mut na) = (0, 0);
    for (w, (&old, &new)) in was.bits.iter().zip(&now.bits).enumerate() {
        let (mut gone, mut came) = (old & !new, new & !old);
        while gone != 0 && nr < removed.len() {
            removed[nr] = base + (64 * w) as u32 + gone.trailing_zeros();
            nr += 1;
            gone &= gone - 1;
        }
        while came != 0 && na < added.len() {
            added[na] = base + (64 * w) as u32 + came.trailing_zeros();
            na += 1;
            came &= came - 1;
        }
    }
    for _ in now.zeros..was.zeros {
        if nr < removed.len() {
            removed[nr] = base;
            nr += 1;
        }
    }
    for _ in was.zeros..now.zeros {
        if na < added.len() {
            added[na] = base;
            na += 1;
        }
    }
    let entry = &mut cache.acc[slot * cache.stride..slot * cache.stride + ft];
    simd.update::<FT>(net, ft, entry, out, &removed[..nr], &added[..na]);
    entry.copy_from_slice(&out[..ft]);
    cache.rows[slot] = now;
    Some(())
}
