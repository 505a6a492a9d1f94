//! Futile interpositions: tsume shogi's convention that a drop between a distant checking piece
//! and the king that the checker simply takes, after which the mate goes on just the same, does
//! not count (無駄合). Without it, a check along a line is answered by every drop on every square
//! between, each adding two plies that any composer, solver or reader leaves out.
//!
//! **An experiment (branch mate-futile-static), not adopted:** the broad rule below gives the
//! published 39 plies on `LONG_open_39` but 469 on Microcosmos (published 1525), in every variant
//! tried (docs/records/mate.md, 2026-12-07). A drop it calls futile can still change the mate.
//!
//! Which interpositions are futile is a matter of long dispute among composers. This module
//! decides it square by square, from the board alone, at a defender in check from one piece
//! along a line ([`squares`]). A drop on a square between is **not** futile when:
//! - a defender piece other than the king guards the square, and is free to take there (not
//!   pinned to its king): the checker taking there is taken in turn, so the interposition changes
//!   the mate;
//! - the square is next to the king and no other attacker piece covers it: the king takes the
//!   checker back;
//! - with the checker moved there (promoted or not, as the attacker likes best), the king has a
//!   square to step to that it does not have now: the capture pulled the checker off a square it
//!   guarded from afar, and the interposition changed the mate.
//!
//! Every other drop on a square between is futile: by convention it is not a move at all (the
//! search, the line and the audit leave it out), whatever else the defender may do. The defender
//! to move is **mated by convention** when it is in check and has no move but futile drops
//! ([`only_futile_left`]). A piece moved onto a square between (移動合) is never futile.
//!
//! A drop farther from the king than a square that is not futile (say, beyond a guarded one) is
//! futile too: the checker takes it and stands one step nearer, and the defender can block on the
//! guarded square as well then as now; the drop only hands the attacker a piece. Counting such
//! drops made `LONG_open_39` (published 39) 43 plies; leaving them out, 39 (docs/records/mate.md,
//! 2026-12-07). maou makes them cost no plies instead ("transparent"), which gives the same
//! lengths where the capture leaves the mate as it was.
//!
//! Before 2026-12-07 the convention was narrower: only a defender with no move but drops could
//! be mated by it, each drop taken and the position mated so again. Interpositions made while the
//! king had a step of its own counted, which made `LONG_open_39` 45 plies.
//!
//! The verdict is the board's alone, not the hands': the squares do not depend on what either
//! side holds, and [`mated_with`] asks in addition that every square between be futile, so that
//! it holds whatever the defender could drop (the search stores it for any hands).

use crate::attacks;
use crate::bitboard::Bitboard;
use crate::position::Position;
use crate::types::{Move, PieceType, Square};

/// The squares between the checker and the king where a drop is futile (see the module docs),
/// when the side to move is in check from one piece along a line; empty otherwise. `pos` is left
/// as it was.
pub(crate) fn squares(pos: &mut Position) -> Bitboard {
    let checkers = pos.checkers();
    if NONE || checkers.is_empty() || checkers.more_than_one() {
        return Bitboard::EMPTY;
    }
    let us = pos.side_to_move();
    let (Some(c), Some(k)) = (checkers.lsb(), pos.king_square(us)) else {
        return Bitboard::EMPTY;
    };
    let between = attacks::between(k, c);
    if between.is_empty() {
        return Bitboard::EMPTY;
    }
    let them = !us;
    let occ = pos.occupied();
    let free = king_steps(pos);
    // A pinned piece cannot take on `s`: a square between lies on no pin's line but at the king,
    // and the checker's move there neither makes nor breaks a pin (nothing stands between it and
    // the king, and no other slider's line to the king crosses `s`).
    let guards = !(Bitboard::from_square(k) | pos.pinned(us));
    let mut futile = Bitboard::EMPTY;
    for s in between {
        // Guarded by a defender piece other than the king.
        if (pos.attackers_to(us, s, occ) & guards).is_nonempty() {
            continue;
        }
        if attacks::king(k).contains(s) {
            if !ADJACENT {
                continue;
            }
            // The checker moved to `s`: the other attacker pieces that cover it there (a slider
            // behind the checker now sees through its old square).
            let moved = (occ & !Bitboard::from_square(c)) | Bitboard::from_square(s);
            let cover = pos.attackers_to(them, s, moved) & !Bitboard::from_square(c);
            if cover.is_empty() {
                continue;
            }
        }
        if escapes_after_capture(pos, c, s, free) {
            continue;
        }
        futile.set(s);
    }
    if CHAIN_COUNTS {
        let counted = between & !futile;
        for s in futile {
            if (attacks::between(k, s) & counted).is_nonempty() {
                futile.clear(s);
            }
        }
    }
    futile
}

