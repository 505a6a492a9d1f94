//! Correction history: how far the static evaluation has been from the search's results in
//! positions that share a feature, learned during the search and added to the static evaluation
//! before it is used for pruning.
//!
//! Features (each a hash of part of the board, indexing a table per side to move; see
//! [`StructureKeys`]): the pawns; the minor pieces (lance, knight, silver, gold and the promoted
//! minors) of both colours; each colour's pieces other than pawns; and, as a continuation table,
//! the last move after the moves two and four plies before it. Each entry stays within ±`LIMIT`; the weighted sum is scaled
//! down to evaluation units by [`CorrectionHistory::correct`].
//!
//! The structure tables ([`StructureCorrection`]) are shared by all the search threads, which
//! learn them together; each thread keeps its own continuation table ([`CorrectionHistory`]).

use super::history::{gravity, gravity_shared, shared_scale, zeroed, SharedTable, Table, PIECE_TO};
use super::params;
use crate::position::StructureKeys;
use crate::types::{Color, Value, VALUE_MATED_IN_MAX_PLY, VALUE_MATE_IN_MAX_PLY};
use std::sync::atomic::{AtomicI16, Ordering};

/// Entries per structure table and side to move, for each search thread (a power of two).
const SIZE: usize = 16384;
/// Bound of every entry.
pub const LIMIT: i32 = 1024;

/// A thread's own correction history: the continuation table.
pub struct CorrectionHistory {
    /// By the (piece, destination) of a move two or four plies back and of the last move.
    continuation: Table,
}

/// The structure tables of the correction history, shared by the search threads: `SIZE`
/// entries per side to move and thread (rounded up to a power of two threads), so that each
/// thread has as many as a lone one.
pub struct StructureCorrection {
    pawn: SharedTable,
    minor: SharedTable,
    non_pawn: [SharedTable; 2],
    /// The number of entries per side to move less one (a mask of the hash).
    mask: usize,
}

impl StructureCorrection {
    /// The bytes of the tables for each thread sharing them (256 KB).
    pub const SHARED_BYTES_PER_THREAD: usize = 4 * 2 * SIZE * 2;

    /// The tables of `threads` threads, all zero, or `None` when the allocator refuses the
    /// memory (256 KB a thread).
    pub fn try_new(threads: usize) -> Option<StructureCorrection> {
        let size = SIZE.checked_mul(shared_scale(threads)?)?;
        let len = size.checked_mul(2)?;
        Some(StructureCorrection {
            pawn: SharedTable::try_zeroed(len)?,
            minor: SharedTable::try_zeroed(len)?,
            non_pawn: [SharedTable::try_zeroed(len)?, SharedTable::try_zeroed(len)?],
            mask: size - 1,
        })
    }

    /// Entries per side to move in each table.
    pub fn size(&self) -> usize {
        self.mask + 1
    }

    /// Forgets everything (a new game; no search may be running).
    pub fn clear(&self) {
        for t in [&self.pawn, &self.minor, &self.non_pawn[0], &self.non_pawn[1]] {
            for e in t.iter() {
                e.store(0, Ordering::Relaxed);
            }
        }
    }

    /// The entries of the structures `keys` for the side to move `us`: pawn, minor pieces, and
    /// black's and white's other pieces.
    #[inline(always)]
    fn entries(&self, keys: &StructureKeys, us: Color) -> [&AtomicI16; 4] {
        let slot = |key: u64| (key as usize & self.mask) * 2 + us.index();
        [
            &self.pawn[slot(keys.pawn)],
            &self.minor[slot(keys.minor)],
            &self.non_pawn[0][slot(keys.non_pawn[0])],
            &self.non_pawn[1][slot(keys.non_pawn[1])],
        ]
    }
}

impl CorrectionHistory {
    /// The bytes of one thread's table (13 MB; its pages rounded up).
    pub const BYTES: usize = 2 * PIECE_TO * PIECE_TO + crate::sys::large_pages::LARGE_PAGE;

    pub fn try_new() -> Option<CorrectionHistory> {
        Some(CorrectionHistory { continuation: zeroed(PIECE_TO * PIECE_TO)? })
    }

    pub fn clear(&mut self) {
        self.continuation.fill(0);
    }

