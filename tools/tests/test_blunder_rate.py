"""tools.blunder_rate: the loss of a move, the interval and the position lines, worked by hand."""

import unittest

from tools.blunder_rate import move_loss, position_line, wilson


class Loss(unittest.TestCase):
    def test_a_move_loses_what_the_scores_say(self):
        self.assertEqual(move_loss(100, -100), 0)
        self.assertEqual(move_loss(100, 250), 350, "from +100 for the mover to +250 for the opponent")
        self.assertEqual(move_loss(-50, -80), -130, "the judge found the move better than its best")

    def test_clamped_scores(self):
        self.assertEqual(move_loss(99997, -99995), 0, "a mate kept is no loss")
        self.assertEqual(move_loss(5000, -1500), 500, "won to merely good")
        self.assertEqual(move_loss(0, 99999), 2000)


class Interval(unittest.TestCase):
    def test_wilson(self):
        lo, hi = wilson(10, 100)
        self.assertAlmostEqual(lo, 0.0552, places=3)
        self.assertAlmostEqual(hi, 0.1744, places=3)
        self.assertEqual(wilson(0, 0), (0.0, 1.0))
        self.assertEqual(wilson(0, 50)[0], 0.0)


class Positions(unittest.TestCase):
    def test_position_lines(self):
        self.assertEqual(position_line("startpos", []), "position startpos")
        self.assertEqual(position_line("startpos", ["7g7f"]), "position startpos moves 7g7f")
        self.assertEqual(position_line("startpos moves 7g7f", ["3c3d"]), "position startpos moves 7g7f 3c3d")
        self.assertEqual(position_line("startpos moves 7g7f", []), "position startpos moves 7g7f")


if __name__ == "__main__":
    unittest.main()