// The variants measured on 2026-12-07 (docs/records/mate.md), as switches. The committed
// setting is the broad rule (B with pins): every one of them gives Microcosmos 469 plies, not
// 1525, so none may replace the narrow rule.
/// Whether a futile square farther from the king than a square that is not futile counts as not
/// futile either (a "chain"; variant A).
const CHAIN_COUNTS: bool = false;
/// Whether a square next to the king is not futile when the king has any square to step to after
/// the capture, not only a new one (maou's test; variant C).
const ANY_ESCAPE: bool = false;
/// Whether a square next to the king may be futile by [`squares`] at all (false: only by the
/// narrow recursive rule; variant D).
const ADJACENT: bool = true;
/// No square futile by [`squares`]: the narrow rule alone, through the new plumbing (the control).
const NONE: bool = false;
/// Leave futile drops out only where the defender's other moves are all king steps (variant E).
const KING_ONLY: bool = false;

/// Whether, with the checker on `c` moved to the empty square `s` between it and the king
/// (promoted or not: the verdict is the attacker's best), the king has a square to step to
/// outside `free`, the squares it can step to now. A move the attacker cannot make (its own king
/// in check) is no capture: then it escapes too.
fn escapes_after_capture(pos: &mut Position, c: Square, s: Square, free: Bitboard) -> bool {
    let Some(pc) = pos.piece_on(c) else { return true };
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
    let mut escapes = true;
    for &promote in options {
        let m = Move::normal(c, s, promote);
        if !pos.is_legal_move(m) {
            continue;
        }
        pos.do_move(m);
        let steps = king_steps(pos);
        let next_to_king = pos.king_square(pos.side_to_move()).is_some_and(|k| attacks::king(k).contains(s));
        escapes = (steps & !free).is_nonempty() || ANY_ESCAPE && next_to_king && steps.is_nonempty();
        pos.undo_move(m);
        if !escapes {
            break;
        }
    }
    pos.undo_null_move();
    escapes
}

/// The squares next to the king of the side to move that it can step to: not its own pieces',
/// and attacked by no enemy piece (the king's own square left empty, so that a slider's line
/// goes on through it).
fn king_steps(pos: &Position) -> Bitboard {
    let us = pos.side_to_move();
    let Some(k) = pos.king_square(us) else { return Bitboard::EMPTY };
    let occ = pos.occupied() & !Bitboard::from_square(k);
    let mut steps = attacks::king(k) & !pos.pieces(us);
    for e in steps {
        if pos.attackers_to(!us, e, occ).is_nonempty() {
            steps.clear(e);
        }
    }
    steps
}

/// Whether `m` is a drop onto one of the `futile` squares.
#[inline]
fn futile_drop(m: Move, futile: Bitboard) -> bool {
    m.is_drop() && futile.contains(m.to())
}

/// Leaves the futile drops out of `replies`, the legal moves of the side to move.
pub(crate) fn leave_out(pos: &mut Position, replies: &mut Vec<Move>) {
    if !replies.iter().any(|m| m.is_drop()) {
        return;
    }
    if KING_ONLY {
        let Some(k) = pos.king_square(pos.side_to_move()) else { return };
        if replies.iter().any(|m| !m.is_drop() && m.from() != k) {
            return;
        }
    }
    let futile = squares(pos);
    if futile.is_nonempty() {
        replies.retain(|&m| !futile_drop(m, futile));
    }
}

/// Whether the side to move, with legal moves `replies` (futile drops left out or not), is in
/// check with no move but futile drops: mated by convention in this very position.
pub(crate) fn only_futile_left(pos: &mut Position, replies: &[Move]) -> bool {
    if !pos.in_check() {
        return false;
    }
    if replies.is_empty() {
        return true;
    }
    if replies.iter().any(|m| !m.is_drop()) {
        return false;
    }
    let futile = squares(pos);
    let Some(c) = pos.checkers().lsb() else { return false };
    replies.iter().all(|&m| futile_drop(m, futile) || taken_and_mated(pos, c, m.to()))
}