    /// The correction for the side to move `us` (in 1/131072 of an evaluation unit), from the
    /// structure keys (in the shared tables `shared`) and the continuation keys `(two plies
    /// back, four plies back, last move)`.
    #[inline]
    pub fn value(
        &self,
        shared: &StructureCorrection,
        keys: &StructureKeys,
        us: Color,
        cont: (Option<usize>, Option<usize>, Option<usize>),
    ) -> i32 {
        let [p, mi, np0, np1] = shared.entries(keys, us).map(|e| e.load(Ordering::Relaxed) as i32);
        let np = np0 + np1;
        let c = match cont {
            (two, four, Some(last)) => {
                two.map_or(0, |k| self.continuation[k * PIECE_TO + last] as i32)
                    + four.map_or(0, |k| self.continuation[k * PIECE_TO + last] as i32)
            }
            _ => params::CorrContNone(),
        };
        params::CorrPawnWeight() * p
            + params::CorrMinorWeight() * mi
            + params::CorrNonPawnWeight() * np
            + params::CorrContWeight() * c
    }

    /// Learns from a search result `bonus` (already scaled and clamped by the caller); the
    /// structure entries in the shared tables `shared`.
    pub fn update(
        &mut self,
        shared: &StructureCorrection,
        keys: &StructureKeys,
        us: Color,
        cont: (Option<usize>, Option<usize>, Option<usize>),
        bonus: i32,
    ) {
        let minor = bonus * params::CorrMinorUpdate() / 128;
        let non_pawn = bonus * params::CorrNonPawnUpdate() / 128;
        let [p, mi, np0, np1] = shared.entries(keys, us);
        gravity_shared(p, bonus, LIMIT);
        gravity_shared(mi, minor, LIMIT);
        gravity_shared(np0, non_pawn, LIMIT);
        gravity_shared(np1, non_pawn, LIMIT);
        if let (two, four, Some(last)) = cont {
            if let Some(k) = two {
                let b = bonus * params::CorrCont2Update() / 128;
                gravity(&mut self.continuation[k * PIECE_TO + last], b, LIMIT);
            }
            if let Some(k) = four {
                let b = bonus * params::CorrCont4Update() / 128;
                gravity(&mut self.continuation[k * PIECE_TO + last], b, LIMIT);
            }
        }
    }

    /// The static evaluation `v` corrected by `correction` (from [`CorrectionHistory::value`]),
    /// kept clear of the mate range.
    #[inline(always)]
    pub fn correct(v: Value, correction: i32) -> Value {
        (v + correction / 131072).clamp(VALUE_MATED_IN_MAX_PLY + 1, VALUE_MATE_IN_MAX_PLY - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::{Position, STARTPOS};

    #[test]
    fn corrections_learn_and_stay_bounded() {
        let pos = Position::from_sfen(STARTPOS).unwrap();
        let keys = *pos.structure_keys();
        let mut ch = CorrectionHistory::try_new().unwrap();
        let sh = StructureCorrection::try_new(1).unwrap();
        assert_eq!(sh.size(), SIZE);
        assert_eq!(StructureCorrection::try_new(3).unwrap().size(), 4 * SIZE);
        assert_eq!(
            ch.value(&sh, &keys, Color::Black, (None, None, None)),
            params::CorrContWeight() * params::CorrContNone()
        );
        for _ in 0..100 {
            ch.update(&sh, &keys, Color::Black, (Some(3), Some(4), Some(5)), 256);
        }
        let v = ch.value(&sh, &keys, Color::Black, (Some(3), Some(4), Some(5)));
        assert!(v > 0);
        let most = (params::CorrPawnWeight()
            + params::CorrMinorWeight()
            + 2 * params::CorrNonPawnWeight()
            + 2 * params::CorrContWeight())
            * LIMIT;
        assert!(v <= most);
        assert_eq!(
            ch.value(&sh, &keys, Color::White, (None, None, None)),
            params::CorrContWeight() * params::CorrContNone()
        );
        assert!(CorrectionHistory::correct(100, v) > 100);
        // Different structures hash apart.
        let mut other = pos.clone();
        other.do_move(crate::types::Move::from_usi("7g7f").unwrap());
        let k2 = *other.structure_keys();
        assert_ne!(keys.pawn, k2.pawn);
        assert_eq!(keys.minor, k2.minor);
        // Another thread's history reads the shared structure tables, not the continuation.
        let other_thread = CorrectionHistory::try_new().unwrap();
        let structure = other_thread.value(&sh, &keys, Color::Black, (None, None, None))
            - params::CorrContWeight() * params::CorrContNone();
        assert!(structure > 0 && structure < v);
        ch.clear();
        assert_eq!(ch.value(&sh, &keys, Color::Black, (Some(3), Some(4), Some(5))), structure);
        sh.clear();
        assert_eq!(ch.value(&sh, &keys, Color::Black, (Some(3), Some(4), Some(5))), 0);
    }
}
