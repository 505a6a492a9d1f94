//! Hayate: a USI shogi engine.
//!
//! Layers, top to bottom; a module uses only the layers below its own, and no files of a module
//! use each other in a circle (`tools/layers.py` checks both, in `make check`):
//!
//! ```text
//! front ends   usi (the USI protocol on stdin/stdout), csa (a CSA server client), web (USI for a
//!              WebAssembly host: a web page, ShogiHome's web app; over usi), main.rs
//! tools        tools: perft, bench, tune, gensfen, openings (the command line's subcommands;
//!              perft and bench also from USI), selfplay (the games tune, gensfen, openings play)
//! session      engine: position, options, table, threads, NNUE net, opening book, go mate
//! solvers      search (alpha-beta, Lazy SMP), mate (df-pn mate solver)
//! evaluation   eval
//! rules        position
//! tables       attacks, zobrist
//!              bitboard
//!              types
//! platform     sys: the clock, the files and the pauses of a WebAssembly host, cache prefetch,
//!              large pages, the memory left to the process; splitmix (the one small random
//!              generator; it imports nothing)
//! ```
//!
//! Only front ends print to stdout. The engine and everything below it report through values,
//! the search's `Reporter` and the mate runner's `MateReporter`; the command-line tools (gensfen,
//! tune), run from `main.rs` and never from USI, write their progress to stderr themselves. The
//! CSA client (`csa`) drives the same `engine::Engine` as the USI front end.

#![deny(clippy::undocumented_unsafe_blocks)]

pub mod attacks;
pub mod bitboard;
// A CSA client needs sockets and signals, which WebAssembly has not.
#[cfg(not(target_family = "wasm"))]
pub mod csa;
pub mod engine;
pub mod eval;
pub mod mate;
pub mod position;
pub mod search;
pub mod splitmix;
pub mod sys;
pub mod tools;
pub mod types;
pub mod usi;
pub mod web;
pub mod zobrist;
