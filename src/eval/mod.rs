//! Evaluation: the embedded default evaluation (no file needed) and YaneuraOu-compatible NNUE.

pub mod nnue;
