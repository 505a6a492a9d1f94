//! Move-ordering statistics learned during the search.
//!
//! - Butterfly history: by side to move and (origin or dropped kind, destination).
//! - Capture history: by moving piece, destination and captured kind.
//! - Continuation histories: by the (piece, destination) of a move 1, 2 and 4 plies earlier and
//!   the (piece, destination) of the move being scored; they learn follow-ups.
//! - Counter moves: the quiet reply that last refuted a (piece, destination).
//!
//! "Piece" is the piece as it stands after the move (promoted if it promoted); a (piece,
//! destination) pair is a `PieceTo` index, `piece * 81 + square`. Updates use the gravity rule
//! `h += bonus - h * |bonus| / MAX`, which keeps every entry within `±MAX` and lets old
//! information fade.

use super::params;
use crate::types::{Color, Move, Piece, PieceType, Square};

/// Origins: the 81 squares, then one pseudo-origin per droppable kind.
const ORIGINS: usize = 81 + 7;
/// Number of (piece, destination) pairs.
pub const PIECE_TO: usize = Piece::NUM * 81;

/// The (origin, destination) index of a move.
#[inline(always)]
pub fn from_to(m: Move) -> usize {
    let origin = if m.is_drop() { 80 + m.dropped_piece() as usize } else { m.from().index() };
    origin * 81 + m.to().index()
}

/// The (piece, destination) index of a move by `pc` (the piece after the move) to `to`.
#[inline(always)]
pub fn piece_to(pc: Piece, to: Square) -> usize {
    pc.index() * 81 + to.index()
}

/// Applies a gravity update to one entry.
#[inline(always)]
pub fn gravity(entry: &mut i16, bonus: i32) {
    let max = params::HistoryMax();
    let bonus = bonus.clamp(-max, max);
    let e = *entry as i32;
    *entry = (e + bonus - e * bonus.abs() / max) as i16;
}

/// The bonus for a move that caused (or the malus for one that failed to cause) a cut-off at
/// `depth`.
#[inline(always)]
pub fn stat_bonus(depth: i32) -> i32 {
    (params::HistoryBonusScale() * depth * depth).min(params::HistoryBonusMax())
}

/// The (piece, destination) keys of the moves 1, 2 and 4 plies before a node, where there were
/// such moves (not null moves, not before the root).
pub type ContKeys = [Option<usize>; 3];

pub struct History {
    butterfly: Box<[[i16; ORIGINS * 81]; 2]>,
    capture: Vec<i16>,
    continuation: Vec<i16>,
    counter: Vec<Option<Move>>,
}

impl Default for History {
    fn default() -> History {
        History::try_new().expect("memory for the histories")
    }
}

/// `len` copies of `value`, or `None` when the allocator refuses the memory.
fn try_filled<T: Clone>(len: usize, value: T) -> Option<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).ok()?;
    v.resize(len, value);
    Some(v)
}

impl History {
    /// Empty histories, or `None` when the allocator refuses the memory (the continuation
    /// history takes about 13 MB).
    pub fn try_new() -> Option<History> {
        Some(History {
            butterfly: Box::new([[0; ORIGINS * 81]; 2]),
            capture: try_filled(PIECE_TO * PieceType::NUM, 0)?,
            continuation: try_filled(PIECE_TO * PIECE_TO, 0)?,
            counter: try_filled(PIECE_TO, None)?,
        })
    }

    pub fn clear(&mut self) {
        for side in self.butterfly.iter_mut() {
            side.fill(0);
        }
        self.capture.fill(0);
        self.continuation.fill(0);
        self.counter.fill(None);
    }

    #[inline(always)]
    pub fn butterfly(&self, c: Color, m: Move) -> i32 {
        self.butterfly[c.index()][from_to(m)] as i32
    }

    #[inline(always)]
    pub fn update_butterfly(&mut self, c: Color, m: Move, bonus: i32) {
        gravity(&mut self.butterfly[c.index()][from_to(m)], bonus);
    }

    /// Capture history of `pc` (after the move) taking a `captured` kind on `to`.
    #[inline(always)]
    pub fn capture(&self, pc: Piece, to: Square, captured: PieceType) -> i32 {
        self.capture[piece_to(pc, to) * PieceType::NUM + captured.index()] as i32
    }

    #[inline(always)]
    pub fn update_capture(&mut self, pc: Piece, to: Square, captured: PieceType, bonus: i32) {
        gravity(&mut self.capture[piece_to(pc, to) * PieceType::NUM + captured.index()], bonus);
    }

    /// Continuation history of the move with key `current` after the move with key `previous`.
    #[inline(always)]
    pub fn continuation(&self, previous: usize, current: usize) -> i32 {
        self.continuation[previous * PIECE_TO + current] as i32
    }

    /// The sum of the continuation histories of `current` after each of `keys`.
    #[inline(always)]
    pub fn continuations(&self, keys: &ContKeys, current: usize) -> i32 {
        keys.iter().flatten().map(|&k| self.continuation(k, current)).sum()
    }

    #[inline]
    pub fn update_continuations(&mut self, keys: &ContKeys, current: usize, bonus: i32) {
        for &k in keys.iter().flatten() {
            gravity(&mut self.continuation[k * PIECE_TO + current], bonus);
        }
    }

    /// The counter move stored for the previous move's key.
    #[inline(always)]
    pub fn counter_move(&self, previous: Option<usize>) -> Option<Move> {
        previous.and_then(|k| self.counter[k])
    }

    #[inline(always)]
    pub fn set_counter_move(&mut self, previous: Option<usize>, m: Move) {
        if let Some(k) = previous {
            self.counter[k] = Some(m);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gravity_stays_bounded() {
        let mut e = 0i16;
        for _ in 0..1000 {
            gravity(&mut e, 5000);
        }
        assert!(e as i32 <= params::HistoryMax());
        for _ in 0..1000 {
            gravity(&mut e, -5000);
        }
        assert!(e as i32 >= -params::HistoryMax());
        let d = Move::from_usi("P*5e").unwrap();
        let n = Move::from_usi("1b5e").unwrap();
        assert_ne!(from_to(d), from_to(n));
        assert!(from_to(Move::from_usi("R*9i").unwrap()) < ORIGINS * 81);
    }

    #[test]
    fn tables_index_in_range() {
        let mut h = History::default();
        let pc = Piece::new(Color::White, PieceType::Dragon);
        h.update_capture(pc, Square::Sq99, PieceType::Dragon, 100);
        assert!(h.capture(pc, Square::Sq99, PieceType::Dragon) > 0);
        let k = piece_to(pc, Square::Sq99);
        assert_eq!(k, PIECE_TO - 1 - (Piece::NUM - 1 - pc.index()) * 81);
        h.update_continuations(&[Some(k), None, Some(0)], k, 200);
        assert!(h.continuations(&[Some(k), None, None], k) > 0);
        h.set_counter_move(Some(k), Move::from_usi("7g7f").unwrap());
        assert_eq!(h.counter_move(Some(k)), Move::from_usi("7g7f"));
        h.clear();
        assert_eq!(h.counter_move(Some(k)), None);
    }
}
