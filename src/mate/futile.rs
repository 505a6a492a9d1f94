//! Futile interpositions: tsume shogi's convention that a drop between a distant checking piece
//! and the king that the checker simply takes, after which the king is mated just the same, does
//! not count (無駄合). Without it, a check along a line is answered by every drop on every square
//! between, each adding two plies that any composer, solver or reader leaves out.
//!
//! Which interpositions are futile is a matter of long dispute among composers; this module
//! decides the case every convention agrees on, where the interpositions are all the defender
//! has left: the defender to move is **mated by convention** ([`mated`]) when it is mated, or
//! when it is in check from one piece along a line, has no legal move but drops, and for every
//! square between, the position with the checking piece moved there (the drop taken, the piece
//! not used) is mated by convention in turn. The squares nearest the king end the regress, as the
//! checker there has no square left between. All squares between count, whether the defender
//! holds a piece to drop there or not, so the verdict depends on the board alone: not on either
//! hand, as the captured pieces are left out of it by definition.
//!
//! An interposition met otherwise, or one the defender makes with other moves still open to it,
//! counts as any other move.

use crate::attacks;
use crate::position::{MoveList, Position};
use crate::types::{Move, PieceType};

/// Whether the side to move is mated by convention (see the module docs): in check, with no
/// legal move but drops, and every square between the checker and the king (if it checks alone
/// from a distance) futile, whether the defender could drop there or not; so the verdict holds
/// for any hands. An ordinary mate whose check could be blocked by a piece the defender lacks is
/// not one (the caller knows it by its empty move list). `pos` is left as it was.
pub(crate) fn mated(pos: &mut Position) -> bool {
    let replies = MoveList::legal(pos, true);
    mated_with(pos, replies.as_slice())
}

/// [`mated`], given the legal moves of the side to move.
pub(crate) fn mated_with(pos: &mut Position, replies: &[Move]) -> bool {
    let checkers = pos.checkers();
    if checkers.is_empty() || replies.iter().any(|m| !m.is_drop()) {
        return false;
    }
    if checkers.more_than_one() {
        return true;
    }
    let (Some(c), Some(k)) = (checkers.lsb(), pos.king_square(pos.side_to_move())) else {
        return false;
    };
    attacks::between(k, c).into_iter().all(|s| taken_and_mated(pos, c, s))
}

