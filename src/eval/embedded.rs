//! The embedded evaluation: needs no file. Material (board and hand values), piece-square terms
//! and basic king safety, from the side to move's point of view.

use crate::attacks;
use crate::bitboard::Bitboard;
use crate::position::Position;
use crate::types::{Color, PieceType, Square, Value, VALUE_EVAL_MAX};

/// Value of a piece on the board, by `PieceType` number.
pub const BOARD_VALUE: [Value; PieceType::NUM] =
    [0, 90, 315, 405, 495, 855, 990, 540, 0, 540, 540, 540, 540, 945, 1395];
/// Value of a piece in hand (worth more than on the board: it can be dropped anywhere).
pub const HAND_VALUE: [Value; 8] = [0, 100, 345, 445, 545, 940, 1090, 595];

/// Bonus per own gold or silver next to the own king.
const KING_GUARD: Value = 30;
/// Penalty per enemy piece (pawns excluded) within two squares of the own king.
const KING_PRESSURE: Value = 25;
/// Bonus for each rank an unpromoted pawn has advanced (towards promotion).
const PAWN_ADVANCE: Value = 3;
/// Bonus for the king on the own back two ranks.
const KING_HOME: Value = 20;

const fn build_zone() -> [Bitboard; 81] {
    let mut t = [Bitboard::from_halves(0, 0); 81];
    let mut sq = 0;
    while sq < 81 {
        let (f, r) = ((sq / 9) as i32, (sq % 9) as i32);
        let (mut lo, mut hi) = (0u64, 0u64);
        let mut df = -2;
        while df <= 2 {
            let mut dr = -2;
            while dr <= 2 {
                let (nf, nr) = (f + df, r + dr);
                if nf >= 0 && nf < 9 && nr >= 0 && nr < 9 && !(df == 0 && dr == 0) {
                    let i = (nf * 9 + nr) as usize;
                    if i < 63 {
                        lo |= 1 << i;
                    } else {
                        hi |= 1 << (i - 63);
                    }
                }
                dr += 1;
            }
            df += 1;
        }
        t[sq] = Bitboard::from_halves(lo, hi);
        sq += 1;
    }
    t
}

/// The squares within two files and ranks of each square (the square itself excluded).
static ZONE: [Bitboard; 81] = build_zone();

fn side_score(pos: &Position, c: Color) -> Value {
    let mut v = 0;
    for sq in pos.pieces(c) {
        let pt = pos.piece_on(sq).expect("occupied").piece_type();
        v += BOARD_VALUE[pt.index()];
        if pt == PieceType::Pawn {
            v += PAWN_ADVANCE * (8 - sq.relative_rank(c) as Value);
        }
    }
    let hand = pos.hand(c);
    for pt in PieceType::HAND {
        v += HAND_VALUE[pt.index()] * hand.count(pt) as Value;
    }
    if let Some(k) = pos.king_square(c) {
        v += king_safety(pos, c, k);
    }
    v
}

fn king_safety(pos: &Position, c: Color, k: Square) -> Value {
    let guards = (pos.golds(c) | pos.pieces_cp(c, PieceType::Silver)) & attacks::king(k);
    let enemies = pos.pieces(!c).and_not(pos.pieces_of(PieceType::Pawn)) & ZONE[k.index()];
    let home = if k.relative_rank(c) >= 7 { KING_HOME } else { 0 };
    KING_GUARD * guards.count() as Value - KING_PRESSURE * enemies.count() as Value + home
}

/// The static evaluation for the side to move.
pub fn evaluate(pos: &Position) -> Value {
    let us = pos.side_to_move();
    let v = side_score(pos, us) - side_score(pos, !us);
    v.clamp(-VALUE_EVAL_MAX, VALUE_EVAL_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetric_and_material_aware() {
        let start = Position::startpos();
        assert_eq!(evaluate(&start), 0);
        let flipped =
            Position::from_sfen("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1").unwrap();
        assert_eq!(evaluate(&flipped), 0);
        // Black is a rook up.
        let up =
            Position::from_sfen("lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b R 1").unwrap();
        assert!(evaluate(&up) > 900);
        let up_w =
            Position::from_sfen("lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w R 1").unwrap();
        assert_eq!(evaluate(&up_w), -evaluate(&up));
    }
}
