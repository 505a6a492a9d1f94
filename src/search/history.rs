//! Move-ordering statistics learned during the search.
//!
//! - Main (butterfly) history: by side to move and (origin or dropped kind, destination).
//! - Low-ply history: the same key, for the first few plies from the root only, where the
//!   ordering matters most and the main history is diluted by the whole tree.
//! - Capture history: by moving piece, destination and captured kind.
//! - Continuation histories: by the (piece, destination) of a move 1 to 6 plies earlier, whether
//!   that move was made in check and whether it captured (or promoted a pawn), and the (piece,
//!   destination) of the move being scored; they learn follow-ups.
//! - Pawn history ([`PawnHistory`]): by a hash of the pawns on the board and the (piece,
//!   destination) of the move: what works against this pawn structure. Unlike the others it is
//!   shared by all the search threads, which learn it together.
//!
//! "Piece" is the piece as it stands after the move (promoted if it promoted); a (piece,
//! destination) pair is a `PieceTo` index, `piece * 81 + square`. Every table uses the gravity
//! rule `h += bonus - h * |bonus| / D` with its own bound `D` (`HistMainMax` and the others in
//! `params.rs`), which keeps every entry within `±D` and lets old information fade.

use super::params;
use crate::types::{Color, Move, Piece, PieceType, Square};
use std::sync::atomic::{AtomicI16, Ordering};

/// Origins: the 81 squares, then one pseudo-origin per droppable kind.
const ORIGINS: usize = 81 + 7;
/// Number of (origin, destination) pairs.
pub const FROM_TO: usize = ORIGINS * 81;
/// Number of (piece, destination) pairs.
pub const PIECE_TO: usize = Piece::NUM * 81;
/// Plies from the root that have a low-ply history.
pub const LOW_PLY: usize = 5;
/// Rows of the pawn history for each search thread (a power of two).
const PAWN_HISTORY_SIZE: usize = 1024;
/// How many plies back the continuation histories look.
pub const CONT_PLIES: usize = 6;
/// Rows of the continuation history: one per (in check, capture, piece, destination) of the
/// earlier move.
const CONT_ROWS: usize = 4 * PIECE_TO;
/// What each table holds after `clear` (a new game): the histories start slightly negative, so
/// that a move that has never been tried ranks below one that has done well.
const CAPTURE_START: i16 = -678;
const CONTINUATION_START: i16 = -523;
const PAWN_START: i16 = -1238;
/// What the low-ply history holds when a search starts (it is about the plies from this root).
const LOW_PLY_START: i16 = 98;
/// Bound of the table-move history.
const TT_MOVE_MAX: i32 = 8192;

/// The (origin, destination) index of a move: the origin is the square of a board move, or 80
/// plus the kind (1..=7) of a drop.
#[inline(always)]
pub fn from_to(m: Move) -> usize {
    if m.is_drop() {
        from_to_drop(m.dropped_piece(), m.to())
    } else {
        from_to_board(m)
    }
}

/// [`from_to`] of a board move.
#[inline(always)]
pub fn from_to_board(m: Move) -> usize {
    debug_assert!(!m.is_drop());
    m.from().index() * 81 + m.to().index()
}

/// [`from_to`] of the drop of a `pt` on `to`.
#[inline(always)]
pub fn from_to_drop(pt: PieceType, to: Square) -> usize {
    (80 + pt as usize) * 81 + to.index()
}

/// The (piece, destination) index of a move by `pc` (the piece after the move) to `to`.
#[inline(always)]
pub fn piece_to(pc: Piece, to: Square) -> usize {
    pc.index() * 81 + to.index()
}

/// The continuation-history key of a move with (piece, destination) index `piece_to`, made in
/// check or not, capturing (or promoting a pawn) or not: the row its follow-ups are learnt in.
#[inline(always)]
pub fn cont_key(in_check: bool, capture: bool, piece_to: usize) -> usize {
    (2 * in_check as usize + capture as usize) * PIECE_TO + piece_to
}

/// Applies a gravity update with bound `max` to one entry.
#[inline(always)]
pub fn gravity(entry: &mut i16, bonus: i32, max: i32) {
    let bonus = bonus.clamp(-max, max);
    let e = *entry as i32;
    *entry = (e + bonus - e * bonus.abs() / max) as i16;
}

