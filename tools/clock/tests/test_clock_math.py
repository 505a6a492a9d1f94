"""The clock arithmetic (clock_math.py): no engines, no cshogi."""

import math
import random
import unittest

from tools.clock.clock_math import BYOYOMI, FISCHER, SUDDEN, Clock, TimeControl, elapsed_ms_from_seconds


class Parsing(unittest.TestCase):
    def test_forms(self):
        self.assertEqual(TimeControl.parse("fischer:300+10"), TimeControl(FISCHER, 300_000, increment_ms=10_000))
        self.assertEqual(TimeControl.parse("byoyomi:0+10"), TimeControl(BYOYOMI, 0, byoyomi_ms=10_000))
        self.assertEqual(TimeControl.parse("byoyomi:60+10"), TimeControl(BYOYOMI, 60_000, byoyomi_ms=10_000))
        self.assertEqual(TimeControl.parse("sudden:600"), TimeControl(SUDDEN, 600_000))
        self.assertEqual(TimeControl.parse("Fischer:0.5+0.25"), TimeControl(FISCHER, 500, increment_ms=250))
        self.assertEqual(TimeControl.parse("fischer:0+1"), TimeControl(FISCHER, 0, increment_ms=1000))

    def test_errors(self):
        for bad in ("fischer:300", "fischer:0+0", "byoyomi:60+0", "byoyomi:60", "sudden:0", "blitz:1+1",
                    "300+10", "fischer:-1+2", "fischer:a+1", "fischer:0.0005+1", "sudden:nan", "sudden:inf"):
            with self.assertRaises(ValueError, msg=bad):
                TimeControl.parse(bad)

    def test_go_commands(self):
        self.assertEqual(TimeControl.parse("fischer:300+10").go_command(300_000, 299_000),
                         "go btime 300000 wtime 299000 binc 10000 winc 10000")
        self.assertEqual(TimeControl.parse("byoyomi:60+10").go_command(0, 5_000),
                         "go btime 0 wtime 5000 byoyomi 10000")
        self.assertEqual(TimeControl.parse("sudden:600").go_command(1, 2), "go btime 1 wtime 2 byoyomi 0")

    def test_whole_seconds_needs_whole_seconds(self):
        self.assertTrue(TimeControl.parse("fischer:300+10").whole_seconds_only())
        self.assertFalse(TimeControl.parse("fischer:10+0.5").whole_seconds_only())
        with self.assertRaises(ValueError):
            Clock(TimeControl.parse("fischer:10+0.5"), whole_seconds=True)


class Fischer(unittest.TestCase):
    def test_increment_comes_with_the_move(self):
        c = Clock(TimeControl.parse("fischer:10+1"))
        # The first move may use the main time and its own increment.
        self.assertEqual(c.allowance_ms(), 11_000)
        ch = c.charge(3_000)
        self.assertEqual((ch.clock_before_ms, ch.charged_ms, ch.clock_after_ms, ch.margin_ms), (10_000, 3_000, 8_000, 8_000))
        self.assertFalse(ch.lost_on_time)
        # A quick move gains time.
        self.assertEqual(c.charge(200).clock_after_ms, 8_800)
        ch = c.charge(8_300)
        self.assertEqual((ch.clock_after_ms, ch.allowance_ms), (1_500, 9_800))
        # All of it, to the millisecond, is on time and leaves 0.
        ch = c.charge(2_500)
        self.assertEqual((ch.clock_after_ms, ch.margin_ms, ch.lost_on_time), (0, 0, False))
        # Then only the increment is left: one ms more loses.
        self.assertEqual(c.allowance_ms(), 1_000)
        ch = c.charge(1_001)
        self.assertEqual((ch.clock_after_ms, ch.margin_ms, ch.lost_on_time), (0, -1, True))

    def test_no_main_time(self):
        c = Clock(TimeControl.parse("fischer:0+2"))
        self.assertFalse(c.charge(1_500).lost_on_time)
        self.assertEqual(c.remaining_ms, 500)
        self.assertEqual(c.allowance_ms(), 2_500)


