"""YaneuraOu's NNUE `nn.bin` (docs/nnue-format.md): net shapes, hashes, layout, read and write.

A shape is a feature set and three widths, `Shape.from_name("halfkahm2_256x2-32-32")`: the
transformer of `FT` outputs per perspective over the feature set's rows, then `2FT -> H1 -> H2 ->
1`. The trainer handles the feature sets the engine evaluates (`FEATURE_SETS`: halfkp, kp,
halfkpvm, halfka1, halfkahm1, halfka2, halfkahm2) at any widths the engine loads.

A quantised net is a `QuantNet`: its shape and the integer arrays in file order (ft_bias
i16[FT], ft_weight i16[inputs][FT], b1 i32[H1], w1 i8[H1][2FT], b2 i32[H2], w2 i8[H2][H1], b3
i32[1], w3 i8[1][H2]); the file stores each i8 row padded with zeros to a multiple of 32.
"""

import functools
import re
from dataclasses import dataclass, field

import numpy as np

FE_END = 1548  # BonaPieces without the kings
E_KING = FE_END + 81  # 1629: first BonaPiece of the enemy king; with it folded, the plane's size
FE_END2 = FE_END + 2 * 81  # 1710: BonaPieces with both kings on planes of their own
WEIGHT_SHIFT = 6  # hidden sums are shifted right by 6 (weights scaled by 64)
MAX_EVAL = 31753
DEFAULT_FV_SCALE = 16
VERSION = 0x7AF32F16
M32 = 0xFFFFFFFF


@dataclass(frozen=True)
class FeatureSet:
    """A feature set of YaneuraOu's family: a perspective's BonaPiece `bp` with its own king
    on `k` (both oriented) is row `plane * bucket + index` with, when `mirror` and `k >= 45`
    (files 6-9), the king square and every board and king BonaPiece mirrored file-wise
    (`bucket = k'`, 0..44), else `bucket = k` (or 0 in kp, which has no king product); `index`
    is the BonaPiece after mirroring, folded (`bp - 81` for the enemy king) when `fold`. `kings`:
    both kings' BonaPieces are features."""

    name: str
    string_name: str
    hash: int
    plane: int  # rows per king bucket: the within-plane indices
    buckets: int  # king buckets: 81, 45 (mirrored) or 1 (kp)
    mirror: bool
    kings: bool
    fold: bool

    @property
    def inputs(self):
        return self.plane * self.buckets


def _kp_hash():
    p = 0x764CFB4B
    return (0xD3CEE169 ^ ((p << 1) & M32) ^ (p >> 31)) & M32


FEATURE_SETS = {
    fs.name: fs
    for fs in (
        FeatureSet("halfkp", "HalfKP(Friend)", 0x5D69D5B8, FE_END, 81, False, False, False),
        FeatureSet("kp", "K+P", _kp_hash(), FE_END2, 1, False, True, False),
        FeatureSet("halfkpvm", "HalfKP_vm(Friend)", 0x0B6B1D9A, FE_END, 45, True, False, False),
        FeatureSet("halfka1", "HalfKA1(Friend)", 0x5F134CB8, FE_END2, 81, False, True, False),
        FeatureSet("halfkahm1", "HalfKA_hm1(Friend)", 0x7F134CB8, FE_END2, 45, True, True, False),
        FeatureSet("halfka2", "HalfKA2(Friend)", 0x5F234CB8, E_KING, 81, False, True, True),
        FeatureSet("halfkahm2", "HalfKA_hm2(Friend)", 0x7F234CB8, E_KING, 45, True, True, True),
    )
}


def pad32(n):
    """`n` rounded up to a multiple of 32 (the stored width of an i8 weight row)."""
    return (n + 31) // 32 * 32


def _affine_hash(prev, out):
    return ((0xCC03DAE4 + out) ^ (prev >> 1) ^ (prev << 31)) & M32


def _clipped_relu_hash(prev):
    return (0x538D24C7 + prev) & M32


