//! The proof-number table: proof and disproof numbers of positions, and the final results with
//! the hands they hold for.
//!
//! Entries are keyed by the board key (board and side to move) plus the attacker's hand, and come
//! in three kinds:
//! - **proven** (`pn = 0`): `hand` is the proof hand, `len` the length of the mate found (plies);
//!   it answers every probe whose hand dominates `hand` with a remaining depth of at least `len`;
//! - **disproven** (`dn = 0`): `hand` is the disproof hand, `len` the remaining depth up to which
//!   the disproof holds ([`UNLIMITED`] when no depth limit was involved); it answers every probe
//!   whose hand is dominated by `hand` with a remaining depth of at most `len`;
//! - **unknown**: the current estimates for exactly this hand.
//!
//! A cluster of [`WAYS`] entries (128 bytes, two cache lines that the hardware fetches as a pair)
//! is chosen by the board key, so all hands of one board share a cluster and one probe sees them
//! all. Replacement prefers the entry with the least work
//! (`amount`, nodes spent below it); storing a result also drops the entries of its board that it
//! makes redundant (a proof covers the unknown entries and weaker proofs of dominating hands, a
//! disproof those of dominated hands).
//!
//! # A full table
//! The table never grows: `MateHash` is its size, and a search of any length runs within it.
//! Replacement alone would not keep it useful: an entry's work only grows while its subtree is
//! searched, so entries of subtrees the search left long ago would keep their slots for ever and
//! the table would shrink, in effect, to the slots they leave. So once
//! [`GC_HIGH_PERMILLE`] of the entries are in use, a collection ([`Table::collect`]) frees them
//! down to [`GC_LOW_PERMILLE`]: first every unknown entry not stored since the last collection (an
//! older generation) has its work halved, so that abandoned subtrees age out (results do not age:
//! they stay true, and their work is what they would cost again); then the unknown entries
//! with the least work go, and only if they are not enough the proven and disproven ones with
//! the least work (results are kept in preference: they are final and cost a search to get
//! back). Every entry removed is an estimate or a result the search can establish again, so a
//! smaller table changes the time a problem takes, never the answer.
//!
//! # Disproofs that rest on the line
//! A disproof found on a line that it cycles back to holds only where those positions lie above
//! the node (see `dfpn.rs`). A [`REP_SHARE`]th of the memory keeps such disproofs apart, one per
//! board key (the newest wins, nothing else is evicted for them), each with the plies of the
//! repeated positions it rests on and a hash of the line down to the deepest of them; a probe
//! finds it only from a line that is the same down to there.
//!
//! Only the search thread touches the table, so there is no synchronisation.

use crate::sys::large_pages::{LargeSlice, ZeroValid};
use crate::sys::prefetch::prefetch;
use crate::types::{Hand, Move};

/// A final proof or disproof number.
pub(crate) const INF: u32 = u32::MAX;
/// The largest proof or disproof number of an unresolved node.
pub(crate) const PN_MAX: u32 = INF - 1;
/// Depth of validity of a disproof that no depth limit took part in.
pub(crate) const UNLIMITED: u16 = u16::MAX;

/// Entries per cluster.
pub(crate) const WAYS: usize = 4;
/// A collection starts once this many permille of the entries are in use...
pub(crate) const GC_HIGH_PERMILLE: usize = 875;
/// ... and frees entries until at most this many permille are.
pub(crate) const GC_LOW_PERMILLE: usize = 500;
/// The share of the memory for disproofs that rest on the current line: one part in this many
/// (4 MiB of the default 256; a sixteenth measured worse on Microcosmos, 230.5 M nodes against
/// 217.0 M, docs/records/mate.md).
const REP_SHARE: usize = 64;
/// Buckets of work, by bit length (0 to 32): the unit of a collection's threshold.
const BUCKETS: usize = 33;

