//! YaneuraOu-compatible NNUE evaluation: `nn.bin` nets of every normal shape of YaneuraOu's
//! family, detected when the file loads — feature sets halfkp, kp, halfkpvm, halfkpe9, halfka1,
//! halfkahm1, halfka2, halfkahm2, any transformer width from 16 to 4096 per perspective (a
//! multiple of 16) and any hidden widths up to 1024 — and YaneuraOu's SFNN nets of halfka2 and
//! halfkahm2 with one layer stack or `k3k3` (Suisho 11). The format, feature numbering and exact
//! arithmetic are specified in `docs/nnue-format.md`; `tests/nnue.rs` proves this implementation
//! against YaneuraOu's own output (`tests/data/nnue/`).
//!
//! Pieces, one file per concept:
//! - [`shape`]: a net's shape, the sizes and hashes that follow from it, telling it from a file.
//! - [`network`]: reading and checking `nn.bin` ([`Network`], [`NnueError`]).
//! - [`bona`]: BonaPiece numbering, the pieces of a position, what a move changes.
//! - [`features`]: each feature set's rows from BonaPieces.
//! - [`effects`]: the attack counts on each square that halfkpe9's rows also depend on.
//! - [`accumulator`]: the transformer accumulators and the incremental stack, per shape.
//! - [`refresh_cache`]: the accumulators cached per king square, from which refreshes start.
//! - [`state`]: [`NnueState`], the evaluator of any supported shape.
//! - [`sfnn`]: SFNN nets: their shape, LEB128 blocks and layer stacks.
//! - [`sfnn_pass`]: the SFNN forward pass, AVX2 kernels and their scalar twin.
//! - [`layers`]: the affine / clipped-ReLU layers and the exact scalar forward pass.
//! - [`simd`]: the switch between the SIMD kernels (x86-64, WebAssembly) and their scalar twins
//!   ([`Simd`]).
//! - [`aligned`]: cache-line-aligned, fallibly allocated buffers.
//! - [`testnet`]: the deterministic random test nets (for tests and benchmarks).
//! - [`compact`] and [`embedded_net`]: the compact form of a net (the piece-square factor once,
//!   the non-zero king-specific residuals), and the net that ships inside the binary.
//!
//! How the search uses it:
//! ```no_run
//! use hayate::eval::nnue::{Network, NnueState};
//! use hayate::position::{MoveList, Position};
//! use std::sync::Arc;
//!
//! let net = Arc::new(Network::load("eval/nn.bin").expect("loadable net")); // once, shared
//! let mut pos = Position::startpos();
//! let mut nnue = NnueState::new(net, 16).expect("memory"); // one per search thread; FV_SCALE 16
//! nnue.reset(&pos); // at every new root
//! let m = MoveList::legal(&pos, false).as_slice()[0];
//! pos.do_move_observed(m, &mut nnue);
//! let v: Option<i32> = nnue.evaluate(&pos); // side to move's view; None without both kings
//! pos.undo_move_observed(m, &mut nnue);
//! # let _ = v;
//! ```

pub mod accumulator;
pub mod aligned;
pub mod bona;
pub mod compact;
pub mod effects;
pub mod embedded_net;
pub mod features;
pub mod layers;
pub mod network;
pub mod refresh_cache;
pub mod sfnn;
pub mod sfnn_pass;
pub mod shape;
pub mod simd;
pub mod state;
pub mod testnet;

pub use network::{Network, NnueError};
pub use shape::{FeatureKind, Shape};
pub use simd::Simd;
pub use state::{evaluate_full, evaluate_full_with, Accumulator, NnueState};

/// Number of BonaPieces without the kings (`fe_end`).
pub const FE_END: usize = 1548;
/// The usual FV_SCALE (Suisho5 wants 24).
pub const DEFAULT_FV_SCALE: i32 = 16;
