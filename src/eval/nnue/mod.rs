//! YaneuraOu-compatible NNUE (`nn.bin`, halfKP_256x2-32-32). See `docs` in the issue and
//! `tests/data/nnue/README.md`.
