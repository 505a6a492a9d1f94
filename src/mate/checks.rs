//! The attacker's checking moves: every legal move that gives check, including the attacker's
//! answers to a counter-check (they must both escape and check), unnecessary non-promotions
//! included (see `movegen`'s docs for why).
//!
//! Out of check, a dedicated generator visits only what can check: each piece's destinations
//! are cut to the check squares of the piece as it lands (promoted or not) and, for a piece that
//! uncovers one of our sliders, to the squares off the line to the enemy king; the king moves
//! only when it is such a discoverer (its safety tested for those squares alone), and drops go to
//! check squares only. In check, the legal-move generator's evasions go through a [`MoveSink`]
//! that keeps the same destinations. Both yield the moves in the legal generator's order
//! (pawns, lances, knights, silvers, bishops, rooks, golds, horses, dragons, the king, then drops
//! kind by kind; a piece's promotions before its non-promotions), which the search relies on to
//! break ties, and [`count_checks`] counts the same moves without listing them.

use crate::attacks;
use crate::bitboard::{Bitboard, FILE_BB};
use crate::position::{generate_legal, piece_moves_by_kind, MoveSink, MoveTarget, Position};
use crate::types::{Color, Move, PieceType, Square};

/// Where the checks go: a list of moves, or a count.
trait CheckOut {
    /// The moves of the piece on `from`: with promotion to each square of `promote` (all first),
    /// then without to each square of `plain`.
    fn moves(&mut self, from: Square, promote: Bitboard, plain: Bitboard);
    /// Drops of `pt` to each square of `to`.
    fn drops(&mut self, pt: PieceType, to: Bitboard);
}

impl CheckOut for Vec<Move> {
    #[inline(always)]
    fn moves(&mut self, from: Square, promote: Bitboard, plain: Bitboard) {
        for t in promote {
            self.push(Move::normal(from, t, true));
        }
        for t in plain {
            self.push(Move::normal(from, t, false));
        }
    }

    #[inline(always)]
    fn drops(&mut self, pt: PieceType, to: Bitboard) {
        for t in to {
            self.push(Move::drop(pt, t));
        }
    }
}

/// Counts the moves it is handed.
struct Count(usize);

impl CheckOut for Count {
    #[inline(always)]
    fn moves(&mut self, _from: Square, promote: Bitboard, plain: Bitboard) {
        self.0 += (promote.count() + plain.count()) as usize;
    }

    #[inline(always)]
    fn drops(&mut self, _pt: PieceType, to: Bitboard) {
        self.0 += to.count() as usize;
    }
}

/// What decides whether a move of the side to move checks the enemy king.
struct Checking {
    us: Color,
    /// Enemy king.
    ksq: Square,
    /// Check squares by kind (index `PieceType::index`; none for the king).
    squares: [Bitboard; PieceType::NUM],
    /// Our pieces that alone block one of our sliders from the enemy king.
    discoverers: Bitboard,
}

impl Checking {
    #[inline(always)]
    fn new(pos: &Position, ksq: Square) -> Checking {
        let us = pos.side_to_move();
        let gold = pos.check_squares(PieceType::Gold);
        let bishop = pos.check_squares(PieceType::Bishop);
        let rook = pos.check_squares(PieceType::Rook);
        let near = attacks::king(ksq);
        // By kind number: none (0), pawn, lance, knight, silver, bishop, rook, gold, king, the
        // promoted pawn, lance, knight and silver, horse, dragon. Built from four lookups: one
        // `check_squares` call per kind cost the solver 6 % more instructions (zukou_050).
        let squares = [
            Bitboard::EMPTY,
            pos.check_squares(PieceType::Pawn),
            pos.check_squares(PieceType::Lance),
            pos.check_squares(PieceType::Knight),
            pos.check_squares(PieceType::Silver),
            bishop,
            rook,
            gold,
            Bitboard::EMPTY,
            gold,
            gold,
            gold,
            gold,
            bishop | near,
            rook | near,
        ];
        debug_assert!(PieceType::ALL
            .iter()
            .all(|&pt| pt == PieceType::King || squares[pt.index()] == pos.check_squares(pt)));
        Checking { us, ksq, squares, discoverers: pos.blockers_for_king(!us) & pos.pieces(us) }
    }

