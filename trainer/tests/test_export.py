"""The exported net equals the engine: a net exported from deterministic float weights (shaped like
a trained factorised net: piece-square rows, a few king squares with their own weights) is
written as nn.bin; the trainer's integer forward pass (after a PackedSfen round trip of every
position) must give exactly Hayate's `eval` on every position of tests/data. So for the classic
shape halfkp_256x2-32-32, for halfkahm2_256x2-32-32 and for halfkp_512x2-8-64; and the trainer's
forward pass gives YaneuraOu's own evaluations of the seed-1 test nets of tests/data/nnue/ (built
here from their definition, docs/nnue-format.md), written by the trainer's writer for the engine
too. Numpy only.

The engine binary: $HAYATE_BIN, else target/debug/hayate (built by `make test-export`).
"""

import os
import tempfile
import unittest

import numpy as np

from trainer import compact, engine, features, nnbin, quant, sfen

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_sfens():
    """Every position with both kings in tests/data: the NNUE golden files and the bench set."""
    out = []
    for name in ("nnue/seed1_fv16.tsv", "bench.sfen", "mate.tsv"):
        with open(os.path.join(ROOT, "tests", "data", name)) as f:
            for line in f:
                if not line.strip() or line.startswith(("#", "name\t")):
                    continue
                fields = line.rstrip("\n").split("\t")
                text = fields[1] if name == "mate.tsv" else fields[0]
                try:
                    board, _, _ = sfen.parse(text)
                except ValueError:
                    continue
                if (board == 8).sum() == 1 and (board == 24).sum() == 1:
                    out.append(text)
    return list(dict.fromkeys(out))


def synthetic_params(seed=5, shape=nnbin.CLASSIC):
    """Float weights like a trained factorised net's of `shape` (not trained: deterministic
    noise; the hidden weights' spread scaled by the fan-in as against the classic shape)."""
    rng = np.random.default_rng(seed)
    ft, h1, h2, plane = shape.ft, shape.h1, shape.h2, shape.plane
    p = {
        "ft_bias": rng.normal(0.3, 0.1, ft),
        "ft_p": rng.normal(0, 0.05, (plane, ft)),
        "ft_w": np.zeros((shape.inputs, ft), np.float32),
        "l1_w": rng.normal(0, 0.15 * (512 / (2 * ft)) ** 0.5, (h1, 2 * ft)),
        "l1_b": rng.normal(0.1, 0.2, h1),
        "l2_w": rng.normal(0, 0.3 * (32 / h1) ** 0.5, (h2, h1)),
        "l2_b": rng.normal(0.1, 0.2, h2),
        "out_w": rng.normal(0, 0.6 * (32 / h2) ** 0.5, (1, h2)),
        "out_b": np.array([0.01]),
    }
    buckets = shape.inputs // plane
    for k in rng.choice(buckets, min(24, buckets), replace=False):
        rows = p["ft_w"][k * plane : (k + 1) * plane]
        rows[:] = rng.normal(0, 0.03, rows.shape) * (rng.random((plane, 1)) < 0.5)
    return p


def splitmix_net(shape, seed=1):
    """The test net `seed` of `shape` as a `QuantNet`: what `testnet::bytes_of` and the shared
    `gen_testnet.py` write (docs/nnue-format.md, "Test nets"), drawn here from its definition."""
    golden = np.uint64(0x9E3779B97F4A7C15)
    ft, h1 = shape.ft, shape.h1
    if shape == nnbin.CLASSIC:
        r1, r2 = (-8, 7), (-16, 15)
    else:
        w1, w2 = max(1, round(4 * (1024 / (2 * ft)) ** 0.5)), max(1, round(16 * (32 / h1) ** 0.5))
        r1, r2 = (-w1, w1), (-w2, w2)
    ranges = {"ft_bias": (-40, 80), "ft_weight": (-16, 15), "b1": (-2000, 2000), "w1": r1,
              "b2": (-1500, 1500), "w2": r2, "b3": (-3000, 3000), "w3": (-128, 127)}
    arrays, i = {}, 0
    for name, dtype, dims, _ in shape.layout():
        count, lo, hi = int(np.prod(dims)), *ranges[name]
        parts = []
        for s in range(0, count, 1 << 22):
            with np.errstate(over="ignore"):
                z = np.uint64(seed) + np.arange(i + s + 1, i + min(count, s + (1 << 22)) + 1, dtype=np.uint64) * golden
                z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
                z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
                z ^= z >> np.uint64(31)
            parts.append((lo + (z % np.uint64(hi - lo + 1)).astype(np.int64)).astype(dtype))
        arrays[name] = np.concatenate(parts).reshape(dims)
        i += count
    return nnbin.QuantNet(**arrays, shape=shape)


