//! Correction history: how far the static evaluation has been from the search's results in
//! positions that share a feature, learned during the search and added to the static evaluation
//! before it is used for pruning.
//!
//! Features (each a hash of part of the board, indexing a table per side to move; see
//! [`StructureKeys`]): the pawns; the minor pieces (lance, knight, silver, gold and the promoted
//! minors) of both colours; each colour's pieces other than pawns; and, as a continuation table,
//! the last move after the moves two and four plies before it. Each entry stays within ±`LIMIT`; the weighted sum is scaled
//! down to evaluation units by [`CorrectionHistory::correct`].

use super::history::{zeroed, Table, PIECE_TO};
use super::params;
use crate::position::StructureKeys;
use crate::types::{Color, Value, VALUE_MATED_IN_MAX_PLY, VALUE_MATE_IN_MAX_PLY};

/// Entries per structure table and side to move (a power of two).
const SIZE: usize = 16384;
/// Bound of every entry.
pub const LIMIT: i32 = 1024;

pub struct CorrectionHistory {
    pawn: Table,
    minor: Table,
    non_pawn: [Table; 2],
    /// By the (piece, destination) of a move two or four plies back and of the last move.
    continuation: Table,
}

#[inline(always)]
fn slot(key: u64, us: Color) -> usize {
    (key as usize & (SIZE - 1)) * 2 + us.index()
}

#[inline(always)]
fn update(entry: &mut i16, bonus: i32) {
    super::history::gravity(entry, bonus, LIMIT);
}

impl CorrectionHistory {
    pub fn try_new() -> Option<CorrectionHistory> {
        Some(CorrectionHistory {
            pawn: zeroed(SIZE * 2)?,
            minor: zeroed(SIZE * 2)?,
            non_pawn: [zeroed(SIZE * 2)?, zeroed(SIZE * 2)?],
            continuation: zeroed(PIECE_TO * PIECE_TO)?,
        })
    }

    pub fn clear(&mut self) {
        self.pawn.fill(0);
        self.minor.fill(0);
        self.non_pawn[0].fill(0);
        self.non_pawn[1].fill(0);
        self.continuation.fill(0);
    }

    /// The correction for the side to move `us` (in 1/131072 of an evaluation unit), from the
    /// structure keys and the continuation keys `(two plies back, four plies back, last move)`.
    #[inline]
    pub fn value(
        &self,
        keys: &StructureKeys,
        us: Color,
        cont: (Option<usize>, Option<usize>, Option<usize>),
    ) -> i32 {
        let p = self.pawn[slot(keys.pawn, us)] as i32;
        let mi = self.minor[slot(keys.minor, us)] as i32;
        let np = self.non_pawn[0][slot(keys.non_pawn[0], us)] as i32
            + self.non_pawn[1][slot(keys.non_pawn[1], us)] as i32;
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

    /// Learns from a search result `bonus` (already scaled and clamped by the caller).
    pub fn update(
        &mut self,
        keys: &StructureKeys,
        us: Color,
        cont: (Option<usize>, Option<usize>, Option<usize>),
        bonus: i32,
    ) {
        update(&mut self.pawn[slot(keys.pawn, us)], bonus);
        update(&mut self.minor[slot(keys.minor, us)], bonus * params::CorrMinorUpdate() / 128);
        update(&mut self.non_pawn[0][slot(keys.non_pawn[0], us)], bonus * params::CorrNonPawnUpdate() / 128);
        update(&mut self.non_pawn[1][slot(keys.non_pawn[1], us)], bonus * params::CorrNonPawnUpdate() / 128);
        if let (two, four, Some(last)) = cont {
            if let Some(k) = two {
                update(&mut self.continuation[k * PIECE_TO + last], bonus * params::CorrCont2Update() / 128);
            }
            if let Some(k) = four {
                update(&mut self.continuation[k * PIECE_TO + last], bonus * params::CorrCont4Update() / 128);
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
        assert_eq!(
            ch.value(&keys, Color::Black, (None, None, None)),
            params::CorrContWeight() * params::CorrContNone()
        );
        for _ in 0..100 {
            ch.update(&keys, Color::Black, (Some(3), Some(4), Some(5)), 256);
        }
        let v = ch.value(&keys, Color::Black, (Some(3), Some(4), Some(5)));
        assert!(v > 0);
        let most = (params::CorrPawnWeight()
            + params::CorrMinorWeight()
            + 2 * params::CorrNonPawnWeight()
            + 2 * params::CorrContWeight())
            * LIMIT;
        assert!(v <= most);
        assert_eq!(
            ch.value(&keys, Color::White, (None, None, None)),
            params::CorrContWeight() * params::CorrContNone()
        );
        assert!(CorrectionHistory::correct(100, v) > 100);
        // Different structures hash apart.
        let mut other = pos.clone();
        other.do_move(crate::types::Move::from_usi("7g7f").unwrap());
        let k2 = *other.structure_keys();
        assert_ne!(keys.pawn, k2.pawn);
        assert_eq!(keys.minor, k2.minor);
        ch.clear();
        assert_eq!(ch.value(&keys, Color::Black, (Some(3), Some(4), Some(5))), 0);
    }
}
