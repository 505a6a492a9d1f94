"""Hayate's NNUE trainer: PackedSfenValue data -> PyTorch training -> YaneuraOu `nn.bin`.

Modules (one concept each):
- `nnbin`: net shapes (`Shape`, `--arch`) and the `nn.bin` format (hashes, layout, read/write),
  numpy only.
- `psv`: PackedSfenValue records: a vectorised decoder and an encoder, numpy only.
- `features`: feature rows of every feature set exactly as Hayate computes them
  (src/eval/nnue/features.rs).
- `sfen`: a small SFEN reader (tests and tools).
- `quant`: float parameters -> quantised integer net, and both forward passes, numpy only.
- `compact`: a small file from which the exact `nn.bin` can be rebuilt.
- `data`: loading `.bin` files into training arrays.
- `model`: the PyTorch network of any shape (factorised feature transformer).
- `train`: the command line trainer (`python -m trainer.train`).
- `convert`: `hayate tune gen` TSV lines -> PackedSfenValue `.bin`.

Only `model` and `train` import torch; everything the engine-equality test needs is numpy.
"""