def engine_binary(test):
    binary = os.environ.get("HAYATE_BIN") or os.path.join(ROOT, "target", "debug", "hayate")
    test.assertTrue(os.path.exists(binary), f"no engine at {binary}: build it or set HAYATE_BIN")
    return binary


def mirror_sfen(text):
    """The SFEN of the position reflected left-right: each rank's squares in reverse order."""
    parts = text.split()
    ranks = []
    for row in parts[0].split("/"):
        tokens, i = [], 0
        while i < len(row):
            j = i + 2 if row[i] == "+" else i + 1
            tokens.append(row[i:j])
            i = j
        ranks.append("".join(reversed(tokens)))
    return " ".join(["/".join(ranks)] + parts[1:])


class Mirror(unittest.TestCase):
    def test_mirrored_features_are_those_of_the_mirrored_position(self):
        sfens = test_sfens()
        self.assertGreater(len(sfens), 20)
        for text in sfens:
            got, want = [], []
            for t, out in ((text, got), (mirror_sfen(text), want)):
                board, hands, _ = sfen.parse(t)
                out.append(features.black_bona_pieces(board[None], hands[None]))
                out.append(features.king_squares(board[None]))
            bp, kings = features.mirror(got[0], got[1])
            self.assertEqual(sorted(bp[0].tolist()), sorted(want[0][0].tolist()), text)
            self.assertEqual(kings.tolist(), want[1].tolist(), text)
        self.assertEqual(features.MIRROR[features.MIRROR].tolist(), list(range(nnbin.FE_END)))