@dataclass(frozen=True)
class Shape:
    """A net's shape: feature set and widths (as the engine's `hayate::eval::nnue::Shape`)."""

    features: FeatureSet
    ft: int
    h1: int
    h2: int

    @staticmethod
    def from_name(text):
        """The shape of a short name such as `halfkp_512x2-8-64` (case-insensitive, `-` or `_`
        between the widths); ValueError for anything else."""
        m = re.fullmatch(r"([a-z0-9]+)_(\d+)x2[-_](\d+)[-_](\d+)", text.strip().lower())
        if not m or m.group(1) not in FEATURE_SETS:
            raise ValueError(f"not a shape: {text!r} (feature sets: {', '.join(FEATURE_SETS)})")
        shape = Shape(FEATURE_SETS[m.group(1)], *(int(g) for g in m.groups()[1:]))
        if not shape.valid():
            raise ValueError(f"{text!r}: FT must be a multiple of 16 in 16..4096, H1 and H2 in 1..1024")
        return shape

    @staticmethod
    def from_architecture(text):
        """The shape an architecture string of the usual form describes, else None."""
        m = re.fullmatch(
            r"Features=(.+?)\[(\d+)->(\d+)x2\],Network=AffineTransform\[1<-(\d+)\]\(ClippedReLU\[\d+\]\("
            r"AffineTransform\[\d+<-(\d+)\]\(ClippedReLU\[\d+\]\(AffineTransform\[\d+<-\d+\]\(.*", text)
        if not m:
            return None
        fs = [f for f in FEATURE_SETS.values() if f.string_name.lower() == m.group(1).lower()]
        if not fs:
            return None
        shape = Shape(fs[0], int(m.group(3)), int(m.group(5)), int(m.group(4)))
        return shape if shape.valid() else None

    def __str__(self):
        return f"{self.features.name}_{self.ft}x2-{self.h1}-{self.h2}"

    def valid(self):
        return 16 <= self.ft <= 4096 and self.ft % 16 == 0 and 1 <= self.h1 <= 1024 and 1 <= self.h2 <= 1024

    @property
    def inputs(self):
        return self.features.inputs

    @property
    def plane(self):
        return self.features.plane

    @property
    def l1_in(self):
        return 2 * self.ft

    def transformer_hash(self):
        return self.features.hash ^ (2 * self.ft)

    def network_hash(self):
        h = _clipped_relu_hash(_affine_hash(0xEC42E90D ^ (2 * self.ft), self.h1))
        h = _clipped_relu_hash(_affine_hash(h, self.h2))
        return _affine_hash(h, 1)

    def file_hash(self):
        return self.transformer_hash() ^ self.network_hash()

    def architecture(self):
        """The architecture string YaneuraOu writes for this shape."""
        f, n, ft, h1, h2, l1 = self.features.string_name, self.inputs, self.ft, self.h1, self.h2, 2 * self.ft
        return (
            f"Features={f}[{n}->{ft}x2],Network=AffineTransform[1<-{h2}](ClippedReLU[{h2}]("
            f"AffineTransform[{h2}<-{h1}](ClippedReLU[{h1}](AffineTransform[{h1}<-{l1}]("
            f"InputSlice[{l1}(0:{l1})])))))"
        )

    def layout(self):
        """(name, dtype, shape, stored columns) of every `QuantNet` array in file order; an i8 row
        is stored padded to `stored columns`."""
        ft, h1, h2 = self.ft, self.h1, self.h2
        return (
            ("ft_bias", "<i2", (ft,), ft),
            ("ft_weight", "<i2", (self.inputs, ft), ft),
            ("b1", "<i4", (h1,), h1),
            ("w1", "i1", (h1, 2 * ft), pad32(2 * ft)),
            ("b2", "<i4", (h2,), h2),
            ("w2", "i1", (h2, h1), pad32(h1)),
            ("b3", "<i4", (1,), 1),
            ("w3", "i1", (1, h2), pad32(h2)),
        )

    def layer_bytes(self):
        """Bytes of the three affine layers (after the network hash)."""
        return 4 * self.h1 + self.h1 * pad32(2 * self.ft) + 4 * self.h2 + self.h2 * pad32(self.h1) + 4 + pad32(self.h2)

    def body_bytes(self):
        """Bytes after the architecture string."""
        return 4 + 2 * self.ft + 2 * self.inputs * self.ft + 4 + self.layer_bytes()

    def file_bytes(self):
        return 12 + len(self.architecture()) + self.body_bytes()