class Byoyomi(unittest.TestCase):
    def test_main_time_first_then_byoyomi(self):
        c = Clock(TimeControl.parse("byoyomi:60+10"))
        self.assertEqual(c.allowance_ms(), 70_000)
        self.assertEqual(c.charge(50_000).clock_after_ms, 10_000)
        # 10 s of main time and 5 s of byoyomi: the main time is gone, nothing lost.
        ch = c.charge(15_000)
        self.assertEqual((ch.clock_after_ms, ch.margin_ms, ch.lost_on_time), (0, 5_000, False))
        # From now on a move within the byoyomi costs nothing of the (empty) main time.
        for used in (10_000, 3_000, 9_999):
            ch = c.charge(used)
            self.assertEqual((ch.clock_before_ms, ch.clock_after_ms, ch.lost_on_time), (0, 0, False))
        ch = c.charge(10_001)
        self.assertEqual((ch.margin_ms, ch.lost_on_time), (-1, True))

    def test_byoyomi_only(self):
        c = Clock(TimeControl.parse("byoyomi:0+10"))
        for _ in range(3):
            self.assertEqual(c.allowance_ms(), 10_000)
            self.assertFalse(c.charge(10_000).lost_on_time)
            self.assertEqual(c.remaining_ms, 0)
        self.assertTrue(c.charge(10_001).lost_on_time)

    def test_main_time_does_not_return(self):
        c = Clock(TimeControl.parse("byoyomi:5+1"))
        c.charge(5_500)
        self.assertEqual(c.remaining_ms, 0)
        self.assertEqual(c.allowance_ms(), 1_000)


class SuddenDeath(unittest.TestCase):
    def test_no_increment(self):
        c = Clock(TimeControl.parse("sudden:600"))
        self.assertEqual(c.allowance_ms(), 600_000)
        self.assertEqual(c.charge(100_000).clock_after_ms, 500_000)
        self.assertEqual(c.charge(499_999).clock_after_ms, 1)
        ch = c.charge(1)
        self.assertEqual((ch.clock_after_ms, ch.lost_on_time), (0, False))
        self.assertTrue(c.charge(1).lost_on_time)

    def test_grace(self):
        c = Clock(TimeControl.parse("sudden:10"), grace_ms=200)
        self.assertEqual(c.deadline_ms(), 10_200)
        ch = c.charge(10_150)  # late, within the grace: on time, the clock left at 0
        self.assertEqual((ch.clock_after_ms, ch.margin_ms, ch.lost_on_time), (0, -150, False))
        self.assertFalse(c.charge(200).lost_on_time)
        self.assertTrue(c.charge(201).lost_on_time)
        with self.assertRaises(ValueError):
            Clock(TimeControl.parse("sudden:10"), grace_ms=-1)


