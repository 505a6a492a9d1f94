//! Move generation.
//!
//! One generator walks the position the way the fastest legal generators do: it works out the
//! targets allowed by the category and by check (capture or block the checker), restricts pinned
//! pieces to their pin line, and hands each piece's destination *set* to a [`MoveSink`]. A sink that
//! expands sets into moves fills a [`MoveList`]; the perft sink only counts them (a popcount per
//! piece, with the promotion rules applied to whole sets), which is what makes bulk perft fast.
//!
//! Categories ([`GenType`]):
//! - `CapturesProPlus`: captures (with or without promotion) and pawn promotions to empty squares;
//! - `QuietsProMinus`: the other non-evasion moves (non-captures and drops, minus pawn promotions);
//! - `Evasions`: every move when in check;
//! - `NonEvasions`: every move when not in check (= the two above);
//! - `Legal`: every legal move.
//!
//! All categories apply pins and the check rules; only `Legal` also proves that a king move does
//! not step into check (the others leave that to `Position::is_legal`, so it is paid only for the
//! moves the search actually tries). Unnecessary non-promotions (pawn, bishop, rook anywhere they
//! could promote; lance to its second rank) are generated only when `all_moves` is set, as with
//! the USI option `GenerateAllLegalMoves`; perft always counts them.
//!
//! Order: pawns, lances, knights, silvers, bishops, rooks, golds (with the promoted pawns,
//! lances, knights and silvers), horses, dragons, the king, then drops; each piece's
//! destinations by square index. The search sorts moves by score and keeps ties in this order,
//! so with a coarse evaluation it decides which of equal moves is searched (and played) first:
//! the king last keeps it from wandering (YaneuraOu generates in this order too).

use super::Position;
use crate::attacks;
use crate::bitboard::{Bitboard, RANK_BB};
use crate::types::{Color, Move, PieceType, Square};
use std::mem::MaybeUninit;

/// Which moves to generate; see the module docs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum GenType {
    CapturesProPlus,
    QuietsProMinus,
    Evasions,
    NonEvasions,
    Legal,
}

/// The restriction a move list puts on destinations, passed down to the sinks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MoveTarget {
    /// Both the promotion and, where allowed, the non-promotion.
    Both,
    /// Only promotions (pawn promotions counted among captures).
    PromotionsOnly,
    /// Only non-promotions (their twins among quiets).
    NonPromotionsOnly,
}

/// Receives the moves of one piece (or all unpinned pawns at once) as destination sets.
pub trait MoveSink {
    /// Moves of the `us` piece of kind `pt` on `from` to every square of `to`; the sink applies
    /// the promotion rules.
    fn piece_moves(&mut self, us: Color, pt: PieceType, from: Square, to: Bitboard, which: MoveTarget);
    /// One-step pawn moves to every square of `to` (each from the square behind it).
    fn pawn_pushes(&mut self, us: Color, to: Bitboard, which: MoveTarget);
    /// Drops of each kind in `kinds` to every square of `to`.
    fn drops(&mut self, kinds: &[PieceType], to: Bitboard);
}

/// Whether a piece of kind `pt` arriving on `to` must promote (it could never move again).
#[inline(always)]
pub fn must_promote(us: Color, pt: PieceType, to: Square) -> bool {
    match pt {
        PieceType::Pawn | PieceType::Lance => to.relative_rank(us) == 0,
        PieceType::Knight => to.relative_rank(us) <= 1,
        _ => false,
    }
}

/// Whether a piece of kind `pt` may be dropped on `to` as far as ranks go.
#[inline(always)]
pub fn drop_rank_ok(us: Color, pt: PieceType, to: Square) -> bool {
    !must_promote(us, pt, to)
}

#[inline(always)]
fn far_rank(us: Color, n: usize) -> Bitboard {
    RANK_BB[if us == Color::Black { n } else { 8 - n }]
}

/// Squares where a piece of kind `pt` must promote on arrival.
#[inline(always)]
fn forced_zone(us: Color, pt: PieceType) -> Bitboard {
    match pt {
        PieceType::Pawn | PieceType::Lance => far_rank(us, 0),
        PieceType::Knight => far_rank(us, 0) | far_rank(us, 1),
        _ => Bitboard::EMPTY,
    }
}

#[inline(always)]
fn zone(us: Color) -> Bitboard {
    far_rank(us, 0) | far_rank(us, 1) | far_rank(us, 2)
}