/// Whether the side to move, with legal moves `replies` (futile drops left out or not), is mated
/// by convention whatever either side holds in hand: in check with no move but futile drops, and
/// every square between the checker and the king (if it checks alone from a distance) futile, so
/// that no drop the defender could hold counts. An ordinary mate whose check could be blocked by
/// a piece the defender lacks is not one (the caller knows it by its empty move list).
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
    let between = attacks::between(k, c);
    if between.is_empty() {
        return true;
    }
    let futile = squares(pos);
    (between & !futile).into_iter().all(|s| taken_and_mated(pos, c, s))
}

/// Whether the side to move is mated by convention whatever either side holds in hand (see
/// [`mated_with`]). `pos` is left as it was.
pub(crate) fn mated(pos: &mut Position) -> bool {
    let replies = crate::position::MoveList::legal(pos, true);
    mated_with(pos, replies.as_slice())
}

/// Whether the checker on `c`, moved to `s` (taking what was dropped there), leaves the defender
/// mated by convention: with or without promotion, where the move allows either.
fn taken_and_mated(pos: &mut Position, c: Square, s: Square) -> bool {
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
    use crate::position::MoveList;

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

    /// The futile squares of a position, by name.
    fn futile_squares(sfen: &str) -> Vec<String> {
        let mut pos = Position::from_sfen(sfen).unwrap();
        let before = pos.to_sfen();
        let f = squares(&mut pos);
        assert_eq!(pos.to_sfen(), before);
        let mut names: Vec<String> = f.into_iter().map(|s| s.to_string()).collect();
        names.sort();
        names
    }

    #[test]
    fn which_squares_are_futile() {
        // The dragon on 5a checks the king on 1a; the silver on 3b covers 2a, 3a and 4a, the gold
        // on 1c covers 1b and 2b: every square between is futile.
        assert_eq!(futile_squares("4+R3k/6S2/8G/9/9/9/9/9/9 w r2b3g3s4n4l18p 1"), ["2a", "3a", "4a"]);
        // A defender's gold on 4b guards 4a: the dragon taking there is taken.
        assert_eq!(futile_squares("4+R3k/5gS2/8G/9/9/9/9/9/9 w r2b2g3s4n4l18p 1"), ["2a", "3a"]);
        // Without the silver the king takes the dragon back on 2a: a drop there counts. Those on
        // 3a and 4a, beyond it, are still simply taken (the dragon then one step nearer, 2a as
        // open to a drop as before): futile.
        assert_eq!(futile_squares("4+R3k/9/8G/9/9/9/9/9/9 w r2b3g4s4n4l18p 1"), ["3a", "4a"]);
        // The dragon on 6a; the defender's gold on 3b guards 3a; the knight on 3c covers 2a, the
        // gold on 1c the king's other squares. 3a is not futile; 2a, 4a and 5a are.
        assert_eq!(futile_squares("3+R4k/6g2/6N1G/9/9/9/9/9/9 w r2b2g4s3n4l18p 1"), ["2a", "4a", "5a"]);
        // The rook on 6e checks the king on 1e along the rank; the bishop on 4g covers 1d through
        // 2e, the silver on 3c covers 2d, the gold on 1g covers 1f and 2f: the king has no
        // square. The rook taking on 2e would cut the bishop's line and free 1d: not futile. On
        // 3e, 4e and 5e it would not: futile.
        assert_eq!(futile_squares("9/9/6S2/9/3R4k/9/5B2G/9/9 w rb3g3s4n4l18p 1"), ["3e", "4e", "5e"]);
        // The dragon on 3b checks the king on 1b; the defender's gold on 2c guards 2b but is
        // pinned by the bishop on 8i: 2b is futile (antma's futile_drops_3, a mate in 1). Without
        // the bishop the gold takes back: not futile.
        assert_eq!(futile_squares("6Snl/6+R1k/6pgs/9/9/9/9/9/1B6L w Grb2g2s3n2l17p 2"), ["2b"]);
        assert!(futile_squares("6Snl/6+R1k/6pgs/9/9/9/9/9/8L w Gr2b2g2s3n2l17p 2").is_empty());
        // A knight's check: no squares between.
        assert!(futile_squares("8k/9/7N1/9/9/9/9/9/9 w 2r2b4g4s3n4l18p 1").is_empty());
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
