//! The transposition table: shared by every search thread without locks.
//!
//! Concurrency: each entry is two `AtomicU64`s, the packed data and `key ^ data`, read and written
//! with `Relaxed` ordering. Two threads may write one entry at the same time, and a reader may see
//! the key word of one write and the data word of another; the xor check then fails (unless both
//! writes were identical) and the entry reads as a miss. A torn read can therefore only cost a
//! lookup, never return data stored for another position. No `&mut` is ever made from `&self`.
//!
//! Data word (bits):
//! ```text
//!  63..59   58   57..56   55..48        47..32        31..16      15..0
//!  gener.   pv   bound    depth + 16    static eval   value       move (0: none)
//! ```
//! A cluster holds four entries in one 64-byte cache line; the index is the high half of
//! `key * clusters` (a multiply instead of a modulo).

use crate::types::{Depth, Move, Value, VALUE_MATED_IN_MAX_PLY, VALUE_MATE_IN_MAX_PLY, VALUE_NONE};
use std::sync::atomic::{AtomicU64, Ordering};

/// Which side of the window a stored value lies on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bound {
    None = 0,
    /// The true value is at most the stored one (fail low).
    Upper = 1,
    /// The true value is at least the stored one (fail high).
    Lower = 2,
    Exact = 3,
}

impl Bound {
    fn from_bits(b: u64) -> Bound {
        match b & 3 {
            1 => Bound::Upper,
            2 => Bound::Lower,
            3 => Bound::Exact,
            _ => Bound::None,
        }
    }

    /// Whether this bound covers `other`: `Exact` covers both `Lower` (the value is at least the
    /// stored one, a fail high) and `Upper` (at most, a fail low); `None` covers nothing.
    #[inline(always)]
    pub fn includes(self, other: Bound) -> bool {
        (self as u8) & (other as u8) != 0
    }
}

/// What an entry holds: what a probe found, what a store writes.
#[derive(Clone, Copy, Debug)]
pub struct TtData {
    pub mv: Option<Move>,
    pub value: Value,
    pub eval: Value,
    pub depth: Depth,
    pub bound: Bound,
    pub pv: bool,
}

/// Depths are stored offset so that qsearch depths (down to -15) fit in a byte.
const DEPTH_OFFSET: Depth = 16;

#[derive(Default)]
#[repr(C)]
struct Entry {
    key_xor_data: AtomicU64,
    data: AtomicU64,
}

#[derive(Default)]
#[repr(C, align(64))]
struct Cluster {
    entries: [Entry; 4],
}

const _: () = assert!(std::mem::size_of::<Cluster>() == 64);

// SAFETY: a cluster is atomics of integers, for which zero bytes are a valid (empty) value.
unsafe impl crate::sys::large_pages::ZeroValid for Cluster {}

/// The data word of `d` written in `generation` (the inverse of [`unpack`] but for the generation).
fn pack(d: &TtData, generation: u8) -> u64 {
    let m = d.mv.map_or(0, |m| m.bits()) as u64;
    let v = (d.value as i16 as u16) as u64;
    let e = (d.eval as i16 as u16) as u64;
    let depth = (d.depth + DEPTH_OFFSET).clamp(0, 255) as u64;
    m | v << 16
        | e << 32
        | depth << 48
        | (d.bound as u64) << 56
        | (d.pv as u64) << 58
        | (generation as u64) << 59
}

fn unpack(data: u64) -> TtData {
    TtData {
        mv: Move::from_bits(data as u16),
        value: (data >> 16) as u16 as i16 as Value,
        eval: (data >> 32) as u16 as i16 as Value,
        depth: ((data >> 48) & 0xff) as Depth - DEPTH_OFFSET,
        bound: Bound::from_bits(data >> 56),
        pv: (data >> 58) & 1 != 0,
    }
}

fn depth_of(data: u64) -> Depth {
    ((data >> 48) & 0xff) as Depth - DEPTH_OFFSET
}

fn generation_of(data: u64) -> u8 {
    (data >> 59) as u8
}

/// Where a probe would store: the cluster and entry chosen for the key.
#[derive(Clone, Copy, Debug)]
pub struct TtSlot {
    cluster: usize,
    entry: usize,
}

pub struct TranspositionTable {
    clusters: crate::sys::large_pages::LargeSlice<Cluster>,
    /// Five bits; bumped once per search so old entries age.
    generation: AtomicU64,
}

impl TranspositionTable {
    /// A table of about `mb` megabytes (at least one cluster). Aborts when the memory cannot be
    /// had; see [`TranspositionTable::try_new`].
    pub fn new(mb: usize) -> TranspositionTable {
        TranspositionTable::try_new(mb).expect("memory for the transposition table")
    }

