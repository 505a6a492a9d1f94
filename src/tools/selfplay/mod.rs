//! Self-play, shared by the tools that play engine games against themselves: gensfen (training
//! data), tune (the Texel tuner's games) and openings (the match openings).
//!
//! - `game`: what a game is (start, searched plies, outcome, how it ended).
//! - `opening`: where games start: the opening book lines, random moves, the seeded generator.
//! - `player`: one game played by the search with the given settings.

pub mod game;
pub mod opening;
pub mod player;