#[derive(Clone, Copy, Default)]
#[repr(C)]
struct Entry {
    /// Board key; meaningful only when `used`.
    key: u64,
    hand: Hand,
    pn: u32,
    dn: u32,
    /// Nodes searched below this entry (saturating): the replacement priority.
    amount: u32,
    /// Mate length (proven) or depth of validity (disproven).
    len: u16,
    /// The proving move of a proven attacker node (raw bits, 0 = none).
    best: u16,
    used: bool,
    /// The table's generation when the entry was last stored (see [`Table::collect`]).
    generation: u8,
}

const _: () = assert!(std::mem::size_of::<Entry>() == 32);

#[derive(Clone, Copy, Default)]
#[repr(C, align(128))]
struct Cluster([Entry; WAYS]);

// SAFETY: an entry is integers, a `Hand` (a `u32`) and `bool`s: all-zero bytes are a valid
// cluster, the default one (every entry unused).
unsafe impl ZeroValid for Cluster {}

/// A disproof that rests on positions of the line it was found on (see `dfpn.rs`): it holds
/// again wherever the line down to its deepest such position is the same.
#[derive(Clone, Copy, Default)]
#[repr(C)]
struct RepEntry {
    /// Board key; meaningful only when `used`.
    key: u64,
    /// The hash of the line from the root down to ply `hi` when the disproof was found.
    line: u64,
    /// The disproof hand.
    hand: Hand,
    /// Depth of validity.
    len: u16,
    /// The plies of the shallowest and the deepest repeated positions the disproof rests on.
    lo: u16,
    hi: u16,
    used: bool,
}

const _: () = assert!(std::mem::size_of::<RepEntry>() == 32);

/// What [`Table::probe_rep`] found: a disproof hand, its depth of validity, and the plies of the
/// shallowest and deepest repeated positions it rests on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RepProbe {
    pub hand: Hand,
    pub len: u16,
    pub lo: u16,
    pub hi: u16,
}

/// How a final result to be stored relates to an entry of the same board key (see
/// [`Table::store_final`]).
enum Overlap {
    /// The entry already says as much or more: the new result adds nothing.
    Covers,
    /// The new result says as much or more than the entry: the entry can go.
    Superseded,
    /// Neither follows from the other.
    Apart,
}

/// What a probe found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Probe {
    pub pn: u32,
    pub dn: u32,
    /// Proof hand (proven) or disproof hand (disproven); the probed hand otherwise.
    pub hand: Hand,
    /// Mate length (proven), depth of validity (disproven), 0 otherwise.
    pub len: u16,
    pub best: Option<Move>,
    /// Whether any entry matched (false: `pn` and `dn` are the caller's defaults).
    pub found: bool,
}

pub(crate) struct Table {
    clusters: LargeSlice<Cluster>,
    /// Disproofs resting on the current line, one slot per board key (the newest wins): a
    /// [`REP_SHARE`]th of the table's memory.
    reps: Vec<RepEntry>,
    /// Entries in use.
    used: usize,
    /// A collection starts when `used` reaches this.
    high: usize,
    /// Stamped on every entry stored; advanced by each collection.
    generation: u8,
    /// Collections since the table was made or cleared.
    collections: u64,
}

/// The bucket of a work amount: its bit length.
#[inline(always)]
fn bucket(amount: u32) -> usize {
    (u32::BITS - amount.leading_zeros()) as usize
}

impl Table {
    /// A table of about `mb` mebibytes (at least one cluster), or `None` when the allocator
    /// refuses that much memory.
    pub fn try_new(mb: usize) -> Option<Table> {
        let bytes = mb.saturating_mul(1 << 20);
        let rep_bytes = bytes / REP_SHARE;
        let n = ((bytes - rep_bytes) / std::mem::size_of::<Cluster>()).max(1);
        let r = (rep_bytes / std::mem::size_of::<RepEntry>()).max(1);
        let mut reps = Vec::new();
        reps.try_reserve_exact(r).ok()?;
        reps.resize(r, RepEntry::default());
        // Zeroed by the system as the search first touches each page: a `go mate` with a time
        // limit does not wait seconds for a table of gigabytes to be written first.
        let clusters = LargeSlice::try_zeroed_lazily(n)?;
        let high = (n * WAYS * GC_HIGH_PERMILLE / 1000).max(1);
        Some(Table { clusters, reps, used: 0, high, generation: 0, collections: 0 })
    }

