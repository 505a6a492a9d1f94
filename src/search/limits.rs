//! What a `go` asks for, as plain data (a front end fills it; `time.rs` turns it into deadlines).

use crate::types::Move;

/// Search limits. Times are in milliseconds; `None` means "not given".
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Limits {
    /// Remaining clock time of black and white.
    pub time: [Option<u64>; 2],
    /// Fischer increment of black and white.
    pub inc: [u64; 2],
    pub byoyomi: u64,
    pub movetime: Option<u64>,
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    pub infinite: bool,
    pub ponder: bool,
    /// Restrict the root to these moves (empty: all).
    pub searchmoves: Vec<Move>,
}

impl Limits {
    /// Whether any clock information was given (a plain `go ponder` carries none).
    pub fn has_clock(&self) -> bool {
        self.time.iter().any(Option::is_some) || self.byoyomi > 0 || self.inc.iter().any(|&i| i > 0)
    }

    /// The same limits with every clock (times, increments, byoyomi, movetime) at most `max` ms.
    pub fn clamped(&self, max: u64) -> Limits {
        Limits {
            time: self.time.map(|t| t.map(|t| t.min(max))),
            inc: self.inc.map(|i| i.min(max)),
            byoyomi: self.byoyomi.min(max),
            movetime: self.movetime.map(|t| t.min(max)),
            ..self.clone()
        }
    }
}