class WholeSeconds(unittest.TestCase):
    def test_flooring(self):
        c = Clock(TimeControl.parse("fischer:10+1"), whole_seconds=True)
        ch = c.charge(900)  # 0.9 s costs nothing, and the increment is still added
        self.assertEqual((ch.charged_ms, ch.clock_after_ms), (0, 11_000))
        ch = c.charge(1_999)
        self.assertEqual((ch.charged_ms, ch.clock_after_ms), (1_000, 11_000))
        ch = c.charge(2_000)
        self.assertEqual((ch.charged_ms, ch.clock_after_ms), (2_000, 10_000))
        self.assertEqual(c.remaining_ms % 1000, 0)

    def test_loss_when_the_time_reaches_the_allowance(self):
        # shogi-server: lost when clock - floor(t) + byoyomi + increment <= 0.
        c = Clock(TimeControl.parse("fischer:10+1"), whole_seconds=True)
        ch = c.charge(10_999)  # floor 10 s: 10 - 10 + 1 = 1 > 0, on time
        self.assertEqual((ch.charged_ms, ch.clock_after_ms, ch.lost_on_time), (10_000, 1_000, False))
        self.assertEqual(c.allowance_ms(), 2_000)
        self.assertTrue(Clock(TimeControl.parse("fischer:10+1"), whole_seconds=True).charge(11_000).lost_on_time)
        b = Clock(TimeControl.parse("byoyomi:0+10"), whole_seconds=True)
        self.assertFalse(b.charge(9_999).lost_on_time)
        self.assertTrue(b.charge(10_000).lost_on_time)
        # The exact clock lets a move of exactly the allowance through.
        self.assertFalse(Clock(TimeControl.parse("byoyomi:0+10")).charge(10_000).lost_on_time)

    def test_byoyomi_with_main_time(self):
        c = Clock(TimeControl.parse("byoyomi:3+10"), whole_seconds=True)
        ch = c.charge(2_700)  # 2 s counted
        self.assertEqual((ch.charged_ms, ch.clock_after_ms), (2_000, 1_000))
        ch = c.charge(10_999)  # 1 s of main time + 10 s byoyomi: floor 10 < 11, on time
        self.assertEqual((ch.clock_after_ms, ch.lost_on_time), (0, False))
        self.assertTrue(c.charge(10_000).lost_on_time)

    def test_sudden_death(self):
        c = Clock(TimeControl.parse("sudden:5"), whole_seconds=True)
        self.assertEqual(c.charge(4_999).clock_after_ms, 1_000)
        self.assertFalse(c.charge(999).lost_on_time)  # costs 0 s
        self.assertTrue(c.charge(1_000).lost_on_time)

    def test_agrees_with_the_server_rule(self):
        """Random moves against shogi-server's rule written out in seconds."""
        rng = random.Random(7)
        for tc_text in ("fischer:30+2", "fischer:0+3", "byoyomi:20+5", "byoyomi:0+4", "sudden:40"):
            tc = TimeControl.parse(tc_text)
            for game in range(50):
                c = Clock(tc, whole_seconds=True)
                mytime = tc.main_ms // 1000  # the server's clock, whole seconds
                inc, byo = tc.increment_ms // 1000, tc.byoyomi_ms // 1000
                while True:
                    used_ms = rng.randrange(0, (mytime + inc + byo) * 1000 + 1500)
                    t = used_ms // 1000
                    server_lost = mytime - t + byo + inc <= 0
                    ch = c.charge(used_ms)
                    self.assertEqual(ch.lost_on_time, server_lost, (tc_text, game, mytime, used_ms))
                    if server_lost:
                        break
                    mytime = max(0, mytime + inc - t)
                    self.assertEqual(c.remaining_ms, mytime * 1000)


class Measuring(unittest.TestCase):
    def test_rounded_up_to_whole_ms(self):
        self.assertEqual(elapsed_ms_from_seconds(0.0), 0)
        self.assertEqual(elapsed_ms_from_seconds(0.001), 1)
        self.assertEqual(elapsed_ms_from_seconds(0.0012), 2)
        self.assertEqual(elapsed_ms_from_seconds(1.0), 1000)
        self.assertEqual(elapsed_ms_from_seconds(0.9995), 1000)
        self.assertEqual(elapsed_ms_from_seconds(2.5), 2500)
        for _ in range(1000):
            s = random.random() * 100
            ms = elapsed_ms_from_seconds(s)
            self.assertTrue(ms - 1 < s * 1000 <= ms + 1e-6, s)
            self.assertEqual(ms, math.ceil(round(s * 1000, 6)))

    def test_negative_time_refused(self):
        with self.assertRaises(ValueError):
            Clock(TimeControl.parse("sudden:1")).charge(-1)


if __name__ == "__main__":
    unittest.main()