    pub fn clear(&mut self) {
        self.clusters.fill(Cluster::default());
        self.reps.fill(RepEntry::default());
        self.used = 0;
        self.generation = 0;
        self.collections = 0;
    }

    /// The table's memory, in bytes.
    pub fn bytes(&self) -> usize {
        self.clusters.len() * std::mem::size_of::<Cluster>()
            + self.reps.len() * std::mem::size_of::<RepEntry>()
    }

    /// Entries the table holds.
    pub fn capacity(&self) -> usize {
        self.clusters.len() * WAYS
    }

    /// Collections since the table was made or cleared.
    pub fn collections(&self) -> u64 {
        self.collections
    }

    /// Writes `e` to slot `way` of cluster `i` (stamped with the generation), counting a slot that
    /// was free; collects once the table is full enough.
    #[inline]
    fn put(&mut self, i: usize, way: usize, mut e: Entry) {
        e.generation = self.generation;
        let slot = &mut self.clusters[i].0[way];
        let was_free = !slot.used;
        *slot = e;
        if was_free {
            self.used += 1;
            if self.used >= self.high {
                self.collect();
            }
        }
    }

    /// Frees entries until at most [`GC_LOW_PERMILLE`] of them are in use (see the module docs):
    /// ages the unknown entries of older generations, then drops unknown entries by increasing
    /// work, then
    /// if need be results by increasing work. Whole buckets of work go at a time, so a collection
    /// may free somewhat more than it must.
    pub fn collect(&mut self) {
        let target = self.capacity() * GC_LOW_PERMILLE / 1000;
        let excess = self.used.saturating_sub(target);
        let generation = self.generation;
        let mut unknown = [0usize; BUCKETS];
        let mut results = [0usize; BUCKETS];
        for c in self.clusters.iter_mut() {
            for e in c.0.iter_mut().filter(|e| e.used) {
                if e.pn == 0 || e.dn == 0 {
                    results[bucket(e.amount)] += 1;
                } else {
                    if e.generation != generation {
                        e.amount >>= 1;
                    }
                    unknown[bucket(e.amount)] += 1;
                }
            }
        }
        // The lowest buckets of unknown entries that free `excess`, then of results for the rest.
        let threshold = |h: &[usize; BUCKETS], need: usize| -> (usize, usize) {
            let mut freed = 0;
            for (b, &n) in h.iter().enumerate() {
                if freed >= need {
                    return (b, freed);
                }
                freed += n;
            }
            (BUCKETS, freed)
        };
        let (unknown_below, freed) = threshold(&unknown, excess);
        let (results_below, _) = threshold(&results, excess.saturating_sub(freed));
        let mut used = 0;
        for c in self.clusters.iter_mut() {
            for e in c.0.iter_mut().filter(|e| e.used) {
                let below = if e.pn == 0 || e.dn == 0 { results_below } else { unknown_below };
                if bucket(e.amount) < below {
                    e.used = false;
                } else {
                    used += 1;
                }
            }
        }
        self.used = used;
        self.generation = generation.wrapping_add(1);
        self.collections += 1;
    }

    #[inline(always)]
    fn index(&self, key: u64) -> usize {
        ((key as u128 * self.clusters.len() as u128) >> 64) as usize
    }

