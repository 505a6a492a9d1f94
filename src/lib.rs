//! Hayate: a USI shogi engine.
//!
//! Layers, each depending only on those below it:
//! `usi` -> `search` -> `eval` / `position` -> `attacks` / `bitboard` -> `types`.

#![deny(clippy::undocumented_unsafe_blocks)]

pub mod attacks;
pub mod bench;
pub mod bitboard;
pub mod eval;
pub mod mate;
pub mod perft;
pub mod position;
pub mod search;
pub mod tools;
pub mod tune;
pub mod types;
pub mod usi;
pub mod zobrist;
