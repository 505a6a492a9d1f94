//! Static exchange evaluation: does a move win at least `threshold` once every capture sequence on
//! its destination is played out, each side taking with its least valuable piece and free to stop?
//! Follows Stockfish's `see_ge`: x-ray sliders join as pieces in front of them leave, and pinned
//! pieces may not take part while their pinner stands.
//!
//! A capture is worth the captured piece on the board *plus* the same piece in the captor's hand
//! (the shogi exchange value); promotions are ignored, as in YaneuraOu's `see_ge`.

use super::Position;
use crate::attacks;
use crate::bitboard::Bitboard;
use crate::types::{Color, Move, PieceType};

/// Board value of each kind (indexed by `PieceType` number), the scale SEE thresholds use.
pub const SEE_PIECE_VALUE: [i32; PieceType::NUM] = [
    0,     // (unused)
    90,    // pawn
    315,   // lance
    405,   // knight
    495,   // silver
    855,   // bishop
    990,   // rook
    540,   // gold
    15000, // king
    540,   // promoted pawn
    540,   // promoted lance
    540,   // promoted knight
    540,   // promoted silver
    945,   // horse
    1395,  // dragon
];

/// What capturing a piece of kind `pt` gains: its board value plus its unpromoted value in hand.
#[inline(always)]
pub fn capture_value(pt: PieceType) -> i32 {
    SEE_PIECE_VALUE[pt.index()] + SEE_PIECE_VALUE[pt.unpromote().index()]
}

/// The order in which attackers are tried: least valuable first.
const ORDER: [PieceType; 14] = [
    PieceType::Pawn,
    PieceType::Lance,
    PieceType::Knight,
    PieceType::Silver,
    PieceType::ProPawn,
    PieceType::ProLance,
    PieceType::ProKnight,
    PieceType::ProSilver,
    PieceType::Gold,
    PieceType::Bishop,
    PieceType::Horse,
    PieceType::Rook,
    PieceType::Dragon,
    PieceType::King,
];

impl Position {
    /// Whether the static exchange on `m`'s destination gains at least `threshold`.
    pub fn see_ge(&self, m: Move, threshold: i32) -> bool {
        let to = m.to();
        let us = self.side_to_move();
        let (mut occupied, moved) = if m.is_drop() {
            (self.occupied() | Bitboard::from_square(to), m.dropped_piece())
        } else {
            let from = m.from();
            let Some(pc) = self.piece_on(from) else {
                return false;
            };
            (self.occupied() ^ Bitboard::from_square(from) | Bitboard::from_square(to), pc.piece_type())
        };
        let captured = if m.is_drop() { None } else { self.piece_on(to) };
        let mut swap = captured.map_or(0, |c| capture_value(c.piece_type())) - threshold;
        if swap < 0 {
            return false;
        }
        // If the opponent takes back at once, we lose the moved piece (and they gain it in hand).
        swap = capture_value(moved) - swap;
        if swap <= 0 {
            return true;
        }

        let mut stm = us;
        let mut attackers = self.attackers_to_both(to, occupied);
        let mut res = true;
        loop {
            stm = !stm;
            attackers &= occupied;
            let mut stm_attackers = attackers & self.pieces(stm);
            if stm_attackers.is_empty() {
                break;
            }
            // Pinned pieces may not capture while their pinner is still on the board.
            if (self.pinners(!stm) & occupied).is_nonempty() {
                stm_attackers = stm_attackers.and_not(self.blockers_for_king(stm));
            }
            if stm_attackers.is_empty() {
                break;
            }
            res = !res;

            let (pt, bb) = ORDER
                .iter()
                .map(|&pt| (pt, stm_attackers & self.pieces_of(pt)))
                .find(|(_, bb)| bb.is_nonempty())
                .expect("some attacker exists");
            if pt == PieceType::King {
                // The king may capture only if the other side has no attacker left.
                return if (attackers.and_not(self.pieces(stm))).is_nonempty() { !res } else { res };
            }
            swap = capture_value(pt) - swap;
            if swap < i32::from(res) {
                break;
            }
            let sq = bb.lsb().expect("non-empty");
            occupied.clear(sq);
            attackers |= self.slider_attackers_to(to, occupied);
        }
        res
    }

    /// Sliders of both colours attacking `sq` through `occ` (for x-rays in SEE).
    fn slider_attackers_to(&self, sq: crate::types::Square, occ: Bitboard) -> Bitboard {
        let diag = self.bishop_sliders(Color::Black) | self.bishop_sliders(Color::White);
        let ortho = self.rook_sliders(Color::Black) | self.rook_sliders(Color::White);
        let lances = self.pieces_of(PieceType::Lance);
        (attacks::bishop(sq, occ) & diag)
            | (attacks::rook(sq, occ) & ortho)
            | (attacks::lance(Color::White, sq, occ) & lances & self.pieces(Color::Black))
            | (attacks::lance(Color::Black, sq, occ) & lances & self.pieces(Color::White))
    }
}
