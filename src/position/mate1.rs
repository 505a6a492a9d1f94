//! Mate in one ply: does the side to move have a move that checkmates at once?
//!
//! The search calls this at every node, so the common "no" must be cheap. Instead of making every
//! legal move and generating the replies, each candidate is judged on bitboards of the position as
//! it would be after the move:
//! - candidates are the checking moves only: drops on the check squares of the dropped kind, board
//!   moves onto the check squares of the piece they leave behind, and discovered checks (a piece
//!   of ours that alone blocks one of our sliders from the enemy king, moving off that line);
//! - a candidate mates when the king has no safe square (its neighbours, including capturing the
//!   checker, judged with the king lifted off the board so that it cannot hide behind itself),
//!   and, against a single checker, no other defender can capture it and nothing can be put in
//!   between (a move or a drop) without uncovering the king to another of our sliders.
//!
//! Most candidates are rejected by one cheap test before the full judgement: a king neighbour that
//! no piece of ours attacks now stays safe after a drop unless the dropped piece attacks it, and
//! after a board move unless the moved piece attacks it or it lies on a line through the vacated
//! square with one of our sliders on that line.
//!
//! [`Position::mate_in_one`] is exact: every mate in one is found and nothing else is claimed.
//! [`Position::contact_mate_in_one`], the search's, tries fewer candidates (as YaneuraOu's search
//! does): drops and moves onto the king's neighbours and the knight checks, no distant or
//! discovered checks. What it returns mates; the mates it leaves out are rare (5% of those on the
//! random walks of the tests) and the search finds them one ply deeper.
//!
//! Details of the exact answer:
//! - Pawn drops never mate (a mating pawn drop is illegal), so they are not tried.
//! - Pawn, bishop and rook moves that could promote are tried promoted only: the promoted piece
//!   attacks a superset of squares, so if the plain move mated, so does the promotion.
//! - A defender's pawn drop between our checker and their king is legal unless it is itself a
//!   pawn-drop mate of *our* king; that one rare case is settled by making the move on a copy.
//! - When the side to move is in check itself, the candidates are its legal moves that give
//!   check (a short list), judged the same way.

use super::movegen::must_promote;
use super::{MoveList, Position, SFEN_HAND_ORDER};
use crate::attacks;
use crate::bitboard::{Bitboard, FILE_BB};
use crate::types::{Color, Move, Piece, PieceType, Square};

/// For each square, the squares at most `files` files and `ranks` ranks from it.
const fn box_table(files: i32, ranks: i32) -> [Bitboard; 81] {
    let mut t = [Bitboard::from_halves(0, 0); 81];
    let mut k = 0;
    while k < 81 {
        let (kf, kr) = ((k / 9) as i32, (k % 9) as i32);
        let (mut lo, mut hi) = (0u64, 0u64);
        let mut s: usize = 0;
        while s < 81 {
            let (f, r) = ((s / 9) as i32, (s % 9) as i32);
            if (f - kf).abs() <= files && (r - kr).abs() <= ranks {
                if s < 63 {
                    lo |= 1 << s;
                } else {
                    hi |= 1 << (s - 63);
                }
            }
            s += 1;
        }
        t[k] = Bitboard::from_halves(lo, hi);
        k += 1;
    }
    t
}

/// The squares at most two files and four ranks from each square: a stepping piece (pawn,
/// knight, silver, gold or promoted minor, promoting or not) checks a king on the square only by
/// moving from one of these (its check squares lie within two files and two ranks of the king, and
/// one step covers at most one file and two ranks).
static NEAR: [Bitboard; 81] = box_table(2, 4);

/// The squares at most two files and two ranks from each square: a pawn, silver, gold or
/// promoted minor (promoting or not) steps onto a king's neighbour only from one of these.
static NEAR2: [Bitboard; 81] = box_table(2, 2);

/// The squares on the king's file and the two beside it, for each king square: a lance checks
/// (directly, promoting or not) only by moving from one of these, as it moves along its file and
/// a promoted lance attacks no further than one file aside.
static LANCE_NEAR: [Bitboard; 81] = box_table(1, 8);