CLASSIC = Shape.from_name("halfkp_256x2-32-32")

# The classic shape's numbers, under the names the trainer has always used.
NUM_FEATURES = CLASSIC.inputs  # 125388
FT_OUT = CLASSIC.ft
L1_IN = CLASSIC.l1_in
HIDDEN = CLASSIC.h1
ARCHITECTURE = CLASSIC.architecture()
TRANSFORMER_HASH = CLASSIC.transformer_hash()
NETWORK_HASH = CLASSIC.network_hash()
FILE_HASH = CLASSIC.file_hash()
CLASSIC_FILE_BYTES = 64_217_066
LAYOUT = tuple((n, d, s) for n, d, s, _ in CLASSIC.layout())

# The shapes of well-known nets (docs/nnue-format.md): where file sizes coincide, these win.
KNOWN = tuple(Shape.from_name(n) for n in (
    "halfkp_256x2-32-32", "halfkp_128x2-32-32", "halfkp_512x2-8-64", "halfkp_512x2-8-96",
    "halfkp_512x2-16-32", "halfkp_768x2-16-64", "halfkp_1024x2-8-32", "halfkp_1024x2-8-64",
    "kp_256x2-32-32", "halfkpvm_256x2-32-32", "halfka1_256x2-32-32", "halfkahm1_256x2-32-32",
    "halfka2_256x2-32-32", "halfkahm2_256x2-32-32", "halfkahm2_512x2-8-64"))
ARRAYS = ("ft_bias", "ft_weight", "b1", "w1", "b2", "w2", "b3", "w3")


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
    shape: Shape = field(default=CLASSIC)

    def check(self):
        """Raises ValueError unless every array has the dtype and shape its `shape` gives."""
        for name, dtype, shape, _ in self.shape.layout():
            a = getattr(self, name)
            if a.shape != shape or a.dtype != np.dtype(dtype):
                raise ValueError(f"{name}: {a.dtype}{a.shape}, expected {np.dtype(dtype)}{shape} ({self.shape})")

    def copy(self):
        return QuantNet(**{n: np.array(getattr(self, n)) for n in ARRAYS}, shape=self.shape)

    def layers_bytes(self):
        """The bytes after the network hash (the three affine layers, rows padded), as in the file."""
        out = []
        for name, dtype, shape, stored in self.shape.layout()[2:]:
            a = np.ascontiguousarray(getattr(self, name), dtype=dtype)
            if len(shape) == 2 and stored != shape[1]:
                a = np.pad(a, ((0, 0), (0, stored - shape[1])))
            out.append(a.tobytes())
        return b"".join(out)


def _u32(v):
    return int(v).to_bytes(4, "little")


def header_bytes(shape=CLASSIC):
    """Version, file hash and architecture string of a file of `shape`."""
    arch = shape.architecture().encode()
    return _u32(VERSION) + _u32(shape.file_hash()) + _u32(len(arch)) + arch


def transformer_prefix(net: QuantNet):
    """The file's bytes before the transformer weights: header, transformer hash, ft_bias."""
    return header_bytes(net.shape) + _u32(net.shape.transformer_hash()) + net.ft_bias.astype("<i2").tobytes()


def transformer_suffix(net: QuantNet):
    """The file's bytes after the transformer weights: network hash and layers."""
    return _u32(net.shape.network_hash()) + net.layers_bytes()


def write(path, net: QuantNet):
    """Writes `net` as an `nn.bin` YaneuraOu (built for its shape) and Hayate load."""
    net.check()
    with open(path, "wb") as f:
        f.write(transformer_prefix(net))
        f.write(np.ascontiguousarray(net.ft_weight, dtype="<i2").tobytes())
        f.write(transformer_suffix(net))


