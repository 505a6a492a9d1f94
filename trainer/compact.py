"""A compact form of an `nn.bin` from which the exact file can be rebuilt (numpy only).

A net's bytes are almost all transformer rows (64 MB of the 64 MB of a halfkp_256 net). Every
feature set numbers its rows `r = plane * bucket + i`: a king bucket (the own king's square,
mirrored to files 1-5 in the mirrored sets) and a within-plane index `i` (the BonaPiece, mirrored
and folded as the set does; `nnbin.FeatureSet`). A net trained with the factorised transformer
has `ft_weight[r] = P[i] + D[r]`, where the king-independent factor `P` is shared by every king
bucket and the king-specific part `D` starts at zero and stays exactly zero for king squares (and
piece placements) the data never shows, and small elsewhere. So the compact form stores `P` once
and only the non-zero residuals `ft_weight - P`.

Version 1, the halfkp_256x2-32-32 shape only (plane 1548, 125388 rows, FT 256):

    "HNNC"  u32 format version (1)
    u32 n, n bytes   the nn.bin bytes before the transformer weights (header, transformer hash,
                     ft_bias), verbatim
    u32 n, n bytes   the nn.bin bytes after them (network hash and the three layers), verbatim
    varints          P: 1548 x 256 values, row-major
    bitmap           125388 bits (low bit first): which transformer rows have a residual
    masks            per marked row, in order: 32 bytes, the 256-bit mask of its non-zero residuals
    varints          the non-zero residuals, row by row, column by column

Version 2, any shape whose feature set the engine evaluates: the same, with the shape named after
the version, and the sizes the shape's (`plane` and `inputs` of its feature set, `FT` its width):

    "HNNC"  u32 format version (2)
    u32 n, n bytes   the shape's short name in ASCII, e.g. `halfkahm2_256x2-32-32`
    u32 n, n bytes   the nn.bin prefix, as in version 1 (exactly 12 + its string + 4 + 2 FT bytes)
    u32 n, n bytes   the nn.bin suffix, as in version 1 (exactly 4 + the shape's layer bytes)
    varints          P: plane x FT values, row-major (plane: 1548 in halfkp and halfkpvm, 1629 in
                     halfka2 and halfkahm2, 1710 in halfka1, halfkahm1 and kp)
    bitmap           inputs bits: which transformer rows have a residual
    masks            per marked row, in order: FT / 8 bytes, the FT-bit mask of its non-zero residuals
    varints          the non-zero residuals, row by row, column by column

Row `r`'s factor row is `r % plane` (in kp, with a single bucket, P is the whole table and no
row has a residual). `encode` writes version 1 for the classic shape (the embedded net's form)
and version 2 for every other; `decode` reads both.

Varints are LEB128 (7 bits a byte, low group first, high bit = more) of zigzag-coded integers
(`(v << 1) ^ (v >> 31)`). A rebuilt row is `P[r % plane] + residual` as i16. `write` takes `P`
from the trainer (the quantised factor); for any other net it uses the per-index median over the
king buckets, which still rebuilds exactly.

    python -m trainer.compact pack NN_BIN OUT.hnnc     (P: median over the king buckets)
    python -m trainer.compact unpack IN.hnnc NN_BIN
    python -m trainer.compact fnv1a FILE               (the 64-bit FNV-1a fingerprint, in hex, of
                                                        a file, or of the nn.bin an .hnnc stands for)
"""

import os
import sys

import numpy as np

from . import nnbin

