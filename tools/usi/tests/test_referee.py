"""The referee's rules (cshogi) and games against scripted fake engines.

Skipped when cshogi is not installed (`make test` installs it in .venv/tools).
"""

import os
import stat
import sys
import tempfile
import unittest

from tools.usi.engine import UsiEngine

try:
    import cshogi
except ImportError:
    cshogi = None

if cshogi is not None:
    from tools.usi import referee
    from tools.usi.referee import BLACK, WHITE, Game, Limits, Opening, parse_opening, play_game

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))

# White king on 1a, black king on 5i, a black rook on 2i: the rook can check from 1i and 2i.
ROOK_CHECKS = "8k/9/9/9/9/9/9/9/4K2R1 b - 1"


def start(sfen=None, moves=()):
    return Opening(sfen, list(moves), "test")


@unittest.skipIf(cshogi is None, "cshogi is not installed")
class Rules(unittest.TestCase):
    def test_illegal_move_loses(self):
        g = Game(start(), 320)
        self.assertIsNone(g.play("7g7f"))
        o = g.play("3c3e")  # a pawn does not move two squares
        self.assertEqual((o.winner, o.reason, o.detail), (BLACK, "illegal move", "3c3e"))
        g = Game(start(), 320)
        self.assertEqual(g.play("").winner, WHITE)
        self.assertEqual(Game(start(), 320).play("7g7f+").reason, "illegal move")

    def test_pawn_drop_mate_is_illegal(self):
        g = Game(start("7lk/9/7G1/9/9/9/9/9/4K4 b P 1"), 320)
        o = g.play("P*1b")
        self.assertEqual((o.winner, o.reason), (WHITE, "illegal move"))

    def test_non_promotion_is_legal(self):
        g = Game(start("4k4/9/4P4/9/9/9/9/9/4K4 b - 1"), 320)
        self.assertIsNone(g.play("5c5b"))

    def test_checkmate_and_resign(self):
        g = Game(start("8k/9/7G1/9/9/9/9/9/4K4 b G 1"), 320)
        o = g.play("G*1b")
        self.assertEqual((o.winner, o.reason), (BLACK, "checkmate"))
        o = Game(start(), 320).play("resign")
        self.assertEqual((o.winner, o.reason), (WHITE, "resign"))

    def test_declaration(self):
        entered = "4K4/PPPPPPPPP/RB7/9/9/9/9/9/4k4 b 4G4S4N4L 1"
        o = Game(start(entered), 320).play("win")
        self.assertEqual((o.winner, o.reason), (BLACK, "declaration win"))
        o = Game(start(), 320).play("win")
        self.assertEqual((o.winner, o.reason), (WHITE, "false declaration"))

    def test_repetition_draws(self):
        g = Game(start(), 320)
        cycle = ["5i4h", "5a4b", "4h5i", "4b5a"]
        for ply in range(11):
            self.assertIsNone(g.play(cycle[ply % 4]), ply)
        o = g.play(cycle[3])  # the start position for the fourth time
        self.assertEqual((o.winner, o.reason), (None, "repetition"))
        self.assertEqual(g.plies(), 12)

    def test_perpetual_check_loses(self):
        # Black checks with every move. From the start the fourth occurrence comes with White's
        # move; from the position after the first check (White to move, in check) it comes with
        # Black's (checking) move. Black loses either way.
        for sfen, cycle in [
            (ROOK_CHECKS, ["2i1i", "1a2a", "1i2i", "2a1a"]),
            ("8k/9/9/9/9/9/9/9/4K3R w - 1", ["1a2a", "1i2i", "2a1a", "2i1i"]),
        ]:
            with self.subTest(sfen=sfen):
                g = Game(start(sfen), 320)
                for ply in range(11):
                    self.assertIsNone(g.play(cycle[ply % 4]), ply)
                o = g.play(cycle[3])
                self.assertEqual((o.winner, o.reason), (WHITE, "perpetual check"))

    def test_checks_in_part_of_the_cycle_draw(self):
        # Black checks, then also makes a quiet king move: a plain repetition.
        g = Game(start(ROOK_CHECKS), 320)
        cycle = ["2i1i", "1a2a", "1i2i", "2a1a", "5i4i", "1a1b", "4i5i", "1b1a"]
        outcome = None
        for ply in range(40):
            outcome = g.play(cycle[ply % len(cycle)])
            if outcome:
                break
        self.assertEqual((outcome.winner, outcome.reason), (None, "repetition"))

    def test_max_plies(self):
        g = Game(start(), 6)
        cycle = ["5i4h", "5a4b", "4h5i", "4b5a", "5i4h"]
        for ply in range(5):
            self.assertIsNone(g.play(cycle[ply]))
        o = g.play("5a5b")
        self.assertEqual((o.winner, o.reason), (None, "max plies"))

    def test_openings(self):
        o = parse_opening("startpos moves 7g7f 3c3d")
        self.assertEqual(Game(o, 320).position_command(), "position startpos moves 7g7f 3c3d")
        s = parse_opening("position sfen 8k/9/9/9/9/9/9/9/4K2R1 b - 1 moves 2i1i")
        self.assertEqual(Game(s, 320).position_command(), f"position sfen {ROOK_CHECKS} moves 2i1i")
        for bad in ("startpos moves 7g7e", "startpos 7g7f", "kifu 7g7f", ""):
            with self.assertRaises(ValueError):
                parse_opening(bad)
        openings = referee.load_openings(os.path.join(REPO, "tests", "data", "openings.txt"))
        self.assertGreater(len(openings), 100)