    /// Destinations among `to` that check by discovery when moving from `from`.
    #[inline(always)]
    fn discovered(&self, from: Square, to: Bitboard) -> Bitboard {
        if self.discoverers.contains(from) {
            to.and_not(attacks::line(from, self.ksq))
        } else {
            Bitboard::EMPTY
        }
    }

    /// Hands `out` the checking moves of a `pt` on `from` to the squares of `to`.
    #[inline(always)]
    fn piece<O: CheckOut>(&self, out: &mut O, pt: PieceType, from: Square, to: Bitboard) {
        let discovered = self.discovered(from, to);
        let plain = to & (self.squares[pt.index()] | discovered);
        if !pt.can_promote() {
            out.moves(from, Bitboard::EMPTY, plain);
            return;
        }
        let zone = Bitboard::promotion_zone(self.us);
        let promotable = if zone.contains(from) { to } else { to & zone };
        let promote = promotable & (self.squares[pt.promote().index()] | discovered);
        out.moves(from, promote, plain.and_not(forced_zone(self.us, pt)));
    }
}

/// Squares where a `us` piece of kind `pt` must promote on arrival.
#[inline(always)]
fn forced_zone(us: Color, pt: PieceType) -> Bitboard {
    match pt {
        PieceType::Pawn | PieceType::Lance => Bitboard::far_ranks(us, 1),
        PieceType::Knight => Bitboard::far_ranks(us, 2),
        _ => Bitboard::EMPTY,
    }
}

/// Keeps the checking moves of the destination sets the legal generator hands it (in check).
struct CheckSink<'a, O: CheckOut> {
    out: &'a mut O,
    checking: Checking,
}

impl<O: CheckOut> MoveSink for CheckSink<'_, O> {
    #[inline]
    fn piece_moves(&mut self, us: Color, pt: PieceType, from: Square, to: Bitboard, which: MoveTarget) {
        debug_assert_eq!(which, MoveTarget::Both);
        debug_assert_eq!(us, self.checking.us);
        self.checking.piece(self.out, pt, from, to);
    }

    #[inline]
    fn pawn_pushes(&mut self, us: Color, to: Bitboard, which: MoveTarget) {
        debug_assert_eq!(which, MoveTarget::Both);
        pawn_pushes(&self.checking, self.out, us, to);
    }

    #[inline]
    fn drops(&mut self, kinds: &[PieceType], to: Bitboard) {
        for &pt in kinds {
            self.out.drops(pt, to & self.checking.squares[pt.index()]);
        }
    }
}

/// Hands `out` the checking ones of the one-step pushes of unpinned pawns to the squares of `to`,
/// by destination (each destination's promotion first).
#[inline(always)]
fn pawn_pushes<O: CheckOut>(c: &Checking, out: &mut O, us: Color, to: Bitboard) {
    for t in to {
        let from = match us {
            Color::Black => t.offset(0, 1),
            Color::White => t.offset(0, -1),
        }
        .expect("a pawn push comes from the square behind");
        c.piece(out, PieceType::Pawn, from, Bitboard::from_square(t));
    }
}

