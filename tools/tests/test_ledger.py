"""tools.ledger in a repository made for the test: `match` runs a scripted referee and appends its
row (the figures from its summary, the context from its arguments), `append` takes a log or a
W-D-L, `render` writes a document's tables from the ledger, and `check` fails on a malformed row,
figures the referee's formulas do not give, and a generated table edited by hand."""

import os
import unittest

from tools.ledger import COLUMNS, LEDGER, llr, parse_ledger, summary
from tools.tests.support import read_rows, run_tool, temp_repo

# What the referee prints at the end of a run (../shared/tools/match/match.py's format).
REFEREE_OUTPUT = """game 1: checkmate (87 plies) | A W1 D0 L0 score 1.000 elo +1200.0 [+1200.0, +1200.0]
game 2: checkmate (90 plies) | A W1 D0 L1 score 0.500 elo +0.0 [-0.0, +0.0]

Result A vs B: 6-1-3 (W-D-L), score 0.650, Elo +107.5 (95% [-91.6, +446.5])
SPRT [0.0, 10.0]: LLR 0.10 -> undecided
Endings: checkmate 9, repetition 1
"""


def ledger(repo, *args, env=None):
    return run_tool("ledger", repo, *args, unset=("HAYATE_REFEREE",), env=env)


class Formulas(unittest.TestCase):
    def test_the_referees_figures(self):
        # The summary above is the referee's own for 6-1-3 and SPRT [0, 10].
        elo, lo, hi = summary(6, 1, 3)
        self.assertEqual((f"{elo:+.1f}", f"{lo:+.1f}", f"{hi:+.1f}"), ("+107.5", "-91.6", "+446.5"))
        self.assertEqual(f"{llr(6, 1, 3, 0, 10):.2f}", "0.10")


