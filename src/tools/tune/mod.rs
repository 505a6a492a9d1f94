//! Tuning the linear evaluation from data the engine makes itself (`hayate tune`).
//!
//! Two steps: [`selfplay`] plays fast games and keeps quiet positions with the search score and
//! the game result; [`texel`] fits the evaluation's weights to them (Texel's method: minimise the
//! squared difference between a sigmoid of the evaluation and a blend of result and search score).
//! [`commands`] runs both from the command line.

pub mod commands;
pub mod selfplay;
pub mod texel;
