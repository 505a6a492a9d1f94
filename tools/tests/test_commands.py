"""Every tool's documented command, `python3 -m tools.NAME` from the repository root
(tools/README.md), run as a user runs it: a subprocess with the root as working directory."""

import os
import random
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(*args):
    # The root is the working directory and not on PYTHONPATH: `-m` alone must find the package.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=60, check=False)


class Commands(unittest.TestCase):
    def test_every_tool_answers_help_under_its_command(self):
        # spsa and clock import the shared USI package (tools.usi) at start-up; the usage line
        # names the command that runs them.
        for tool in ("spsa", "clock", "pool_match_logs", "unplayed_openings", "label_budget", "records", "ledger",
                     "nnue_nps", "search_compare", "mate_peers", "level_curve"):
            with self.subTest(tool=tool):
                r = run(f"tools.{tool}", "--help")
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertTrue(r.stdout.startswith(f"usage: python3 -m tools.{tool} "), r.stdout[:200])

    def test_pool_match_logs_sums_the_last_line_of_each_log(self):
        d = tempfile.mkdtemp()
        a, b, empty = (os.path.join(d, n) for n in ("a.log", "b.log", "empty.log"))
        with open(a, "w") as f:
            f.write("game 1: x | A W1 D0 L0 z\ngame 6: x | A W3 D1 L2 z\n")
        with open(b, "w") as f:
            f.write("game 6: x | A W5 D0 L1 z\nsome trailing line\n")
        with open(empty, "w") as f:
            f.write("no games here\n")
        r = run("tools.pool_match_logs", "--sprt=0,5", a, b)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[:2], [f"{a}: 3-1-2", f"{b}: 5-0-1"])
        # Worked by hand: score 8.5 / 12, its variance 0.1858 a game, the bounds 1.96 standard
        # errors either side, the LLR for 0 and 5 Elo against the stopping bound log(0.95 / 0.05).
        self.assertEqual(lines[2], "pooled: 8-1-3 over 12, score 0.708, Elo +154.1 [-24.7, +519.7], "
                         "LLR 0.10 of (-2.94, 2.94) for [0, 5]: undecided")
        r = run("tools.pool_match_logs", a, empty)
        self.assertEqual(r.returncode, 1)
        self.assertIn("no `game N:", r.stderr)

    def test_unplayed_openings_writes_the_shuffled_rest(self):
        d = tempfile.mkdtemp()
        book = os.path.join(d, "book.txt")
        openings = [f"startpos moves {m}" for m in ("7g7f", "2g2f", "5g5f", "6g6f", "1g1f", "9g9f",
                                                  "3g3f", "4g4f", "8g8f", "5i5h")]
        with open(book, "w") as f:
            f.write("# a comment\n\n" + "\n".join(openings) + "\n")
        r = run("tools.unplayed_openings", book, "7", "4", "--concurrency", "2")
        self.assertEqual(r.returncode, 0, r.stderr)
        # match's order: the book's lines shuffled by random.Random(SEED); 4 games at 2 at once
        # started at most 4 / 2 + 2 = 4 pairs.
        random.Random(7).shuffle(openings)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[0], f"# {book} less the first 4 openings of --seed 7 (a run of 4 games)")
        self.assertEqual(lines[1:], openings[4:])
        r = run("tools.unplayed_openings", book, "7", "16")
        self.assertEqual(r.returncode, 1)
        self.assertIn("may have reached all 10 openings", r.stderr)


if __name__ == "__main__":
    unittest.main()