/// The checking moves of the side to move, out of check: the legal generator's moves (in its
/// order) that check, each piece's found from its check squares and discoveries alone.
#[inline(always)]
fn generate<O: CheckOut>(pos: &Position, c: &Checking, out: &mut O) {
    let us = c.us;
    let them = !us;
    let own = pos.pieces(us);
    let occ = pos.occupied();
    let target = own.complement();
    let our_king = pos.king_square(us);
    let pinned = pos.pinned(us);
    let line = |from: Square| -> Bitboard {
        match our_king {
            Some(k) if pinned.contains(from) => attacks::line(k, from),
            _ => Bitboard::ALL,
        }
    };
    let discoverers = c.discoverers;

    // Pawns: the unpinned ones' pushes that land on a check square (promoted or not) or uncover
    // a check, then the pinned ones.
    let pawns = pos.pieces_cp(us, PieceType::Pawn);
    let free = pawns.and_not(pinned);
    let (pushes, uncovering) = match us {
        Color::Black => (free.shr_halves::<1>(), (free & discoverers).shr_halves::<1>()),
        Color::White => (free.shl_halves::<1>(), (free & discoverers).shl_halves::<1>()),
    };
    let zone = Bitboard::promotion_zone(us);
    let landing =
        c.squares[PieceType::Pawn.index()] | (c.squares[PieceType::ProPawn.index()] & zone) | uncovering;
    pawn_pushes(c, out, us, pushes & target & landing);
    for from in pawns & pinned {
        c.piece(out, PieceType::Pawn, from, attacks::pawn(us, from) & target & line(from));
    }

    // The other pieces, by the legal generator's own loops (the test below holds the two to one
    // order).
    piece_moves_by_kind!(pos, us, occ, target, line, |pt, from, to| c.piece(out, pt, from, to));

    // The king checks only by uncovering, to safe squares off the line.
    if let Some(k) = our_king.filter(|&k| discoverers.contains(k)) {
        let occ_no_king = occ ^ Bitboard::from_square(k);
        let mut to = Bitboard::EMPTY;
        for s in c.discovered(k, attacks::king(k) & target) {
            if !pos.is_attacked_with(them, s, occ_no_king, Bitboard::EMPTY) {
                to.set(s);
            }
        }
        out.moves(k, Bitboard::EMPTY, to);
    }

    // Drops onto check squares: a pawn not on a file with one of our pawns and not mating.
    let hand = pos.hand(us);
    if hand.is_empty() {
        return;
    }
    let empty = occ.complement();
    if hand.has(PieceType::Pawn) {
        let mut to = empty & c.squares[PieceType::Pawn.index()].and_not(Bitboard::far_ranks(us, 1));
        if let Some(sq) = to.lsb() {
            if (pawns & FILE_BB[sq.file() as usize]).is_nonempty() || pos.is_pawn_drop_mate(sq) {
                to = Bitboard::EMPTY;
            }
        }
        out.drops(PieceType::Pawn, to);
    }
    for pt in [PieceType::Lance, PieceType::Knight] {
        if hand.has(pt) {
            out.drops(pt, (empty & c.squares[pt.index()]).and_not(forced_zone(us, pt)));
        }
    }
    for pt in [PieceType::Silver, PieceType::Gold, PieceType::Bishop, PieceType::Rook] {
        if hand.has(pt) {
            out.drops(pt, empty & c.squares[pt.index()]);
        }
    }
}

/// Hands `out` every legal checking move of the side to move.
#[inline(always)]
fn checks_into<O: CheckOut>(pos: &Position, out: &mut O) {
    let Some(ksq) = pos.king_square(!pos.side_to_move()) else {
        return;
    };
    let checking = Checking::new(pos, ksq);
    if pos.in_check() {
        generate_legal(pos, &mut CheckSink { out, checking });
    } else {
        generate(pos, &checking, out);
    }
}

/// Appends every legal checking move of the side to move to `out` (nothing without an enemy king).
pub(crate) fn checks(pos: &Position, out: &mut Vec<Move>) {
    checks_into(pos, out);
}

