//! The position: board, hands, side to move, and a stack of per-ply state that makes
//! `do_move`/`undo_move` cheap and keeps checkers, pins and check squares at hand.
//!
//! The position knows nothing of evaluation or search. Files beside this one each add one concept
//! as an `impl Position` block: `sfen.rs` (reading and writing SFEN, and the position that USI
//! `position` arguments describe), `movegen.rs` (legal and staged move generation), `see.rs`
//! (static exchange evaluation), `rules.rs` (repetition, declaration and move-limit verdicts),
//! `packed.rs` (YaneuraOu's 256-bit packed position), `mate1.rs` (mate in one), `structure.rs`
//! (the structure keys the search's histories are indexed by).

mod mate1;
mod movegen;
mod packed;
mod rules;
pub mod see;
mod sfen;
mod structure;

pub(crate) use movegen::piece_moves_by_kind;
pub use movegen::{
    generate, generate_legal, uninit_array, GenType, MoveCounter, MoveList, MoveSink, MoveTarget,
    WideMoveList, MAX_MOVES,
};
pub use packed::{PackError, PackedSfen};
pub use rules::{Declaration, DeclarationRule, Repetition};
pub use sfen::{
    board_field, IllegalMoveInList, PieceLimits, PositionArgsError, SfenError, SFEN_HAND_ORDER, STARTPOS,
};
pub use structure::StructureKeys;

use crate::attacks;
use crate::bitboard::Bitboard;
use crate::types::{Color, Hand, Move, MoveKind, Piece, PieceType, Square};
use crate::zobrist;

/// Follows the moves made on a position, for state kept outside it (the NNUE accumulators): the
/// position calls the observer, so it never needs to know what the observer is. Every method has
/// an empty default; `()` observes nothing.
pub trait MoveObserver {
    /// `m` is about to be made; `before` is the position as it still is.
    fn on_do_move(&mut self, _before: &Position, _m: Move) {}
    /// `m` has just been made; `after` is the new position.
    fn on_moved(&mut self, _after: &Position, _m: Move) {}
    /// The last move made has just been taken back.
    fn on_undo_move(&mut self) {}
    /// A null move is about to be made.
    fn on_do_null_move(&mut self, _before: &Position) {}
    /// The last null move has just been taken back.
    fn on_undo_null_move(&mut self) {}
}

impl MoveObserver for () {}

/// What one ply adds to the position: keys, hands, checkers, and the check information that
/// move generation, `gives_check` and `is_legal` read.
///
/// Pins and check squares are computed lazily, on first use, and cached in `OnceCell`s so that
/// `&Position` readers can fill them. A position that is only passed through (the leaves of a
/// perft) never pays for them; move generation needs only the pins; `do_move` needs both of the
/// position it moves from (to find the checks it gives by lookup).
#[derive(Clone, Debug)]
pub struct StateInfo {
    board_key: u64,
    hand_key: u64,
    structure: StructureKeys,
    hands: [Hand; 2],
    /// Plies since the last null move (repetition look-back stops there).
    plies_from_null: u16,
    /// For each colour, how many plies back its moves have given check without interruption,
    /// counted in plies (2 per checking move), as the perpetual-check rule needs.
    continuous_check: [u16; 2],
    captured: Option<Piece>,
    last_move: Option<Move>,
    checkers: Bitboard,
    pins: OnceCell<Pins>,
    /// For the side to move: the squares from which a piece would attack the enemy king, by
    /// [`check_slot`] (the promoted minor pieces share gold's slot; horse and dragon add the king's
    /// steps to bishop and rook when read).
    check_squares: OnceCell<[Bitboard; 8]>,
}

/// The pinned and pinning pieces of one position.
#[derive(Clone, Debug)]
struct Pins {
    /// `blockers[c]`: pieces of either colour that alone shield `c`'s king from an enemy slider.
    blockers: [Bitboard; 2],
    /// `pinners[c]`: sliders of colour `c` behind those blockers of the enemy king that belong to
    /// the enemy king's own side.
    pinners: [Bitboard; 2],
}

/// The `check_squares` slot of each kind: its own for pawn..gold, gold's for the promoted minors,
/// bishop's and rook's for horse and dragon (plus the king steps, added when read). King: none (0).
const CHECK_SLOT: [usize; PieceType::NUM] = [0, 1, 2, 3, 4, 5, 6, 7, 0, 7, 7, 7, 7, 5, 6];

#[inline(always)]
fn check_slot(pt: PieceType) -> usize {
    CHECK_SLOT[pt.index()]
}

impl StateInfo {
    fn empty() -> StateInfo {
        StateInfo {
            board_key: 0,
            hand_key: 0,
            structure: StructureKeys::default(),
            hands: [Hand::EMPTY; 2],
            plies_from_null: 0,
            continuous_check: [0; 2],
            captured: None,
            last_move: None,
            checkers: Bitboard::EMPTY,
            pins: OnceCell::new(),
            check_squares: OnceCell::new(),
        }
    }
}