/// What every candidate of one call shares.
struct Ctx<'a> {
    /// The king's neighbours it may step to that nothing of ours attacks now (occupancy without
    /// the king), computed on first need.
    free_now: std::cell::OnceCell<Bitboard>,
    /// Where a checking piece may arrive: everywhere for the exact answer; the king's neighbours
    /// and the knight check squares for the contact answer.
    reach: Bitboard,
    pos: &'a Position,
    us: Color,
    them: Color,
    /// The enemy king.
    ksq: Square,
    occ: Bitboard,
    ours: Bitboard,
    theirs: Bitboard,
}

/// The piece a move puts on its destination and where it comes from (None for a drop).
#[derive(Clone, Copy)]
struct Candidate {
    from: Option<Square>,
    to: Square,
    after: PieceType,
}

impl Position {
    /// A move of the side to move that checkmates at once, if there is one (pawn-drop mate
    /// excluded, as the rules forbid it). See the module docs.
    pub fn mate_in_one(&self) -> Option<Move> {
        self.find_mate_in_one::<false>()
    }

    /// A move of the side to move that checkmates at once, among the contact checks (drops and
    /// moves onto the enemy king's neighbours) and the knight checks: cheaper than
    /// [`Position::mate_in_one`], and blind to mates by distant and discovered checks. See the
    /// module docs.
    pub fn contact_mate_in_one(&self) -> Option<Move> {
        self.find_mate_in_one::<true>()
    }

    fn find_mate_in_one<const CONTACT: bool>(&self) -> Option<Move> {
        let us = self.side_to_move();
        let them = !us;
        let ksq = self.king_square(them)?;
        let ctx = Ctx {
            free_now: std::cell::OnceCell::new(),
            reach: if CONTACT {
                // The knight check squares, without asking for the check-square table (most
                // calls find no candidate and need none of it).
                attacks::king(ksq) | attacks::knight(them, ksq)
            } else {
                Bitboard::ALL
            },
            pos: self,
            us,
            them,
            ksq,
            occ: self.occupied(),
            ours: self.pieces(us),
            theirs: self.pieces(them),
        };
        if self.in_check() {
            return ctx.in_check();
        }
        if let Some(m) = ctx.drops() {
            return Some(m);
        }
        ctx.board_moves::<CONTACT>()
    }
}