MAGIC = b"HNNC"
FORMAT_VERSION = 2  # the newest; version 1 is the classic shape's
CLASSIC_VERSION = 1
MAX_NAME = 64  # the longest shape name a version-2 file may give


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
    when the data ends early or a varint is longer than ten bytes."""
    if count == 0:
        return np.zeros(0, np.int64), off
    chunk = np.frombuffer(buf, np.uint8, offset=off)
    ends = np.nonzero(chunk < 0x80)[0]
    if len(ends) < count:
        raise ValueError("compact net: varints end early")
    stop = int(ends[count - 1]) + 1
    starts = np.concatenate([[0], ends[: count - 1] + 1])
    if np.any(np.diff(np.concatenate([starts, [stop]])) > 10):
        raise ValueError("compact net: a varint is longer than 64 bits")
    b = chunk[:stop].astype(np.uint64)
    group_pos = np.arange(stop) - np.repeat(starts, np.diff(np.concatenate([starts, [stop]])))
    vals = np.add.reduceat((b & np.uint64(0x7F)) << (np.uint64(7) * group_pos.astype(np.uint64)), starts)
    return _unzigzag(vals), off + stop


def _buckets(shape):
    return shape.inputs // shape.plane


def median_p(ft_weight, shape=nnbin.CLASSIC, chunk=128):
    """The per-index median over the king buckets, (plane, FT) int32."""
    w = np.asarray(ft_weight).reshape(_buckets(shape), shape.plane, shape.ft)
    out = np.empty((shape.plane, shape.ft), np.int32)
    for lo in range(0, shape.plane, chunk):
        out[lo : lo + chunk] = np.median(w[:, lo : lo + chunk], axis=0).round()
    return out


def encode(net: nnbin.QuantNet, p=None, version=None):
    """The compact bytes of `net` with factor `p` ((plane, FT) ints; default: `median_p`), in
    `version` (default: 1 for the classic shape, 2 for any other)."""
    net.check()
    shape = net.shape
    version = version or (CLASSIC_VERSION if shape == nnbin.CLASSIC else FORMAT_VERSION)
    if version == CLASSIC_VERSION and shape != nnbin.CLASSIC:
        raise ValueError(f"compact format version 1 holds only {nnbin.CLASSIC} nets, not {shape}")
    if version not in (CLASSIC_VERSION, FORMAT_VERSION):
        raise ValueError(f"no compact format version {version}")
    p = median_p(net.ft_weight, shape) if p is None else np.asarray(p, np.int32)
    if p.shape != (shape.plane, shape.ft):
        raise ValueError(f"factor of shape {p.shape}, expected {(shape.plane, shape.ft)}")
    prefix, suffix = nnbin.transformer_prefix(net), nnbin.transformer_suffix(net)
    parts = [MAGIC, nnbin._u32(version)]
    if version == FORMAT_VERSION:
        name = str(shape).encode()
        parts += [nnbin._u32(len(name)), name]
    parts += [nnbin._u32(len(prefix)), prefix, nnbin._u32(len(suffix)), suffix, varints(p).tobytes()]
    rows, masks, vals = [], [], []
    for b in range(_buckets(shape)):
        resid = np.asarray(net.ft_weight[b * shape.plane : (b + 1) * shape.plane], np.int32) - p
        marked = np.any(resid != 0, axis=1)
        rows.append(marked)
        r = resid[marked]
        m = r != 0
        masks.append(np.packbits(m, axis=1, bitorder="little").tobytes())
        vals.append(r[m])
    parts.append(np.packbits(np.concatenate(rows), bitorder="little").tobytes())
    parts += masks
    parts.append(varints(np.concatenate(vals)).tobytes())
    return b"".join(parts)


def decode(buf):
    """The exact `nn.bin` bytes of a compact net (version 1 or 2). Raises ValueError on
    malformed input."""
    buf = bytes(buf)
    if buf[:4] != MAGIC:
        raise ValueError("not a compact Hayate net (magic)")
    off = 4

    def chunk(what, limit=None):
        nonlocal off
        if off + 4 > len(buf):
            raise ValueError(f"compact net: truncated in the {what}")
        n = int.from_bytes(buf[off : off + 4], "little")
        if off + 4 + n > len(buf) or (limit is not None and n > limit):
            raise ValueError(f"compact net: the {what} ({n} bytes) is longer than the data")
        off += 4 + n
        return buf[off - n : off]

    if len(buf) < 8:
        raise ValueError("compact net: truncated in the header")
    version = int.from_bytes(buf[4:8], "little")
    off = 8
    if version == CLASSIC_VERSION:
        shape = nnbin.CLASSIC
    elif version == FORMAT_VERSION:
        name = chunk("shape name", MAX_NAME)
        try:
            shape = nnbin.Shape.from_name(name.decode("ascii"))
        except (UnicodeDecodeError, ValueError) as e:
            raise ValueError(f"compact net: not a shape: {name!r}") from e
    else:
        raise ValueError(f"unknown compact net version {version}")
    prefix, suffix = chunk("nn.bin prefix"), chunk("nn.bin suffix")
    if version == FORMAT_VERSION:
        arch = int.from_bytes(prefix[8:12], "little") if len(prefix) >= 12 else -1
        if len(prefix) != 16 + 2 * shape.ft + arch or len(suffix) != 4 + shape.layer_bytes():
            raise ValueError(f"compact net: the nn.bin prefix or suffix is not that of a {shape} net")
    plane, ft = shape.plane, shape.ft
    p, off = read_varints(buf, off, plane * ft)
    p = p.reshape(plane, ft)
    nbitmap = (shape.inputs + 7) // 8
    if off + nbitmap > len(buf):
        raise ValueError("compact net: row bitmap ends early")
    rows = np.unpackbits(np.frombuffer(buf, np.uint8, nbitmap, off), bitorder="little")[: shape.inputs]
    off += nbitmap
    marked = np.nonzero(rows)[0]
    nmask = ft // 8 * len(marked)
    if off + nmask > len(buf):
        raise ValueError("compact net: masks end early")
    masks = np.unpackbits(np.frombuffer(buf, np.uint8, nmask, off), bitorder="little")
    masks = masks.reshape(len(marked), ft).astype(bool)
    off += nmask
    vals, off = read_varints(buf, off, int(masks.sum()))
    if off != len(buf):
        raise ValueError("compact net: trailing bytes")
    start = np.concatenate([[0], np.cumsum(masks.sum(axis=1))])  # each marked row's first value
    out = np.empty((shape.inputs, ft), "<i2")
    for b in range(_buckets(shape)):
        lo, hi = b * plane, (b + 1) * plane
        j0, j1 = np.searchsorted(marked, [lo, hi])
        w = p.copy()
        sub = w[marked[j0:j1] - lo]
        sub[masks[j0:j1]] += vals[start[j0] : start[j1]]
        w[marked[j0:j1] - lo] = sub
        if w.min() < -32768 or w.max() > 32767:
            raise ValueError("compact net: a rebuilt weight is outside i16")
        out[lo:hi] = w
    return prefix + out.tobytes() + suffix


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
        blob = encode(nnbin.read(src))
        with open(src, "rb") as f:
            if decode(blob) != f.read():  # a header other than the one the trainer writes
                sys.exit(f"{src}: its compact form would not rebuild the exact file")
        with open(dst + ".tmp", "wb") as f:
            f.write(blob)
        os.replace(dst + ".tmp", dst)
    else:
        with open(src, "rb") as f:
            out = decode(f.read())
        with open(dst, "wb") as f:
            f.write(out)


if __name__ == "__main__":
    main()