pub struct Position {
    board: [Option<Piece>; 81],
    by_color: [Bitboard; 2],
    /// Indexed by `PieceType` number; index 0 is unused.
    by_type: [Bitboard; PieceType::NUM],
    /// Gold and the promoted minor pieces (which move like gold), both colours.
    golds: Bitboard,
    king_square: [Option<Square>; 2],
    side_to_move: Color,
    /// The number of the ply about to be played (the SFEN move number; 1 at the start).
    game_ply: u32,
    /// One entry per ply since the root position was set; `states[cur]` is the current state.
    /// Entries past `cur` are stale slots kept for reuse: `do_move` writes the next state in
    /// place, field by field, instead of building it elsewhere and copying it in.
    states: Vec<StateInfo>,
    cur: usize,
}

impl Clone for Position {
    /// Copies the position with its history up to the current state (stale slots are dropped).
    fn clone(&self) -> Position {
        let mut states = Vec::with_capacity(self.states.capacity().max(self.cur + 64));
        states.extend_from_slice(&self.states[..=self.cur]);
        Position {
            board: self.board,
            by_color: self.by_color,
            by_type: self.by_type,
            golds: self.golds,
            king_square: self.king_square,
            side_to_move: self.side_to_move,
            game_ply: self.game_ply,
            states,
            cur: self.cur,
        }
    }
}
use std::cell::OnceCell;

impl Position {
    /// The start position.
    pub fn startpos() -> Position {
        Position::from_sfen(STARTPOS).expect("the start position is valid")
    }

    fn empty() -> Position {
        let mut states = Vec::with_capacity(256);
        states.push(StateInfo::empty());
        Position {
            board: [None; 81],
            by_color: [Bitboard::EMPTY; 2],
            by_type: [Bitboard::EMPTY; PieceType::NUM],
            golds: Bitboard::EMPTY,
            king_square: [None; 2],
            side_to_move: Color::Black,
            game_ply: 1,
            states,
            cur: 0,
        }
    }

