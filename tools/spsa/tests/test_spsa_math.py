"""The SPSA arithmetic and the driver's configuration handling (no cshogi, no engine needed)."""

import contextlib
import io
import itertools
import json
import os
import tempfile
import unittest
from typing import ClassVar

from tools.spsa import spsa
from tools.spsa import spsa_math as sm
from tools.usi.engine import SpinOption, parse_spin


def spec(c_end=10.0, r_end=0.002, lo=0, hi=1000, default=500, iterations=100):
    s = sm.ParamSpec("P", default, lo, hi, c_end, r_end)
    s.c, s.a = sm.schedule_constants(c_end, r_end, iterations)
    return s


class Schedule(unittest.TestCase):
    def test_end_values(self):
        # The schedules reach c_end and a_end = r_end * c_end^2 at the last iteration.
        for n in (1, 10, 1000, 50000):
            c, a = sm.schedule_constants(7.0, 0.0025, n)
            self.assertAlmostEqual(sm.c_k(c, n - 1), 7.0, places=9)
            self.assertAlmostEqual(sm.a_k(a, n - 1, n), 0.0025 * 49, places=12)

    def test_published_form(self):
        # c_k = c / (k+1)^0.101, a_k = a / (A+k+1)^0.602 with A = N/10.
        n = 200
        c, a = sm.schedule_constants(5.0, 0.002, n)
        self.assertAlmostEqual(c, 5.0 * n**0.101)
        self.assertAlmostEqual(a, 0.002 * 25 * (20 + n) ** 0.602)
        self.assertAlmostEqual(sm.c_k(c, 0), c)
        self.assertAlmostEqual(sm.a_k(a, 9, n), a / (20 + 10) ** 0.602)

    def test_decreasing(self):
        c, a = sm.schedule_constants(3.0, 0.002, 500)
        cs = [sm.c_k(c, k) for k in range(500)]
        gains = [sm.a_k(a, k, 500) for k in range(500)]
        self.assertTrue(all(x > y for x, y in itertools.pairwise(cs)))
        self.assertTrue(all(x > y for x, y in itertools.pairwise(gains)))

    def test_bad_input(self):
        with self.assertRaises(ValueError):
            sm.schedule_constants(1.0, 0.002, 0)
        with self.assertRaises(ValueError):
            sm.schedule_constants(0.0, 0.002, 10)

    def test_default_c_end(self):
        self.assertEqual(sm.default_c_end(0, 3000), 150.0)
        self.assertEqual(sm.default_c_end(1, 10), 1.0)


class Update(unittest.TestCase):
    def test_step(self):
        s = spec()
        p = sm.perturb([s], [500.0], 0, 100, [1])
        ck = sm.c_k(s.c, 0)
        self.assertEqual(p.plus, [sm.round_half_up(500 + ck)])
        self.assertEqual(p.minus, [sm.round_half_up(500 - ck)])
        # theta += a_k / c_k * result * flip
        for result in (-2, -1, 0, 1, 2):
            (t,) = sm.update([s], [500.0], p, result)
            self.assertAlmostEqual(t, 500 + sm.a_k(s.a, 0, 100) / ck * result)
        q = sm.perturb([s], [500.0], 0, 100, [-1])
        self.assertEqual(q.plus, p.minus)
        (t,) = sm.update([s], [500.0], q, 2)
        self.assertLess(t, 500)

    def test_clamped(self):
        s = spec(c_end=50, r_end=1.0, lo=0, hi=100, default=99)
        p = sm.perturb([s], [99.0], 0, 100, [1])
        self.assertEqual(p.plus, [100])  # theta + c_k is past max
        (t,) = sm.update([s], [99.0], p, 2)
        self.assertEqual(t, 100.0)
        (t,) = sm.update([s], [1.0], sm.perturb([s], [1.0], 0, 100, [1]), -2)
        self.assertEqual(t, 0.0)

    def test_rounding(self):
        self.assertEqual(sm.round_half_up(2.5), 3)
        self.assertEqual(sm.round_half_up(3.5), 4)
        self.assertEqual(sm.round_half_up(-2.5), -2)
        self.assertEqual(sm.round_half_up(-2.6), -3)
        s = spec(lo=-5, hi=5)
        self.assertEqual(sm.engine_value(7.2, s), 5)
        self.assertEqual(sm.engine_value(-0.4, s), 0)

    def test_flips_reproducible(self):
        a = sm.draw_flips(sm.iteration_rng(7, 3), 50)
        b = sm.draw_flips(sm.iteration_rng(7, 3), 50)
        c = sm.draw_flips(sm.iteration_rng(7, 4), 50)
        self.assertEqual(a, b)
        self.assertNotEqual(a, c)
        self.assertTrue(set(a) <= {1, -1})
        many = sm.draw_flips(sm.iteration_rng(1, 0), 10000)
        self.assertLess(abs(sum(many)), 400)

    def test_drift_towards_better_side(self):
        # A noiseless toy: the plus side wins whenever it is closer to 300. Theta walks there.
        s = spec(c_end=5, r_end=0.05, lo=0, hi=1000, default=500, iterations=400)
        theta = [500.0]
        for k in range(400):
            flips = sm.draw_flips(sm.iteration_rng(0, k), 1)
            p = sm.perturb([s], theta, k, 400, flips)
            d_plus, d_minus = abs(p.plus[0] - 300), abs(p.minus[0] - 300)
            result = 2 if d_plus < d_minus else -2 if d_plus > d_minus else 0
            theta = sm.update([s], theta, p, result)
        self.assertLess(abs(theta[0] - 300), 15)