class ExportMatchesEngine(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.params = synthetic_params()
        cls.net = quant.quantise(cls.params)
        cls.path = os.path.join(cls.tmp.name, "nn.bin")
        nnbin.write(cls.path, cls.net)
        cls.sfens = test_sfens()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_file_layout(self):
        self.assertEqual(os.path.getsize(self.path), nnbin.CLASSIC_FILE_BYTES)
        self.assertEqual(
            (nnbin.TRANSFORMER_HASH, nnbin.NETWORK_HASH, nnbin.FILE_HASH),
            (0x5D69D7B8, 0x63337156, 0x3E5AA6EE),
        )
        self.assertEqual(len(nnbin.ARCHITECTURE), 178)
        back = nnbin.read(self.path)
        for name, _, _ in nnbin.LAYOUT:
            np.testing.assert_array_equal(getattr(back, name), getattr(self.net, name), name)

    def test_bad_files_are_rejected(self):
        with open(self.path, "rb") as f:
            head = f.read(1000)
        bad = os.path.join(self.tmp.name, "bad.bin")
        for data in (head, b"\0" * 16, head[:4] + b"\0\0\0\0" + head[8:]):
            with open(bad, "wb") as f:
                f.write(data)
            with self.assertRaises(ValueError):
                nnbin.read(bad)

    def test_quantised_forward_equals_engine(self):
        binary = engine_binary(self)
        self.assertGreaterEqual(len(self.sfens), 300)
        for fv in (16, 24):
            mine = engine.trainer_evals(self.net, self.sfens, fv)
            theirs = engine.engine_evals(binary, self.path, self.sfens, fv, shape=nnbin.CLASSIC)
            bad = [(s, a, b) for s, a, b in zip(self.sfens, mine, theirs) if a != b]
            self.assertEqual(bad, [], f"FV_SCALE {fv}: {len(bad)} of {len(self.sfens)} differ")
            self.assertGreater(len(set(mine.tolist())), len(self.sfens) // 2)  # not a constant net

    def test_float_and_quantised_agree(self):
        board, hands, stm = sfen.parse_many(self.sfens)
        bp, kings = features.black_bona_pieces(board, hands), features.king_squares(board)
        q = quant.quant_eval(self.net, bp, kings, stm)
        f = quant.float_eval(self.params, bp, kings, stm)
        diff = np.abs(q - f).mean()
        print(f"\nsynthetic net: mean |float - quantised| = {diff:.1f} cp (eval sd {q.std():.0f} cp)")
        # Wrong scales would make the two differ by a large fraction of the evaluations.
        self.assertLess(diff, 0.2 * q.std())
        self.assertGreater(np.corrcoef(q, f)[0, 1], 0.97)

    def test_bias_correction_removes_the_rounding_offset(self):
        # Small weights (as P-only nets trained with a strong --ft-l1 have) round with errors that
        # add up alike in every position.
        params = {k: np.array(v, np.float64) for k, v in self.params.items()}
        params["ft_p"] = params["ft_p"] * 0.08 + 0.3 / 127
        params["l1_w"] = params["l1_w"] * 0.3
        board, hands, stm = sfen.parse_many(self.sfens)
        bp, kings = features.black_bona_pieces(board, hands), features.king_squares(board)
        net = quant.quantise(params)
        fixed = quant.correct_biases(net, params, bp[::2], kings[::2], stm[::2])
        f = quant.float_eval(params, bp[1::2], kings[1::2], stm[1::2])
        before = quant.quant_eval(net, bp[1::2], kings[1::2], stm[1::2]) - f
        after = quant.quant_eval(fixed, bp[1::2], kings[1::2], stm[1::2]) - f
        print(f"\nsmall-weight net: mean float - quantised {before.mean():.1f} cp, corrected {after.mean():.1f} cp")
        self.assertLess(abs(after.mean()), abs(before.mean()) / 3)
        self.assertLess(np.abs(after).mean(), np.abs(before).mean())
        # Only the biases move.
        for name in ("ft_weight", "w1", "w2", "w3"):
            np.testing.assert_array_equal(getattr(fixed, name), getattr(net, name))
        fixed.check()

    def test_compact_rebuilds_the_exact_file(self):
        with open(self.path, "rb") as f:
            want = f.read()
        for p in (quant.quantise_p(self.params["ft_p"]), None):
            blob = compact.encode(self.net, p)
            self.assertEqual(blob[4:8], (1).to_bytes(4, "little"))  # the classic shape stays version 1
            self.assertEqual(compact.decode(blob), want)
            self.assertLess(len(blob), len(want) // 3)
        v2 = compact.encode(self.net, None, version=2)
        self.assertEqual(compact.decode(v2), want)
        self.assertEqual(len(v2), len(blob) + 4 + len("halfkp_256x2-32-32"))
        with self.assertRaises(ValueError):
            compact.decode(blob[:-1])
        with self.assertRaises(ValueError):
            compact.decode(b"XXXX" + blob[4:])

    def test_varints(self):
        v = np.array([0, 1, -1, 63, -64, 64, 127, 128, -129, 32767, -32768, 65534, -65534, 2**31 - 1])
        blob = compact.varints(v).tobytes()
        back, off = compact.read_varints(blob, 0, len(v))
        np.testing.assert_array_equal(back, v)
        self.assertEqual(off, len(blob))
        self.assertEqual(len(compact.varints(np.array([0, 63, -64]))), 3)



class WiderShapesMatchEngine(unittest.TestCase):
    """Nets of other shapes, exported from fixed float weights: the file the engine reads as that
    shape, the trainer's integer forward pass equal to the engine's `eval` on every position, the
    float pass close to it, and the compact form (version 2) rebuilding the exact file."""

    SHAPES = ("halfkahm2_256x2-32-32", "halfkp_512x2-8-64")

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.sfens = test_sfens()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def export(self, name):
        shape = nnbin.Shape.from_name(name)
        params = synthetic_params(7, shape)
        net = quant.quantise(params)
        self.assertEqual(net.shape, shape)
        path = os.path.join(self.tmp.name, f"{name}.bin")
        nnbin.write(path, net)
        return shape, params, net, path

    def test_shapes(self):
        self.assertEqual(nnbin.Shape.from_name("HalfKaHm2_256x2_32_32"), nnbin.Shape.from_name("halfkahm2_256x2-32-32"))
        for name, rows, fhash in (("halfkahm2_256x2-32-32", 73305, 0x7F234CB8 ^ 512),
                                  ("halfkp_512x2-8-64", 125388, 0x5D69D5B8 ^ 1024)):
            s = nnbin.Shape.from_name(name)
            self.assertEqual((str(s), s.inputs, s.transformer_hash()), (name, rows, fhash))
            self.assertEqual(nnbin.Shape.from_architecture(s.architecture()), s)
            self.assertEqual(nnbin.identify(0, "", s.body_bytes()), s)
        self.assertEqual(nnbin.Shape.from_name("halfkp_512x2-8-64").file_bytes(), 128_409_130)
        for bad in ("halfkp_250x2-32-32", "halfkpe9_256x2-32-32", "halfkp_256x2-32", "nope"):
            with self.assertRaises(ValueError):
                nnbin.Shape.from_name(bad)

    def test_features_of_the_mirrored_and_folded_sets(self):
        # halfkahm2, black's own king on 6i (square 53, files 6-9: mirrored onto 4i, square 35):
        # a black gold on 1a (square 0, BonaPiece 738) mirrors to 9a (square 72); the enemy king
        # on 5a (square 36, its own mirror) folds onto the own king's plane; a pawn in hand stays
        # BonaPiece 1; the 36 missing pieces are BonaPiece 0.
        fs = nnbin.FEATURE_SETS["halfkahm2"]
        board, hands, _ = sfen.parse("4k3G/9/9/9/9/9/9/9/3K5 b P 1")
        bp, kings = features.black_bona_pieces(board[None], hands[None]), features.king_squares(board[None])
        self.assertEqual(kings.tolist(), [[53, 36]])
        rows = features.feature_indices(bp, kings, 0, fs)[0]
        base = 1629 * 35
        self.assertEqual(len(rows), 40)
        self.assertEqual(sorted(rows[rows != base].tolist()),
                         [base + 1, base + 738 + 72, base + 1548 + 35, base + 1548 + 36])
        self.assertEqual(features.row_table(fs).max(), fs.inputs - 1)
        for fs in nnbin.FEATURE_SETS.values():
            t = features.row_table(fs)
            top = 1710 if fs.kings else 1548
            self.assertEqual((t[:, :top].min(), t[:, :top].max()), (0, fs.inputs - 1), fs.name)

    def test_quantised_forward_equals_engine(self):
        binary = engine_binary(self)
        for name in self.SHAPES:
            shape, params, net, path = self.export(name)
            self.assertEqual(os.path.getsize(path), shape.file_bytes())
            back = nnbin.read(path)
            self.assertEqual(back.shape, shape)
            for a in nnbin.ARRAYS:
                np.testing.assert_array_equal(getattr(back, a), getattr(net, a), a)
            mine = engine.trainer_evals(net, self.sfens)
            theirs = engine.engine_evals(binary, path, self.sfens, shape=shape)
            bad = [(s, a, b) for s, a, b in zip(self.sfens, mine, theirs) if a != b]
            self.assertEqual(bad, [], f"{name}: {len(bad)} of {len(self.sfens)} differ")
            self.assertGreater(len(set(mine.tolist())), len(self.sfens) // 2, name)
            board, hands, stm = sfen.parse_many(self.sfens)
            bp, kings = features.black_bona_pieces(board, hands), features.king_squares(board)
            f = quant.float_eval(params, bp, kings, stm)
            q = quant.quant_eval(net, bp, kings, stm)
            self.assertGreater(np.corrcoef(q, f)[0, 1], 0.97, name)
            fixed = quant.correct_biases(net, params, bp[::2], kings[::2], stm[::2])
            fixed.check()
            self.assertEqual(fixed.shape, shape)

    def test_compact_version_2(self):
        _, params, net, path = self.export("halfkahm2_256x2-32-32")
        with open(path, "rb") as f:
            want = f.read()
        for p in (quant.quantise_p(params["ft_p"]), None):
            blob = compact.encode(net, p)
            self.assertEqual(blob[4:8], (2).to_bytes(4, "little"))
            self.assertEqual(blob[8:12], (21).to_bytes(4, "little"))
            self.assertEqual(blob[12:33], b"halfkahm2_256x2-32-32")
            self.assertEqual(compact.decode(blob), want)
            self.assertLess(len(blob), len(want) // 3)
        with self.assertRaises(ValueError):
            compact.encode(net, version=1)  # version 1 holds the classic shape only
        name_at = 12

        def renamed(name):
            return blob[:8] + len(name).to_bytes(4, "little") + name + blob[name_at + 21 :]

        self.assertEqual(renamed(b"halfkahm2_256x2-32-32"), blob)
        for bad in (blob[:-1], blob + b"\0", b"XXXX" + blob[4:], blob[:4] + (3).to_bytes(4, "little") + blob[8:],
                    renamed(b"halfkahm2_512x2-32-32"), renamed(b"halfkahm2_256x2-32-16"), renamed(b"nonsense"),
                    renamed(b"\xff"), renamed(b"a" * 65), blob[:8] + (2**32 - 1).to_bytes(4, "little"), blob[:30],
                    renamed(b"halfka2_256x2-32-32"), renamed(b"halfkp_256x2-32-32")):
            with self.assertRaises(ValueError):
                compact.decode(bad)
        # The command line packs any net it reads and checks the rebuild.
        out = os.path.join(self.tmp.name, "net.hnnc")
        compact.main(["pack", path, out])
        back = os.path.join(self.tmp.name, "back.bin")
        compact.main(["unpack", out, back])
        with open(back, "rb") as f:
            self.assertEqual(f.read(), want)


class YaneuraOuTestNets(unittest.TestCase):
    """The seed-1 test nets of tests/data/nnue/ built here from their definition: the trainer's
    integer forward pass gives YaneuraOu's own evaluations, and the file the trainer writes is
    the one YaneuraOu read (the engine, reading it, gives them too)."""

    NETS = (
        ("halfkp_256x2-32-32", "seed1_fv16.tsv"),
        ("halfkahm2_256x2-32-32", "halfkahm2_256x2-32-32_seed1_fv16.tsv"),
        ("halfkp_512x2-8-64", "halfkp_512x2-8-64_seed1_fv16.tsv"),
        ("halfkpvm_256x2-32-32", "halfkpvm_256x2-32-32_seed1_fv16.tsv"),
        ("kp_256x2-32-32", "kp_256x2-32-32_seed1_fv16.tsv"),
    )
    THROUGH_ENGINE = ("halfkahm2_256x2-32-32", "halfkp_512x2-8-64")

    def test_trainer_gives_yaneuraous_evaluations(self):
        binary = engine_binary(self)
        with tempfile.TemporaryDirectory() as tmp:
            for name, golden in self.NETS:
                with open(os.path.join(ROOT, "tests", "data", "nnue", golden)) as f:
                    rows = [line.rstrip("\n").split("\t") for line in f if line.strip()]
                sfens, want = [r[0] for r in rows], np.array([int(r[1]) for r in rows])
                shape = nnbin.Shape.from_name(name)
                net = splitmix_net(shape)
                mine = engine.trainer_evals(net, sfens)
                bad = int((mine != want).sum())
                self.assertEqual(bad, 0, f"{name}: {bad} of {len(sfens)} differ from YaneuraOu's")
                if name in self.THROUGH_ENGINE:
                    path = os.path.join(tmp, "nn.bin")
                    nnbin.write(path, net)
                    theirs = engine.engine_evals(binary, path, sfens, shape=shape)
                    np.testing.assert_array_equal(theirs, want, name)

if __name__ == "__main__":
    unittest.main()