/// Files without an unpromoted pawn of `us`, as a bitboard of whole files.
///
/// Per half, each file is a 9-bit field holding at most one pawn (the two-pawn rule). With `T` the
/// rank-i bit of every field, `T - pawns` leaves a field's rank-i bit set exactly when the field
/// has no pawn (a pawn borrows it away, and the borrow never leaves the field). `x - (x >> 8)` then
/// fills the marked fields' lower eight bits.
#[inline(always)]
fn pawn_free_files(pawns: Bitboard) -> Bitboard {
    const T_LO: u64 = 0x100 * 0o1001001001001001001u64;
    const T_HI: u64 = 0x100 | 0x100 << 9;
    let lo = T_LO.wrapping_sub(pawns.lo()) & T_LO;
    let hi = T_HI.wrapping_sub(pawns.hi()) & T_HI;
    Bitboard::from_halves(lo | (lo - (lo >> 8)), hi | (hi - (hi >> 8)))
}

const LEGAL: u8 = 0;
const EVASIONS: u8 = 1;
const NON_EVASIONS: u8 = 2;
const CAPTURES: u8 = 3;
const QUIETS: u8 = 4;

/// Generates moves of category `gt` into `sink`.
#[inline]
pub fn generate<S: MoveSink>(pos: &Position, gt: GenType, sink: &mut S) {
    match gt {
        GenType::Legal => generate_impl::<S, LEGAL>(pos, sink),
        GenType::Evasions => generate_impl::<S, EVASIONS>(pos, sink),
        GenType::NonEvasions => generate_impl::<S, NON_EVASIONS>(pos, sink),
        GenType::CapturesProPlus => generate_impl::<S, CAPTURES>(pos, sink),
        GenType::QuietsProMinus => generate_impl::<S, QUIETS>(pos, sink),
    }
}

/// The moves of the pieces of `us` other than pawns and the king in `pos` (whose pieces stand on
/// `occ`), kind by kind in the legal generator's order (ties in the move ordering are searched in
/// generation order), each loop compiled for its kind: for each piece, its kind `pt`, its square
/// `from` and its destinations `to` (its attacks within `target` and within `line(from)`, its pin
/// line or every square) are handed to `body`. `Gold` stands for the golds and the promoted
/// pawns, lances, knights and silvers, which move alike. The legal generator and the mate
/// solver's check generator share it as a macro, so that each keeps its loops inline (shared
/// through a function, it cost perft 0.45% more instructions).
macro_rules! piece_moves_by_kind {
    ($pos:expr, $us:expr, $occ:expr, $target:expr, $line:expr, |$pt:ident, $from:ident, $to:ident| $body:expr) => {
        piece_moves_by_kind!(@kinds [Lance Knight Silver Bishop Rook Gold Horse Dragon]
            $pos, $us, $occ, $target, $line, |$pt, $from, $to| $body)
    };
    (@kinds [$($kind:ident)*] $pos:expr, $us:expr, $occ:expr, $target:expr, $line:expr,
     |$pt:ident, $from:ident, $to:ident| $body:expr) => {$({
        let $pt = $crate::types::PieceType::$kind;
        let froms = if $pt == $crate::types::PieceType::Gold { $pos.golds($us) } else { $pos.pieces_cp($us, $pt) };
        for $from in froms {
            let $to = $crate::attacks::piece($crate::types::Piece::new($us, $pt), $from, $occ) & $target & $line($from);
            $body;
        }
    })*};
}
pub(crate) use piece_moves_by_kind;

/// Every legal move, into `sink` (perft's entry point).
#[inline]
pub fn generate_legal<S: MoveSink>(pos: &Position, sink: &mut S) {
    generate_impl::<S, LEGAL>(pos, sink);
}