@functools.lru_cache(maxsize=64)
def shapes_of_body(body):
    """Every shape (feature set, FT, H1, H2) whose bytes after the architecture string are
    exactly `body` (as the engine's `Shape::with_body_bytes`)."""
    found = []
    for fs in FEATURE_SETS.values():
        for ft in range(16, 4097, 16):
            layers = body - 8 - 2 * ft - 2 * fs.inputs * ft
            if layers < 0:
                break
            if layers > 1024 * (4 + pad32(2 * ft)) + 1024 * (4 + 1024) + 4 + 1024:
                continue
            for h1 in range(1, 1025):
                rest = layers - (4 * h1 + h1 * pad32(2 * ft) + 4)
                if rest < 0:
                    break
                lo, hi = 1, 1024
                while lo < hi:
                    mid = (lo + hi) // 2
                    if 4 * mid + mid * pad32(h1) + pad32(mid) < rest:
                        lo = mid + 1
                    else:
                        hi = mid
                if 4 * lo + lo * pad32(h1) + pad32(lo) == rest:
                    found.append(Shape(fs, ft, h1, lo))
    return found


def identify(file_hash, architecture, body):
    """The shape of a file with this header and `body` bytes after the string (as the engine
    tells it: the size decides; among shapes of that size the string's, else the hash's, else a
    well-known one, else one with usual hidden widths), or None when no shape has the size."""
    named = Shape.from_architecture(architecture)
    cands = shapes_of_body(body)
    if named in cands:
        return named
    by_hash = [s for s in cands if s.file_hash() == file_hash]
    if len(by_hash) == 1:
        return by_hash[0]
    pool = by_hash or cands
    for ok in (lambda s: s in KNOWN, lambda s: named is not None and (s.features, s.ft) == (named.features, named.ft),
               lambda s: s.h1 % 8 == 0 and s.h2 % 8 == 0 and s.h1 <= 128 and s.h2 <= 128, lambda s: True):
        for s in pool:
            if ok(s):
                return s
    return None


def read(path, mmap=True):
    """Reads and checks an `nn.bin` of any shape the trainer handles (told by its size, as the
    engine does; its hashes must be those of the shape). ft_weight is memory-mapped unless
    `mmap` is False."""
    raw = np.memmap(path, dtype=np.uint8, mode="r") if mmap else np.fromfile(path, dtype=np.uint8)

    def word(off):
        if off + 4 > len(raw):
            raise ValueError(f"{path}: truncated ({len(raw)} bytes)")
        return int.from_bytes(bytes(raw[off : off + 4]), "little")

    if word(0) != VERSION:
        raise ValueError(f"{path}: not a YaneuraOu NNUE file (version 0x{word(0):08X})")
    off = 12 + word(8)
    if off > len(raw):
        raise ValueError(f"{path}: truncated ({len(raw)} bytes)")
    arch = bytes(raw[12:off]).decode("utf-8", "replace")
    shape = identify(word(4), arch, len(raw) - off)
    if shape is None:
        named = Shape.from_architecture(arch)
        want = f", a {named} net has {off + named.body_bytes()}" if named else ""
        raise ValueError(f"{path}: {len(raw)} bytes fit no net shape{want}")
    if word(4) != shape.file_hash():
        raise ValueError(f"{path}: file hash 0x{word(4):08X} is not that of {shape}")
    arrays = {}
    for name, dtype, shape_, stored in shape.layout():
        if name == "ft_bias":
            if word(off) != shape.transformer_hash():
                raise ValueError(f"{path}: bad transformer hash 0x{word(off):08X}")
            off += 4
        if name == "b1":
            if word(off) != shape.network_hash():
                raise ValueError(f"{path}: bad network hash 0x{word(off):08X}")
            off += 4
        full = shape_[:-1] + (stored,)
        n = int(np.prod(full)) * np.dtype(dtype).itemsize
        a = raw[off : off + n].view(dtype).reshape(full)
        arrays[name] = a[..., : shape_[-1]] if stored != shape_[-1] else a
        off += n
    return QuantNet(**arrays, shape=shape)
