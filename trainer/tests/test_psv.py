"""The PackedSfenValue codec against cshogi (an independent packer), and the feature lists.

Positions come from random games cshogi plays (captures, drops and promotions included) from the
start position and from handicap starts (pieces in the box)."""

import os
import tempfile
import unittest

import cshogi  # the independent packer (trainer/requirements-test.txt)
import numpy as np

from trainer import data, features, psv, sfen

HANDICAPS = [
    "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",  # two pieces
    "1nsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",  # four pieces
    "4k4/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",  # naked king plus pawns
]


def random_positions(n_games=60, seed=3):
    """SFENs along random games (the kings are never captured: only legal moves)."""
    rng = np.random.default_rng(seed)
    out = []
    for g in range(n_games):
        board = cshogi.Board(HANDICAPS[g % len(HANDICAPS)] if g % 3 == 0 else None)
        for _ in range(int(rng.integers(20, 200))):
            moves = list(board.legal_moves)
            if not moves or board.is_game_over():
                break
            board.push(moves[int(rng.integers(len(moves)))])
            out.append(board.sfen())
    return out


class CodecAgainstCshogi(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sfens = random_positions()
        cls.packed = np.zeros(len(cls.sfens), cshogi.PackedSfenValue)
        b = cshogi.Board()
        for i, s in enumerate(cls.sfens):
            b.set_sfen(s)
            b.to_psfen(cls.packed[i]["sfen"])

    def test_dtype_is_cshogis(self):
        self.assertEqual(psv.DTYPE, np.dtype(cshogi.PackedSfenValue))

    def test_decoder_reads_cshogis_records(self):
        self.assertGreater(len(self.sfens), 3000)
        board, hands, stm, ok = psv.decode(self.packed["sfen"])
        self.assertTrue(ok.all())
        b2, h2, s2 = sfen.parse_many(self.sfens)
        np.testing.assert_array_equal(board, b2)
        np.testing.assert_array_equal(hands, h2)
        np.testing.assert_array_equal(stm, s2)
        # Every kind of piece, promoted pieces and hands occurred.
        self.assertEqual(set(np.unique(board)) - {0}, {c * 16 + t for c in (0, 1) for t in range(1, 15)})
        self.assertGreater((hands.sum(axis=(1, 2)) > 0).mean(), 0.3)

    def test_encoder_writes_cshogis_bytes(self):
        for i, s in enumerate(self.sfens[::7]):
            mine = psv.encode(*sfen.parse(s))
            np.testing.assert_array_equal(mine, self.packed[i * 7]["sfen"], s)

    def test_sfen_round_trip(self):
        for s in self.sfens[::13]:
            self.assertEqual(sfen.write(*sfen.parse(s)).rsplit(" ", 1)[0], s.rsplit(" ", 1)[0])

    def test_data_files(self):
        recs = self.packed.copy()
        recs["score"] = np.arange(len(recs)) % 4000 - 2000
        recs["game_result"] = np.arange(len(recs)) % 3 - 1
        with tempfile.TemporaryDirectory() as d:
            recs[: len(recs) // 2].tofile(os.path.join(d, "a.bin"))
            recs[len(recs) // 2 :].tofile(os.path.join(d, "b.bin"))
            pos = data.load([d], max_score=1500, log=None)
            keep = np.abs(recs["score"].astype(int)) <= 1500
            self.assertEqual(len(pos), keep.sum())
            np.testing.assert_array_equal(pos.score, recs["score"][keep])
            np.testing.assert_array_equal(pos.result, recs["game_result"][keep])
            train, val = data.split(pos, 0.1)
            self.assertEqual(len(train) + len(val), len(pos))
            self.assertGreater(len(val), 0)
            with open(os.path.join(d, "c.bin"), "wb") as f:
                f.write(b"\0" * 41)
            with self.assertRaises(ValueError):
                data.load([os.path.join(d, "c.bin")], log=None)
            with self.assertRaises(FileNotFoundError):
                data.list_files([os.path.join(d, "nothing")])


class Codec(unittest.TestCase):
    def test_garbage_is_flagged_not_fatal(self):
        rng = np.random.default_rng(1)
        junk = rng.integers(0, 256, (2000, 32), dtype=np.uint8)
        _, _, _, ok = psv.decode(junk)
        self.assertLess(ok.mean(), 0.05)

    def test_handicap_round_trip(self):
        for s in HANDICAPS:
            b, h, stm = sfen.parse(s)
            board, hands, _stm2, ok = psv.decode(psv.encode(b, h, stm)[None])
            self.assertTrue(ok[0])
            np.testing.assert_array_equal(board[0], b)
            np.testing.assert_array_equal(hands[0], h)

    def test_encoder_rejects_impossible_positions(self):
        b, h, stm = sfen.parse("4k4/9/9/9/9/9/9/9/9 b - 1")  # no black king
        with self.assertRaises(ValueError):
            psv.encode(b, h, stm)
        b, h, stm = sfen.parse("4k4/9/9/9/9/9/9/9/4K4 b 19P 1")
        with self.assertRaises(ValueError):
            psv.encode(b, h, stm)


class Features(unittest.TestCase):
    def test_start_position(self):
        b, h, _ = sfen.parse_many(["lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"])
        bp, kings = features.black_bona_pieces(b, h), features.king_squares(b)
        black = features.feature_indices(bp, kings, 0)[0]
        white = features.feature_indices(bp, kings, 1)[0]
        self.assertEqual(len(set(black.tolist())), 38)
        self.assertEqual(sorted(black.tolist()), sorted(white.tolist()))  # symmetric
        # Black's pawn on 7g: king 5i = sq 44, BonaPiece 90 + 60.
        self.assertIn(44 * 1548 + 150, black.tolist())

    def test_numbering_matches_the_engine_spec(self):
        b, h, _ = sfen.parse_many(["4k4/9/9/9/9/9/2P6/9/4K4 b P2r 1"])
        bp = features.black_bona_pieces(b, h)[0].tolist()
        self.assertEqual(sorted(x for x in bp if x), [1, 88, 89, 90 + 60])
        self.assertEqual(bp.count(0), 34)  # missing pieces: BonaPiece 0
        # White sees the pawn on 7g as an enemy pawn on inv(60) = 20, and the rooks as its own.
        self.assertEqual(features.FLIP[150], 90 + 81 + 20)
        self.assertEqual((features.FLIP[88], features.FLIP[89], features.FLIP[1]), (85, 86, 20))
        np.testing.assert_array_equal(features.FLIP[features.FLIP], np.arange(1548))


if __name__ == "__main__":
    unittest.main()