#[inline(always)]
fn generate_impl<S: MoveSink, const GT: u8>(pos: &Position, sink: &mut S) {
    let us = pos.side_to_move();
    let them = !us;
    let own = pos.pieces(us);
    let enemy = pos.pieces(them);
    let occ = own | enemy;
    let empty = occ.complement();
    let ksq = pos.king_square(us);
    let checkers = pos.checkers();
    let in_check = checkers.is_nonempty();
    debug_assert!(GT != EVASIONS || in_check);
    debug_assert!(!(GT == NON_EVASIONS || GT == CAPTURES || GT == QUIETS) || !in_check);

    // The king's destinations, found here while the position's boards are at hand and added to
    // the sink after the other pieces' moves.
    let king_dests = match ksq {
        Some(k) => {
            let king_target = match GT {
                CAPTURES => enemy,
                QUIETS => empty,
                _ => own.complement(),
            };
            let dests = attacks::king(k) & king_target;
            if GT == LEGAL {
                let occ_no_king = occ ^ Bitboard::from_square(k);
                let mut safe = Bitboard::EMPTY;
                for s in dests {
                    if !pos.is_attacked_with(them, s, occ_no_king, Bitboard::EMPTY) {
                        safe.set(s);
                    }
                }
                safe
            } else {
                dests
            }
        }
        None => Bitboard::EMPTY,
    };

    // What non-king moves may reach: in check, only the checker or the squares between.
    let (target, drop_target) = if in_check {
        let k = ksq.expect("in check implies a king");
        if checkers.more_than_one() {
            // Double check: only the king moves.
            sink.piece_moves(us, PieceType::King, k, king_dests, MoveTarget::Both);
            return;
        }
        let checker = checkers.lsb().expect("non-empty");
        let between = attacks::between(k, checker);
        (between | checkers, between)
    } else {
        match GT {
            CAPTURES => (enemy, Bitboard::EMPTY),
            QUIETS => (empty, empty),
            _ => (own.complement(), empty),
        }
    };

    let pinned = pos.pinned(us);
    let line = |from: Square| -> Bitboard {
        match ksq {
            Some(k) if pinned.contains(from) => attacks::line(k, from),
            _ => Bitboard::ALL,
        }
    };

    // Pawns: unpinned ones all at once by a shift, pinned ones one by one.
    let pawns = pos.pieces_cp(us, PieceType::Pawn);
    let pushes = match us {
        Color::Black => pawns.and_not(pinned).shr_halves::<1>(),
        Color::White => pawns.and_not(pinned).shl_halves::<1>(),
    };
    if GT == CAPTURES && !in_check {
        sink.pawn_pushes(us, pushes & enemy, MoveTarget::Both);
        sink.pawn_pushes(us, pushes & empty & zone(us), MoveTarget::PromotionsOnly);
    } else if GT == QUIETS && !in_check {
        sink.pawn_pushes(us, pushes & empty.and_not(zone(us)), MoveTarget::Both);
        sink.pawn_pushes(us, pushes & empty & zone(us), MoveTarget::NonPromotionsOnly);
    } else {
        sink.pawn_pushes(us, pushes & target, MoveTarget::Both);
    }
    for from in pawns & pinned {
        let to = attacks::pawn(us, from) & line(from);
        if GT == CAPTURES && !in_check {
            sink.piece_moves(us, PieceType::Pawn, from, to & enemy, MoveTarget::Both);
            sink.piece_moves(us, PieceType::Pawn, from, to & empty & zone(us), MoveTarget::PromotionsOnly);
        } else if GT == QUIETS && !in_check {
            sink.piece_moves(us, PieceType::Pawn, from, to & empty.and_not(zone(us)), MoveTarget::Both);
            sink.piece_moves(us, PieceType::Pawn, from, to & empty & zone(us), MoveTarget::NonPromotionsOnly);
        } else {
            sink.piece_moves(us, PieceType::Pawn, from, to & target, MoveTarget::Both);
        }
    }

    // The other pieces, kind by kind. A pinned piece moves along its pin line only (a pinned
    // knight, never on it after a jump, not at all).
    piece_moves_by_kind!(pos, us, occ, target, line, |pt, from, to| {
        sink.piece_moves(us, pt, from, to, MoveTarget::Both)
    });
    // King moves after the other pieces' (ties in the move ordering are searched in this order).
    if let Some(k) = ksq {
        sink.piece_moves(us, PieceType::King, k, king_dests, MoveTarget::Both);
    }

    // Drops.
    let hand = pos.hand(us);
    if hand.is_empty() || drop_target.is_empty() {
        return;
    }
    if hand.has(PieceType::Pawn) {
        let mut to = drop_target.and_not(far_rank(us, 0)) & pawn_free_files(pawns);
        // Pawn-drop mate: only the square in front of the enemy king can be one.
        if let Some(tk) = pos.king_square(them) {
            let front = attacks::pawn(them, tk);
            if (to & front).is_nonempty() {
                let sq = front.lsb().expect("non-empty");
                if pos.is_pawn_drop_mate(sq) {
                    to = to.and_not(front);
                }
            }
        }
        sink.drops(&[PieceType::Pawn], to);
    }
    if hand.has(PieceType::Lance) {
        sink.drops(&[PieceType::Lance], drop_target.and_not(far_rank(us, 0)));
    }
    if hand.has(PieceType::Knight) {
        sink.drops(&[PieceType::Knight], drop_target.and_not(far_rank(us, 0) | far_rank(us, 1)));
    }
    let mut kinds = [PieceType::Silver; 4];
    let mut n = 0;
    for pt in [PieceType::Silver, PieceType::Gold, PieceType::Bishop, PieceType::Rook] {
        if hand.has(pt) {
            kinds[n] = pt;
            n += 1;
        }
    }
    if n > 0 {
        sink.drops(&kinds[..n], drop_target);
    }
}