    /// A table of about `mb` megabytes (at least one cluster), or `None` when the allocator
    /// refuses that much memory.
    pub fn try_new(mb: usize) -> Option<TranspositionTable> {
        TranspositionTable::try_new_on(mb, 1)
    }

    /// [`TranspositionTable::try_new`], the memory zeroed by `threads` threads.
    pub fn try_new_on(mb: usize, threads: usize) -> Option<TranspositionTable> {
        let n = (mb.max(1).saturating_mul(1024 * 1024) / std::mem::size_of::<Cluster>()).max(1);
        let clusters = crate::sys::large_pages::LargeSlice::try_zeroed_on(n, threads)?;
        Some(TranspositionTable { clusters, generation: AtomicU64::new(0) })
    }

    /// [`TranspositionTable::try_new_on`], the zeroing cut short at `deadline`: the table is
    /// then smaller than asked (what was zeroed in time; at least 2 MiB, or `mb` if less).
    pub fn try_new_until(
        mb: usize,
        threads: usize,
        deadline: crate::sys::time::Instant,
    ) -> Option<TranspositionTable> {
        let n = (mb.max(1).saturating_mul(1024 * 1024) / std::mem::size_of::<Cluster>()).max(1);
        let clusters = crate::sys::large_pages::LargeSlice::try_zeroed_until(n, threads, deadline)?;
        Some(TranspositionTable { clusters, generation: AtomicU64::new(0) })
    }

    /// Size in megabytes.
    pub fn size_mb(&self) -> usize {
        self.clusters.len() * std::mem::size_of::<Cluster>() / (1024 * 1024)
    }

    /// Forgets everything.
    pub fn clear(&self) {
        self.clear_on(1);
    }

    /// Forgets everything, with `threads` threads each clearing its share of the table (a table
    /// of gigabytes takes a good part of a second on one thread).
    pub fn clear_on(&self, threads: usize) {
        let share = self.clusters.len().div_ceil(threads.max(1)).max(1);
        crate::sys::parallel::for_each_on(self.clusters.chunks(share).collect(), threads, |part| {
            for e in part.iter().flat_map(|c| &c.entries) {
                e.key_xor_data.store(0, Ordering::Relaxed);
                e.data.store(0, Ordering::Relaxed);
            }
        });
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Whether no entry holds anything (for tests).
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.clusters.iter().flat_map(|c| &c.entries).all(|e| e.data.load(Ordering::Relaxed) == 0)
    }

    /// Starts a new search: entries from earlier searches become replaceable first.
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    fn generation(&self) -> u8 {
        (self.generation.load(Ordering::Relaxed) & 31) as u8
    }

    #[inline(always)]
    fn cluster_index(&self, key: u64) -> usize {
        ((key as u128 * self.clusters.len() as u128) >> 64) as usize
    }

    /// Hints the CPU to fetch the cluster of `key` (call before `do_move` returns to the search).
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        crate::sys::prefetch::prefetch(&self.clusters[self.cluster_index(key)]);
    }

    /// Looks `key` up. Returns what was found (if anything) and the slot to store into.
    #[inline]
    pub fn probe(&self, key: u64) -> (Option<TtData>, TtSlot) {
        let ci = self.cluster_index(key);
        let cluster = &self.clusters[ci];
        let generation = self.generation();
        let mut worst = 0;
        let mut worst_score = i32::MAX;
        for (i, e) in cluster.entries.iter().enumerate() {
            let data = e.data.load(Ordering::Relaxed);
            let check = e.key_xor_data.load(Ordering::Relaxed);
            if data != 0 && check ^ data == key {
                return (Some(unpack(data)), TtSlot { cluster: ci, entry: i });
            }
            // Replacement score: shallow and old entries go first.
            let age = (generation.wrapping_sub(generation_of(data)) & 31) as i32;
            let score = if data == 0 { i32::MIN } else { depth_of(data) - 8 * age };
            if score < worst_score {
                worst_score = score;
                worst = i;
            }
        }
        (None, TtSlot { cluster: ci, entry: worst })
    }

    /// Stores a search result in `slot` (from `probe(key)`). An existing entry for the same key
    /// keeps its move when the new result has none, and is not overwritten by a much shallower
    /// non-exact result.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn store(
        &self,
        slot: TtSlot,
        key: u64,
        mv: Option<Move>,
        value: Value,
        eval: Value,
        depth: Depth,
        bound: Bound,
        pv: bool,
    ) {
        let e = &self.clusters[slot.cluster].entries[slot.entry];
        let old = e.data.load(Ordering::Relaxed);
        let same = old != 0 && e.key_xor_data.load(Ordering::Relaxed) ^ old == key;
        let mut mv = mv;
        if same {
            if mv.is_none() {
                mv = Move::from_bits(old as u16);
            }
            if bound != Bound::Exact && depth + 4 < depth_of(old) && generation_of(old) == self.generation() {
                return;
            }
        }
        let data = pack(&TtData { mv, value, eval, depth, bound, pv }, self.generation());
        e.data.store(data, Ordering::Relaxed);
        e.key_xor_data.store(key ^ data, Ordering::Relaxed);
    }

    /// Permille of a sample of entries that were written during the current search.
    pub fn hashfull(&self) -> u32 {
        let sample = self.clusters.len().min(250);
        let generation = self.generation();
        let mut used = 0;
        for c in &self.clusters[..sample] {
            for e in &c.entries {
                let d = e.data.load(Ordering::Relaxed);
                if d != 0 && generation_of(d) == generation {
                    used += 1;
                }
            }
        }
        (used * 1000 / (sample * 4).max(1)) as u32
    }
}