    /// Asks the CPU to fetch the cluster of `key` (and, with `rep`, its slot for disproofs that
    /// rest on the line) so that a probe soon after finds it in the cache. Prefetching the
    /// clusters of all children before probing them lets their cache misses overlap; unlike a
    /// load, a prefetch does not hold up the instructions after it while the line comes.
    #[inline(always)]
    pub fn prefetch(&self, key: u64, rep: bool) {
        prefetch(&self.clusters[self.index(key)]);
        if rep {
            prefetch(&self.reps[self.rep_index(key)]);
        }
    }

    /// Looks up the board `key` with attacker hand `hand` at remaining depth `depth`; `pn`/`dn`
    /// are returned when nothing matches.
    #[inline]
    pub fn probe(&self, key: u64, hand: Hand, depth: u16, pn: u32, dn: u32) -> Probe {
        let cluster = &self.clusters[self.index(key)].0;
        let mut out = Probe { pn, dn, hand, len: 0, best: None, found: false };
        let mut proven = false;
        for e in cluster.iter() {
            if !e.used || e.key != key {
                continue;
            }
            if e.pn == 0 {
                if hand.dominates(e.hand) && e.len <= depth && (!proven || e.len < out.len) {
                    proven = true;
                    out = Probe {
                        pn: 0,
                        dn: INF,
                        hand: e.hand,
                        len: e.len,
                        best: Move::from_bits(e.best),
                        found: true,
                    };
                }
            } else if e.dn == 0 {
                if !proven && e.hand.dominates(hand) && e.len >= depth {
                    return Probe { pn: INF, dn: 0, hand: e.hand, len: e.len, best: None, found: true };
                }
            } else if !proven && e.hand == hand {
                out.pn = e.pn;
                out.dn = e.dn;
                out.found = true;
            }
        }
        out
    }

    /// Hand dominance for estimates: for board `key` and attacker hand `hand`, which no entry
    /// matches, the largest proof number among the board's unknown entries whose hand dominates
    /// `hand`, and the largest disproof number among those whose hand `hand` dominates (0 where
    /// there is none). With more pieces in hand the attacker needs no more work to mate, and with
    /// fewer the defender no more to refute, so a new node's estimates are at least these.
    #[inline]
    pub fn dominance_floors(&self, key: u64, hand: Hand) -> (u32, u32) {
        let (mut pn, mut dn) = (0, 0);
        for e in self.clusters[self.index(key)].0.iter() {
            if !e.used || e.key != key || e.pn == 0 || e.dn == 0 {
                continue;
            }
            if e.hand.dominates(hand) {
                pn = pn.max(e.pn);
            } else if hand.dominates(e.hand) {
                dn = dn.max(e.dn);
            }
        }
        (pn, dn)
    }

    /// The slot to write a new entry of board `key` to: a free one, else the one with the least
    /// work.
    fn victim(cluster: &[Entry; WAYS]) -> usize {
        let mut best = 0;
        let mut best_amount = u64::MAX;
        for (i, e) in cluster.iter().enumerate() {
            if !e.used {
                best = i;
                break;
            }
            // Final entries are worth a little more than unknown ones of the same work.
            let a = (e.amount as u64) * 2 + u64::from(e.pn == 0 || e.dn == 0);
            if a < best_amount {
                best_amount = a;
                best = i;
            }
        }
        best
    }

    /// Stores the estimates of an unresolved node.
    pub fn store_unknown(&mut self, key: u64, hand: Hand, pn: u32, dn: u32, amount: u32) {
        debug_assert!(pn != 0 && dn != 0);
        let i = self.index(key);
        let cluster = &self.clusters[i].0;
        // The same node searched again: its work adds up.
        let (way, amount) = match cluster
            .iter()
            .position(|e| e.used && e.key == key && e.hand == hand && e.pn != 0 && e.dn != 0)
        {
            Some(j) => (j, amount.saturating_add(cluster[j].amount)),
            None => (Self::victim(cluster), amount),
        };
        self.put(i, way, Entry { key, hand, pn, dn, amount, len: 0, best: 0, used: true, generation: 0 });
    }