    // ------------------------------------------------------------------ accessors

    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side_to_move
    }

    #[inline(always)]
    pub fn piece_on(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    #[inline(always)]
    pub fn hand(&self, c: Color) -> Hand {
        self.st().hands[c.index()]
    }

    #[inline(always)]
    pub fn pieces(&self, c: Color) -> Bitboard {
        self.by_color[c.index()]
    }

    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// Pieces of kind `pt`, both colours. Gold means gold only; see [`Position::golds`].
    #[inline(always)]
    pub fn pieces_of(&self, pt: PieceType) -> Bitboard {
        self.by_type[pt.index()]
    }

    #[inline(always)]
    pub fn pieces_cp(&self, c: Color, pt: PieceType) -> Bitboard {
        self.by_type[pt.index()] & self.by_color[c.index()]
    }

    /// Gold-movers (gold, promoted pawn, lance, knight, silver) of colour `c`.
    #[inline(always)]
    pub fn golds(&self, c: Color) -> Bitboard {
        self.golds & self.by_color[c.index()]
    }

    /// Bishops and horses of colour `c` (the diagonal sliders).
    #[inline(always)]
    pub fn bishop_sliders(&self, c: Color) -> Bitboard {
        (self.by_type[PieceType::Bishop.index()] | self.by_type[PieceType::Horse.index()])
            & self.by_color[c.index()]
    }

    /// Rooks and dragons of colour `c` (the orthogonal sliders).
    #[inline(always)]
    pub fn rook_sliders(&self, c: Color) -> Bitboard {
        (self.by_type[PieceType::Rook.index()] | self.by_type[PieceType::Dragon.index()])
            & self.by_color[c.index()]
    }

    #[inline(always)]
    pub fn king_square(&self, c: Color) -> Option<Square> {
        self.king_square[c.index()]
    }

    /// The number of the ply about to be played (1 before the first move of the game).
    #[inline(always)]
    pub fn game_ply(&self) -> u32 {
        self.game_ply
    }

    /// Sets the game ply (the SFEN move number of the current position).
    pub fn set_game_ply(&mut self, ply: u32) {
        self.game_ply = ply.max(1);
    }

    /// The 64-bit hash key of the position (board, hands, side to move).
    #[inline(always)]
    pub fn key(&self) -> u64 {
        let st = self.st();
        st.board_key ^ st.hand_key
    }

    /// The hashes of the pawns, the minor pieces and each colour's other pieces (for the
    /// search's structure histories).
    #[inline(always)]
    pub fn structure_keys(&self) -> &StructureKeys {
        &self.st().structure
    }

    /// The key the position will have after the (pseudo-legal) move `m`, computed without making
    /// it: the search prefetches the table entry of the child before the move is made.
    #[inline]
    pub fn key_after(&self, m: Move) -> u64 {
        let us = self.side_to_move;
        let st = self.st();
        let to = m.to();
        let mut board_key = st.board_key ^ zobrist::SIDE;
        let mut hand_key = st.hand_key;
        if m.is_drop() {
            let pt = m.dropped_piece();
            hand_key = hand_key.wrapping_sub(zobrist::hand(us, pt));
            board_key ^= zobrist::psq(Piece::new(us, pt), to);
        } else {
            let from = m.from();
            let Some(pc) = self.board[from.index()] else {
                return board_key ^ hand_key;
            };
            if let Some(cap) = self.board[to.index()] {
                board_key ^= zobrist::psq(cap, to);
                hand_key = hand_key.wrapping_add(zobrist::hand(us, cap.piece_type().unpromote()));
            }
            let moved = if m.is_promotion() { Piece::new(us, pc.piece_type().promote()) } else { pc };
            board_key ^= zobrist::psq(pc, from) ^ zobrist::psq(moved, to);
        }
        board_key ^ hand_key
    }

    /// The key of the board and side to move only (hands excluded).
    #[inline(always)]
    pub fn board_key(&self) -> u64 {
        self.st().board_key
    }

    #[inline(always)]
    pub fn checkers(&self) -> Bitboard {
        self.st().checkers
    }

    #[inline(always)]
    pub fn in_check(&self) -> bool {
        self.st().checkers.is_nonempty()
    }

    /// Pieces of either colour that alone stand between `c`'s king and an enemy slider.
    #[inline(always)]
    pub fn blockers_for_king(&self, c: Color) -> Bitboard {
        self.pins().blockers[c.index()]
    }

    /// `c`'s own pieces pinned to `c`'s king.
    #[inline(always)]
    pub fn pinned(&self, c: Color) -> Bitboard {
        self.pins().blockers[c.index()] & self.by_color[c.index()]
    }

    /// Sliders of colour `c` that pin an enemy piece to the enemy king.
    #[inline(always)]
    pub fn pinners(&self, c: Color) -> Bitboard {
        self.pins().pinners[c.index()]
    }

    /// Squares from which a piece of kind `pt` of the side to move would attack the enemy king.
    #[inline(always)]
    pub fn check_squares(&self, pt: PieceType) -> Bitboard {
        let b = self.check_square_table()[check_slot(pt)];
        match (pt, self.king_square(!self.side_to_move)) {
            (PieceType::Horse | PieceType::Dragon, Some(k)) => b | attacks::king(k),
            _ => b,
        }
    }

    /// The last move made (None at the root or after a null move).
    #[inline(always)]
    pub fn last_move(&self) -> Option<Move> {
        self.st().last_move
    }

    /// The piece the last move captured (as it stood on the board), if any.
    #[inline(always)]
    pub fn captured_piece(&self) -> Option<Piece> {
        self.st().captured
    }

    /// Number of moves made since the position was set up (the length of the state stack minus one).
    #[inline(always)]
    pub fn moves_played(&self) -> usize {
        self.cur
    }

    #[inline(always)]
    fn st(&self) -> &StateInfo {
        &self.states[self.cur]
    }

    /// The state `back` plies before the current one (`back <= moves_played()`).
    #[inline(always)]
    fn state_back(&self, back: usize) -> &StateInfo {
        &self.states[self.cur - back]
    }

    // ------------------------------------------------------------------ attacks

    /// Pieces of colour `c` attacking `sq`, with the board occupied as `occ`.
    #[inline]
    pub fn attackers_to(&self, c: Color, sq: Square, occ: Bitboard) -> Bitboard {
        let them = !c;
        let t = &self.by_type;
        ((attacks::pawn(them, sq) & t[PieceType::Pawn.index()])
            | (attacks::knight(them, sq) & t[PieceType::Knight.index()])
            | (attacks::silver(them, sq) & t[PieceType::Silver.index()])
            | (attacks::gold(them, sq) & self.golds)
            | (attacks::king(sq)
                & (t[PieceType::King.index()] | t[PieceType::Horse.index()] | t[PieceType::Dragon.index()]))
            | (attacks::lance(them, sq, occ) & t[PieceType::Lance.index()])
            | (attacks::bishop(sq, occ) & (t[PieceType::Bishop.index()] | t[PieceType::Horse.index()]))
            | (attacks::rook(sq, occ) & (t[PieceType::Rook.index()] | t[PieceType::Dragon.index()])))
            & self.by_color[c.index()]
    }

    /// Pieces of both colours attacking `sq` with the board occupied as `occ`.
    #[inline]
    pub fn attackers_to_both(&self, sq: Square, occ: Bitboard) -> Bitboard {
        self.attackers_to(Color::Black, sq, occ) | self.attackers_to(Color::White, sq, occ)
    }

    /// Whether any piece of colour `c` attacks `sq` (current occupancy).
    #[inline]
    pub fn is_attacked(&self, c: Color, sq: Square) -> bool {
        self.is_attacked_with(c, sq, self.occupied(), Bitboard::EMPTY)
    }

    /// Whether a piece of colour `c` other than those on `removed` attacks `sq` with the board
    /// occupied as `occ`: `attackers_to(c, sq, occ).and_not(removed).is_nonempty()`, answered
    /// sooner. The stepping pieces are tested first (table lookups), and a slider's attack is
    /// computed only when a slider of that kind stands on its empty-board lines through `sq`.
    #[inline]
    pub fn is_attacked_with(&self, c: Color, sq: Square, occ: Bitboard, removed: Bitboard) -> bool {
        let them = !c;
        let t = &self.by_type;
        let ours = self.by_color[c.index()].and_not(removed);
        let steppers = (attacks::pawn(them, sq) & t[PieceType::Pawn.index()])
            | (attacks::knight(them, sq) & t[PieceType::Knight.index()])
            | (attacks::silver(them, sq) & t[PieceType::Silver.index()])
            | (attacks::gold(them, sq) & self.golds)
            | (attacks::king(sq)
                & (t[PieceType::King.index()] | t[PieceType::Horse.index()] | t[PieceType::Dragon.index()]));
        if (steppers & ours).is_nonempty() {
            return true;
        }
        let rooks = (t[PieceType::Rook.index()] | t[PieceType::Dragon.index()]) & ours;
        if (attacks::rook_pseudo(sq) & rooks).is_nonempty() && (attacks::rook(sq, occ) & rooks).is_nonempty()
        {
            return true;
        }
        let bishops = (t[PieceType::Bishop.index()] | t[PieceType::Horse.index()]) & ours;
        if (attacks::bishop_pseudo(sq) & bishops).is_nonempty()
            && (attacks::bishop(sq, occ) & bishops).is_nonempty()
        {
            return true;
        }
        let lances = t[PieceType::Lance.index()] & ours;
        (attacks::lance_pseudo(them, sq) & lances).is_nonempty()
            && (attacks::lance(them, sq, occ) & lances).is_nonempty()
    }

    /// Sliders of colour `attacker` aimed at `ksq` and the pieces that alone block them:
    /// returns (blockers, pinners), where pinners are the sliders whose single blocker belongs to
    /// the side of the king on `ksq` (colour `!attacker`).
    fn slider_blockers(&self, attacker: Color, ksq: Square) -> (Bitboard, Bitboard) {
        let t = &self.by_type;
        let snipers = ((attacks::rook_pseudo(ksq)
            & (t[PieceType::Rook.index()] | t[PieceType::Dragon.index()]))
            | (attacks::bishop_pseudo(ksq) & (t[PieceType::Bishop.index()] | t[PieceType::Horse.index()]))
            | (attacks::lance_pseudo(!attacker, ksq) & t[PieceType::Lance.index()]))
            & self.by_color[attacker.index()];
        let occ = self.occupied();
        let own = self.by_color[(!attacker).index()];
        let mut blockers = Bitboard::EMPTY;
        let mut pinners = Bitboard::EMPTY;
        for s in snipers {
            let b = attacks::between(ksq, s) & occ;
            if b.is_nonempty() && !b.more_than_one() {
                blockers |= b;
                if (b & own).is_nonempty() {
                    pinners.set(s);
                }
            }
        }
        (blockers, pinners)
    }

    /// The pins of the current position, computed on first use.
    #[inline(always)]
    fn pins(&self) -> &Pins {
        self.st().pins.get_or_init(|| self.compute_pins())
    }

    #[inline(never)]
    fn compute_pins(&self) -> Pins {
        let mut pins = Pins { blockers: [Bitboard::EMPTY; 2], pinners: [Bitboard::EMPTY; 2] };
        for c in Color::ALL {
            if let Some(k) = self.king_square(c) {
                let (b, p) = self.slider_blockers(!c, k);
                pins.blockers[c.index()] = b;
                pins.pinners[(!c).index()] = p;
            }
        }
        pins
    }

    /// The check squares of the current position (by [`check_slot`]), computed on first use.
    #[inline(always)]
    fn check_square_table(&self) -> &[Bitboard; 8] {
        self.st().check_squares.get_or_init(|| self.compute_check_squares())
    }

    #[inline(never)]
    fn compute_check_squares(&self) -> [Bitboard; 8] {
        let mut cs = [Bitboard::EMPTY; 8];
        let them = !self.side_to_move;
        if let Some(k) = self.king_square(them) {
            let occ = self.occupied();
            cs[check_slot(PieceType::Pawn)] = attacks::pawn(them, k);
            cs[check_slot(PieceType::Lance)] = attacks::lance(them, k, occ);
            cs[check_slot(PieceType::Knight)] = attacks::knight(them, k);
            cs[check_slot(PieceType::Silver)] = attacks::silver(them, k);
            cs[check_slot(PieceType::Bishop)] = attacks::bishop(k, occ);
            cs[check_slot(PieceType::Rook)] = attacks::rook(k, occ);
            cs[check_slot(PieceType::Gold)] = attacks::gold(them, k);
        }
        cs
    }

    /// The pieces of the side not to move that attack the side to move's king.
    #[inline(always)]
    fn compute_checkers(&self) -> Bitboard {
        let us = self.side_to_move;
        match self.king_square(us) {
            Some(k) => self.attackers_to(!us, k, self.occupied()),
            None => Bitboard::EMPTY,
        }
    }

    // ------------------------------------------------------------------ board edits

    /// Puts a piece on an empty square (setting up a position).
    fn put_piece(&mut self, pc: Piece, sq: Square) {
        self.board[sq.index()] = Some(pc);
        self.xor_bitboards(pc.color(), pc.piece_type(), Bitboard::from_square(sq));
        if pc.piece_type() == PieceType::King {
            self.king_square[pc.color().index()] = Some(sq);
        }
    }

    // ------------------------------------------------------------------ do / undo

    /// Toggles a piece of kind `pt` and colour `c` on the squares of `b` in the bitboards (the
    /// board array and king squares are the caller's business).
    #[inline(always)]
    fn xor_bitboards(&mut self, c: Color, pt: PieceType, b: Bitboard) {
        self.by_color[c.index()] ^= b;
        self.by_type[pt.index()] ^= b;
        if pt.moves_like_gold() {
            self.golds ^= b;
        }
    }

    /// Makes a legal move.
    #[inline]
    pub fn do_move(&mut self, m: Move) {
        let us = self.side_to_move;
        let them = !us;
        let to = m.to();
        let to_bb = Bitboard::from_square(to);
        // What the checks given by `m` are found from (see `checkers_after`): the squares from
        // which the arriving piece checks, and the enemy king's blockers (discovered checks).
        let enemy_blockers = self.pins().blockers[them.index()];
        let direct_checks = self.check_squares(self.moved_piece_after(m).piece_type());
        // Scalars only: the new state is written field by field at the end, straight into its
        // slot (assembling arrays on the stack and copying them costs store-forwarding stalls).
        let prev = &self.states[self.cur];
        let mut board_key = prev.board_key ^ zobrist::SIDE;
        let mut hand_key = prev.hand_key;
        let mut structure = prev.structure;
        let mut own_hand = prev.hands[us.index()];
        let mut captured = None;
        if m.is_drop() {
            let pt = m.dropped_piece();
            let pc = Piece::new(us, pt);
            own_hand.remove(pt);
            hand_key = hand_key.wrapping_sub(zobrist::hand(us, pt));
            board_key ^= zobrist::psq(pc, to);
            structure.toggle(pc, to);
            self.board[to.index()] = Some(pc);
            self.xor_bitboards(us, pt, to_bb);
        } else {
            let from = m.from();
            let from_bb = Bitboard::from_square(from);
            let pc = self.board[from.index()].expect("a move starts on an own piece");
            let pt = pc.piece_type();
            if let Some(cap) = self.board[to.index()] {
                let cap_pt = cap.piece_type();
                self.xor_bitboards(them, cap_pt, to_bb);
                board_key ^= zobrist::psq(cap, to);
                structure.toggle(cap, to);
                let raw = cap_pt.unpromote();
                own_hand.add(raw);
                hand_key = hand_key.wrapping_add(zobrist::hand(us, raw));
                captured = Some(cap);
            }
            let moved = if m.is_promotion() {
                let after = pt.promote();
                self.xor_bitboards(us, pt, from_bb);
                self.xor_bitboards(us, after, to_bb);
                Piece::new(us, after)
            } else {
                self.xor_bitboards(us, pt, from_bb | to_bb);
                if pt == PieceType::King {
                    self.king_square[us.index()] = Some(to);
                }
                pc
            };
            self.board[from.index()] = None;
            self.board[to.index()] = Some(moved);
            board_key ^= zobrist::psq(pc, from) ^ zobrist::psq(moved, to);
            structure.toggle(pc, from);
            structure.toggle(moved, to);
        }
        let checkers = self.checkers_after(m, direct_checks, enemy_blockers);
        self.side_to_move = them;
        self.game_ply += 1;

        let prev = &self.states[self.cur];
        let their_hand = prev.hands[them.index()];
        let their_checks = prev.continuous_check[them.index()];
        let our_checks = if checkers.is_nonempty() { prev.continuous_check[us.index()] + 2 } else { 0 };
        let plies_from_null = prev.plies_from_null + 1;
        self.cur += 1;
        if self.cur == self.states.len() {
            self.states.push(StateInfo::empty());
        }
        let st = &mut self.states[self.cur];
        st.board_key = board_key;
        st.hand_key = hand_key;
        st.structure = structure;
        st.hands[us.index()] = own_hand;
        st.hands[them.index()] = their_hand;
        st.plies_from_null = plies_from_null;
        st.continuous_check[us.index()] = our_checks;
        st.continuous_check[them.index()] = their_checks;
        st.captured = captured;
        st.last_move = Some(m);
        st.checkers = checkers;
        st.pins = OnceCell::new();
        st.check_squares = OnceCell::new();
    }

    /// The enemy pieces giving check after `m` (already made on the board, side to move not yet
    /// switched): a direct check is a lookup in `direct` (the squares from which the arriving
    /// piece checks, in the position before the move), a discovered one a pin-line test against
    /// the enemy king's blockers of that position.
    #[inline(always)]
    fn checkers_after(&self, m: Move, direct: Bitboard, enemy_blockers: Bitboard) -> Bitboard {
        let us = self.side_to_move;
        let Some(k) = self.king_square(!us) else {
            return Bitboard::EMPTY;
        };
        let to = m.to();
        let mut checkers = if direct.contains(to) { Bitboard::from_square(to) } else { Bitboard::EMPTY };
        if !m.is_drop() {
            let from = m.from();
            if enemy_blockers.contains(from) && !attacks::line(from, k).contains(to) {
                // Discovered: a slider of ours on the line through `from` now sees the king.
                let occ = self.occupied();
                let sliders = (attacks::bishop(k, occ) & self.bishop_sliders(us))
                    | (attacks::rook(k, occ) & self.rook_sliders(us))
                    | (attacks::lance(!us, k, occ) & self.pieces_cp(us, PieceType::Lance));
                checkers |= sliders & attacks::line(k, from);
            }
        }
        checkers
    }

    /// Makes a legal move and tells `observer` about it first.
    #[inline]
    pub fn do_move_observed<O: MoveObserver>(&mut self, m: Move, observer: &mut O) {
        observer.on_do_move(self, m);
        self.do_move(m);
        observer.on_moved(self, m);
    }

    /// Takes back `m` and tells `observer`.
    #[inline]
    pub fn undo_move_observed<O: MoveObserver>(&mut self, m: Move, observer: &mut O) {
        self.undo_move(m);
        observer.on_undo_move();
    }

    /// Makes a null move and tells `observer` about it first.
    pub fn do_null_move_observed<O: MoveObserver>(&mut self, observer: &mut O) {
        observer.on_do_null_move(self);
        self.do_null_move();
    }

    /// Takes back a null move and tells `observer`.
    pub fn undo_null_move_observed<O: MoveObserver>(&mut self, observer: &mut O) {
        self.undo_null_move();
        observer.on_undo_null_move();
    }

    /// Takes back `m`, which must be the last move made.
    #[inline]
    pub fn undo_move(&mut self, m: Move) {
        debug_assert!(self.cur > 0, "undo_move without a move");
        debug_assert_eq!(self.states[self.cur].last_move, Some(m));
        let captured = self.states[self.cur].captured;
        self.cur -= 1;
        let them = self.side_to_move;
        let us = !them;
        self.side_to_move = us;
        self.game_ply -= 1;
        let to = m.to();
        let to_bb = Bitboard::from_square(to);
        let moved = self.board[to.index()].expect("the moved piece is on its destination");
        let moved_pt = moved.piece_type();
        if m.is_drop() {
            self.board[to.index()] = None;
            self.xor_bitboards(us, moved_pt, to_bb);
            return;
        }
        let from = m.from();
        let from_bb = Bitboard::from_square(from);
        let original = if m.is_promotion() {
            let pt = moved_pt.unpromote();
            self.xor_bitboards(us, moved_pt, to_bb);
            self.xor_bitboards(us, pt, from_bb);
            Piece::new(us, pt)
        } else {
            self.xor_bitboards(us, moved_pt, from_bb | to_bb);
            if moved_pt == PieceType::King {
                self.king_square[us.index()] = Some(from);
            }
            moved
        };
        self.board[from.index()] = Some(original);
        self.board[to.index()] = captured;
        if let Some(cap) = captured {
            self.xor_bitboards(them, cap.piece_type(), to_bb);
        }
    }

    /// Passes the move to the opponent (for null-move pruning). Not allowed in check.
    pub fn do_null_move(&mut self) {
        debug_assert!(!self.in_check());
        self.do_null_move_unchecked();
    }

    /// Passes the move to the opponent even in check (undone by [`Position::undo_null_move`]).
    /// The position after it is not one of a game: the side that passed may still be in check.
    /// For the mate solver, which asks what its checking piece would do next (see
    /// `mate/futile.rs`).
    pub fn do_pass(&mut self) {
        self.do_null_move_unchecked();
    }

    #[inline(always)]
    fn do_null_move_unchecked(&mut self) {
        let prev = &self.states[self.cur];
        let st = StateInfo {
            board_key: prev.board_key ^ zobrist::SIDE,
            hand_key: prev.hand_key,
            structure: prev.structure,
            hands: prev.hands,
            plies_from_null: 0,
            continuous_check: prev.continuous_check,
            captured: None,
            last_move: None,
            checkers: Bitboard::EMPTY,
            pins: OnceCell::new(),
            check_squares: OnceCell::new(),
        };
        self.side_to_move = !self.side_to_move;
        self.game_ply += 1;
        self.cur += 1;
        if self.cur == self.states.len() {
            self.states.push(st);
        } else {
            self.states[self.cur] = st;
        }
    }

    pub fn undo_null_move(&mut self) {
        debug_assert!(self.cur > 0);
        self.cur -= 1;
        self.side_to_move = !self.side_to_move;
        self.game_ply -= 1;
    }

    // ------------------------------------------------------------------ move properties

    /// The piece a move moves (the dropped piece for drops), before any promotion.
    #[inline(always)]
    pub fn moved_piece(&self, m: Move) -> Piece {
        if m.is_drop() {
            Piece::new(self.side_to_move, m.dropped_piece())
        } else {
            self.board[m.from().index()].expect("a move starts on a piece")
        }
    }

    /// The piece a move leaves on its destination (promoted if it promotes).
    #[inline(always)]
    pub fn moved_piece_after(&self, m: Move) -> Piece {
        let pc = self.moved_piece(m);
        if m.is_promotion() {
            pc.promoted()
        } else {
            pc
        }
    }

    #[inline(always)]
    pub fn is_capture(&self, m: Move) -> bool {
        !m.is_drop() && self.board[m.to().index()].is_some()
    }

    /// Whether the move (pseudo-legal in this position) gives check.
    #[inline]
    pub fn gives_check(&self, m: Move) -> bool {
        match m.kind() {
            MoveKind::Drop { piece, to } => self.check_squares(piece).contains(to),
            MoveKind::Normal { from, to, promote } => {
                let pt = self.board[from.index()].expect("a move starts on a piece").piece_type();
                let after = if promote { pt.promote() } else { pt };
                if self.check_squares(after).contains(to) {
                    return true;
                }
                let them = !self.side_to_move;
                match self.king_square(them) {
                    Some(k) => {
                        self.blockers_for_king(them).contains(from) && !attacks::line(from, k).contains(to)
                    }
                    None => false,
                }
            }
        }
    }

    /// Whether a pseudo-legal move (one from [`GenType`] generation or checked by
    /// [`Position::is_pseudo_legal`]) leaves the mover's own king safe.
    #[inline]
    pub fn is_legal(&self, m: Move) -> bool {
        if m.is_drop() {
            return true;
        }
        let us = self.side_to_move;
        let from = m.from();
        let to = m.to();
        let Some(k) = self.king_square(us) else {
            return true;
        };
        if from == k {
            let occ = self.occupied() ^ Bitboard::from_square(from);
            return !self.is_attacked_with(!us, to, occ, Bitboard::EMPTY);
        }
        !self.blockers_for_king(us).contains(from) || attacks::line(from, k).contains(to)
    }

    /// Whether `m` (any well-formed move, e.g. from the transposition table) is pseudo-legal here:
    /// the move is possible by the rules of piece movement, drops and promotion, and, when in
    /// check, it is an evasion candidate. King safety and pins are left to [`Position::is_legal`].
    pub fn is_pseudo_legal(&self, m: Move) -> bool {
        let us = self.side_to_move;
        let to = m.to();
        let occ = self.occupied();
        let checkers = self.checkers();
        match m.kind() {
            MoveKind::Drop { piece, to } => {
                if !self.hand(us).has(piece) || occ.contains(to) {
                    return false;
                }
                if !movegen::drop_rank_ok(us, piece, to) {
                    return false;
                }
                if checkers.is_nonempty() {
                    let k = self.king_square(us).expect("in check implies a king");
                    if checkers.more_than_one() {
                        return false;
                    }
                    let checker = checkers.lsb().expect("non-empty");
                    if !attacks::between(k, checker).contains(to) {
                        return false;
                    }
                }
                if piece == PieceType::Pawn {
                    if (self.pieces_cp(us, PieceType::Pawn) & crate::bitboard::FILE_BB[to.file() as usize])
                        .is_nonempty()
                    {
                        return false;
                    }
                    if self.is_pawn_drop_mate(to) {
                        return false;
                    }
                }
                true
            }
            MoveKind::Normal { from, to: _, promote } => {
                let Some(pc) = self.board[from.index()] else {
                    return false;
                };
                if pc.color() != us || self.pieces(us).contains(to) {
                    return false;
                }
                if !attacks::piece(pc, from, occ).contains(to) {
                    return false;
                }
                let pt = pc.piece_type();
                if promote {
                    if !pt.can_promote() || !(from.in_promotion_zone(us) || to.in_promotion_zone(us)) {
                        return false;
                    }
                } else if movegen::must_promote(us, pt, to) {
                    return false;
                }
                if checkers.is_nonempty() && pt != PieceType::King {
                    if checkers.more_than_one() {
                        return false;
                    }
                    let k = self.king_square(us).expect("in check implies a king");
                    let checker = checkers.lsb().expect("non-empty");
                    if !(attacks::between(k, checker) | checkers).contains(to) {
                        return false;
                    }
                }
                true
            }
        }
    }

    /// Whether `m` is legal here: pseudo-legal and king-safe.
    pub fn is_legal_move(&self, m: Move) -> bool {
        self.is_pseudo_legal(m) && self.is_legal(m)
    }

    /// Whether dropping a pawn on `to` (empty, in front of the enemy king) would checkmate: such a
    /// drop is illegal (uchifuzume). Only the square directly in front of the enemy king can matter.
    pub fn is_pawn_drop_mate(&self, to: Square) -> bool {
        let us = self.side_to_move;
        let them = !us;
        let Some(k) = self.king_square(them) else {
            return false;
        };
        if attacks::pawn(us, to) != Bitboard::from_square(k) {
            return false;
        }
        let occ = self.occupied() | Bitboard::from_square(to);
        // Can the pawn be captured by a piece other than the king, without exposing the king?
        let defenders = self.attackers_to(them, to, occ).and_not(Bitboard::from_square(k));
        let pinned = self.pinned(them);
        for d in defenders {
            if !pinned.contains(d) || attacks::line(d, k).contains(to) {
                return false;
            }
        }
        // Can the king step to a safe square (capturing the pawn included)?
        let occ_no_king = occ ^ Bitboard::from_square(k);
        let escapes = attacks::king(k).and_not(self.pieces(them));
        for s in escapes {
            if !self.is_attacked_with(us, s, occ_no_king, Bitboard::EMPTY) {
                return false;
            }
        }
        true
    }

    // ------------------------------------------------------------------ consistency

    /// Recomputes every incremental field from the board alone and reports the first mismatch.
    /// Used by the property tests after random do/undo sequences.
    pub fn check_consistency(&self) -> Result<(), String> {
        let mut fresh = Position::empty();
        for sq in Square::ALL {
            if let Some(pc) = self.board[sq.index()] {
                fresh.put_piece(pc, sq);
            }
        }
        fresh.side_to_move = self.side_to_move;
        fresh.states[0].hands = self.st().hands;
        fresh.recompute_keys();
        fresh.states[0].checkers = fresh.compute_checkers();
        let (a, b) = (self.st(), fresh.st());
        let cs = |p: &Position| PieceType::ALL.map(|pt| p.check_squares(pt));
        let checks: [(&str, bool); 11] = [
            ("by_color", self.by_color == fresh.by_color),
            ("by_type", self.by_type == fresh.by_type),
            ("golds", self.golds == fresh.golds),
            ("king_square", self.king_square == fresh.king_square),
            ("board_key", a.board_key == b.board_key),
            ("hand_key", a.hand_key == b.hand_key),
            ("structure", a.structure == b.structure),
            ("checkers", a.checkers == b.checkers),
            (
                "blockers",
                Color::ALL.map(|c| self.blockers_for_king(c))
                    == Color::ALL.map(|c| fresh.blockers_for_king(c)),
            ),
            ("pinners", Color::ALL.map(|c| self.pinners(c)) == Color::ALL.map(|c| fresh.pinners(c))),
            ("check_squares", cs(self) == cs(&fresh)),
        ];
        for (name, ok) in checks {
            if !ok {
                return Err(format!("{name} differs from a recomputation in {}", self.to_sfen()));
            }
        }
        Ok(())
    }

    /// Sets the current state's keys from the board, hands and side to move.
    fn recompute_keys(&mut self) {
        let mut board_key = if self.side_to_move == Color::White { zobrist::SIDE } else { 0 };
        for sq in Square::ALL {
            if let Some(pc) = self.board[sq.index()] {
                board_key ^= zobrist::psq(pc, sq);
            }
        }
        let mut hand_key = 0u64;
        for c in Color::ALL {
            let h = self.hand(c);
            for pt in PieceType::HAND {
                hand_key = hand_key.wrapping_add(zobrist::hand(c, pt).wrapping_mul(h.count(pt) as u64));
            }
        }
        let structure = StructureKeys::of(
            Square::ALL.into_iter().filter_map(|sq| self.board[sq.index()].map(|pc| (pc, sq))),
        );
        let st = &mut self.states[self.cur];
        st.board_key = board_key;
        st.hand_key = hand_key;
        st.structure = structure;
    }
}

#[cfg(test)]
mod tests;
