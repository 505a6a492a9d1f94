//! The material evaluation: pieces on the board and in hand at fixed values, nothing else.
//!
//! It exists to compare searches at equal evaluation: the values are those of YaneuraOu's
//! material-only engine (MATERIAL_LEVEL 1, the Apery WCSC26 piece values), so a search that plays
//! with `EvalType = Material` sees exactly what that engine sees. A piece in hand counts as much
//! as the same piece unpromoted on the board.
//!
//! The value is kept incrementally: [`MaterialState`] follows the moves (as the evaluator's
//! `MoveObserver`) and keeps one number per ply, black's view; a capture or a promotion changes
//! it, every other move leaves it as it was.

use crate::position::{see::SEE_PIECE_VALUE, Position};
use crate::types::{Color, Move, PieceType, Value};

/// The value of each kind (by kind number; index 0 and the king are 0): SEE's board values
/// ([`SEE_PIECE_VALUE`], the same Apery table) without SEE's large king.
pub const PIECE_VALUE: [Value; PieceType::NUM] = {
    let mut v = SEE_PIECE_VALUE;
    v[PieceType::King.index()] = 0;
    v
};

/// The material balance of `pos` from black's view, computed from scratch.
pub fn material_black(pos: &Position) -> Value {
    let mut v = 0;
    for c in Color::ALL {
        let sign = if c == Color::Black { 1 } else { -1 };
        for pt in PieceType::ALL {
            v += sign * PIECE_VALUE[pt.index()] * pos.pieces_cp(c, pt).count() as Value;
        }
        let hand = pos.hand(c);
        for pt in PieceType::HAND {
            v += sign * PIECE_VALUE[pt.index()] * hand.count(pt) as Value;
        }
    }
    v
}

/// The material evaluation of `pos` for the side to move, computed from scratch.
pub fn evaluate(pos: &Position) -> Value {
    let v = material_black(pos);
    if pos.side_to_move() == Color::Black {
        v
    } else {
        -v
    }
}

/// How much `m` (legal in `before`) changes the material balance, from the mover's view: a
/// capture gains the captured piece as it stood and again as a piece in hand (unpromoted); a
/// promotion gains the difference between the promoted and the plain kind.
#[inline(always)]
fn gain(before: &Position, m: Move) -> Value {
    if m.is_drop() {
        return 0;
    }
    let mut g = 0;
    if let Some(cap) = before.piece_on(m.to()) {
        let pt = cap.piece_type();
        g += PIECE_VALUE[pt.index()] + PIECE_VALUE[pt.unpromote().index()];
    }
    if m.is_promotion() {
        if let Some(pc) = before.piece_on(m.from()) {
            let pt = pc.piece_type();
            g += PIECE_VALUE[pt.promote().index()] - PIECE_VALUE[pt.index()];
        }
    }
    g
}

/// The incrementally kept material balance: black's view, one entry per ply followed.
#[derive(Clone, Debug, Default)]
pub struct MaterialState {
    stack: Vec<Value>,
}

impl MaterialState {
    /// Starts following `pos`.
    pub fn reset(&mut self, pos: &Position) {
        self.stack.clear();
        self.stack.push(material_black(pos));
    }

    /// The evaluation for the side to move of `pos`, the position this state follows.
    #[inline(always)]
    pub fn evaluate(&self, pos: &Position) -> Value {
        let v = match self.stack.last() {
            Some(&v) => v,
            None => material_black(pos),
        };
        if pos.side_to_move() == Color::Black {
            v
        } else {
            -v
        }
    }

    #[inline(always)]
    pub fn on_do_move(&mut self, before: &Position, m: Move) {
        let base = match self.stack.last() {
            Some(&v) => v,
            None => material_black(before),
        };
        let g = gain(before, m);
        self.stack.push(if before.side_to_move() == Color::Black { base + g } else { base - g });
    }

    #[inline(always)]
    pub fn on_undo_move(&mut self) {
        self.stack.pop();
    }

    #[inline(always)]
    pub fn on_do_null_move(&mut self, before: &Position) {
        let base = match self.stack.last() {
            Some(&v) => v,
            None => material_black(before),
        };
        self.stack.push(base);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::MoveList;

    #[test]
    fn known_positions() {
        // The start position is even, for either side to move.
        assert_eq!(evaluate(&Position::startpos()), 0);
        // White's rook is in black's hand: +1980 for black to move, -1980 for white to move.
        let b = Position::from_sfen("lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b R 1").unwrap();
        assert_eq!(evaluate(&b), 1980);
        let w = Position::from_sfen("lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w R 1").unwrap();
        assert_eq!(evaluate(&w), -1980);
        // Black: king, dragon, promoted pawn, pawn and a gold in hand;
        // white: king, horse, two pawns in hand.
        let p = Position::from_sfen("4k4/9/9/9/3+R5/9/2+P1P4/9/4K2+b1 b G2p 1").unwrap();
        assert_eq!(evaluate(&p), 1395 + 540 + 90 + 540 - 945 - 2 * 90);
    }

    /// Following every legal move (and a null move) keeps the incremental value equal to a
    /// recomputation, and undoing restores it.
    #[test]
    fn incremental_matches_recomputation() {
        let sfens = [
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "ln1g3nl/1r1sgk1b1/p1ppppspp/1p6P/9/2P6/PPSPPPP1N/1B5R1/LN1GKGS1L b P 1",
        ];
        for sfen in sfens {
            let mut pos = Position::from_sfen(sfen).unwrap();
            let mut st = MaterialState::default();
            st.reset(&pos);
            let root = st.evaluate(&pos);
            for m in MoveList::legal(&pos, true).as_slice().to_vec() {
                st.on_do_move(&pos, m);
                pos.do_move(m);
                assert_eq!(st.evaluate(&pos), evaluate(&pos), "{m} in {sfen}");
                for r in MoveList::legal(&pos, false).as_slice().to_vec() {
                    st.on_do_move(&pos, r);
                    pos.do_move(r);
                    assert_eq!(st.evaluate(&pos), evaluate(&pos), "{m} {r} in {sfen}");
                    pos.undo_move(r);
                    st.on_undo_move();
                }
                pos.undo_move(m);
                st.on_undo_move();
            }
            assert_eq!(st.evaluate(&pos), root);
            if !pos.in_check() {
                st.on_do_null_move(&pos);
                pos.do_null_move();
                assert_eq!(st.evaluate(&pos), -root);
                pos.undo_null_move();
                st.on_undo_move();
            }
            assert_eq!(st.evaluate(&pos), root);
        }
    }
}
