"""A compact form of an `nn.bin` from which the exact file can be rebuilt (numpy only).

The 64 MB of a halfKP net are almost all transformer rows `ft_weight[k * 1548 + bp]`. A net trained
with the factorised transformer has `ft_weight[k, bp] = P[bp] + D[k, bp]`, where the piece-square
factor `P` is shared by every king square and the king-specific part `D` starts at zero and stays
exactly zero for king squares (and piece placements) the data never shows, and small elsewhere.
So the compact form stores `P` once and only the non-zero residuals `ft_weight - P`:

    "HNNC"  u32 format version (1)
    u32 n, n bytes   the nn.bin bytes before the transformer weights (header, transformer hash,
                     ft_bias), verbatim
    u32 n, n bytes   the nn.bin bytes after them (network hash and the three layers), verbatim
    varints          P: 1548 x 256 values, row-major
    bitmap           125388 bits (low bit first): which transformer rows have a residual
    masks            per marked row, in order: 32 bytes, the 256-bit mask of its non-zero residuals
    varints          the non-zero residuals, row by row, column by column

Varints are LEB128 (7 bits a byte, low group first, high bit = more) of zigzag-coded integers
(`(v << 1) ^ (v >> 31)`). A rebuilt row is `P[bp] + residual` as i16. `write` takes `P` from the
trainer (the quantised piece-square factor); for any other net it uses the per-BonaPiece median
over the king squares, which still rebuilds exactly.

    python -m trainer.compact pack NN_BIN OUT.hnnc     (P: median over king squares)
    python -m trainer.compact unpack IN.hnnc NN_BIN
    python -m trainer.compact fnv1a FILE               (the 64-bit FNV-1a fingerprint, in hex, of
                                                        a file, or of the nn.bin an .hnnc stands for)
"""

import os
import sys

import numpy as np

from . import nnbin
from .nnbin import FE_END, FT_OUT, NUM_FEATURES

MAGIC = b"HNNC"
FORMAT_VERSION = 1


def _zigzag(v):
    v = v.astype(np.int64)
    return ((v << 1) ^ (v >> 63)).astype(np.uint64)


def _unzigzag(u):
    u = u.astype(np.int64)
    return (u >> 1) ^ -(u & 1)


def varints(values):
    """LEB128 bytes of the zigzag codes of `values` (any integer array)."""
    u = _zigzag(np.asarray(values).ravel())
    n = np.ones(len(u), np.int64)
    for b in range(1, 10):
        n += u >= (np.uint64(1) << np.uint64(7 * b))
    out = np.zeros(int(n.sum()), np.uint8)
    start = np.cumsum(n) - n
    for b in range(int(n.max(initial=1))):
        m = n > b
        byte = (u[m] >> np.uint64(7 * b)) & np.uint64(0x7F)
        byte |= np.where(n[m] > b + 1, np.uint64(0x80), np.uint64(0))
        out[start[m] + b] = byte.astype(np.uint8)
    return out


def read_varints(buf, off, count):
    """(`count` integers decoded from `buf` at `off`, the offset after them). Raises ValueError
    when the data ends early."""
    chunk = np.frombuffer(buf, np.uint8, offset=off)
    ends = np.nonzero(chunk < 0x80)[0]
    if len(ends) < count:
        raise ValueError("compact net: varints end early")
    if count == 0:
        return np.zeros(0, np.int64), off
    stop = int(ends[count - 1]) + 1
    b = chunk[:stop].astype(np.uint64)
    starts = np.concatenate([[0], ends[: count - 1] + 1])
    group_pos = np.arange(stop) - np.repeat(starts, np.diff(np.concatenate([starts, [stop]])))
    vals = np.add.reduceat((b & np.uint64(0x7F)) << (np.uint64(7) * group_pos.astype(np.uint64)), starts)
    return _unzigzag(vals), off + stop


def median_p(ft_weight):
    """The per-BonaPiece median over the king squares (1548, 256) int32."""
    w = np.asarray(ft_weight).reshape(81, FE_END, FT_OUT)
    return np.median(w, axis=0).round().astype(np.int32)


