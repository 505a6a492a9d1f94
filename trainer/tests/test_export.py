"""The exported net equals the engine: a net exported from deterministic float weights (shaped like
a trained factorised net: piece-square rows, a few king squares with their own weights) is
written as nn.bin; the trainer's integer forward pass (after a PackedSfen round trip of every
position) must give exactly Hayate's `eval` on every position of tests/data. Numpy only.

The engine binary: $HAYATE_BIN, else target/debug/hayate (built by `make test-trainer-export`).
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


def synthetic_params(seed=5):
    """Float weights like a trained factorised net's (not trained: deterministic noise)."""
    rng = np.random.default_rng(seed)
    p = {
        "ft_bias": rng.normal(0.3, 0.1, 256),
        "ft_p": rng.normal(0, 0.05, (1548, 256)),
        "ft_w": np.zeros((nnbin.NUM_FEATURES, 256), np.float32),
        "l1_w": rng.normal(0, 0.15, (32, 512)),
        "l1_b": rng.normal(0.1, 0.2, 32),
        "l2_w": rng.normal(0, 0.3, (32, 32)),
        "l2_b": rng.normal(0.1, 0.2, 32),
        "out_w": rng.normal(0, 0.6, (1, 32)),
        "out_b": np.array([0.01]),
    }
    for k in rng.choice(81, 24, replace=False):
        rows = p["ft_w"][k * 1548 : (k + 1) * 1548]
        rows[:] = rng.normal(0, 0.03, rows.shape) * (rng.random((1548, 1)) < 0.5)
    return p


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
        binary = os.environ.get("HAYATE_BIN") or os.path.join(ROOT, "target", "debug", "hayate")
        self.assertTrue(os.path.exists(binary), f"no engine at {binary}: build it or set HAYATE_BIN")
        self.assertGreaterEqual(len(self.sfens), 300)
        for fv in (16, 24):
            mine = engine.trainer_evals(self.net, self.sfens, fv)
            theirs = engine.engine_evals(binary, self.path, self.sfens, fv)
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
            self.assertEqual(compact.decode(blob), want)
            self.assertLess(len(blob), len(want) // 3)
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


if __name__ == "__main__":
    unittest.main()