/// The most moves a position of a real game can have (593 is the known maximum), with room to
/// spare: the capacity of [`MoveList`].
pub const MAX_MOVES: usize = 600;

/// A bound on the moves of any position with the piece counts of [`super::PieceLimits::Extended`]
/// (31 pawns, 7 lances/knights/silvers/golds, 3 bishops/rooks): at most 81 drops of each of the
/// 7 hand kinds (567), and on the board at most 6 moves per tokin (186), 16 per lance (8
/// squares, promoting or not: 112), 6 per promoted knight (42), 10 per silver (70), 6 per gold
/// (42), 32 per bishop and rook (16 squares, promoting or not: 192) and 8 for the king: 1219.
/// The capacity of [`WideMoveList`].
pub const MAX_MOVES_EXTENDED: usize = 1219;

/// An array of uninitialised slots, for fixed-capacity lists made at every node. (A call rather
/// than the array expression `[MaybeUninit::uninit(); N]`, which the compiler turns into a
/// zeroing `memset` of the whole array.)
#[inline(always)]
pub fn uninit_array<T: Copy, const N: usize>() -> [MaybeUninit<T>; N] {
    // SAFETY: an array of `MaybeUninit` is valid without initialisation.
    unsafe { MaybeUninit::<[MaybeUninit<T>; N]>::uninit().assume_init() }
}

/// A list of the moves of any position of a real game ([`MAX_MOVES`]).
pub type MoveList = MoveListOf<MAX_MOVES>;

/// A list of the moves of any position [`super::PieceLimits::Extended`] admits
/// (`MAX_MOVES_EXTENDED` moves): for perft of composed positions.
pub type WideMoveList = MoveListOf<MAX_MOVES_EXTENDED>;

/// A fixed-capacity list of moves, filled by the generator. A position with more moves than `N`
/// would lose the rest: use it only where `N` bounds the positions (see the aliases).
pub struct MoveListOf<const N: usize> {
    moves: [MaybeUninit<Move>; N],
    len: usize,
    /// Also emit the unnecessary non-promotions (see the module docs).
    all_moves: bool,
}

impl<const N: usize> Default for MoveListOf<N> {
    fn default() -> MoveListOf<N> {
        MoveListOf::new(false)
    }
}

impl<const N: usize> MoveListOf<N> {
    #[inline(always)]
    pub fn new(all_moves: bool) -> MoveListOf<N> {
        MoveListOf { moves: uninit_array(), len: 0, all_moves }
    }

    /// Generates category `gt` of `pos` into a new list.
    pub fn generate(pos: &Position, gt: GenType, all_moves: bool) -> MoveListOf<N> {
        let mut list = MoveListOf::new(all_moves);
        generate(pos, gt, &mut list);
        list
    }

