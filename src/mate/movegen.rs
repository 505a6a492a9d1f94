//! The moves of the two sides of a mate search, and the keys of the positions they lead to.
//!
//! - The attacker plays checks only: every legal move that gives check, including the attacker's
//!   answers to a counter-check (they must both escape and check).
//! - The defender plays every legal move (in check, that is every evasion: king moves, captures of
//!   the checker, interpositions by moves and drops).
//!
//! Both sides get *all* moves, the "unnecessary" non-promotions of pawn, bishop, rook (and lance to
//! its second rank) included. Promoting is almost always at least as good, but not always: an
//! unpromoted bishop or rook can leave the king a square so that a later pawn drop is not mate
//! (and so is legal), and for the defender an unpromoted piece can make the attacker's pawn drop
//! illegal. Leaving them out would make proofs unsound (a defence missed) or disproofs unsound (a
//! mate missed), and `NoMate` must be a proof.
//!
//! The checks come from [`super::checks`].

pub(crate) use super::checks::{checks, count_checks};
use crate::position::Position;
use crate::types::{Move, MoveKind, Piece};
use crate::zobrist;

/// Appends every legal move of the side to move to `out`.
pub(crate) fn all_legal(pos: &Position, out: &mut Vec<Move>) {
    out.extend(crate::position::MoveList::legal(pos, true).iter().copied());
}

/// The board key (board and side to move) of the position after `m`, computed from the Zobrist
/// tables without making the move.
#[inline]
pub(crate) fn board_key_after(pos: &Position, m: Move) -> u64 {
    let us = pos.side_to_move();
    let mut key = pos.board_key() ^ zobrist::SIDE;
    match m.kind() {
        MoveKind::Drop { piece, to } => key ^= zobrist::psq(Piece::new(us, piece), to),
        MoveKind::Normal { from, to, promote } => {
            let pc = pos.piece_on(from).expect("a move starts on a piece");
            let after = if promote { Piece::new(us, pc.piece_type().promote()) } else { pc };
            key ^= zobrist::psq(pc, from) ^ zobrist::psq(after, to);
            if let Some(cap) = pos.piece_on(to) {
                key ^= zobrist::psq(cap, to);
            }
        }
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::MoveList;
    use crate::splitmix::next as rand;

    /// `board_key_after` matches the key after making each legal move, along random walks.
    #[test]
    fn board_key_after_is_the_key_after_the_move() {
        let mut s = 3u64;
        let mut total = 0;
        for sfen in [
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "4k4/9/9/9/9/9/9/9/4K4 b 2R2B4G4S4N4L18P 1",
            "4+R4/l1+P2pG2/5k1p1/p2p1lp2/1ps2P1P1/PP1PP1P2/2pGBSN2/1s1G1K2s/L6R1 b 2NL3Pbgn 3",
        ] {
            for _ in 0..10 {
                let mut pos = Position::from_sfen(sfen).unwrap();
                for _ in 0..30 {
                    let legal: Vec<Move> = MoveList::legal(&pos, true).iter().copied().collect();
                    for &m in &legal {
                        let b = board_key_after(&pos, m);
                        pos.do_move(m);
                        assert_eq!(b, pos.board_key(), "{}", m.to_usi());
                        pos.undo_move(m);
                        total += 1;
                    }
                    if legal.is_empty() {
                        break;
                    }
                    pos.do_move(legal[rand(&mut s) as usize % legal.len()]);
                }
            }
        }
        assert!(total > 10_000);
    }
}
