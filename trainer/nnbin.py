"""YaneuraOu's halfKP_256x2-32-32 `nn.bin` (docs/nnue-format.md): constants, read and write.

A quantised net is a `QuantNet`: the integer arrays in file order and shape
(ft_bias i16[256], ft_weight i16[125388][256], b1 i32[32], w1 i8[32][512], b2 i32[32],
w2 i8[32][32], b3 i32[1], w3 i8[1][32]).
"""

from dataclasses import dataclass

import numpy as np

FE_END = 1548  # BonaPieces per king square
NUM_FEATURES = 81 * FE_END  # 125388
FT_OUT = 256
L1_IN = 2 * FT_OUT
HIDDEN = 32
WEIGHT_SHIFT = 6  # hidden sums are shifted right by 6 (weights scaled by 64)
MAX_EVAL = 31753
DEFAULT_FV_SCALE = 16

VERSION = 0x7AF32F16
ARCHITECTURE = (
    "Features=HalfKP(Friend)[125388->256x2],Network="
    "AffineTransform[1<-32](ClippedReLU[32](AffineTransform[32<-32](ClippedReLU[32]("
    "AffineTransform[32<-512](InputSlice[512(0:512)])))))"
)
M32 = 0xFFFFFFFF


def _affine_hash(prev, out):
    return ((0xCC03DAE4 + out) ^ (prev >> 1) ^ (prev << 31)) & M32


def _clipped_relu_hash(prev):
    return (0x538D24C7 + prev) & M32


TRANSFORMER_HASH = (0x5D69D5B9 ^ 1) ^ (2 * FT_OUT)
NETWORK_HASH = _affine_hash(
    _clipped_relu_hash(_affine_hash(_clipped_relu_hash(_affine_hash(0xEC42E90D ^ 512, 32)), 32)), 1
)
FILE_HASH = TRANSFORMER_HASH ^ NETWORK_HASH
CLASSIC_FILE_BYTES = 64_217_066

# (name, dtype, shape) of every array in file order; the two inner hashes sit before
# ft_bias and before b1.
LAYOUT = (
    ("ft_bias", "<i2", (FT_OUT,)),
    ("ft_weight", "<i2", (NUM_FEATURES, FT_OUT)),
    ("b1", "<i4", (HIDDEN,)),
    ("w1", "i1", (HIDDEN, L1_IN)),
    ("b2", "<i4", (HIDDEN,)),
    ("w2", "i1", (HIDDEN, HIDDEN)),
    ("b3", "<i4", (1,)),
    ("w3", "i1", (1, HIDDEN)),
)


@dataclass
class QuantNet:
    ft_bias: np.ndarray
    ft_weight: np.ndarray
    b1: np.ndarray
    w1: np.ndarray
    b2: np.ndarray
    w2: np.ndarray
    b3: np.ndarray
    w3: np.ndarray

    def check(self):
        """Raises ValueError unless every array has the file's dtype and shape."""
        for name, dtype, shape in LAYOUT:
            a = getattr(self, name)
            if a.shape != shape or a.dtype != np.dtype(dtype):
                raise ValueError(f"{name}: {a.dtype}{a.shape}, expected {np.dtype(dtype)}{shape}")

    def layers_bytes(self):
        """The bytes after the network hash (the three affine layers), as in the file."""
        return b"".join(
            np.ascontiguousarray(getattr(self, n), dtype=d).tobytes() for n, d, _ in LAYOUT[2:]
        )


def _u32(v):
    return int(v).to_bytes(4, "little")


def header_bytes():
    arch = ARCHITECTURE.encode()
    return _u32(VERSION) + _u32(FILE_HASH) + _u32(len(arch)) + arch


def write(path, net: QuantNet):
    """Writes `net` as an `nn.bin` YaneuraOu and Hayate load."""
    net.check()
    with open(path, "wb") as f:
        f.write(header_bytes())
        f.write(_u32(TRANSFORMER_HASH))
        f.write(net.ft_bias.astype("<i2").tobytes())
        f.write(np.ascontiguousarray(net.ft_weight, dtype="<i2").tobytes())
        f.write(_u32(NETWORK_HASH))
        f.write(net.layers_bytes())


def read(path, mmap=True):
    """Reads and checks an `nn.bin` (ft_weight is memory-mapped unless `mmap` is False)."""
    raw = np.memmap(path, dtype=np.uint8, mode="r") if mmap else np.fromfile(path, dtype=np.uint8)

    def word(off):
        if off + 4 > len(raw):
            raise ValueError(f"{path}: truncated ({len(raw)} bytes)")
        return int.from_bytes(bytes(raw[off : off + 4]), "little")

    if word(0) != VERSION:
        raise ValueError(f"{path}: not a YaneuraOu NNUE file (version 0x{word(0):08X})")
    if word(4) != FILE_HASH:
        raise ValueError(f"{path}: file hash 0x{word(4):08X} is not halfKP_256x2-32-32")
    off = 12 + word(8)
    expected = off + 4 + 2 * FT_OUT + 2 * NUM_FEATURES * FT_OUT + 4
    expected += 4 * HIDDEN + HIDDEN * L1_IN + 4 * HIDDEN + HIDDEN * HIDDEN + 4 + HIDDEN
    if len(raw) != expected:
        raise ValueError(f"{path}: {len(raw)} bytes, a halfKP_256x2-32-32 net has {expected}")
    arrays = {}
    for name, dtype, shape in LAYOUT:
        if name == "ft_bias":
            if word(off) != TRANSFORMER_HASH:
                raise ValueError(f"{path}: bad transformer hash 0x{word(off):08X}")
            off += 4
        if name == "b1":
            if word(off) != NETWORK_HASH:
                raise ValueError(f"{path}: bad network hash 0x{word(off):08X}")
            off += 4
        n = int(np.prod(shape)) * np.dtype(dtype).itemsize
        arrays[name] = raw[off : off + n].view(dtype).reshape(shape)
        off += n
    return QuantNet(**arrays)