def encode(net: nnbin.QuantNet, p=None):
    """The compact bytes of `net` with piece-square factor `p` ((1548, 256) ints; default:
    `median_p`)."""
    net.check()
    p = median_p(net.ft_weight) if p is None else np.asarray(p, np.int32)
    prefix = (nnbin.header_bytes() + nnbin._u32(nnbin.TRANSFORMER_HASH) + net.ft_bias.astype("<i2").tobytes())
    suffix = nnbin._u32(nnbin.NETWORK_HASH) + net.layers_bytes()
    parts = [MAGIC, nnbin._u32(FORMAT_VERSION), nnbin._u32(len(prefix)), prefix,
             nnbin._u32(len(suffix)), suffix, varints(p).tobytes()]
    resid = net.ft_weight.reshape(81, FE_END, FT_OUT).astype(np.int32) - p[None]
    resid = resid.reshape(NUM_FEATURES, FT_OUT)
    rows = np.any(resid != 0, axis=1)
    parts.append(np.packbits(rows, bitorder="little").tobytes())
    r = resid[rows]
    masks = r != 0
    parts.append(np.packbits(masks, axis=1, bitorder="little").tobytes())
    parts.append(varints(r[masks]).tobytes())
    return b"".join(parts)


def decode(buf):
    """The exact `nn.bin` bytes of a compact net. Raises ValueError on malformed input."""
    buf = bytes(buf)
    if buf[:4] != MAGIC:
        raise ValueError("not a compact Hayate net (magic)")
    if int.from_bytes(buf[4:8], "little") != FORMAT_VERSION:
        raise ValueError("unknown compact net version")
    off = 8
    pieces = []
    for _ in range(2):
        n = int.from_bytes(buf[off : off + 4], "little")
        pieces.append(buf[off + 4 : off + 4 + n])
        off += 4 + n
    prefix, suffix = pieces
    p, off = read_varints(buf, off, FE_END * FT_OUT)
    p = p.reshape(FE_END, FT_OUT)
    nbitmap = (NUM_FEATURES + 7) // 8
    rows = np.unpackbits(np.frombuffer(buf, np.uint8, nbitmap, off), bitorder="little")[:NUM_FEATURES]
    off += nbitmap
    marked = np.nonzero(rows)[0]
    nmask = 32 * len(marked)
    if off + nmask > len(buf):
        raise ValueError("compact net: masks end early")
    masks = np.unpackbits(np.frombuffer(buf, np.uint8, nmask, off), bitorder="little")
    masks = masks.reshape(len(marked), FT_OUT).astype(bool)
    off += nmask
    vals, off = read_varints(buf, off, int(masks.sum()))
    w = np.broadcast_to(p[None], (81, FE_END, FT_OUT)).reshape(NUM_FEATURES, FT_OUT).astype(np.int64)
    sub = w[marked]
    sub[masks] += vals
    w[marked] = sub
    if off != len(buf):
        raise ValueError("compact net: trailing bytes")
    if w.min() < -32768 or w.max() > 32767:
        raise ValueError("compact net: a rebuilt weight is outside i16")
    return prefix + w.astype("<i2").tobytes() + suffix


def write(path, net: nnbin.QuantNet, p=None):
    """Writes the compact form to `path` through a temporary file, so that a run stopped while
    writing leaves the previous epoch's file whole."""
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(encode(net, p))
    os.replace(tmp, path)


def fnv1a(data):
    """The 64-bit FNV-1a hash of `data` (bytes), as the engine's embedded-net test computes it."""
    h = 0xCBF29CE484222325
    prime = 0x100000001B3
    # A plain byte loop (FNV is sequential): about half a minute for a 64 MB net.
    for b in data:
        h = ((h ^ b) * prime) & 0xFFFFFFFFFFFFFFFF
    return h


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) == 2 and argv[0] == "fnv1a":
        with open(argv[1], "rb") as f:
            data = f.read()
        if data[:4] == MAGIC:
            data = decode(data)
        print(f"{fnv1a(data):016x}")
        return
    if len(argv) != 3 or argv[0] not in ("pack", "unpack"):
        sys.exit(__doc__.split("\n\n")[-1])
    cmd, src, dst = argv
    if cmd == "pack":
        write(dst, nnbin.read(src))
    else:
        with open(src, "rb") as f:
            out = decode(f.read())
        with open(dst, "wb") as f:
            f.write(out)


if __name__ == "__main__":
    main()