class Ledger(unittest.TestCase):
    def setUp(self):
        temp_repo(self, "docs", "records")
        self.write_ledger("")
        # A referee that prints a summary and records its arguments.
        self.referee = os.path.join(self.tmp, "referee.sh")
        self.output = os.path.join(self.tmp, "output.txt")
        with open(self.output, "w") as f:
            f.write(REFEREE_OUTPUT)
        with open(self.referee, "w") as f:
            f.write(f'#!/bin/sh\nprintf "%s\\n" "$@" > {self.tmp}/args\ncat {self.output}\nexit "${{STATUS:-0}}"\n')
        os.chmod(self.referee, 0o755)

    def write_ledger(self, rows_text):
        with open(os.path.join(self.repo, LEDGER), "w") as f:
            f.write("\t".join(COLUMNS) + "\n" + rows_text)

    def rows(self):
        return read_rows(self, LEDGER, parse_ledger)

    def match(self, *args):
        return ledger(self.repo, "match", "--referee", self.referee, "--label", "new vs old", "--commits", "abc1234",
                      "--", "./new", "./old", *args)

    def test_match_appends_the_referees_result_and_the_runs_context(self):
        log = os.path.join(self.tmp, "run.log")
        r = ledger(self.repo, "match", "--referee", self.referee, "--label", "new vs old", "--commits", "abc1234",
                   "--log", log, "--", "./new", "./old", "--games", "10", "--byoyomi", "300", "--seed", "7",
                   "--options-a", "USI_Hash=64,EvalFile=x.bin", "--options-b", "USI_Hash=64", "--sprt", "0,10",
                   "--openings", "data/openings-8000.txt", "--concurrency", "2")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Result A vs B: 6-1-3", r.stdout)  # Passed through...
        with open(log) as f:
            self.assertEqual(f.read(), REFEREE_OUTPUT)  # ...and logged.
        self.assertIn("R0001: 6-1-3 over 10, +107.5 [-91.6, +446.5] appended", r.stdout)
        with open(os.path.join(self.tmp, "args")) as f:
            self.assertEqual(f.read().split("\n")[:3], ["./new", "./old", "--games"])
        [row] = self.rows()
        self.assertEqual({k: row[k] for k in ("id", "commits", "engine_a", "options_a", "engine_b", "options_b", "clock",
                                              "nodes", "threads", "hash", "seed", "openings", "concurrency", "games",
                                              "w", "d", "l", "elo", "elo_lo", "elo_hi", "sprt", "llr", "verdict",
                                              "label", "notes")},
                         {"id": "R0001", "commits": "abc1234", "engine_a": "./new", "options_a": "EvalFile=x.bin",
                          "engine_b": "./old", "options_b": "", "clock": "byoyomi 300 ms", "nodes": "", "threads": "1",
                          "hash": "64", "seed": "7", "openings": "data/openings-8000.txt", "concurrency": "2",
                          "games": "10", "w": "6", "d": "1", "l": "3", "elo": "+107.5", "elo_lo": "-91.6",
                          "elo_hi": "+446.5", "sprt": "0, 10", "llr": "0.10", "verdict": "undecided",
                          "label": "new vs old", "notes": ""})
        self.assertRegex(row["date"], r"^\d{4}-\d{2}-\d{2}$")
        self.assertIn("CPUs", row["machine"])

        # A second run at fixed nodes, whose referee reports an illegal move (status 1): the row
        # says so; ids go on.
        r = ledger(self.repo, "match", "--referee", self.referee, "--label", "again", "--commits", "abc1234", "--",
                   "./new", "./old", "--nodes", "10000", "--max-plies", "400", env={"STATUS": "1"})
        self.assertEqual(r.returncode, 0, r.stderr)
        second = self.rows()[1]
        self.assertEqual((second["id"], second["clock"], second["nodes"], second["seed"], second["openings"]),
                         ("R0002", "", "10000", "1", "the referee's own"))
        self.assertEqual(second["notes"], "--max-plies 400; the referee's status 1 (an illegal move, a loss on "
                         "time or a start failure: see its log)")
        self.assertEqual(ledger(self.repo, "check").returncode, 0)

    def test_a_run_without_a_summary_appends_nothing(self):
        with open(self.output, "w") as f:
            f.write("game 1: start failure: A: cannot start\n")
        r = self.match("--games", "2")
        self.assertEqual(r.returncode, 1)
        self.assertIn("nothing appended", r.stderr)
        self.assertEqual(self.rows(), [])
        # Arguments the referee would refuse are refused before it runs.
        os.remove(os.path.join(self.tmp, "args"))
        r = self.match("--games", "many")
        self.assertEqual(r.returncode, 2)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "args")))

    def test_append_from_a_log_or_a_wdl(self):
        log = os.path.join(self.tmp, "a.log")
        with open(log, "w") as f:
            f.write(REFEREE_OUTPUT)
        r = ledger(self.repo, "append", "--from-log", log, "--label", "from a log", "--date", "2026-12-07",
                   "--nodes", "5000", "--seed", "3")
        self.assertEqual(r.returncode, 0, r.stderr)
        r = ledger(self.repo, "append", "--wdl", "6-1-3", "--sprt", "0,10", "--label", "pooled",
                   "--notes", "R0001 twice")
        self.assertEqual(r.returncode, 0, r.stderr)
        first, second = self.rows()
        self.assertEqual((first["w"], first["elo"], first["llr"], first["nodes"], first["date"]),
                         ("6", "+107.5", "0.10", "5000", "2026-12-07"))
        self.assertEqual((second["id"], second["elo_lo"], second["sprt"], second["llr"], second["verdict"]),
                         ("R0002", "-91.6", "0, 10", "0.10", "undecided"))
        # A figure the formulas do not give is refused.
        r = ledger(self.repo, "append", "--wdl", "6-1-3", "--sprt", "0,10", "--llr", "2.99", "--label", "x")
        self.assertEqual(r.returncode, 2)
        self.assertIn("LLR 2.99 is not 0.10", r.stderr)

    def test_pool_sums_runs_of_the_ledger(self):
        for wdl_, seed in (("6-1-3", "1"), ("4-0-6", "2")):
            r = ledger(self.repo, "append", "--wdl", wdl_, "--sprt", "0,10", "--label", "a run", "--seed", seed,
                       "--nodes", "5000", "--commits", "abc1234")
            self.assertEqual(r.returncode, 0, r.stderr)
        r = ledger(self.repo, "pool", "R0001", "R0002", "--label", "both", "--date", "2026-12-07")
        self.assertEqual(r.returncode, 0, r.stderr)
        pool = self.rows()[2]
        elo, lo, hi = summary(10, 1, 9)
        self.assertEqual({k: pool[k] for k in ("id", "commits", "nodes", "seed", "games", "w", "d", "l", "elo",
                                               "elo_lo", "elo_hi", "sprt", "llr", "verdict", "notes")},
                         {"id": "R0003", "commits": "abc1234", "nodes": "5000", "seed": "", "games": "20", "w": "10",
                          "d": "1", "l": "9", "elo": f"{elo:+.1f}", "elo_lo": f"{lo:+.1f}", "elo_hi": f"{hi:+.1f}",
                          "sprt": "0, 10", "llr": f"{llr(10, 1, 9, 0, 10):.2f}", "verdict": "undecided",
                          "notes": "pooled: R0001, R0002"})
        self.assertEqual(ledger(self.repo, "check").returncode, 0)
        r = ledger(self.repo, "pool", "R0001", "R0009", "--label", "x")
        self.assertEqual(r.returncode, 2)
        self.assertIn("R0009 not in", r.stderr)

    def test_check_finds_bad_rows(self):
        good = {c: "" for c in COLUMNS} | {"id": "R0001", "games": "10", "w": "6", "d": "1", "l": "3",
                                           "elo": "+107.5", "elo_lo": "-91.6", "elo_hi": "+446.5", "label": "x"}

        def line(**kw):
            return "\t".join((good | kw)[c] for c in COLUMNS) + "\n"

        for rows_text, message in (
                (line(games="11"), "6-1-3 is 10 games, not 11"),
                (line(elo="+109"), "elo +109 is not +107.5"),
                (line(elo="+107.4"), "elo +107.4 is not +107.5"),
                (line(elo_hi="+446.4"), "elo_hi +446.4 is not +446.5"),
                (line(llr="0.10"), "an LLR or a verdict without the SPRT's bounds"),
                (line(sprt="0, 10", llr="0.10", verdict="H1 accepted"), "LLR 0.10 is not 'H1 accepted'"),
                (line() + line(), "R0001 has a row already"),
                (line() + line(id="R0003"), "R0003 follows R0001"),
                (line(label=""), "label is empty"),
                (line() + line(id="R0002") + line(id="R0003", notes="R0001 and R0002 pooled"),
                 "6-1-3 is not the sum of the rows it pools (R0001, R0002)"),
                (line(notes="pooled: R0002"), "pools R0002, not all of them rows before it"),
                (line(date="7 Dec"), "date '7 Dec' is not of the form"),
                (line()[:-1] + "\tan extra field\n", "28 fields, not 27")):
            with self.subTest(message=message):
                self.write_ledger(rows_text)
                r = ledger(self.repo, "check")
                self.assertEqual(r.returncode, 1)
                self.assertIn(message, r.stderr)
        # A figure kept as recorded where the notes say so.
        self.write_ledger(line(elo="+106", notes="elo +106 as recorded"))
        self.assertEqual(ledger(self.repo, "check").returncode, 0)

    def test_render_writes_the_tables_and_check_fails_on_a_hand_edit(self):
        log = os.path.join(self.tmp, "a.log")
        with open(log, "w") as f:
            f.write(REFEREE_OUTPUT)
        for label in ("first", "second | with a bar"):
            r = ledger(self.repo, "append", "--from-log", log, "--label", label, "--commits", "abc1234",
                       "--clock", "byoyomi 1 s", "--notes", "seed 5")
            self.assertEqual(r.returncode, 0, r.stderr)
        readme = os.path.join(self.repo, "README.md")
        with open(readme, "w") as f:
            f.write("# Title\n\n<!-- ledger:table glance R0002 R0001 -->\n| stale |\n<!-- /ledger -->\n\n"
                    "<!-- ledger:table summary R0001 -->\n<!-- /ledger -->\ntext\n")
        r = ledger(self.repo, "check")
        self.assertEqual(r.returncode, 1)
        self.assertIn("README.md:4: the table `glance` differs from the ledger: '| stale |'", r.stderr)
        r = ledger(self.repo, "render")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(readme) as f:
            self.assertEqual(f.read(), """# Title

<!-- ledger:table glance R0002 R0001 -->
| comparison | commit | per move | games | W-D-L | Elo |
|---|---|---|---|---|---|
| second \\| with a bar | abc1234 | byoyomi 1 s | 10 | 6-1-3 | +107.5 [-91.6, +446.5] |
| first | abc1234 | byoyomi 1 s | 10 | 6-1-3 | +107.5 [-91.6, +446.5] |
<!-- /ledger -->

<!-- ledger:table summary R0001 -->
| run | commit | comparison | per move | games | W-D-L | result |
|---|---|---|---|---|---|---|
| R0001 | abc1234 | first; seed 5 | byoyomi 1 s | 10 | 6-1-3 | +107.5 [-91.6, +446.5], LLR 0.10, undecided (SPRT [0, 10]) |
<!-- /ledger -->
text
""")
        r = ledger(self.repo, "check")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("2 runs well-formed", r.stdout)
        self.assertIn("2 generated tables", r.stdout)
        # A figure edited by hand in a generated table.
        with open(readme) as f:
            text = f.read()
        with open(readme, "w") as f:
            f.write(text.replace("| first | abc1234 | byoyomi 1 s | 10 | 6-1-3 |", "| first | abc1234 | byoyomi 1 s | 10 | 7-1-2 |"))
        r = ledger(self.repo, "check")
        self.assertEqual(r.returncode, 1)
        self.assertIn("README.md:7: the table `glance` differs from the ledger", r.stderr)
        self.assertIn("7-1-2", r.stderr)
        # The prose's citations: a run's W-D-L and id agree, an id names a run; then an id the
        # ledger lacks, a table left open, a style that does not exist.
        for text, message in (("It went 6-1-3 (R0001).\n", None),
                              ("It went 7-1-2 (R0001).\n", "README.md:1: 7-1-2 (R0001), where R0001 is 6-1-3"),
                              ("As R0007 showed.\n", "README.md:1: cites R0007, which is not in"),
                              ("<!-- ledger:table glance R0009 -->\n<!-- /ledger -->\n", "R0009 is not in"),
                              ("<!-- ledger:table glance R0001 -->\n", "without its closing"),
                              ("<!-- ledger:table wide R0001 -->\n<!-- /ledger -->\n", "no table style 'wide'"),
                              ("<!-- ledger:tabel glance R0001 -->\n", "not a ledger marker")):
            with self.subTest(text=text):
                with open(readme, "w") as f:
                    f.write(text)
                r = ledger(self.repo, "check")
                if message is None:
                    self.assertEqual(r.returncode, 0, r.stderr)
                    self.assertIn("1 citations of runs", r.stdout)
                else:
                    self.assertEqual(r.returncode, 1)
                    self.assertIn(message, r.stderr)

if __name__ == "__main__":
    unittest.main()
