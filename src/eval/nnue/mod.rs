//! YaneuraOu-compatible NNUE evaluation: `nn.bin` nets of the halfKP_256x2-32-32 architecture
//! (the format of Suisho5 and most elmo-style NNUE nets). The format, feature numbering and exact
//! arithmetic are specified in `docs/nnue-format.md`; `tests/nnue.rs` proves this implementation
//! against YaneuraOu's own output (`tests/data/nnue/`).
//!
//! Pieces, one file per concept:
//! - [`network`]: reading and checking `nn.bin` ([`Network`], [`NnueError`]).
//! - [`features`]: BonaPiece numbering, HalfKP indices, active lists, per-move deltas.
//! - [`accumulator`]: the transformer accumulators and the incremental stack ([`NnueState`]).
//! - [`layers`]: the affine / clipped-ReLU layers and the exact scalar forward pass.
//! - [`simd`]: the switch between the SIMD kernels (x86-64, WebAssembly) and their scalar twins
//!   ([`Simd`]).
//! - [`testnet`]: the deterministic random test nets (for tests and benchmarks).
//!
//! How the search uses it:
//! ```no_run
//! use hayate::eval::nnue::{Network, NnueState};
//! use hayate::position::{MoveList, Position};
//! use std::sync::Arc;
//!
//! let net = Arc::new(Network::load("eval/nn.bin").expect("loadable net")); // once, shared
//! let mut pos = Position::startpos();
//! let mut nnue = NnueState::new(net, 16); // one per search thread; FV_SCALE 16
//! nnue.reset(&pos); // at every new root
//! let m = MoveList::legal(&pos, false).as_slice()[0];
//! pos.do_move_observed(m, &mut nnue);
//! let v: Option<i32> = nnue.evaluate(&pos); // side to move's view; None without both kings
//! pos.undo_move_observed(m, &mut nnue);
//! # let _ = v;
//! ```

pub mod accumulator;
pub mod compact;
pub mod embedded_net;
pub mod features;
pub mod layers;
pub mod network;
pub mod simd;
pub mod testnet;

pub use accumulator::{evaluate_full, evaluate_full_with, Accumulator, NnueState};
pub use network::{Network, NnueError};
pub use simd::Simd;

/// Number of BonaPieces (`fe_end`): the features per king square.
pub const FE_END: usize = 1548;
/// Number of HalfKP features: 81 king squares times `FE_END`.
pub const NUM_FEATURES: usize = 81 * FE_END;
/// Width of one perspective's transformer output (the accumulator).
pub const FT_OUT: usize = 256;
/// The usual FV_SCALE (Suisho5 wants 24).
pub const DEFAULT_FV_SCALE: i32 = 16;