/// [`gravity`] on an entry of a table the threads share. The read and the write are separate,
/// so an update another thread makes in between is lost (Stockfish's shared histories take the
/// same trade for speed); the entry still stays within `±max` whatever the interleaving, as
/// each write is a bounded update of a value read from the entry.
#[inline(always)]
pub fn gravity_shared(entry: &AtomicI16, bonus: i32, max: i32) {
    let mut e = entry.load(Ordering::Relaxed);
    gravity(&mut e, bonus, max);
    entry.store(e, Ordering::Relaxed);
}

/// The continuation keys ([`cont_key`]) of the moves 1 to 6 plies before a node, where there
/// were such moves (not null moves, not before the root).
pub type ContKeys = [Option<usize>; CONT_PLIES];

pub struct History {
    main: Table,
    low_ply: Table,
    capture: Table,
    continuation: Table,
    /// How often the table's move has been the best move at non-PV nodes (one entry).
    tt_move: i16,
}

/// A history table: zeroed entries, on large pages where possible.
pub type Table = crate::sys::large_pages::LargeSlice<i16>;

/// A history table the search threads share (relaxed atomic entries; see [`gravity_shared`]).
pub type SharedTable = crate::sys::large_pages::LargeSlice<AtomicI16>;

/// The number of copies of a per-thread table size that tables shared by `threads` threads get:
/// the thread count rounded up to a power of two (so that a masked hash indexes them), or
/// `None` beyond any table size.
pub fn shared_scale(threads: usize) -> Option<usize> {
    threads.max(1).checked_next_power_of_two()
}

impl Default for History {
    fn default() -> History {
        History::try_new().expect("memory for the histories")
    }
}

/// A zeroed table of `len` entries, or `None` when the allocator refuses the memory.
pub fn zeroed(len: usize) -> Option<Table> {
    Table::try_zeroed(len)
}

impl History {
    /// The bytes of one thread's histories, about (each table's pages rounded up): the
    /// continuation history (50 MB) is nearly all of it.
    pub const BYTES: usize = 2 * (2 * FROM_TO + LOW_PLY * FROM_TO + PIECE_TO * PieceType::NUM)
        + 2 * (CONT_ROWS + 1) * PIECE_TO
        + 4 * crate::sys::large_pages::LARGE_PAGE;

    /// Histories as a new game starts them, or `None` when the allocator refuses the memory (the
    /// continuation history takes about 54 MB).
    pub fn try_new() -> Option<History> {
        let mut h = History {
            main: zeroed(2 * FROM_TO)?,
            low_ply: zeroed(LOW_PLY * FROM_TO)?,
            capture: zeroed(PIECE_TO * PieceType::NUM)?,
            // One more row, never updated: the row of "no previous move" (see `cont_row`).
            continuation: zeroed((CONT_ROWS + 1) * PIECE_TO)?,
            tt_move: 0,
        };
        h.clear();
        Some(h)
    }

    /// Forgets everything (a new game).
    pub fn clear(&mut self) {
        self.main.fill(0);
        self.low_ply.fill(LOW_PLY_START);
        self.capture.fill(CAPTURE_START);
        self.continuation.fill(CONTINUATION_START);
        self.tt_move = 0;
    }

    /// The table-move history.
    #[inline(always)]
    pub fn tt_move(&self) -> i32 {
        self.tt_move as i32
    }

    #[inline(always)]
    pub fn update_tt_move(&mut self, bonus: i32) {
        gravity(&mut self.tt_move, bonus, TT_MOVE_MAX);
    }

    /// A new search: the low-ply history was about the plies from the last root.
    pub fn new_search(&mut self) {
        self.low_ply.fill(LOW_PLY_START);
    }

    #[inline(always)]
    pub fn main(&self, c: Color, m: Move) -> i32 {
        self.main_at(History::main_base(c), from_to(m))
    }

    #[inline(always)]
    pub fn update_main(&mut self, c: Color, m: Move, bonus: i32) {
        gravity(&mut self.main[c.index() * FROM_TO + from_to(m)], bonus, params::HistMainMax());
    }

