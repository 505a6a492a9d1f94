//! Small types that forbid invalid states: colours, squares, pieces, hands, moves.

mod color;
mod hand;
mod mv;
mod piece;
mod square;
mod value;

pub use color::Color;
pub use hand::Hand;
pub use mv::{Move, MoveKind};
pub use piece::{Piece, PieceType};
pub use square::Square;
pub use value::*;

/// `Debug` as `Display` (the USI form), so that assertions and logs read as USI.
macro_rules! debug_as_display {
    ($($t:ty),+) => {$(
        impl std::fmt::Debug for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Display::fmt(self, f)
            }
        }
    )+};
}

debug_as_display!(Move, Square);

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::size_of;

    /// The types that forbid invalid states leave their invalid values as a niche: `None` costs
    /// no space.
    #[test]
    fn options_cost_no_space() {
        assert_eq!(size_of::<Option<Square>>(), 1);
        assert_eq!(size_of::<Option<Piece>>(), 1);
        assert_eq!(size_of::<Option<Move>>(), 2);
    }
}
