"""tools.search_compare: the iterations read from both engines' `info` lines, the figures at a node
budget, the reference move and the summary's statistics, worked by hand."""

import unittest

from tools.search_compare import (
    Iteration,
    at_budget,
    geomean,
    iterations,
    parse_iteration,
    read_positions,
    reference_moves,
    settled_nodes,
    summary,
)

HAYATE = [
    "info depth 1 seldepth 2 time 1 nodes 33 nps 33000 hashfull 0 score cp 74 multipv 1 pv 4a3b",
    "info depth 2 seldepth 3 time 1 nodes 345 nps 345000 hashfull 0 score cp 55 upperbound multipv 1 pv 4a3b",
    "info depth 2 seldepth 3 time 2 nodes 400 nps 200000 hashfull 0 score cp 50 multipv 1 pv 8c8d 2g2f",
    "bestmove 8c8d",
]
YANEURAOU = [
    "info string loading eval file : gen6/nn.bin",
    "info depth 1 seldepth 4 multipv 1 score cp 277 nodes 37 nps 37000 hashfull 0 time 1 pv 2e2d 2c2d",
    "info depth 2 seldepth 4 multipv 1 score cp 300 lowerbound nodes 90 nps 90000 hashfull 0 time 1 pv 2e2d",
    "info depth 2 currmove 2e2d currmovenumber 1",
    "info depth 2 seldepth 5 multipv 1 score mate 3 nodes 120 nps 120000 hashfull 0 time 2 pv G*5b 5a4a",
    "info depth 2 seldepth 5 multipv 2 score cp 100 nodes 120 nps 120000 hashfull 0 time 2 pv 2e2d",
]


def its(*figures):
    """Iterations from (depth, nodes, move) triples."""
    return [Iteration(d, d, n, 0, 0, m) for d, n, m in figures]


class Parsing(unittest.TestCase):
    def test_both_engines_lines(self):
        self.assertEqual(iterations(HAYATE), [Iteration(1, 2, 33, 1, 74, "4a3b"), Iteration(2, 3, 400, 2, 50, "8c8d")])
        got = iterations(YANEURAOU, 0.9)
        self.assertEqual(got[0], Iteration(1, 4, 37, 1, 249, "2e2d"), "277 cp on YaneuraOu's scale is 249 units")
        self.assertEqual(got[1], Iteration(2, 5, 120, 2, 99997, "G*5b"), "a mate is not scaled; multipv 2 ignored")
        self.assertEqual(len(got), 2)

    def test_lines_that_end_no_iteration(self):
        for line in ("info depth 2 currmove 2e2d currmovenumber 1", "info string score cp 10 pv 7g7f",
                     "info depth 3 score cp 5 lowerbound nodes 9 pv 7g7f", "info depth 3 nodes 9 pv 7g7f",
                     "info depth 3 score cp 5 nodes 9 pv", "info depth x score cp 5 nodes 9 pv 7g7f",
                     "bestmove 7g7f"):
            self.assertIsNone(parse_iteration(line), line)

    def test_positions_file(self):
        import os
        import tempfile

        d = tempfile.mkdtemp()
        path = os.path.join(d, "p.txt")
        with open(path, "w") as f:
            f.write("# comment\nlnsgkgsnl/9/9/9/9/9/9/9/LNSGKGSNL b - 1\nsfen 4k4/9/9/9/9/9/9/9/4K4 b - 1\n\n"
                    "startpos moves 7g7f\n")
        self.assertEqual(read_positions(path, 2), ["position sfen lnsgkgsnl/9/9/9/9/9/9/9/LNSGKGSNL b - 1",
                                                   "position sfen 4k4/9/9/9/9/9/9/9/4K4 b - 1"])
        self.assertEqual(read_positions(path, 9)[-1], "position startpos moves 7g7f")


class Statistics(unittest.TestCase):
    def test_budget_reference_and_settling(self):
        a = its((1, 10, "x"), (2, 50, "y"), (3, 200, "z"), (4, 900, "z"))
        self.assertEqual(at_budget(a, 199).depth, 2)
        self.assertEqual(at_budget(a, 200).depth, 3)
        self.assertIsNone(at_budget(a, 5))
        self.assertEqual(settled_nodes(a, "z"), 200)
        self.assertIsNone(settled_nodes(a, "y"), "y was best but not for good")
        self.assertEqual(settled_nodes(its((1, 10, "z"), (2, 50, "y"), (3, 80, "z")), "z"), 80)
        b = {0: its((1, 5, "z")), 1: its((1, 5, "q"))}
        self.assertEqual(reference_moves({0: a, 1: a}, b), {0: "z"})

    def test_geomean(self):
        self.assertAlmostEqual(geomean([1.0, 4.0]), 2.0)
        self.assertAlmostEqual(geomean([2.0, 0.0, 8.0]), 4.0, msg="non-positive values are left out")

    def test_summary_figures(self):
        # Two positions; A needs half of B's nodes at every depth, and agrees on position 0 only.
        rows = []
        for engine, factor, moves in (("A", 1, ("m", "m")), ("B", 2, ("m", "n"))):
            for p in (0, 1):
                for d, n in ((1, 10000), (2, 40000), (3, 160000)):
                    rows.append({"engine": engine, "position": str(p), "depth": str(d), "seldepth": str(d + 1),
                                 "nodes": str(n * factor), "time_ms": str(d), "score": "0", "move": moves[p]})
        out = summary(rows, ("A", "B"), 1)
        depth3 = next(line for line in out if line.split()[:1] == ["3"]).split()
        self.assertEqual(depth3[:6], ["3", "2", "50%", "160,000", "320,000", "0.50"], "A's nodes over B's")
        self.assertEqual(depth3[-2:], ["4.00", "4.00"], "the EBF at depth 3")
        text = "\n".join(out)
        self.assertIn("A 4.000 (2), B 4.000 (2)", text, "(160000 / 10000) ** (1 / 2) from depth 1 to 3")
        self.assertIn("1 positions", text, "one reference move: position 0's")
        # At 100,000 nodes: depth 2 for both, the moves agree on one position of two, and both
        # engines have the reference move (position 0's). Past 160,000 A's searches had ended.
        budgets = [line.split() for line in out if line.split()[:1] in (["31,622"], ["100,000"], ["316,227"])]
        self.assertEqual(budgets, [["31,622", "2", "1.0", "1.0", "50%", "100%", "100%", "1", "0", "0"],
                                   ["100,000", "2", "2.0", "2.0", "50%", "100%", "100%", "1", "0", "0"]])
        self.assertIn("A geometric mean 10,000, median 10,000, B geometric mean 20,000", text)

    def test_discordant_positions(self):
        # Both end on r; at 31,622 nodes only B has it (A's depth 1 chose x), at 100,000 both.
        rows = []
        for engine, factor, moves in (("A", 1, "xrr"), ("B", 2, "rrr")):
            for (d, n), move in zip(((1, 10000), (2, 40000), (3, 160000)), moves):
                rows.append({"engine": engine, "position": "0", "depth": str(d), "seldepth": str(d), "nodes": str(n * factor),
                             "time_ms": "1", "score": "0", "move": move})
        budgets = [line.split() for line in summary(rows, ("A", "B"), 1) if line.split()[:1] in (["31,622"], ["100,000"])]
        self.assertEqual([b[-2:] for b in budgets], [["0", "1"], ["0", "0"]])
        self.assertEqual([b[5:7] for b in budgets], [["0%", "100%"], ["100%", "100%"]])


if __name__ == "__main__":
    unittest.main()