    /// Low-ply history of `m` at `ply` (0 beyond `LOW_PLY`).
    #[inline(always)]
    pub fn low_ply(&self, ply: usize, m: Move) -> i32 {
        if ply < LOW_PLY {
            self.low_ply_at(ply, from_to(m))
        } else {
            0
        }
    }

    #[inline(always)]
    pub fn update_low_ply(&mut self, ply: usize, m: Move, bonus: i32) {
        if ply < LOW_PLY {
            gravity(&mut self.low_ply[ply * FROM_TO + from_to(m)], bonus, params::HistMainMax());
        }
    }

    /// Capture history of `pc` (after the move) taking a `captured` kind on `to`.
    #[inline(always)]
    /// (`None`: a pawn promotion that captures nothing).
    pub fn capture(&self, pc: Piece, to: Square, captured: Option<PieceType>) -> i32 {
        self.capture[capture_index(pc, to, captured)] as i32
    }

    #[inline(always)]
    pub fn update_capture(&mut self, pc: Piece, to: Square, captured: Option<PieceType>, bonus: i32) {
        gravity(&mut self.capture[capture_index(pc, to, captured)], bonus, params::HistCaptureMax());
    }

    /// Continuation history of the move with key `current` after the move with continuation
    /// key `previous` ([`cont_key`]; the row of no move when there was none).
    #[inline(always)]
    pub fn continuation(&self, previous: Option<usize>, current: usize) -> i32 {
        self.cont_at(History::cont_row(previous), current)
    }

    #[inline(always)]
    pub fn update_continuation(&mut self, previous: Option<usize>, current: usize, bonus: i32) {
        if let Some(p) = previous {
            gravity(&mut self.continuation[p * PIECE_TO + current], bonus, params::HistContMax());
        }
    }

    /// The continuation-history row of the previous move with continuation key `previous` (the
    /// row of no move when there was none), for [`History::cont_at`].
    #[inline(always)]
    fn cont_row(previous: Option<usize>) -> usize {
        previous.unwrap_or(CONT_ROWS) * PIECE_TO
    }

    /// The continuation history of the move with key `current` in row `row` (from
    /// [`History::cont_row`]).
    #[inline(always)]
    fn cont_at(&self, row: usize, current: usize) -> i32 {
        debug_assert!(row <= CONT_ROWS * PIECE_TO && current < PIECE_TO);
        // SAFETY: rows come from `cont_row` (at most `CONT_ROWS * PIECE_TO`) and keys are below
        // `PIECE_TO`, so the index is below `(CONT_ROWS + 1) * PIECE_TO`, the table's length.
        unsafe { *self.continuation.get_unchecked(row + current) as i32 }
    }

    /// The main history of the move with (origin, destination) index `ft` (from [`from_to`])
    /// for the side whose row starts at `base` (from [`History::main_base`]).
    #[inline(always)]
    fn main_at(&self, base: usize, ft: usize) -> i32 {
        debug_assert!(base <= FROM_TO && ft < FROM_TO);
        // SAFETY: `main_base` gives 0 or `FROM_TO` and `from_to` is below `FROM_TO`, so the index
        // is below `2 * FROM_TO`, the table's length.
        unsafe { *self.main.get_unchecked(base + ft) as i32 }
    }

    /// The low-ply history of the move with (origin, destination) index `ft` at `ply`, which
    /// must be below `LOW_PLY`.
    #[inline(always)]
    fn low_ply_at(&self, ply: usize, ft: usize) -> i32 {
        self.low_ply[ply * FROM_TO + ft] as i32
    }

    #[inline(always)]
    fn main_base(c: Color) -> usize {
        c.index() * FROM_TO
    }

    /// The main-history row of side `c`, indexed by a move's (origin, destination) ([`from_to`]).
    #[inline(always)]
    pub fn main_entries(&self, c: Color) -> &[i16; FROM_TO] {
        entries(&self.main, History::main_base(c))
    }

    /// The continuation-history row of the previous move with continuation key `previous` (the
    /// row of no move when there was none), indexed by a move's (piece, destination)
    /// ([`piece_to`]).
    #[inline(always)]
    pub fn cont_entries(&self, previous: Option<usize>) -> &[i16; PIECE_TO] {
        entries(&self.continuation, History::cont_row(previous))
    }

