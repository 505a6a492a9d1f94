//! Correction history: how far the static evaluation has been from the search's results in
//! positions that share a feature, learned during the search and added to the static evaluation
//! before it is used for pruning.
//!
//! Features (each a hash of part of the board, indexing a table per side to move): the pawns;
//! the minor pieces (lance, knight, silver, gold and the promoted minors) of both colours; each
//! colour's pieces other than pawns; and, as a continuation table, the last move after the moves
//! two and four plies before it. Each entry stays within ±`LIMIT`; the weighted sum is scaled
//! down to evaluation units by [`CorrectionHistory::correct`].

use super::history::{mix, pawn_key, zeroed, Table, PIECE_TO};
use super::params;
use crate::position::Position;
use crate::types::{Color, PieceType, Value, VALUE_MATED_IN_MAX_PLY, VALUE_MATE_IN_MAX_PLY};

/// Entries per structure table and side to move (a power of two).
const SIZE: usize = 16384;
/// Bound of every entry.
pub const LIMIT: i32 = 1024;

/// The structure hashes one position is corrected by.
#[derive(Clone, Copy, Debug, Default)]
pub struct CorrectionKeys {
    pawn: u64,
    minor: u64,
    non_pawn: [u64; 2],
}

impl CorrectionKeys {
    pub fn of(pos: &Position) -> CorrectionKeys {
        let minors = |c: Color| {
            pos.pieces_cp(c, PieceType::Lance)
                | pos.pieces_cp(c, PieceType::Knight)
                | pos.pieces_cp(c, PieceType::Silver)
                | pos.golds(c)
        };
        let minor = mix(mix(0x2545_F491_4F6C_DD1D, minors(Color::Black)), minors(Color::White));
        let non_pawn = |c: Color| {
            let pieces = pos.pieces(c).and_not(pos.pieces_cp(c, PieceType::Pawn));
            let mut h = mix(0x9E6C_63D0_676A_9A99 ^ c.index() as u64, pieces);
            h = mix(h, pos.golds(c));
            h = mix(h, pos.bishop_sliders(c));
            h = mix(h, pos.rook_sliders(c));
            h = mix(h, pos.pieces_cp(c, PieceType::Silver) | pos.pieces_cp(c, PieceType::Knight));
            mix(h, pos.pieces_cp(c, PieceType::Knight) | pos.pieces_cp(c, PieceType::Lance))
        };
        CorrectionKeys {
            pawn: pawn_key(pos),
            minor,
            non_pawn: [non_pawn(Color::Black), non_pawn(Color::White)],
        }
    }

    /// The pawn structure hash (shared with the pawn history).
    pub fn pawn(&self) -> u64 {
        self.pawn
    }
}

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
        keys: &CorrectionKeys,
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
        keys: &CorrectionKeys,
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
    use crate::position::STARTPOS;

    #[test]
    fn corrections_learn_and_stay_bounded() {
        let pos = Position::from_sfen(STARTPOS).unwrap();
        let keys = CorrectionKeys::of(&pos);
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
        let k2 = CorrectionKeys::of(&other);
        assert_ne!(keys.pawn, k2.pawn);
        assert_eq!(keys.minor, k2.minor);
        ch.clear();
        assert_eq!(ch.value(&keys, Color::Black, (Some(3), Some(4), Some(5))), 0);
    }
}
