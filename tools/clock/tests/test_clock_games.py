"""Games at the clock against scripted engines that take their time
(tools/usi/tests/scripted_engine.py): losses on time, `stop` after the deadline, crashes, the `go`
lines, the log and the summary.

Skipped when cshogi is not installed (the referee needs it; `make test` installs it in .venv/tools).
"""

import contextlib
import io
import json
import os
import stat
import sys
import tempfile
import unittest

# clock_games imports cshogi (through the referee) only when a game is played.
from tools.clock import clock_games
from tools.clock.clock_games import BLACK, WHITE, Settings, play_clock_game
from tools.clock.clock_math import TimeControl
from tools.usi.engine import UsiEngine

try:
    import cshogi
except ImportError:
    cshogi = None

if cshogi is not None:
    from tools.usi.referee import Opening

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTED_ENGINE = os.path.join(os.path.dirname(os.path.dirname(HERE)), "usi", "tests", "scripted_engine.py")


def engine_script(directory, *words, record=None):
    path = os.path.join(directory, f"engine{len(os.listdir(directory))}.sh")
    args = (["--record", record] if record else []) + list(words)
    with open(path, "w") as f:
        f.write(f'#!/bin/sh\nexec "{sys.executable}" "{SCRIPTED_ENGINE}" {" ".join(args)}\n')
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
    return path