impl Ctx<'_> {
    /// The `free_now` field, computed on first need: the union of the attacks of those of our
    /// pieces that can reach a king neighbour at all (the stepping pieces and the king within two
    /// files and ranks, knights within `NEAR`, lances within `LANCE_NEAR`, every bishop and rook),
    /// the king lifted off the board.
    fn free_now(&self) -> Bitboard {
        *self.free_now.get_or_init(|| {
            let pos = self.pos;
            let k = self.ksq.index();
            let around = attacks::king(self.ksq).and_not(self.theirs);
            let occ_no_king = self.occ ^ Bitboard::from_square(self.ksq);
            let knights = pos.pieces_cp(self.us, PieceType::Knight);
            let lances = pos.pieces_cp(self.us, PieceType::Lance);
            let (bishops, rooks) = (pos.bishop_sliders(self.us), pos.rook_sliders(self.us));
            let steppers = self.ours.and_not(knights | lances | bishops | rooks);
            let attackers =
                (steppers & NEAR2[k]) | (knights & NEAR[k]) | (lances & LANCE_NEAR[k]) | bishops | rooks;
            let mut attacked = Bitboard::EMPTY;
            for s in attackers {
                let pc = pos.piece_on(s).expect("an own piece");
                attacked |= attacks::piece(pc, s, occ_no_king);
            }
            around.and_not(attacked)
        })
    }

    /// Whether the board move of the piece on `from` to `to` (now `after`) surely leaves the king
    /// a square: one that is free now stays free unless the moved piece attacks it, or it lies
    /// on a line through `from` along which one of our sliders might now see it.
    #[inline]
    fn surely_escapes(&self, from: Square, to: Square, after: PieceType) -> bool {
        let free = self.free_now();
        if free.is_empty() {
            return false;
        }
        let occ = (self.occ ^ Bitboard::from_square(self.ksq)).and_not(Bitboard::from_square(from))
            | Bitboard::from_square(to);
        let mut maybe_attacked =
            attacks::piece(Piece::new(self.us, after), to, occ) | Bitboard::from_square(to);
        let straight = self.pos.rook_sliders(self.us) | self.pos.pieces_cp(self.us, PieceType::Lance);
        if (attacks::rook_pseudo(from) & straight).is_nonempty() {
            maybe_attacked |= attacks::rook_pseudo(from);
        }
        if (attacks::bishop_pseudo(from) & self.pos.bishop_sliders(self.us)).is_nonempty() {
            maybe_attacked |= attacks::bishop_pseudo(from);
        }
        free.and_not(maybe_attacked).is_nonempty()
    }

    /// Drops on check squares (pawns excluded: a mating pawn drop is illegal).
    fn drops(&self) -> Option<Move> {
        let hand = self.pos.hand(self.us);
        if !hand.has_except_pawn() {
            return None;
        }
        let empty = !self.occ;
        let occ_no_king = self.occ ^ Bitboard::from_square(self.ksq);
        // Strongest first, the pawn (last) left out.
        for pt in SFEN_HAND_ORDER[..6].iter().copied() {
            if !hand.has(pt) {
                continue;
            }
            let mut targets = self.pos.check_squares(pt) & empty & self.reach;
            match pt {
                PieceType::Lance => targets = targets.and_not(Bitboard::far_ranks(self.us, 1)),
                PieceType::Knight => targets = targets.and_not(Bitboard::far_ranks(self.us, 2)),
                _ => {}
            }
            if targets.is_empty() {
                continue;
            }
            let free = self.free_now();
            let piece = Piece::new(self.us, pt);
            for to in targets {
                let occ_after = occ_no_king | Bitboard::from_square(to);
                if free.and_not(attacks::piece(piece, to, occ_after)).is_nonempty() {
                    continue;
                }
                let c = Candidate { from: None, to, after: pt };
                if self.mates(c) {
                    return Some(Move::drop(pt, to));
                }
            }
        }
        None
    }

    /// Board moves that give check, directly or (unless `CONTACT`) by discovery, arriving within
    /// `reach` (not in check).
    fn board_moves<const CONTACT: bool>(&self) -> Option<Move> {
        let pos = self.pos;
        let us = self.us;
        let our_king = pos.king_square(us);
        let discoverers =
            if CONTACT { Bitboard::EMPTY } else { pos.blockers_for_king(self.them) & self.ours };
        let zone = Bitboard::promotion_zone(us);
        // A stepping piece gives a direct check only from near the king (see `NEAR`), a lance
        // only from the king's file or one beside it (see `LANCE_NEAR`); bishops and rooks may
        // check from anywhere, and any piece of ours that blocks a slider may discover one.
        let lances = pos.pieces_cp(us, PieceType::Lance);
        let far_sliders = pos.bishop_sliders(us) | pos.rook_sliders(us);
        let steppers = self.ours.and_not(far_sliders | lances | pos.pieces_cp(us, PieceType::King));
        let steppers_near = if CONTACT {
            let knights = pos.pieces_cp(us, PieceType::Knight);
            (knights & NEAR[self.ksq.index()]) | (steppers.and_not(knights) & NEAR2[self.ksq.index()])
        } else {
            steppers & NEAR[self.ksq.index()]
        };
        let lances_near = lances & LANCE_NEAR[self.ksq.index()];
        for from in self.ours & (far_sliders | lances_near | steppers_near | discoverers) {
            let pc = pos.piece_on(from).expect("an own piece");
            let pt = pc.piece_type();
            let mut dests = attacks::piece(pc, from, self.occ).and_not(self.ours) & self.reach;
            if dests.is_empty() {
                // Every candidate of this piece lands in `dests` (a discovered check too).
                continue;
            }
            let discovered =
                if discoverers.contains(from) { !attacks::line(from, self.ksq) } else { Bitboard::EMPTY };
            if pt == PieceType::King {
                // A king only checks by discovery, and must not step into check.
                let occ = self.occ ^ Bitboard::from_square(from);
                for to in dests & discovered {
                    if !pos.is_attacked_with(self.them, to, occ, Bitboard::EMPTY)
                        && !self.surely_escapes(from, to, pt)
                    {
                        let c = Candidate { from: Some(from), to, after: pt };
                        if self.mates(c) {
                            return Some(Move::normal(from, to, false));
                        }
                    }
                }
                continue;
            }
            if pos.pinned(us).contains(from) {
                if let Some(k) = our_king {
                    dests &= attacks::line(k, from);
                }
            }
            if pt.can_promote() {
                let promotable = if zone.contains(from) { dests } else { dests & zone };
                let pro = pt.promote();
                for to in promotable & (pos.check_squares(pro) | discovered) {
                    if self.surely_escapes(from, to, pro) {
                        continue;
                    }
                    let c = Candidate { from: Some(from), to, after: pro };
                    if self.mates(c) {
                        return Some(Move::normal(from, to, true));
                    }
                }
                // The promoted pawn, horse and dragon attack everything the plain piece does.
                if matches!(pt, PieceType::Pawn | PieceType::Bishop | PieceType::Rook) {
                    dests = dests.and_not(promotable);
                }
            }
            for to in dests & (pos.check_squares(pt) | discovered) {
                if must_promote(us, pt, to) || self.surely_escapes(from, to, pt) {
                    continue;
                }
                let c = Candidate { from: Some(from), to, after: pt };
                if self.mates(c) {
                    return Some(Move::normal(from, to, false));
                }
            }
        }
        None
    }

    /// In check ourselves: the legal moves that give check.
    fn in_check(&self) -> Option<Move> {
        let pos = self.pos;
        for &m in MoveList::legal(pos, true).iter() {
            if !pos.gives_check(m) {
                continue;
            }
            let pc = pos.moved_piece_after(m);
            let from = if m.is_drop() { None } else { Some(m.from()) };
            if m.is_drop() && pc.piece_type() == PieceType::Pawn {
                continue;
            }
            let c = Candidate { from, to: m.to(), after: pc.piece_type() };
            if self.mates(c) {
                return Some(m);
            }
        }
        None
    }

    /// Whether the legal move described by `c` checkmates.
    fn mates(&self, c: Candidate) -> bool {
        let pos = self.pos;
        let (us, them, ksq) = (self.us, self.them, self.ksq);
        let from_bb = c.from.map_or(Bitboard::EMPTY, Bitboard::from_square);
        let to_bb = Bitboard::from_square(c.to);
        let ksq_bb = Bitboard::from_square(ksq);
        let occ = self.occ.and_not(from_bb) | to_bb;
        let theirs = self.theirs.and_not(to_bb);
        let moved = Piece::new(us, c.after);

        // Our sliders after the move.
        let slides_diagonally = matches!(c.after, PieceType::Bishop | PieceType::Horse);
        let slides_straight = matches!(c.after, PieceType::Rook | PieceType::Dragon);
        let add = |yes: bool| if yes { to_bb } else { Bitboard::EMPTY };
        let bishops = pos.bishop_sliders(us).and_not(from_bb) | add(slides_diagonally);
        let rooks = pos.rook_sliders(us).and_not(from_bb) | add(slides_straight);
        let lances = pos.pieces_cp(us, PieceType::Lance).and_not(from_bb) | add(c.after == PieceType::Lance);
        // Our sliders (other than those in `removed`) that see the king with occupancy `occ`.
        let sliders_on_king = |occ: Bitboard, removed: Bitboard| -> Bitboard {
            ((attacks::bishop(ksq, occ) & bishops)
                | (attacks::rook(ksq, occ) & rooks)
                | (attacks::lance(them, ksq, occ) & lances))
                .and_not(removed)
        };

        // 1. King moves (capturing an adjacent checker included). Candidates are checks by
        // construction, so this most frequent refutation comes first.
        let occ_no_king = occ ^ ksq_bb;
        let moved_attacks = attacks::piece(moved, c.to, occ_no_king);
        for e in attacks::king(ksq).and_not(theirs) {
            if e != c.to && moved_attacks.contains(e) {
                continue;
            }
            if !pos.is_attacked_with(us, e, occ_no_king, from_bb) {
                return false;
            }
        }
        let mut checkers = sliders_on_king(occ, Bitboard::EMPTY);
        if moved_attacks.contains(ksq) {
            checkers |= to_bb;
        }
        if checkers.is_empty() {
            return false;
        }
        if checkers.more_than_one() {
            return true;
        }
        let checker = checkers.lsb().expect("one checker");
        let checker_bb = Bitboard::from_square(checker);

        // 2. Another defender captures the checker.
        let capturers = pos.attackers_to(them, checker, occ) & theirs.and_not(ksq_bb);
        for d in capturers {
            let occ2 = occ ^ Bitboard::from_square(d);
            if sliders_on_king(occ2, checker_bb).is_empty() {
                return false;
            }
        }

        // 3. Something is put in between.
        let between = attacks::between(checker, ksq);
        if between.is_empty() {
            return true;
        }
        for b in between {
            let b_bb = Bitboard::from_square(b);
            for d in pos.attackers_to(them, b, occ) & theirs.and_not(ksq_bb) {
                let occ2 = (occ ^ Bitboard::from_square(d)) | b_bb;
                if sliders_on_king(occ2, Bitboard::EMPTY).is_empty() {
                    return false;
                }
            }
        }
        let hand = pos.hand(them);
        if hand.is_empty() {
            return true;
        }
        if hand.has(PieceType::Silver)
            || hand.has(PieceType::Gold)
            || hand.has(PieceType::Bishop)
            || hand.has(PieceType::Rook)
        {
            return false;
        }
        let last = Bitboard::far_ranks(them, 1);
        if hand.has(PieceType::Lance) && between.and_not(last).is_nonempty() {
            return false;
        }
        if hand.has(PieceType::Knight) && between.and_not(Bitboard::far_ranks(them, 2)).is_nonempty() {
            return false;
        }
        if hand.has(PieceType::Pawn) {
            let their_pawns = pos.pieces_cp(them, PieceType::Pawn).and_not(to_bb);
            for b in between.and_not(last) {
                if (their_pawns & FILE_BB[b.file() as usize]).is_nonempty() {
                    continue;
                }
                if !self.pawn_drop_mates_us(c, b) {
                    return false;
                }
            }
        }
        true
    }

    /// Whether, after our move `c`, the defender's pawn drop on `b` would checkmate our king (and
    /// so be illegal). Rare enough to settle by making the move on a copy.
    fn pawn_drop_mates_us(&self, c: Candidate, b: Square) -> bool {
        let Some(our_king) = self.pos.king_square(self.us) else {
            return false;
        };
        if attacks::pawn(self.them, b) != Bitboard::from_square(our_king) {
            return false;
        }
        let m = match c.from {
            None => Move::drop(c.after, c.to),
            Some(from) => {
                let before = self.pos.piece_on(from).expect("the moved piece");
                Move::normal(from, c.to, before.piece_type() != c.after)
            }
        };
        let mut after = self.pos.clone();
        after.do_move(m);
        after.is_pawn_drop_mate(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::splitmix::next as rand;

    fn is_mate(pos: &Position) -> bool {
        pos.in_check() && MoveList::legal(pos, true).is_empty()
    }

    /// Every legal move that checkmates, by making it and generating the replies.
    fn mating_moves(pos: &mut Position) -> Vec<Move> {
        let moves: Vec<Move> = MoveList::legal(pos, true).iter().copied().collect();
        let mut out = Vec::new();
        for m in moves {
            pos.do_move(m);
            if is_mate(pos) {
                out.push(m);
            }
            pos.undo_move(m);
        }
        out
    }

    fn data(name: &str) -> String {
        let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// The SFENs of bench.sfen and of the mate and no-mate problems.
    fn seed_positions() -> Vec<String> {
        let mut out: Vec<String> = data("bench.sfen")
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| l.trim().to_string())
            .collect();
        for file in ["mate.tsv", "nomate.tsv"] {
            out.extend(data(file).lines().skip(1).filter_map(|l| l.split('\t').nth(1).map(str::to_string)));
        }
        out
    }

    /// Compares `mate_in_one` and `contact_mate_in_one` with brute force on one position; returns
    /// whether a mate exists and whether the contact answer found one.
    fn check(pos: &mut Position) -> (bool, bool) {
        let expected = mating_moves(pos);
        let got = pos.mate_in_one();
        match got {
            Some(m) => assert!(
                expected.contains(&m),
                "{}: mate_in_one claims {m}, brute force finds {expected:?}",
                pos.to_sfen()
            ),
            None => assert!(
                expected.is_empty(),
                "{}: mate_in_one finds nothing, brute force finds {expected:?}",
                pos.to_sfen()
            ),
        }
        // The contact answer: only mates, and one whenever a mate checks directly from a king
        // neighbour or a knight check square (or the side to move is in check: then every
        // checking move is tried).
        let contact = pos.contact_mate_in_one();
        if let Some(m) = contact {
            assert!(
                expected.contains(&m),
                "{}: contact_mate_in_one claims {m}, brute force finds {expected:?}",
                pos.to_sfen()
            );
        } else if let Some(ksq) = pos.king_square(!pos.side_to_move()) {
            let reach = attacks::king(ksq) | pos.check_squares(PieceType::Knight);
            let missed = expected.iter().find(|&&m| {
                pos.in_check()
                    || (reach.contains(m.to())
                        && pos.check_squares(pos.moved_piece_after(m).piece_type()).contains(m.to()))
            });
            assert!(missed.is_none(), "{}: contact_mate_in_one misses {missed:?}", pos.to_sfen());
        }
        (got.is_some(), contact.is_some())
    }

    #[test]
    fn agrees_with_brute_force_on_random_walks() {
        let mut s = 7u64;
        let (mut positions, mut mates, mut contact_mates) = (0, 0, 0);
        for sfen in seed_positions() {
            for walk in 0..6 {
                let mut pos = Position::from_sfen(&sfen).unwrap();
                for _ in 0..40 {
                    positions += 1;
                    let (mate, contact) = check(&mut pos);
                    mates += mate as usize;
                    contact_mates += contact as usize;
                    let moves: Vec<Move> = MoveList::legal(&pos, true).iter().copied().collect();
                    if moves.is_empty() {
                        break;
                    }
                    // Prefer checks on some walks, so that kings get chased into mating nets.
                    let checks: Vec<Move> = moves.iter().copied().filter(|&m| pos.gives_check(m)).collect();
                    let pick = if walk % 2 == 1 && !checks.is_empty() && !rand(&mut s).is_multiple_of(3) {
                        checks[rand(&mut s) as usize % checks.len()]
                    } else {
                        moves[rand(&mut s) as usize % moves.len()]
                    };
                    pos.do_move(pick);
                }
            }
        }
        eprintln!(
            "mate_in_one: {positions} positions, {mates} with a mate in one, {contact_mates} found by contact"
        );
        assert!(positions > 5000, "{positions} positions");
        assert!(mates > 100, "only {mates} positions with a mate in one");
        assert!(contact_mates * 2 > mates, "contact mates {contact_mates} of {mates}");
    }

    #[test]
    fn finds_the_mate_in_one_rows() {
        for line in data("mate.tsv").lines().skip(1) {
            let f: Vec<&str> = line.split('\t').collect();
            if f[2] != "1" {
                continue;
            }
            let mut pos = Position::from_sfen(f[1]).unwrap();
            let m = pos.mate_in_one().unwrap_or_else(|| panic!("{}: no mate found", f[0]));
            assert!(f[3].split(',').any(|u| u == m.to_usi()), "{}: {m} not among {}", f[0], f[3]);
            assert!(check(&mut pos).0);
        }
    }

    #[test]
    fn pawn_drop_mate_is_not_a_mate() {
        // P*1b would mate (the gold guards 1b and 2b, the lance blocks 2a), so it is illegal.
        let mut pos = Position::from_sfen("7lk/9/8G/9/9/9/9/9/9 b P 1").unwrap();
        assert_eq!(pos.mate_in_one(), None);
        assert!(pos.is_pawn_drop_mate(Square::Sq12));
        assert!(!check(&mut pos).0);
    }
}
