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
//! Checks come from the legal-move generator through a [`MoveSink`] that keeps only the
//! destinations that check: the check squares of the piece as it lands (promoted or not), and any
//! square off the line to the enemy king for a piece that uncovers one of our sliders.

use crate::attacks;
use crate::bitboard::Bitboard;
use crate::position::{generate_legal, MoveSink, MoveTarget, Position};
use crate::types::{Color, Move, MoveKind, Piece, PieceType, Square};
use crate::zobrist;

/// Whether a piece of kind `pt` arriving on `to` must promote.
#[inline(always)]
fn must_promote(us: Color, pt: PieceType, to: Square) -> bool {
    match pt {
        PieceType::Pawn | PieceType::Lance => to.relative_rank(us) == 0,
        PieceType::Knight => to.relative_rank(us) <= 1,
        _ => false,
    }
}

/// Keeps the checking moves of the destination sets it is handed.
struct CheckSink<'a> {
    out: &'a mut Vec<Move>,
    /// Enemy king.
    ksq: Square,
    /// Check squares by kind (index `PieceType::index`).
    check_squares: [Bitboard; PieceType::NUM],
    /// Our pieces that alone block one of our sliders from the enemy king.
    discoverers: Bitboard,
}

impl CheckSink<'_> {
    /// Destinations among `to` that check by discovery when moving from `from`.
    #[inline(always)]
    fn discovered(&self, from: Square, to: Bitboard) -> Bitboard {
        if self.discoverers.contains(from) {
            to.and_not(attacks::line(from, self.ksq))
        } else {
            Bitboard::EMPTY
        }
    }
}

impl MoveSink for CheckSink<'_> {
    #[inline]
    fn piece_moves(&mut self, us: Color, pt: PieceType, from: Square, to: Bitboard, which: MoveTarget) {
        debug_assert_eq!(which, MoveTarget::Both);
        let discovered = self.discovered(from, to);
        if !pt.can_promote() {
            for t in to & (self.check_squares[pt.index()] | discovered) {
                self.out.push(Move::normal(from, t, false));
            }
            return;
        }
        let zone = Bitboard::promotion_zone(us);
        let promotable = if zone.contains(from) { to } else { to & zone };
        for t in promotable & (self.check_squares[pt.promote().index()] | discovered) {
            self.out.push(Move::normal(from, t, true));
        }
        for t in to & (self.check_squares[pt.index()] | discovered) {
            if !must_promote(us, pt, t) {
                self.out.push(Move::normal(from, t, false));
            }
        }
    }

    #[inline]
    fn pawn_pushes(&mut self, us: Color, to: Bitboard, which: MoveTarget) {
        debug_assert_eq!(which, MoveTarget::Both);
        let plain = self.check_squares[PieceType::Pawn.index()];
        let promoted = self.check_squares[PieceType::ProPawn.index()];
        for t in to {
            let from = match us {
                Color::Black => t.offset(0, 1),
                Color::White => t.offset(0, -1),
            }
            .expect("a pawn push comes from the square behind");
            let discovered = self.discovered(from, Bitboard::from_square(t)).is_nonempty();
            if t.in_promotion_zone(us) && (discovered || promoted.contains(t)) {
                self.out.push(Move::normal(from, t, true));
            }
            if !must_promote(us, PieceType::Pawn, t) && (discovered || plain.contains(t)) {
                self.out.push(Move::normal(from, t, false));
            }
        }
    }

    #[inline]
    fn drops(&mut self, kinds: &[PieceType], to: Bitboard) {
        for &pt in kinds {
            for t in to & self.check_squares[pt.index()] {
                self.out.push(Move::drop(pt, t));
            }
        }
    }
}

/// Appends every legal checking move of the side to move to `out` (nothing without an enemy king).
pub(crate) fn checks(pos: &Position, out: &mut Vec<Move>) {
    let us = pos.side_to_move();
    let Some(ksq) = pos.king_square(!us) else {
        return;
    };
    let mut check_squares = [Bitboard::EMPTY; PieceType::NUM];
    for pt in PieceType::ALL {
        if pt != PieceType::King {
            check_squares[pt.index()] = pos.check_squares(pt);
        }
    }
    let mut sink =
        CheckSink { out, ksq, check_squares, discoverers: pos.blockers_for_king(!us) & pos.pieces(us) };
    generate_legal(pos, &mut sink);
}

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

    const POSITIONS: &[&str] = &[
        "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
        "4k4/9/9/9/9/9/9/9/4K4 b 2R2B4G4S4N4L18P 1",
        "+R+N+SGKG+S+N+R/+B+N+SG+LG+S+N+B/P+LPP+LPP+LP/1P2P2P1/9/9/9/9/4k4 b 9P 200",
        "k1+P4n1/2L+P2sL1/r4+P+P1P/+BpP+Pl1+Rg1/NP1S+PP+p1g/2L+p1g+P1+P/Ps1G1+P1N1/1sN1P4/B8 b - 1",
        "4+R4/l1+P2pG2/5k1p1/p2p1lp2/1ps2P1P1/PP1PP1P2/2pGBSN2/1s1G1K2s/L6R1 b 2NL3Pbgn 3",
    ];

    /// The check generator yields exactly the legal moves that give check, and `board_key_after`
    /// matches the key after making each move.
    #[test]
    fn checks_are_the_checking_legal_moves() {
        let mut s = 3u64;
        let mut total = 0;
        for sfen in POSITIONS {
            for _ in 0..20 {
                let mut pos = Position::from_sfen(sfen).unwrap();
                for _ in 0..30 {
                    let legal: Vec<Move> = MoveList::legal(&pos, true).iter().copied().collect();
                    let mut expected: Vec<Move> =
                        legal.iter().copied().filter(|&m| pos.gives_check(m)).collect();
                    let mut got = Vec::new();
                    checks(&pos, &mut got);
                    expected.sort_by_key(|m| m.bits());
                    got.sort_by_key(|m| m.bits());
                    assert_eq!(got, expected, "{}", pos.to_sfen());
                    total += got.len();
                    for &m in &legal {
                        let b = board_key_after(&pos, m);
                        pos.do_move(m);
                        assert_eq!(b, pos.board_key());
                        pos.undo_move(m);
                    }
                    if legal.is_empty() {
                        break;
                    }
                    pos.do_move(legal[rand(&mut s) as usize % legal.len()]);
                }
            }
        }
        assert!(total > 1000);
    }
}
