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
