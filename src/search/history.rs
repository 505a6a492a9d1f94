//! Move-ordering statistics learned during the search.
//!
//! Butterfly history: indexed by side to move and (origin or dropped kind, destination). Updates
//! use the "gravity" rule `h += bonus - h * |bonus| / MAX`, which keeps every entry within
//! `±MAX` and lets old information fade.

use super::params;
use crate::types::{Color, Move};

/// Origins: the 81 squares, then one pseudo-origin per droppable kind.
const ORIGINS: usize = 81 + 7;

/// The (origin, destination) index of a move.
#[inline(always)]
pub fn from_to(m: Move) -> usize {
    let origin = if m.is_drop() { 80 + m.dropped_piece() as usize } else { m.from().index() };
    origin * 81 + m.to().index()
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

pub struct History {
    butterfly: Box<[[i16; ORIGINS * 81]; 2]>,
}

impl Default for History {
    fn default() -> History {
        History { butterfly: Box::new([[0; ORIGINS * 81]; 2]) }
    }
}

impl History {
    pub fn clear(&mut self) {
        for side in self.butterfly.iter_mut() {
            side.fill(0);
        }
    }

    #[inline(always)]
    pub fn butterfly(&self, c: Color, m: Move) -> i32 {
        self.butterfly[c.index()][from_to(m)] as i32
    }

    #[inline(always)]
    pub fn update_butterfly(&mut self, c: Color, m: Move, bonus: i32) {
        gravity(&mut self.butterfly[c.index()][from_to(m)], bonus);
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
}