/// Mate scores are stored in the table relative to the node, not the root.
#[inline]
pub fn value_to_tt(v: Value, ply: i32) -> Value {
    if v >= VALUE_MATE_IN_MAX_PLY {
        v + ply
    } else if v <= VALUE_MATED_IN_MAX_PLY {
        v - ply
    } else {
        v
    }
}

/// A value read from the table, made relative to the root again ([`value_to_tt`]'s inverse).
#[inline]
pub fn value_from_tt(v: Value, ply: i32) -> Value {
    if v == VALUE_NONE {
        v
    } else if v >= VALUE_MATE_IN_MAX_PLY {
        v - ply
    } else if v <= VALUE_MATED_IN_MAX_PLY {
        v + ply
    } else {
        v
    }
}

/// Where a node's results go in the table: the table, the slot its probe chose, the node's key,
/// and its ply (mate scores are stored relative to the node).
#[derive(Clone, Copy)]
pub(super) struct TtPlace<'a> {
    pub tt: &'a TranspositionTable,
    pub slot: TtSlot,
    pub key: u64,
    pub ply: i32,
}

impl TtPlace<'_> {
    /// Stores a searched `value` (a mate score made relative to the node, [`value_to_tt`]),
    /// with the node's `eval`, at `depth`: the one way the search stores a value it found.
    #[inline]
    pub fn store(self, mv: Option<Move>, value: Value, eval: Value, depth: Depth, bound: Bound, pv: bool) {
        self.tt.store(self.slot, self.key, mv, value_to_tt(value, self.ply), eval, depth, bound, pv);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_probe() {
        let tt = TranspositionTable::new(1);
        let key = 0x1234_5678_9abc_def0;
        let (found, slot) = tt.probe(key);
        assert!(found.is_none());
        let m = Move::from_usi("7g7f");
        tt.store(slot, key, m, -345, 12, 7, Bound::Lower, true);
        let (found, _) = tt.probe(key);
        let d = found.expect("stored");
        assert_eq!((d.mv, d.value, d.eval, d.depth, d.bound, d.pv), (m, -345, 12, 7, Bound::Lower, true));
        // Negative depths (qsearch) fit.
        let (_, slot) = tt.probe(key ^ 1);
        tt.store(slot, key ^ 1, None, 5, 5, -6, Bound::Upper, false);
        assert_eq!(tt.probe(key ^ 1).0.unwrap().depth, -6);
        assert!(tt.probe(key ^ 2).0.is_none());
        assert!(tt.hashfull() <= 1000);
        tt.clear();
        assert!(tt.probe(key).0.is_none());
    }

    /// Every entry is cleared whatever the number of threads, more threads than clusters too.
    #[test]
    fn clearing_on_several_threads_reaches_every_entry() {
        let tt = TranspositionTable::new(1);
        for threads in [0, 1, 3, 7, tt.clusters.len() + 5] {
            for c in tt.clusters.iter() {
                for e in &c.entries {
                    e.key_xor_data.store(1, Ordering::Relaxed);
                    e.data.store(2, Ordering::Relaxed);
                }
            }
            tt.new_search();
            tt.clear_on(threads);
            let left = tt.clusters.iter().flat_map(|c| &c.entries).filter(|e| {
                e.key_xor_data.load(Ordering::Relaxed) != 0 || e.data.load(Ordering::Relaxed) != 0
            });
            assert_eq!(left.count(), 0, "{threads} threads");
            assert_eq!(tt.generation(), 0);
        }
    }
}