@unittest.skipIf(cshogi is None, "cshogi is not installed")
class Games(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def engine(self, *words, record=None):
        e = UsiEngine(engine_script(self.dir, *words, record=record), "fake", [], init_timeout=10)
        e.start()
        self.addCleanup(e.close)
        return e

    def play(self, black, white, tc, whole=False, grace=0, max_plies=320):
        settings = Settings(TimeControl.parse(tc), whole, grace, max_plies, 1)
        return play_clock_game(1, (black, white), 0, Opening(None, [], "startpos"), settings)

    def test_fischer_go_lines_follow_the_clock(self):
        record = os.path.join(self.dir, "go.txt")
        black = self.engine("7g7f@30", "2g2f@10", "resign", record=record)
        white = self.engine("3c3d@20", "8c8d", record=record)
        r = self.play(black, white, "fischer:5+1")
        self.assertEqual((r.winner, r.reason), (WHITE, "resign"))
        self.assertEqual(r.moves, ["7g7f", "3c3d", "2g2f", "8c8d"])
        with open(record) as f:
            gos = [line.strip() for line in f]
        self.assertEqual(len(gos), 5)
        self.assertEqual(gos[0], "go btime 5000 wtime 5000 binc 1000 winc 1000")
        # Each `go` carries what the clocks say after the moves before it.
        clocks = {BLACK: 5000, WHITE: 5000}
        for go, m in zip(gos, r.timed):
            self.assertEqual(go, f"go btime {clocks[BLACK]} wtime {clocks[WHITE]} binc 1000 winc 1000")
            self.assertEqual(m.charge.clock_before_ms, clocks[m.colour])
            self.assertEqual(m.charge.clock_after_ms, clocks[m.colour] + 1000 - m.charge.elapsed_ms)
            clocks[m.colour] = m.charge.clock_after_ms
        self.assertGreaterEqual(r.timed[0].charge.elapsed_ms, 30)
        self.assertEqual(len(r.timed), 5)  # the resignation is timed too

    def test_late_move_loses_on_time(self):
        black = self.engine("7g7f", "2g2f")
        white = self.engine("3c3d@50", "8c8d@400")
        r = self.play(black, white, "sudden:0.3")
        self.assertEqual((r.winner, r.reason), (BLACK, "time"))
        last = r.timed[-1]
        self.assertTrue(last.charge.lost_on_time)
        self.assertGreaterEqual(last.charge.elapsed_ms, 400)
        self.assertEqual(last.word, "8c8d")  # it came, too late
        self.assertEqual(r.moves, ["7g7f", "3c3d", "2g2f"])
        self.assertEqual(r.broken, [])
        self.assertIn("allowed", r.detail)

    def test_grace_lets_a_late_move_through(self):
        black = self.engine("7g7f@150", "resign")
        white = self.engine("3c3d")
        r = self.play(black, white, "byoyomi:0+0.1", grace=300)
        self.assertEqual((r.winner, r.reason), (WHITE, "resign"))
        self.assertLess(r.timed[0].charge.margin_ms, 0)

    def test_no_answer_until_stop(self):
        black = self.engine("STOP", "7g7f")
        white = self.engine("3c3d")
        r = self.play(black, white, "byoyomi:0+0.2")
        self.assertEqual((r.winner, r.reason), (WHITE, "time"))
        m = r.timed[0]
        # Waited for the deadline and the slack, then `stop` brought the (late) answer.
        self.assertTrue(m.answered)
        self.assertGreaterEqual(m.charge.elapsed_ms, 200 + int(clock_games.ANSWER_SLACK_S * 1000))
        self.assertEqual(r.broken, [])
        self.assertTrue(black.alive())

    def test_hung_engine_is_restarted(self):
        old = clock_games.STOP_WAIT_S
        clock_games.STOP_WAIT_S = 0.2
        self.addCleanup(setattr, clock_games, "STOP_WAIT_S", old)
        black = self.engine("HANG")
        white = self.engine()
        r = self.play(black, white, "byoyomi:0+0.1")
        self.assertEqual((r.winner, r.reason), (WHITE, "time"))
        self.assertFalse(r.timed[0].answered)
        self.assertEqual(r.broken, [black])
        black.start()
        self.assertTrue(black.alive())

    def test_crash_and_illegal_move(self):
        r = self.play(self.engine("7g7f"), self.engine("EXIT"), "fischer:5+1")
        self.assertEqual((r.winner, r.reason), (BLACK, "crash"))
        self.assertEqual(len(r.broken), 1)
        r = self.play(self.engine("7g7f", "7g7f"), self.engine("3c3d"), "fischer:5+1")
        self.assertEqual((r.winner, r.reason, r.detail), (WHITE, "illegal move", "7g7f"))

    def test_whole_seconds_clock(self):
        record = os.path.join(self.dir, "go.txt")
        black = self.engine("7g7f@20", "resign", record=record)
        white = self.engine("3c3d@20", record=record)
        r = self.play(black, white, "fischer:2+1", whole=True)
        self.assertEqual((r.winner, r.reason), (WHITE, "resign"))
        with open(record) as f:
            gos = [line.strip() for line in f]
        # Moves under a second cost nothing: each side gains its increment.
        self.assertEqual(gos, ["go btime 2000 wtime 2000 binc 1000 winc 1000",
                               "go btime 3000 wtime 2000 binc 1000 winc 1000",
                               "go btime 3000 wtime 3000 binc 1000 winc 1000"])


@unittest.skipIf(cshogi is None, "cshogi is not installed")
class CommandLine(unittest.TestCase):
    def test_two_games_log_and_summary(self):
        d = tempfile.mkdtemp()
        # The engines keep their scripts through both games. A answers at once, B takes 20 ms a
        # move; A resigns on its third move as black (game 1) and its second as white (game 2).
        a = engine_script(d, "7g7f", "2g2f", "resign", "3c3d", "resign")
        b = engine_script(d, "3c3d@20", "8c8d@20", "7g7f@20", "2g2f@20")
        openings = os.path.join(d, "openings.txt")
        with open(openings, "w") as f:
            f.write("startpos\n")
        log_path = os.path.join(d, "log.jsonl")
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = clock_games.main([a, b, "--games", "2", "--tc", "fischer:5+1", "--openings", openings,
                                       "--log", log_path, "--options-b", "Threads=1"])
        self.assertEqual(status, 0, err.getvalue())
        with open(log_path) as f:
            records = [json.loads(line) for line in f]
        kinds = [r["type"] for r in records]
        self.assertEqual((kinds[0], kinds[-1], kinds.count("game")), ("start", "summary", 2))
        games = sorted((r for r in records if r["type"] == "game"), key=lambda r: r["game"])
        self.assertEqual([(g["black"], g["winner"], g["reason"]) for g in games], [("A", "B", "resign"), ("B", "B", "resign")])
        moves = [r for r in records if r["type"] == "move"]
        self.assertEqual(len(moves), sum(g["sides"]["A"]["moves"] + g["sides"]["B"]["moves"] for g in games))
        for m in moves:
            self.assertEqual(m["clock_after_ms"], m["clock_before_ms"] + 1000 - m["elapsed_ms"])
        summary = records[-1]
        self.assertEqual((summary["A"]["wins"], summary["A"]["losses"], summary["B"]["wins"]), (0, 2, 2))
        self.assertEqual(summary["A"]["time_losses"], 0)
        text = out.getvalue()
        self.assertIn("losses on time", text)
        self.assertIn("ScriptedEngine", text)

        # The same two games again, their row appended to a ledger of a repository of the test's own.
        from tools.ledger import COLUMNS, parse_ledger
        repo = os.path.join(d, "repo")
        os.makedirs(os.path.join(repo, "docs", "records"))
        with open(os.path.join(repo, "docs", "records", "ledger.tsv"), "w") as f:
            f.write("\t".join(COLUMNS) + "\n")
        a = engine_script(d, "7g7f", "2g2f", "resign", "3c3d", "resign")
        b = engine_script(d, "3c3d@20", "8c8d@20", "7g7f@20", "2g2f@20")
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = clock_games.main([a, b, "--games", "2", "--tc", "fischer:5+1", "--openings", openings, "--seed", "3",
                                       "--options-a", "USI_Hash=64", "--options-b", "USI_Hash=64",
                                       "--ledger-label", "scripted A vs scripted B", "--ledger-repo", repo])
        self.assertEqual(status, 0, err.getvalue())
        self.assertIn("R0001 appended", out.getvalue())
        with open(os.path.join(repo, "docs", "records", "ledger.tsv")) as f:
            [row], problems = parse_ledger(f.read())
        self.assertEqual(problems, [])
        self.assertEqual({k: row[k] for k in ("games", "w", "d", "l", "elo", "clock", "hash", "seed", "label", "notes")},
                         {"games": "2", "w": "0", "d": "0", "l": "2", "elo": "-2400.0",
                          "clock": "`tools/clock --tc fischer:5+1`", "hash": "64", "seed": "3",
                          "label": "scripted A vs scripted B", "notes": "no loss on time"})

    def test_bad_arguments(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(clock_games.main(["/nonexistent", "/nonexistent", "--tc", "fischer:1+1"]), 2)
            self.assertEqual(clock_games.main(["/nonexistent", "/nonexistent", "--tc", "fischer:1"]), 2)
            self.assertEqual(clock_games.main(["/nonexistent", "/nonexistent", "--tc", "fischer:1+0.5", "--whole-seconds"]), 2)
        self.assertIn("whole seconds", err.getvalue())


if __name__ == "__main__":
    unittest.main()