    /// The low-ply-history row of `ply` (below `LOW_PLY`), indexed by a move's (origin,
    /// destination).
    #[inline(always)]
    pub fn low_ply_entries(&self, ply: usize) -> &[i16; FROM_TO] {
        entries(&self.low_ply, ply * FROM_TO)
    }
}

/// The `N` entries of `table` from `start`, as an array (indexing it with an index known to be
/// below `N` needs no bounds check).
#[inline(always)]
fn entries<T, const N: usize>(table: &[T], start: usize) -> &[T; N] {
    table[start..start + N].try_into().expect("a row within the table")
}

#[inline(always)]
fn capture_index(pc: Piece, to: Square, captured: Option<PieceType>) -> usize {
    piece_to(pc, to) * PieceType::NUM + captured.map_or(0, |c| c.index())
}

/// The pawn history, shared by the search threads: by a hash of the pawns on the board and
/// the (piece, destination) of a move. `PAWN_HISTORY_SIZE` rows a thread (rounded up to a
/// power of two threads), so that each thread has as many rows as a lone one.
pub struct PawnHistory {
    table: SharedTable,
    /// The number of rows less one (a mask of the hash).
    mask: usize,
}

impl PawnHistory {
    /// The bytes of the pawn history for each thread sharing it (5 MB).
    pub const BYTES_PER_THREAD: usize = 2 * PAWN_HISTORY_SIZE * PIECE_TO;

    /// The pawn history of `threads` threads, as a new game starts it, or `None` when the
    /// allocator refuses the memory (about 5 MB a thread).
    pub fn try_new(threads: usize) -> Option<PawnHistory> {
        let rows = PAWN_HISTORY_SIZE.checked_mul(shared_scale(threads)?)?;
        let h = PawnHistory { table: SharedTable::try_zeroed(rows.checked_mul(PIECE_TO)?)?, mask: rows - 1 };
        h.clear();
        Some(h)
    }

    /// The number of rows.
    pub fn rows(&self) -> usize {
        self.mask + 1
    }

    /// Forgets everything (a new game; no search may be running).
    pub fn clear(&self) {
        for e in self.table.iter() {
            e.store(PAWN_START, Ordering::Relaxed);
        }
    }

    /// The row of the pawn structure `pawns`, for [`PawnHistory::at`].
    #[inline(always)]
    fn row(&self, pawns: u64) -> usize {
        (pawns as usize & self.mask) * PIECE_TO
    }

    /// The pawn history of the move with key `current` in row `row` (from [`PawnHistory::row`]).
    #[inline(always)]
    fn at(&self, row: usize, current: usize) -> i32 {
        debug_assert!(row <= self.mask * PIECE_TO && row.is_multiple_of(PIECE_TO) && current < PIECE_TO);
        // SAFETY: rows come from this table's `row` (a multiple of `PIECE_TO`, at most
        // `mask * PIECE_TO`) and keys are below `PIECE_TO`, so the index is below
        // `(mask + 1) * PIECE_TO`, the table's length.
        unsafe { self.table.get_unchecked(row + current).load(Ordering::Relaxed) as i32 }
    }

    /// The row of the pawn structure `pawns`, indexed by a move's (piece, destination)
    /// ([`piece_to`]).
    #[inline(always)]
    pub fn entries(&self, pawns: u64) -> &[AtomicI16; PIECE_TO] {
        entries(&self.table, self.row(pawns))
    }

    /// The pawn history of a move with key `current` under the pawn structure `pawns`.
    #[inline(always)]
    pub fn get(&self, pawns: u64, current: usize) -> i32 {
        self.at(self.row(pawns), current)
    }

    #[inline(always)]
    pub fn update(&self, pawns: u64, current: usize, bonus: i32) {
        gravity_shared(&self.table[self.row(pawns) + current], bonus, params::HistPawnMax());
    }