    /// Stores a proof: mate in `len` plies with any hand dominating `hand`.
    pub fn store_proven(&mut self, key: u64, hand: Hand, len: u16, best: Option<Move>, amount: u32) {
        let best = best.map_or(0, Move::bits);
        let proof = Entry { key, hand, pn: 0, dn: INF, amount, len, best, used: true, generation: 0 };
        self.store_final(proof, |e| {
            if e.pn == 0 {
                if hand.dominates(e.hand) && e.len <= len {
                    Overlap::Covers
                } else if e.hand.dominates(hand) && len <= e.len {
                    Overlap::Superseded
                } else {
                    Overlap::Apart
                }
            } else if e.dn != 0 && e.hand.dominates(hand) {
                // An unknown node with more pieces in hand is mated too.
                Overlap::Superseded
            } else {
                Overlap::Apart
            }
        });
    }

    /// Stores a disproof: no mate within `len` plies (any length if [`UNLIMITED`]) with any hand
    /// that `hand` dominates.
    pub fn store_disproven(&mut self, key: u64, hand: Hand, len: u16, amount: u32) {
        let disproof = Entry { key, hand, pn: INF, dn: 0, amount, len, best: 0, used: true, generation: 0 };
        self.store_final(disproof, |e| {
            if e.dn == 0 {
                if e.hand.dominates(hand) && e.len >= len {
                    Overlap::Covers
                } else if hand.dominates(e.hand) && len >= e.len {
                    Overlap::Superseded
                } else {
                    Overlap::Apart
                }
            } else if e.pn != 0 && hand.dominates(e.hand) && len == UNLIMITED {
                // An unknown node with fewer pieces in hand has no mate at any length either.
                Overlap::Superseded
            } else {
                Overlap::Apart
            }
        });
    }

    /// Stores the final entry `new` (a proof or a disproof), given what it makes of each entry
    /// of the same board key. An entry that already `Covers` it keeps its place (taking the
    /// larger work and the current generation) and nothing is stored; the entries it supersedes
    /// are freed, their work carried over to `new`.
    fn store_final(&mut self, new: Entry, overlap: impl Fn(&Entry) -> Overlap) {
        let i = self.index(new.key);
        let generation = self.generation;
        let cluster = &mut self.clusters[i].0;
        let mut amount = new.amount;
        let mut freed = 0;
        for e in cluster.iter_mut() {
            if !e.used || e.key != new.key {
                continue;
            }
            match overlap(e) {
                Overlap::Covers => {
                    e.amount = e.amount.max(amount);
                    e.generation = generation;
                    self.used -= freed;
                    return;
                }
                Overlap::Superseded => {
                    amount = amount.max(e.amount);
                    e.used = false;
                    freed += 1;
                }
                Overlap::Apart => {}
            }
        }
        self.used -= freed;
        let way = Self::victim(cluster);
        self.put(i, way, Entry { amount, ..new });
    }

    #[inline(always)]
    fn rep_index(&self, key: u64) -> usize {
        ((key.rotate_left(32) as u128 * self.reps.len() as u128) >> 64) as usize
    }

    /// Stores a disproof of board `key` resting on repeated positions at plies `lo` to `hi` of
    /// the current line, whose hash down to ply `hi` is `line`: no mate within `len` plies with
    /// any hand that `hand` dominates, from any line that is the same down to ply `hi`.
    pub fn store_rep(&mut self, key: u64, hand: Hand, len: u16, lo: u16, hi: u16, line: u64) {
        let i = self.rep_index(key);
        self.reps[i] = RepEntry { key, line, hand, len, lo, hi, used: true };
    }

