"""tools.label_budget: its score parsing, the fitted scale and the statistics, worked by hand, and
a whole run against the scripted engine."""

import math
import os
import subprocess
import sys
import tempfile
import unittest

from tools.label_budget import fit_scale, parse_score, summarise, win_probability

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTED = os.path.join(REPO, "tools", "usi", "tests", "scripted_engine.py")


class Parsing(unittest.TestCase):
    def test_scores_of_info_lines(self):
        self.assertEqual(parse_score("info depth 5 nodes 900 score cp -35 pv 7g7f"), -35)
        self.assertEqual(parse_score("info depth 9 score mate 3 pv G*5b"), 99997)
        self.assertEqual(parse_score("info depth 9 score mate -4 pv 5a4a"), -99996)
        self.assertEqual(parse_score("info depth 9 score mate + pv 5a4a"), 100000)
        self.assertEqual(parse_score("info depth 9 score mate - pv 5a4a"), -100000)
        self.assertIsNone(parse_score("info string score cp 10"))
        self.assertIsNone(parse_score("info depth 3 score cp"))
        self.assertIsNone(parse_score("info depth 3 score cp x"))
        self.assertIsNone(parse_score("bestmove 7g7f"))


class Statistics(unittest.TestCase):
    def test_the_fitted_scale_predicts_the_results_best(self):
        # Results drawn as sigmoid(score / 800) says: the fit finds about 800.
        scores, results = [], []
        for s in range(-2000, 2001, 10):
            p = win_probability(s, 800.0)
            wins = round(p * 20)
            scores += [s] * 20
            results += [1] * wins + [-1] * (20 - wins)
        self.assertAlmostEqual(fit_scale(scores, results) / 800.0, 1.0, delta=0.05)

    def test_each_budget_against_the_reference_and_the_result(self):
        rows = [
            {"ref": 0, "result": 1, "a": 600, "nodes:a": 10},
            {"ref": 600, "result": 0, "a": 600, "nodes:a": 30},
        ]
        s = summarise(rows, ["a", "ref"], 600.0)
        p1 = 1 / (1 + math.exp(-1))
        self.assertAlmostEqual(s["a"]["rmse_ref"], math.sqrt((p1 - 0.5) ** 2 / 2))
        self.assertAlmostEqual(s["a"]["mae_cp_ref"], 300.0)
        self.assertAlmostEqual(s["a"]["loss_result"], ((p1 - 1) ** 2 + (p1 - 0.5) ** 2) / 2)
        self.assertEqual(s["a"]["nodes"], 20.0)
        self.assertEqual(s["ref"]["rmse_ref"], 0.0)
        self.assertTrue(math.isnan(s["ref"]["nodes"]))

    def test_mate_scores_are_clipped_in_centipawns(self):
        s = summarise([{"ref": 100000, "result": 1, "a": 0}], ["a"], 600.0)
        self.assertEqual(s["a"]["mae_cp_ref"], 3000.0)


class Run(unittest.TestCase):
    def test_a_run_prints_a_row_for_every_budget(self):
        d = tempfile.mkdtemp()
        positions = os.path.join(d, "p.txt")
        with open(positions, "w") as f:
            f.writelines(f"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\t7g7f\t{i * 50}\t1\t1\n" for i in range(5))
        engine = os.path.join(d, "engine.sh")
        with open(engine, "w") as f:
            f.write(f"#!/bin/sh\nexec {sys.executable} {SCRIPTED} " + " ".join(["7g7f"] * 9) + "\n")
        os.chmod(engine, 0o755)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        r = subprocess.run([sys.executable, "-m", "tools.label_budget", engine, positions, "--count", "3",
                            "--budgets", "1000,2000", "--reference", "5000", "--scale", "600"],
                           cwd=REPO, env=env, capture_output=True, text=True, timeout=60, check=False)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[0], "3 positions, reference 5000 nodes, scale 600")
        self.assertEqual([line.split("\t")[0] for line in lines[2:]], ["recorded", "1000", "2000", "ref"])
        # The scripted engine scores everything 0, as the reference: no noise at all.
        self.assertEqual(lines[3].split("\t")[1:3], ["0.0000", "0.0"])
        r = subprocess.run([sys.executable, "-m", "tools.label_budget", engine, positions, "--count", "9"],
                           cwd=REPO, env=env, capture_output=True, text=True, timeout=60, check=False)
        self.assertEqual(r.returncode, 2)
        self.assertIn("fewer than --count 9", r.stderr)


if __name__ == "__main__":
    unittest.main()