    /// The number of entries learned since the last clear (tests).
    #[cfg(test)]
    pub fn learned(&self) -> usize {
        self.table.iter().filter(|e| e.load(Ordering::Relaxed) != PAWN_START).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gravity_stays_bounded() {
        let mut e = 0i16;
        for _ in 0..1000 {
            gravity(&mut e, 50000, params::HistContMax());
        }
        assert!(e as i32 <= params::HistContMax());
        for _ in 0..1000 {
            gravity(&mut e, -50000, params::HistContMax());
        }
        assert!(e as i32 >= -params::HistContMax());
        let d = Move::from_usi("P*5e").unwrap();
        let n = Move::from_usi("1b5e").unwrap();
        assert_ne!(from_to(d), from_to(n));
        assert!(from_to(Move::from_usi("R*9i").unwrap()) < ORIGINS * 81);
    }

    #[test]
    fn tables_index_in_range() {
        let mut h = History::default();
        let pc = Piece::new(Color::White, PieceType::Dragon);
        h.update_capture(pc, Square::Sq99, Some(PieceType::Dragon), 100);
        assert!(h.capture(pc, Square::Sq99, Some(PieceType::Dragon)) > CAPTURE_START as i32);
        assert_eq!(h.capture(pc, Square::Sq99, None), CAPTURE_START as i32);
        let k = piece_to(pc, Square::Sq99);
        assert_eq!(k, PIECE_TO - 1 - (Piece::NUM - 1 - pc.index()) * 81);
        let last = cont_key(true, true, k);
        assert_eq!(last, CONT_ROWS - 1);
        h.update_continuation(Some(last), k, 200);
        assert!(h.continuation(Some(last), k) > CONTINUATION_START as i32);
        assert_eq!(h.continuation(Some(cont_key(true, false, k)), k), CONTINUATION_START as i32);
        h.update_continuation(None, k, 200);
        assert_eq!(h.continuation(None, k), CONTINUATION_START as i32);
        let m = Move::from_usi("R*9i").unwrap();
        h.update_low_ply(LOW_PLY - 1, m, 100);
        assert!(h.low_ply(LOW_PLY - 1, m) > LOW_PLY_START as i32);
        assert_eq!(h.low_ply(LOW_PLY, m), 0);
        h.update_main(Color::White, m, 100);
        assert!(h.main(Color::White, m) > 0 && h.main(Color::Black, m) == 0);
        h.update_tt_move(-500);
        assert!(h.tt_move() < 0);
        h.clear();
        assert_eq!(h.continuation(Some(last), k), CONTINUATION_START as i32);
        assert_eq!(h.continuation(None, k), CONTINUATION_START as i32);
        assert_eq!(h.low_ply(0, m), LOW_PLY_START as i32);
        h.update_low_ply(0, m, 1000);
        h.new_search();
        assert_eq!(h.low_ply(0, m), LOW_PLY_START as i32);
        h.clear();
        assert_eq!(h.tt_move(), 0);
    }

    #[test]
    fn the_pawn_history_is_shared_and_sized_by_threads() {
        assert_eq!(shared_scale(0), Some(1));
        assert_eq!(shared_scale(3), Some(4));
        assert_eq!(shared_scale(usize::MAX), None);
        let one = PawnHistory::try_new(1).unwrap();
        assert_eq!(one.rows(), PAWN_HISTORY_SIZE);
        let h = PawnHistory::try_new(5).unwrap();
        assert_eq!(h.rows(), 8 * PAWN_HISTORY_SIZE);
        let k = piece_to(Piece::new(Color::White, PieceType::Dragon), Square::Sq99);
        assert_eq!(h.get(u64::MAX, k), PAWN_START as i32);
        // Two pawn structures a lone thread's table would put in one row are apart here.
        let a = 5u64;
        let b = a + PAWN_HISTORY_SIZE as u64;
        assert_eq!(one.row(a), one.row(b));
        assert_ne!(h.row(a), h.row(b));
        // Threads update it through a shared reference.
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..100 {
                        h.update(a, k, 300);
                    }
                });
            }
        });
        let v = h.get(a, k);
        assert!(v > PAWN_START as i32 && v <= params::HistPawnMax());
        assert_eq!(h.get(b, k), PAWN_START as i32);
        h.clear();
        assert_eq!(h.get(a, k), PAWN_START as i32);
    }
}
