"""tools.mate_peers: the line check on small hand-made lines, the answers read from solver output
and the problem files; no solver is run."""

import os
import tempfile
import unittest

from tools.mate_peers import Answer, cell, check_line, parse_answer, read_problems, table_option
from tools.usi.engine import SpinOption

# Black to move, a gold in hand, a pawn on 5c below the king on 5a: G*5b mates.
GOLD = "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1"
# Bishops on 1g and 1h, the black king on 8c, the white king on 9a: 1g2h checks, and the only
# replies are drops on the diagonal, each taken and mated (antma_tsume1_3 of tests/data/mate.tsv,
# a mate in 1 by tsume convention).
FUTILE = "k8/9/1K7/9/9/9/8B/8B/9 b 2r4g4s4n4l18p 1"
# A rook on 8i and the king on 9a: the rook checks from the 9 and 8 files in turn.
ROOK = "k8/9/9/9/9/9/9/9/1R7 b r2b4g4s4n4l18p 1"


class LineCheck(unittest.TestCase):
    def test_a_mate_is_a_mate(self):
        self.assertEqual(check_line(GOLD, ["G*5b"]), (True, "mate"))

    def test_an_illegal_move_is_wrong(self):
        ok, why = check_line(GOLD, ["G*5c"])  # 5c holds the pawn
        self.assertFalse(ok)
        self.assertIn("not a legal move", why)
        ok, why = check_line(GOLD, ["G*5b", "5a4a", "P*5c"])
        self.assertFalse(ok, "the king cannot leave: 5a4a is illegal after the mate")
        self.assertIn("ply 2", why)

    def test_an_attacker_move_that_does_not_check_is_wrong(self):
        ok, why = check_line(GOLD, ["G*5h"])
        self.assertFalse(ok)
        self.assertIn("not a check", why)

    def test_a_line_that_does_not_end_in_mate_is_wrong(self):
        ok, why = check_line(GOLD, ["G*4b"])  # check, but the king takes or steps away
        self.assertFalse(ok)
        self.assertIn("not checkmate", why)
        ok, why = check_line(ROOK, ["8i9i", "9a8a", "P*8b"])
        self.assertFalse(ok)

    def test_an_even_or_empty_line_is_wrong(self):
        self.assertFalse(check_line(GOLD, [])[0])
        self.assertFalse(check_line(ROOK, ["8i9i", "9a8a"])[0])

    def test_a_repeated_position_is_wrong(self):
        ok, why = check_line(ROOK, ["8i9i", "9a8a", "9i8i", "8a9a", "8i9i"])
        self.assertFalse(ok)
        self.assertIn("ply 4", why)
        self.assertIn("repeated", why)

    def test_futile_interpositions_left_out_by_convention(self):
        self.assertEqual(check_line(FUTILE, ["1g2h"]), (True, "mate by convention"))
        ok, _ = check_line(FUTILE, ["1h2i"])  # no check at all
        self.assertFalse(ok)


class Answers(unittest.TestCase):
    def test_a_mate_and_what_it_claims(self):
        lines = ["info string mate in 1 plies, proven shortest; every move of the line is best play",
                 "checkmate G*5b"]
        self.assertEqual(parse_answer(lines), ("mate", ["G*5b"], "yes"))
        not_proven = "info string mate in 3 plies; a shorter mate is not ruled out (the limits ended the search for one)"
        self.assertEqual(parse_answer([not_proven, "checkmate a b c"]), ("mate", ["a", "b", "c"], "no"))
        self.assertEqual(parse_answer(["checkmate G*5b"]), ("mate", ["G*5b"], "-"))

    def test_komoring_heights_claims_by_its_rounds(self):
        head = "info time 958 nodes 253750 nps 264874 hashfull 7 depth 0 seldepth 60 score mate 49 string # "
        found = [head + "1st result: mate in 45(upper_bound:53)", head + "2nd result: mate in 45(upper_bound:45)"]
        self.assertEqual(parse_answer(found + ["checkmate a b c"])[2], "no", "stopped before a shorter was ruled out")
        disproof = head + "3rd result: {disproof_hand=P len=43 amount=12}"
        self.assertEqual(parse_answer(found + [disproof, "checkmate a b c"])[2], "yes")
        self.assertEqual(parse_answer([head + "1st result: mate in 1(upper_bound:1)", "checkmate G*5b"])[2], "yes")
        self.assertEqual(parse_answer([disproof, "checkmate nomate"])[2], "-", "no mate, nothing claimed")

    def test_no_mate(self):
        self.assertEqual(parse_answer(["checkmate nomate"])[0], "nomate")
        self.assertEqual(parse_answer(["checkmate timeout"])[0], "timeout")
        self.assertEqual(parse_answer(["checkmate notimplemented"])[0], "error")
        self.assertEqual(parse_answer([])[0], "error")


class Table(unittest.TestCase):
    def test_cells(self):
        self.assertEqual(cell(Answer("mate", 29, "yes", 0.64, "mate", []), 29), "29* 0.6s")
        self.assertEqual(cell(Answer("mate", 25, "-", 1.8, "mate", []), 29), "<25 1.8s",
                         "shorter than published: the defender did not resist longest")
        self.assertEqual(cell(Answer("mate", 45, "no", 60.1, "mate", []), 0), "45 60.1s")
        self.assertEqual(cell(Answer("wrong", 7, "-", 1.0, "ply 3 ...", []), 9), "X 7")
        self.assertEqual(cell(Answer("timeout", 0, "-", 60.0, "", []), 9), "-")


class Setup(unittest.TestCase):
    def test_the_table_option_each_solver_declares(self):
        class Solver:
            def __init__(self, names, spins=()):
                self.option_names = set(names)
                self.spin_options = {s.name: s for s in spins}

        self.assertEqual(table_option(Solver(["USI_Hash", "MateHash"]), 2048), ("MateHash", "2048"))
        self.assertEqual(table_option(Solver(["USI_Hash"]), 2048), ("USI_Hash", "2048"))
        shtsume = Solver(["USI_Hash"], [SpinOption("USI_Hash", 256, 1, 2047)])
        self.assertEqual(table_option(shtsume, 2048), ("USI_Hash", "2047"), "cut to the option's maximum")
        self.assertEqual(table_option(Solver(["RootDfpnNodes"]), 352), ("RootDfpnNodes", "2097152"))
        self.assertIsNone(table_option(Solver([]), 2048))

    def test_problems_chosen_by_name(self):
        d = tempfile.mkdtemp()
        path = os.path.join(d, "p.tsv")
        with open(path, "w") as f:
            f.write("name\tsfen\tmate_plies\tfirst_move_usi\tsource\n"
                    f"gold_1\t{GOLD}\t1\tG*5b\thand-made\nrook\t{ROOK}\t0\t\thand-made\n\n")
        self.assertEqual([p.name for p in read_problems([path], [])], ["gold_1", "rook"])
        chosen = read_problems([path], ["gold"])
        self.assertEqual([(p.name, p.plies, p.sfen) for p in chosen], [("gold_1", 1, GOLD)])
        self.assertEqual([p.name for p in read_problems([path], [], ["gold"])], ["rook"])


if __name__ == "__main__":
    unittest.main()