    /// Every legal move of `pos` (unnecessary non-promotions included when `all_moves`).
    pub fn legal(pos: &Position, all_moves: bool) -> MoveListOf<N> {
        MoveListOf::generate(pos, GenType::Legal, all_moves)
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline(always)]
    pub fn as_slice(&self) -> &[Move] {
        // SAFETY: the first `len` entries were written by `push`, and `MaybeUninit<Move>` has the
        // layout of `Move`.
        unsafe { std::slice::from_raw_parts(self.moves.as_ptr().cast::<Move>(), self.len) }
    }

    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        // SAFETY: as in `as_slice`; the slice borrows `self` mutably.
        unsafe { std::slice::from_raw_parts_mut(self.moves.as_mut_ptr().cast::<Move>(), self.len) }
    }

    /// Forgets every move.
    #[inline(always)]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Whether unnecessary non-promotions are generated.
    #[inline(always)]
    pub fn all_moves(&self) -> bool {
        self.all_moves
    }

    #[inline(always)]
    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.as_slice().iter()
    }

    pub fn contains(&self, m: Move) -> bool {
        self.as_slice().contains(&m)
    }

    #[inline(always)]
    pub fn push(&mut self, m: Move) {
        debug_assert!(self.len < N, "more than {N} moves");
        if self.len < N {
            self.moves[self.len] = MaybeUninit::new(m);
            self.len += 1;
        }
    }

    #[inline(always)]
    fn push_promotable(
        &mut self,
        us: Color,
        pt: PieceType,
        from: Square,
        to: Square,
        promotable: bool,
        which: MoveTarget,
    ) {
        if !promotable {
            if which != MoveTarget::PromotionsOnly {
                self.push(Move::normal(from, to, false));
            }
            return;
        }
        if which != MoveTarget::NonPromotionsOnly {
            self.push(Move::normal(from, to, true));
        }
        if which == MoveTarget::PromotionsOnly || must_promote(us, pt, to) {
            return;
        }
        let unnecessary = match pt {
            PieceType::Pawn | PieceType::Bishop | PieceType::Rook => true,
            PieceType::Lance => to.relative_rank(us) == 1,
            _ => false,
        };
        if !unnecessary || self.all_moves {
            self.push(Move::normal(from, to, false));
        }
    }
}

impl<'a, const N: usize> IntoIterator for &'a MoveListOf<N> {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<const N: usize> MoveSink for MoveListOf<N> {
    #[inline(always)]
    fn piece_moves(&mut self, us: Color, pt: PieceType, from: Square, to: Bitboard, which: MoveTarget) {
        if !pt.can_promote() {
            for t in to {
                self.push(Move::normal(from, t, false));
            }
            return;
        }
        let from_in_zone = from.in_promotion_zone(us);
        for t in to {
            self.push_promotable(us, pt, from, t, from_in_zone || t.in_promotion_zone(us), which);
        }
    }

    #[inline(always)]
    fn pawn_pushes(&mut self, us: Color, to: Bitboard, which: MoveTarget) {
        // The square behind is one rank further from the pawn's far rank: the next index for
        // black, the previous one for white (an index is file * 9 + rank).
        let behind = match us {
            Color::Black => 1,
            Color::White => -1,
        };
        for t in to {
            let from = Square::ALL[t.index().wrapping_add_signed(behind)];
            self.push_promotable(us, PieceType::Pawn, from, t, t.in_promotion_zone(us), which);
        }
    }

    #[inline(always)]
    fn drops(&mut self, kinds: &[PieceType], to: Bitboard) {
        for t in to {
            for &pt in kinds {
                self.push(Move::drop(pt, t));
            }
        }
    }
}

/// Counts legal moves without listing them: what bulk perft does at the last ply. Every move is
/// counted, unnecessary non-promotions included.
#[derive(Default)]
pub struct MoveCounter {
    pub count: u64,
}

impl MoveSink for MoveCounter {
    #[inline(always)]
    fn piece_moves(&mut self, us: Color, pt: PieceType, from: Square, to: Bitboard, which: MoveTarget) {
        debug_assert_eq!(which, MoveTarget::Both);
        let n = to.count() as u64;
        if !pt.can_promote() {
            self.count += n;
            return;
        }
        let promotable = if from.in_promotion_zone(us) { to } else { to & zone(us) };
        let forced = to & forced_zone(us, pt);
        self.count += n + promotable.count() as u64 - forced.count() as u64;
    }

    #[inline(always)]
    fn pawn_pushes(&mut self, us: Color, to: Bitboard, which: MoveTarget) {
        debug_assert_eq!(which, MoveTarget::Both);
        let promotable = to & zone(us);
        let forced = to & far_rank(us, 0);
        self.count += (to.count() + promotable.count() - forced.count()) as u64;
    }

    #[inline(always)]
    fn drops(&mut self, kinds: &[PieceType], to: Bitboard) {
        self.count += kinds.len() as u64 * to.count() as u64;
    }
}