@unittest.skipIf(cshogi is None, "cshogi is not installed")
class GamesWithEngines(unittest.TestCase):
    """Whole games through the USI layer, with fake engines that play scripted words."""

    def engine(self, *words):
        d = tempfile.mkdtemp()
        path = os.path.join(d, "engine.sh")
        script = os.path.join(HERE, "scripted_engine.py")
        with open(path, "w") as f:
            f.write(f'#!/bin/sh\nexec "{sys.executable}" "{script}" {" ".join(words)}\n')
        os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
        e = UsiEngine(path, f"fake {' '.join(words)}", [("Threads", "1")], init_timeout=10)
        e.start()
        self.addCleanup(e.close)
        return e

    def play(self, black, white, timeout=5.0):
        limits = Limits(nodes=100, move_timeout=timeout)
        return play_game((black, white), ({"Knob": 3}, {"Knob": -2}), start(), limits, 320)

    def test_options_read(self):
        e = self.engine()
        self.assertEqual(e.name, "ScriptedEngine")
        self.assertEqual((e.spin_options["Knob"].min, e.spin_options["Knob"].max), (-5, 50))

    def test_illegal_move(self):
        r = self.play(self.engine("7g7f", "2g2f"), self.engine("3c3d", "8b8b"))
        self.assertEqual((r.outcome.winner, r.outcome.reason, r.outcome.detail), (BLACK, "illegal move", "8b8b"))
        self.assertEqual(r.moves, ["7g7f", "3c3d", "2g2f"])
        self.assertEqual(r.broken, [])

    def test_resign(self):
        r = self.play(self.engine("7g7f", "resign"), self.engine("3c3d"))
        self.assertEqual((r.outcome.winner, r.outcome.reason), (WHITE, "resign"))

    def test_crash_loses(self):
        black, white = self.engine("7g7f", "2g2f"), self.engine("3c3d", "EXIT")
        r = self.play(black, white)
        self.assertEqual((r.outcome.winner, r.outcome.reason), (BLACK, "crash"))
        self.assertEqual(r.broken, [white])

    def test_timeout_loses(self):
        black, white = self.engine("HANG"), self.engine()
        r = self.play(black, white, timeout=0.5)
        self.assertEqual((r.outcome.winner, r.outcome.reason), (WHITE, "timeout"))
        self.assertEqual(r.broken, [black])
        black.start()  # what the driver does: the engine is usable again
        self.assertTrue(black.alive())


if __name__ == "__main__":
    unittest.main()