    /// The disproof [`Table::store_rep`] stored for board `key`, if it holds for `hand` at
    /// remaining depth `depth` on the current line, whose hashes by ply are `lines`.
    #[inline]
    pub fn probe_rep(&self, key: u64, hand: Hand, depth: u16, lines: &[u64]) -> Option<RepProbe> {
        let e = &self.reps[self.rep_index(key)];
        (e.used
            && e.key == key
            && e.hand.dominates(hand)
            && e.len >= depth
            && lines.get(e.hi as usize) == Some(&e.line))
        .then_some(RepProbe { hand: e.hand, len: e.len, lo: e.lo, hi: e.hi })
    }

    /// Permille of the entries in use (for `info hashfull`; at most [`GC_HIGH_PERMILLE`]).
    pub fn hashfull(&self) -> usize {
        self.used * 1000 / self.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::PieceType;

    fn hand(pawns: u32, golds: u32) -> Hand {
        let mut h = Hand::EMPTY;
        h.set_count(PieceType::Pawn, pawns);
        h.set_count(PieceType::Gold, golds);
        h
    }

    #[test]
    fn superiority_and_depth() {
        let mut t = Table::try_new(1).expect("1 MiB");
        let k = 0x1234_5678_9abc_def0;
        t.store_proven(k, hand(1, 1), 5, None, 1);
        // A richer hand is proven, a poorer one is not; a shorter depth does not see it.
        assert_eq!(t.probe(k, hand(2, 1), 9, 1, 1).pn, 0);
        assert_eq!(t.probe(k, hand(2, 1), 9, 1, 1).len, 5);
        assert!(!t.probe(k, hand(0, 1), 9, 1, 1).found);
        assert!(!t.probe(k, hand(2, 1), 3, 1, 1).found);
        t.store_disproven(k, hand(3, 0), 7, 1);
        assert_eq!(t.probe(k, hand(3, 0), 7, 1, 1).dn, 0);
        assert_eq!(t.probe(k, hand(1, 0), 3, 1, 1).dn, 0);
        assert!(!t.probe(k, hand(1, 0), 9, 1, 1).found);
        t.store_unknown(k, hand(0, 2), 4, 6, 1);
        let p = t.probe(k, hand(0, 2), 9, 1, 1);
        assert_eq!((p.pn, p.dn, p.found), (4, 6, true));
        // A stronger proof replaces the weaker one and the covered unknown entry.
        t.store_proven(k, hand(0, 1), 3, None, 1);
        assert_eq!(t.probe(k, hand(0, 2), 9, 1, 1).pn, 0);
        assert_eq!(t.probe(k, hand(2, 1), 9, 1, 1).len, 3);
        t.clear();
        assert!(!t.probe(k, hand(2, 1), 9, 1, 1).found);
    }

    /// Unknown entries of other hands of the same board bound a new hand's estimates: a
    /// dominating hand's proof number from below, a dominated hand's disproof number from below;
    /// results, other boards and hands that neither dominate nor are dominated give nothing.
    #[test]
    fn dominance_floors() {
        let mut t = Table::try_new(1).expect("1 MiB");
        let k = 0x2222_4444_6666_8888;
        assert_eq!(t.dominance_floors(k, hand(1, 1)), (0, 0));
        t.store_unknown(k, hand(2, 1), 7, 3, 1);
        t.store_unknown(k, hand(0, 1), 5, 9, 1);
        t.store_unknown(k, hand(3, 0), 40, 40, 1);
        assert_eq!(t.dominance_floors(k, hand(1, 1)), (7, 9));
        assert_eq!(t.dominance_floors(k, hand(2, 2)), (0, 9));
        assert_eq!(t.dominance_floors(k, hand(0, 0)), (40, 0));
        assert_eq!(t.dominance_floors(k ^ 1 << 40, hand(1, 1)), (0, 0));
        // Results are not estimates: a disproof of a richer hand, which replaces the three
        // unknown entries, gives no floor.
        t.store_disproven(k, hand(4, 2), UNLIMITED, 1);
        assert_eq!(t.dominance_floors(k, hand(1, 1)), (0, 0));
        assert_eq!(t.probe(k, hand(1, 1), 9, 1, 1).dn, 0);
    }

    /// A disproof resting on the line holds for the hands it covers, up to its depth, and only
    /// while the line down to its deepest repeated position is the one it was found on.
    #[test]
    fn line_disproofs() {
        let mut t = Table::try_new(1).expect("1 MiB");
        let k = 0x0fed_cba9_8765_4321;
        let lines = [11u64, 22, 33, 44];
        t.store_rep(k, hand(2, 0), 9, 1, 2, lines[2]);
        let r = t.probe_rep(k, hand(1, 0), 9, &lines).expect("the same line");
        assert_eq!((r.hand, r.len, r.lo, r.hi), (hand(2, 0), 9, 1, 2));
        // Another line below ply 2 keeps it; another line down to ply 2 does not.
        assert!(t.probe_rep(k, hand(2, 0), 5, &[11, 22, 33, 99, 98]).is_some());
        assert!(t.probe_rep(k, hand(2, 0), 5, &[11, 22, 34, 44]).is_none());
        assert!(t.probe_rep(k, hand(2, 0), 5, &[11, 22]).is_none());
        // A richer hand, a deeper search or another board is not covered.
        assert!(t.probe_rep(k, hand(3, 0), 9, &lines).is_none());
        assert!(t.probe_rep(k, hand(0, 1), 9, &lines).is_none());
        assert!(t.probe_rep(k, hand(2, 0), 10, &lines).is_none());
        assert!(t.probe_rep(k ^ 1 << 40, hand(2, 0), 9, &lines).is_none());
        // The ordinary entries do not see it.
        assert!(!t.probe(k, hand(1, 0), 9, 1, 1).found);
        t.clear();
        assert!(t.probe_rep(k, hand(1, 0), 9, &lines).is_none());
    }

    /// Far more entries than the table holds: it stays below its high mark, collects, keeps the
    /// results and the entries with much work, and its counts add up.
    #[test]
    fn a_full_table_collects() {
        let mut t = Table::try_new(1).expect("1 MiB");
        let cap = t.capacity();
        let mut s = 1u64;
        let mut key = || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            s
        };
        // A few results and entries with much work, stored first...
        let kept: Vec<u64> = (0..64).map(|_| key()).collect();
        for (i, &k) in kept.iter().enumerate() {
            match i % 3 {
                0 => t.store_proven(k, hand(1, 0), 7, None, 1),
                1 => t.store_disproven(k, hand(0, 1), UNLIMITED, 1),
                _ => t.store_unknown(k, hand(0, 0), 5, 5, 1 << 20),
            }
        }
        // ... then ten times the capacity of cheap unknown entries.
        for _ in 0..cap * 10 {
            t.store_unknown(key(), hand(0, 0), 2, 2, 1);
            assert!(t.used <= t.high, "{} used of {cap}", t.used);
        }
        // (Some stores replace an entry of a full cluster instead of filling a free slot.)
        assert!(t.collections() >= 5, "{} collections", t.collections());
        let used = t.clusters.iter().flat_map(|c| c.0.iter()).filter(|e| e.used).count();
        assert_eq!(used, t.used);
        assert!(t.hashfull() <= GC_HIGH_PERMILLE);
        // Some of the first entries may have lost their slot to a cluster neighbour, but a
        // collection never drops a result or a busy entry while cheap unknown ones remain.
        let probe_hand = |i: usize| if i.is_multiple_of(3) { hand(1, 1) } else { hand(0, 0) };
        let found =
            kept.iter().enumerate().filter(|&(i, &k)| t.probe(k, probe_hand(i), 9, 1, 1).found).count();
        assert!(found >= kept.len() * 9 / 10, "{found} of {} kept", kept.len());
        t.clear();
        assert_eq!((t.used, t.collections(), t.hashfull()), (0, 0, 0));
    }
}