class UsiOptions(unittest.TestCase):
    def test_parse_spin(self):
        o = parse_spin("option name LmrBase type spin default 800 min 0 max 3000")
        self.assertEqual(o, SpinOption("LmrBase", 800, 0, 3000))
        self.assertEqual(parse_spin("option name NmpBase type spin default 100 min -500 max 1000").min, -500)
        self.assertIsNone(parse_spin("option name USI_Ponder type check default false"))
        self.assertIsNone(parse_spin("option name EvalFile type filename default <empty>"))
        self.assertIsNone(parse_spin("info string option name X type spin"))
        self.assertEqual(parse_spin("option name A B type spin min 1 max 3 default 2").name, "A B")


class Config(unittest.TestCase):
    spins: ClassVar[dict[str, SpinOption]] = {
        "LmrBase": SpinOption("LmrBase", 800, 0, 3000),
        "LmpBase": SpinOption("LmpBase", 3, 0, 20),
        "Threads": SpinOption("Threads", 1, 1, 512),
    }

    def write(self, name, text):
        d = tempfile.mkdtemp()
        path = os.path.join(d, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_toml_table(self):
        path = self.write("p.toml", 'r_end = 0.004\n[params]\nLmrBase = { c_end = 60 }\nLmpBase = {}\nGone = {}\n')
        choices, r_end = spsa.load_config(path)
        self.assertEqual(r_end, 0.004)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            specs, theta = spsa.choose_params(choices, None, self.spins, {"Threads"}, r_end, 100)
        self.assertIn("Gone (config) is not a spin option", err.getvalue())
        self.assertEqual([s.name for s in specs], ["LmrBase", "LmpBase"])  # Gone is skipped
        self.assertEqual(specs[0].c_end, 60)
        self.assertEqual(specs[1].c_end, 1.0)  # a twentieth of 0..20
        self.assertEqual(specs[1].r_end, 0.004)
        self.assertEqual(theta, [800.0, 3.0])
        self.assertAlmostEqual(sm.c_k(specs[0].c, 99), 60)

    def test_json_list_and_strict_names(self):
        path = self.write("p.json", json.dumps({"params": ["LmrBase", "LmpBase"]}))
        choices, r_end = spsa.load_config(path)
        self.assertIsNone(r_end)
        specs, _ = spsa.choose_params(choices, ["LmpBase"], self.spins, set(), 0.002, 10)
        self.assertEqual([s.name for s in specs], ["LmpBase"])
        with self.assertRaises(spsa.Fatal):
            spsa.choose_params(choices, ["Nope"], self.spins, set(), 0.002, 10)
        with self.assertRaises(spsa.Fatal):
            spsa.choose_params([], ["Threads"], self.spins, {"Threads"}, 0.002, 10)

    def test_bad_config(self):
        with self.assertRaises(spsa.Fatal):
            spsa.load_config(self.write("p.toml", "[params]\nLmrBase = { c_end = -1 }\n"))
        with self.assertRaises(spsa.Fatal):
            spsa.load_config(self.write("p.toml", "[params]\nLmrBase = { step = 3 }\n"))
        with self.assertRaises(spsa.Fatal):
            spsa.load_config(self.write("p.toml", "names = []\n"))

    def test_resume_keeps_settings(self):
        args = spsa.build_parser().parse_args(["--iterations", "50", "--nodes", "3000", "--seed", "4"])
        s = spsa.settings_from_args(args, None)
        self.assertEqual((s["iterations"], s["nodes"], s["seed"], s["max_plies"]), (50, 3000, 4, 320))
        same = spsa.build_parser().parse_args(["--resume", "--nodes", "3000"])
        self.assertEqual(spsa.settings_from_args(same, s)["iterations"], 50)
        other = spsa.build_parser().parse_args(["--resume", "--nodes", "4000"])
        with self.assertRaises(spsa.Fatal):
            spsa.settings_from_args(other, s)


if __name__ == "__main__":
    unittest.main()
