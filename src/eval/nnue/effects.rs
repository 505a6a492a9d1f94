//! Attack counts for the halfkpe9 feature set: how many pieces of each side attack each
//! square, counted 0, 1 or "2 or more" (YaneuraOu's `board_effect`, capped at 2 by
//! `HalfKPE9`). Every piece counts, kings included; a piece does not attack its own square;
//! sliders stop at the first occupied square.
//!
//! A halfkpe9 row is `81 * 1548 * (3 e_own + e_enemy) + 1548 k + bp`: the HalfKP row of a
//! BonaPiece, in one of nine planes chosen by the counts on its square of the perspective's own
//! side (`e_own`) and of the other side (`e_enemy`). Pieces in hand (and the empty slots of a
//! handicap position) are in plane 0.
//!
//! The counts are two bitboards per side (attacked at least once, at least twice), computed from
//! the board: a move changes the counts of many squares at once (a slider's whole line opens or
//! closes), so recomputing them costs about what following each line would, with no table to
//! keep.

use super::FE_END;
use crate::attacks;
use crate::bitboard::Bitboard;
use crate::position::Position;
use crate::types::{Color, PieceType, Square};

/// Rows in one plane of counts (`81 * 1548`).
pub const PLANE: u32 = 81 * FE_END as u32;

/// Both sides' attack counts on every square, capped at 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Effects {
    /// Squares attacked at least once, by black and by white.
    one: [Bitboard; 2],
    /// Squares attacked at least twice.
    two: [Bitboard; 2],
}

impl Effects {
    /// No square attacked.
    pub const NONE: Effects = Effects { one: [Bitboard::EMPTY; 2], two: [Bitboard::EMPTY; 2] };

    /// The counts of `pos`.
    #[inline]
    pub fn of(pos: &Position) -> Effects {
        let occ = pos.occupied();
        let mut e = Effects::NONE;
        for c in Color::ALL {
            // Pawns first, as one set: each attacks the square in front of it, and no two pawns
            // of a side share that square. (A pawn on its last rank, which only a composed
            // position could hold, attacks nothing; the mask keeps it within its file.)
            let pawns = pos.pieces_cp(c, PieceType::Pawn).and_not(Bitboard::far_ranks(c, 1));
            let mut one = match c {
                Color::Black => pawns.shr_halves::<1>(),
                Color::White => pawns.shl_halves::<1>(),
            };
            let mut two = Bitboard::EMPTY;
            for sq in pos.pieces(c).and_not(pos.pieces_of(PieceType::Pawn)) {
                if let Some(pc) = pos.piece_on(sq) {
                    let a = attacks::piece(pc, sq, occ);
                    two |= one & a;
                    one |= a;
                }
            }
            e.one[c.index()] = one;
            e.two[c.index()] = two;
        }
        e
    }

    /// How many pieces of `c` attack `sq`, capped at 2.
    #[inline(always)]
    pub fn count(&self, c: Color, sq: Square) -> u32 {
        u32::from(self.one[c.index()].contains(sq)) + u32::from(self.two[c.index()].contains(sq))
    }

    /// The plane (0..9) of a piece on `sq` for `perspective`: `3 e_own + e_enemy`.
    #[inline(always)]
    pub fn plane(&self, perspective: Color, sq: Square) -> u32 {
        3 * self.count(perspective, sq) + self.count(!perspective, sq)
    }

    /// The squares where either side's capped count differs between `self` and `other`.
    #[inline(always)]
    pub fn changed(&self, other: &Effects) -> Bitboard {
        (self.one[0] ^ other.one[0])
            | (self.one[1] ^ other.one[1])
            | (self.two[0] ^ other.two[0])
            | (self.two[1] ^ other.two[1])
    }
}

/// The square of board BonaPiece `bp` (90 ..= 1547) as the board has it, for `perspective`'s
/// numbering; `None` for pieces in hand and the empty slot 0.
#[inline(always)]
pub fn square_of(perspective: Color, bp: u16) -> Option<Square> {
    if !(90..FE_END as u16).contains(&bp) {
        return None;
    }
    let oriented = usize::from(bp - 90) % 81;
    Square::from_index(match perspective {
        Color::Black => oriented,
        Color::White => 80 - oriented,
    })
}

/// BonaPiece `bp` of `perspective` with the counts of `effects`: the part of a halfkpe9 row that
/// does not depend on the king (`81 * 1548 * plane + bp`).
#[inline(always)]
pub fn with_counts(effects: &Effects, perspective: Color, bp: u16) -> u32 {
    let plane = square_of(perspective, bp).map_or(0, |sq| effects.plane(perspective, sq));
    PLANE * plane + u32::from(bp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::nnue::bona::board_piece;

    /// Counts by brute force: every piece's attacks, one square at a time.
    fn slow(pos: &Position, c: Color, sq: Square) -> u32 {
        let n = pos
            .pieces(c)
            .into_iter()
            .filter(|&from| attacks::piece(pos.piece_on(from).unwrap(), from, pos.occupied()).contains(sq))
            .count();
        n.min(2) as u32
    }

    #[test]
    fn counts_equal_brute_force() {
        for sfen in [
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
            "l4+R3/2k6/ppn6/2g2G2p/6PP1/1nS4LG/P1Nb2S1P/1BG6/L1S1K1N1L w RS7P4p 84",
            "1gk4+P1/l4g2+P/p2Pp3+S/3p1K3/spp3Ns1/4P1l1P/+n1P2P3/1N+r5L/7gr b 2BSNPgl5p 133",
            // Pawns next to the edge ranks, in every file (the halves' boundary at file 8).
            "9/PPPP1PPPP/9/4k4/9/4K4/9/pppp1pppp/9 b - 1",
            "9/pppp1pppp/9/4k4/9/4K4/9/PPPP1PPPP/9 w - 1",
        ] {
            let pos = Position::from_sfen(sfen).unwrap();
            let e = Effects::of(&pos);
            for sq in Square::ALL {
                for c in Color::ALL {
                    assert_eq!(e.count(c, sq), slow(&pos, c, sq), "{sfen}: {c:?} on {sq:?}");
                }
            }
        }
    }

    #[test]
    fn start_position_planes() {
        let pos = Position::startpos();
        let e = Effects::of(&pos);
        // 5e: nobody's; 7f: black's pawn on 7g only (the bishop on 8h is blocked by it).
        let (e5, f7) = (Square::from_usi("5e").unwrap(), Square::from_usi("7f").unwrap());
        assert_eq!([e.count(Color::Black, e5), e.count(Color::White, e5)], [0, 0]);
        assert_eq!([e.count(Color::Black, f7), e.count(Color::White, f7)], [1, 0]);
        // 7g: black's knight on 8i and bishop on 8h; white sees them as the enemy's.
        let g7 = Square::from_usi("7g").unwrap();
        assert_eq!([e.count(Color::Black, g7), e.count(Color::White, g7)], [2, 0]);
        let pawn = Piece::new(Color::Black, PieceType::Pawn);
        let bp = board_piece(Color::White, pawn, g7);
        assert_eq!(with_counts(&e, Color::White, bp), 2 * PLANE + u32::from(bp));
        assert_eq!(with_counts(&e, Color::Black, board_piece(Color::Black, pawn, g7)), 6 * PLANE + 90 + 60);
        assert_eq!(with_counts(&e, Color::Black, 5), 5, "a piece in hand is in plane 0");
        assert_eq!(with_counts(&e, Color::Black, 0), 0, "an empty slot is in plane 0");
    }

    use crate::types::{Piece, PieceType};
}
