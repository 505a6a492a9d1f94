//! Command-line tools built on the engine (front ends, at the top of the layers).

pub mod gensfen;