/// Whether the checker on `c`, moved to `s` (taking what was dropped there), leaves the defender
/// mated by convention: with or without promotion, where the move allows either.
fn taken_and_mated(pos: &mut Position, c: crate::types::Square, s: crate::types::Square) -> bool {
    let Some(pc) = pos.piece_on(c) else { return false };
    let attacker = pc.color();
    let pt = pc.piece_type();
    let can_promote = pt.can_promote() && (s.in_promotion_zone(attacker) || c.in_promotion_zone(attacker));
    let must_promote = pt == PieceType::Lance && s.relative_rank(attacker) == 0;
    let options: &[bool] = match (can_promote, must_promote) {
        (_, true) => &[true],
        (true, false) => &[false, true],
        (false, false) => &[false],
    };
    pos.do_pass();
    let mut mated_after = false;
    for &promote in options {
        let m = Move::normal(c, s, promote);
        if !pos.is_legal_move(m) {
            continue;
        }
        pos.do_move(m);
        mated_after = mated(pos);
        pos.undo_move(m);
        if mated_after {
            break;
        }
    }
    pos.undo_null_move();
    mated_after
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mated_sfen(sfen: &str) -> bool {
        let mut pos = Position::from_sfen(sfen).unwrap();
        let before = pos.to_sfen();
        let m = mated(&mut pos);
        assert_eq!(pos.to_sfen(), before);
        m
    }

    #[test]
    fn drops_that_are_simply_taken_do_not_count() {
        // The dragon on 5a checks the king on 1a; the silver on 3b covers 2a, 3a and 4a, the gold
        // on 1c covers 1b and 2b. Every drop on 4a, 3a or 2a is taken by the dragon, and it is
        // mate again.
        assert!(mated_sfen("4+R3k/6S2/8G/9/9/9/9/9/9 w r2b3g3s4n4l18p 1"));
        // The same with nothing to drop: mated in the ordinary sense.
        assert!(mated_sfen("4+R3k/6S2/8G/9/9/9/9/9/9 w - 1"));
        // Without the silver, the dragon taking on 2a is taken by the king: a drop on 2a counts.
        assert!(!mated_sfen("4+R3k/9/8G/9/9/9/9/9/9 w r2b3g4s4n4l18p 1"));
        // The king has a move of its own (1b is free): not mated, whatever the drops.
        assert!(!mated_sfen("4+R3k/6S2/9/9/9/9/9/9/9 w r2b4g3s4n4l18p 1"));
        // Not in check.
        assert!(!mated_sfen("4+R4/6S1k/9/9/9/9/9/9/9 w r2b4g3s4n4l18p 1"));
    }

    #[test]
    fn a_drop_next_to_the_king_counts_when_the_king_can_take_back() {
        // The lance on 1i checks the king on 1a along the file; the king's neighbours 2a and 2b
        // are its own lance and pawn, which cannot step onto the file. The lance taking a drop on
        // 1b, promoted or not, is taken by the king: that drop counts, so this is no mate.
        assert!(!mated_sfen("7lk/7p1/9/9/9/9/9/9/8L w 2r2b4g4s4n2l17p 1"));
        // A gold on 2c guards 1b: every drop is taken, and it is mate by convention.
        assert!(mated_sfen("7lk/7p1/7G1/9/9/9/9/9/8L w 2r2b3g4s4n2l17p 1"));
    }

    /// The same question asked the long way, with real moves: every legal drop is taken by the
    /// checker (promoting or not, whichever leaves it so), and then the same holds, until the
    /// defender has no legal move. This uses the hands as they are, so it can only be more
    /// lenient than `mated`, whose verdict must hold for any hands.
    fn mated_by_real_moves(pos: &mut Position) -> bool {
        if !pos.in_check() {
            return false;
        }
        let replies = MoveList::legal(pos, true);
        if replies.is_empty() {
            return true;
        }
        if replies.iter().any(|m| !m.is_drop()) || pos.checkers().more_than_one() {
            return false;
        }
        let c = pos.checkers().lsb().unwrap();
        for &d in replies.iter() {
            pos.do_move(d);
            let mut taken = false;
            for promote in [false, true] {
                let m = Move::normal(c, d.to(), promote);
                if pos.is_legal_move(m) {
                    pos.do_move(m);
                    taken = mated_by_real_moves(pos);
                    pos.undo_move(m);
                    if taken {
                        break;
                    }
                }
            }
            pos.undo_move(d);
            if !taken {
                return false;
            }
        }
        true
    }

    /// Random positions where white is checked from afar by one black slider, among a few other
    /// black pieces: whenever `mated` says mated by convention, taking every real drop in turn
    /// says so too; and the positions include such mates with drops left.
    #[test]
    fn agrees_with_taking_every_drop() {
        let mut seed = 11u64;
        let mut rand = |n: u64| crate::splitmix::next(&mut seed) % n;
        let (mut tested, mut futile_with_drops) = (0, 0);
        while tested < 20_000 {
            let mut board: Vec<Option<&str>> = vec![None; 81];
            // The king on the edge or in a corner more often than not.
            let k =
                if rand(2) == 0 { rand(81) as usize } else { rand(9) as usize * [1, 9][rand(2) as usize] };
            board[k] = Some("k");
            let slider = ["R", "+R", "B", "+B", "L"][rand(5) as usize];
            let at = rand(81) as usize;
            if board[at].is_some() {
                continue;
            }
            board[at] = Some(slider);
            // Most of them near the king, where they take its squares away.
            for _ in 0..3 + rand(6) {
                let (r, f) = ((k / 9) as i64 + rand(5) as i64 - 2, (k % 9) as i64 + rand(5) as i64 - 2);
                if !(0..9).contains(&r) || !(0..9).contains(&f) {
                    continue;
                }
                let sq = (r * 9 + f) as usize;
                if board[sq].is_none() {
                    board[sq] = Some(["G", "S", "+P", "N", "P", "p", "g"][rand(7) as usize]);
                }
            }
            let field = crate::position::board_field(|rank, column| board[rank * 9 + column]);
            let hand = ["2s2n", "p", "", "g3l", "r"][rand(5) as usize];
            let hand = if hand.is_empty() { "-".to_string() } else { hand.to_string() };
            let Ok(mut pos) = Position::from_sfen(&format!("{field} w {hand} 1")) else { continue };
            if pos.check_consistency().is_err() || !pos.in_check() || pos.checkers().more_than_one() {
                continue;
            }
            let (c, k) =
                (pos.checkers().lsb().unwrap(), pos.king_square(crate::types::Color::White).unwrap());
            if attacks::between(k, c).is_empty() {
                continue;
            }
            tested += 1;
            if mated(&mut pos) {
                assert!(mated_by_real_moves(&mut pos), "{}", pos.to_sfen());
                futile_with_drops += usize::from(!MoveList::legal(&pos, true).is_empty());
            }
        }
        assert!(futile_with_drops >= 10, "{futile_with_drops}");
    }
}