/// The number of moves [`checks`] would append.
pub(crate) fn count_checks(pos: &Position) -> usize {
    let mut count = Count(0);
    checks_into(pos, &mut count);
    count.0
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
        // A tsume problem: no attacker king.
        "9/9/6n2/8n/6+pl1/7Sn/4+pp1k1/7N1/7s+R b R2B4g2s3l15p 1",
        // A pawn drop on 1b would mate.
        "7lk/9/6G2/7N1/9/9/9/9/4K4 b P 1",
        // Discoverers in the promotion zone (silver, bishop, knight, lance before a rook or
        // bishop), a pawn before a bishop, and pinned attacker pieces.
        "4k4/9/4S4/9/4N4/9/9/9/4R3K b P 1",
        "8k/9/9/9/4P4/9/9/9/B3K4 b L 1",
        "4k4/9/4B4/4L4/9/9/9/4R4/r1S1K3b b GN 1",
        "3k5/9/9/6N2/9/9/4r4/4G4/4K4 b SP 1",
        // Our king before our rook or bishop: it checks by stepping off the line.
        "4k4/9/2p6/9/9/9/9/4K4/4R4 b GP 1",
        "8k/9/9/9/9/9/9/1K7/B8 b S 1",
    ];

    /// The moves of the legal generator through [`CheckSink`], which yields them in the order the
    /// checks had when they all came from it.
    fn by_legal_generator(pos: &Position) -> Vec<Move> {
        let mut out = Vec::new();
        if let Some(ksq) = pos.king_square(!pos.side_to_move()) {
            generate_legal(pos, &mut CheckSink { out: &mut out, checking: Checking::new(pos, ksq) });
        }
        out
    }

    /// `checks` yields exactly the legal moves that give check, in the legal generator's order,
    /// and `count_checks` counts them; along random walks (half of their moves checks) that
    /// reach the attacker in check, discovered checks by promotions and by the king, and pawn
    /// drops that would mate.
    #[test]
    fn checks_are_the_checking_legal_moves() {
        let mut s = 3u64;
        let (mut total, mut in_check, mut countering) = (0, 0, 0);
        let (mut promoting, mut by_king, mut drop_mates) = (0, 0, 0);
        for sfen in POSITIONS {
            for _ in 0..30 {
                let mut pos = Position::from_sfen(sfen).unwrap();
                for _ in 0..30 {
                    let legal: Vec<Move> = MoveList::legal(&pos, true).iter().copied().collect();
                    let mut expected: Vec<Move> =
                        legal.iter().copied().filter(|&m| pos.gives_check(m)).collect();
                    let mut got = Vec::new();
                    checks(&pos, &mut got);
                    assert_eq!(got, by_legal_generator(&pos), "{}", pos.to_sfen());
                    assert_eq!(count_checks(&pos), got.len(), "{}", pos.to_sfen());
                    let mut sorted = got.clone();
                    expected.sort_by_key(|m| m.bits());
                    sorted.sort_by_key(|m| m.bits());
                    assert_eq!(sorted, expected, "{}", pos.to_sfen());
                    total += got.len();
                    in_check += pos.in_check() as usize;
                    countering += (pos.in_check() && !got.is_empty()) as usize;
                    let us = pos.side_to_move();
                    for &m in &got {
                        if let crate::types::MoveKind::Normal { from, promote, .. } = m.kind() {
                            let discovers = pos.blockers_for_king(!us).contains(from);
                            promoting += (promote && discovers) as usize;
                            by_king += (Some(from) == pos.king_square(us)) as usize;
                        }
                    }
                    if let Some(k) = pos.king_square(!us) {
                        let front = attacks::pawn(!us, k);
                        drop_mates += front.lsb().is_some_and(|sq| {
                            pos.hand(us).has(PieceType::Pawn)
                                && !pos.occupied().contains(sq)
                                && (pos.pieces_cp(us, PieceType::Pawn) & FILE_BB[sq.file() as usize])
                                    .is_empty()
                                && pos.is_pawn_drop_mate(sq)
                        }) as usize;
                    }
                    if legal.is_empty() {
                        break;
                    }
                    let m = if !got.is_empty() && rand(&mut s).is_multiple_of(2) {
                        got[rand(&mut s) as usize % got.len()]
                    } else {
                        legal[rand(&mut s) as usize % legal.len()]
                    };
                    pos.do_move(m);
                }
            }
        }
        let counts = [total, in_check, countering, promoting, by_king, drop_mates];
        assert!(counts.iter().zip([20_000, 1000, 20, 300, 200, 20]).all(|(n, min)| *n > min), "{counts:?}");
    }
}
