"""tools.level_curve: skill.rs's level arithmetic, the fit and the rising curve, worked by hand."""

import itertools
import unittest

from tools.cli import Fatal
from tools.level_curve import (
    curve_of,
    fit,
    level_elo,
    level_grade,
    lines_at,
    neighbours,
    node_budget,
    on_line,
    parse_curve,
    parse_lines,
    played_by,
    pooled,
    smooth_curve,
    smooth_line,
)

SKILL_RS = """
const FULL_GRADE: u32 = 2000;
pub const CURVE: [(u32, i32); 4] = [
    (0, 42),
    (400, 84),
    (1200, 1309),
    (FULL_GRADE, 3076),
];
"""
CURVE = [(0, 42), (400, 84), (1200, 1309), (2000, 3076)]


class Levels(unittest.TestCase):
    def test_the_curve_is_read_from_skill_rs(self):
        self.assertEqual(parse_curve(SKILL_RS), CURVE)
        self.assertIsNone(parse_curve("pub fn level(level: u32) -> Skill { .. }"), "a build before the curve")

    def test_a_level_is_its_evenly_spaced_rating_read_through_the_curve(self):
        self.assertEqual(level_elo(CURVE, 0), 42)
        self.assertEqual(level_elo(CURVE, 10), 42 + (3076 - 42) * 10 // 20)
        self.assertEqual(level_elo(CURVE, 25), 3076, "clamped to full strength")
        # 1559 lies between (1200, 1309) and (2000, 3076): 1200 + 250 * 800 // 1767.
        self.assertEqual(level_grade(CURVE, 10), 1200 + (1559 - 1309) * 800 // 1767)
        self.assertEqual(level_grade(CURVE, 0), 0)
        self.assertEqual(level_grade(CURVE, 20), 2000)
        self.assertEqual(level_grade(None, 7), 700, "before the curve SkillLevel N was grade N")

    def test_the_lines_each_build_searched(self):
        rule = parse_lines("pub const LINES: [(f64, usize); 4] = [(20.0, 4), (10.0, 3), (5.0, 2), (0.0, 1)];")
        self.assertEqual(rule, [(20.0, 4), (10.0, 3), (5.0, 2), (0.0, 1)])
        # Temperature 300 (1 - g/20)^2: 20 at grade 14.84, 10 at 16.35, 5 at 17.42.
        self.assertEqual([lines_at(rule, g) for g in (0, 1480, 1490, 1630, 1640, 1740, 1750, 1999, 2000)],
                         [4, 4, 3, 3, 2, 2, 1, 1, 1])
        threshold = parse_lines("const LEAST_TEMPERATURE_TO_CHOOSE: f64 = 5.0;")
        self.assertEqual([lines_at(threshold, g) for g in (1740, 1750, 2000)], [4, 1, 1])
        self.assertEqual([lines_at(parse_lines("fn lines() {}"), g) for g in (1999, 2000)], [4, 1],
                         "the first builds searched four lines below full strength")
        with self.assertRaisesRegex(Fatal, "LINES has no row"):
            parse_lines("pub const LINES: [(f64, usize); 0] = [];")

    def test_node_budget(self):
        self.assertEqual(node_budget(0), 128)
        self.assertEqual(node_budget(1000), 8192)
        self.assertEqual(node_budget(500), 1024)


class Fit(unittest.TestCase):
    def test_a_chain_recovers_its_steps(self):
        # 76% is +200 Elo (to within 0.5), 50% is level: ratings 2800 - 200 and 2600 - 0.
        full, mid, low = (2000, 1), (1000, 4), (0, 4)
        games = [(full, mid, 76.0, 100), (mid, low, 50.0, 100)]
        rating = fit(games, 2800, full)
        self.assertEqual(rating[full], 2800)
        self.assertAlmostEqual(rating[mid], 2800 - 200.0, delta=1.0)
        self.assertAlmostEqual(rating[low], rating[mid], delta=1e-3)

    def test_two_routes_meet_in_the_middle(self):
        # 0 -> 2000 directly at +400 (about 91%), and through 1000 with two steps that sum
        # to more: the fit settles between them.
        full, mid, low = (2000, 1), (1000, 4), (0, 4)
        games = [(full, low, 91.0, 100), (full, mid, 85.0, 100), (mid, low, 85.0, 100)]
        rating = fit(games, 3000, full)
        direct = 3000 - rating[low]
        self.assertGreater(direct, 400)
        self.assertLess(direct, 2 * 301)

    def test_unconnected_or_unbounded_grades_are_refused(self):
        full, mid = (2000, 1), (1000, 4)
        with self.assertRaisesRegex(Fatal, r"no chain of games ties grade 5.00 \(1 line\), grade 5.00 \(4 lines\)"):
            fit([(full, mid, 60.0, 100), ((500, 4), (500, 1), 60.0, 100)], 3000, full)
        with self.assertRaisesRegex(Fatal, r"no game was played by the anchored player grade 20.00 \(1 line\)"):
            fit([((500, 4), (300, 4), 60.0, 100)], 3000, full)
        with self.assertRaisesRegex(Fatal, "won or lost every game"):
            fit([(full, mid, 30.0, 30)], 3000, full)

    def test_a_grade_that_searched_otherwise_is_another_player(self):
        # Grade 17 with four lines lost to grade 16 with four; with two lines it beat it.
        four, two, below = (1700, 4), (1700, 2), (1600, 4)
        games = [(four, below, 40.0, 100), (two, below, 76.0, 100), ((2000, 1), below, 90.0, 100)]
        rating = fit(games, 3000, (2000, 1))
        self.assertAlmostEqual(rating[two] - rating[below], 200.0, delta=1.0)
        self.assertLess(rating[four], rating[below])


class Rising(unittest.TestCase):
    def test_a_fall_is_pooled_by_weight(self):
        points = [(0, 40.0, 100), (200, 95.0, 100), (400, 85.0, 300), (600, 300.0, 100)]
        pool = pooled(points)
        self.assertEqual([g for g, _, _ in pool], [0, 200, 400, 600])
        self.assertAlmostEqual(pool[1][1], (95 + 3 * 85) / 4)
        self.assertEqual(pool[1][1], pool[2][1])
        self.assertEqual(curve_of(pool, 600), [(0, 40), (200, 88), (600, 300)],
                         "only the lowest grade of a pool stays")

    def test_full_strength_ends_the_curve(self):
        pool = pooled([(0, 40.0, 10), (1900, 3100.0, 10), (2000, 3076.0, 10)])
        self.assertEqual(curve_of(pool, 2000)[-1], (2000, 3088))
        self.assertEqual(len(curve_of(pool, 2000)), 2)


class Knots(unittest.TestCase):
    def test_a_broken_line_shares_each_steps_noise(self):
        # Grades 0, 2, 4, 6 in a chain of steps +100, +300 (noisy), +100, then full strength
        # +100 over grade 6. A rating per grade follows the noisy step; the line with knots
        # four grades apart (0, 4, and 6, the highest played) spreads it over its neighbours.
        full, players = (2000, 1), [(0, 4), (200, 4), (400, 4), (600, 4)]
        won = {100: 64.0, 300: 85.0}
        steps = [100, 300, 100]
        games = [(hi, lo, won[s], 100) for (lo, hi), s in zip(itertools.pairwise(players), steps, strict=True)]
        games.append((full, players[-1], won[100], 100))
        per_grade = fit(games, 3000, full)
        self.assertAlmostEqual(per_grade[(400, 4)] - per_grade[(200, 4)], 300.0, delta=2.0)
        knots = smooth_curve(games, set(players), 400, 3000, 2000, played_by(games))
        self.assertEqual([k for k, _, _ in knots], [0, 400, 600])
        rating = {k: r for k, r, _ in knots}
        self.assertAlmostEqual(rating[600], 2900.0, delta=2.0)
        # The line's grade 2 lies halfway between its knots at 0 and 4: the two steps there are
        # equal, together about the 400 the games say.
        self.assertLess(rating[400] - rating[0], 420.0)
        self.assertGreater(rating[400] - rating[0], 350.0)
        self.assertAlmostEqual(per_grade[(0, 4)], rating[0], delta=60.0)

    def test_knots_without_players_are_left_out_and_full_strength_is_its_own(self):
        full, low, high = (2000, 1), (0, 4), (1000, 4)
        games = [(high, low, 76.0, 100), (full, high, 91.0, 100)]
        knots = smooth_curve(games, {low, high}, 200, 3000, 2000, played_by(games))
        self.assertEqual([k for k, _, _ in knots], [0, 1000])
        self.assertAlmostEqual(knots[1][1], 3000 - 400.0, delta=4.0)
        self.assertAlmostEqual(knots[0][1], 3000 - 600.0, delta=4.0)
        self.assertEqual([w for _, _, w in knots], [100, 200])


class Bounds(unittest.TestCase):
    def test_one_pairs_standard_error_is_the_binomials(self):
        # One knot (grade 0) against full strength, 100 games at 76%: the information is
        # n p (1 - p) / (400 / ln 10)^2, so the standard error is 173.7 / sqrt(18.24) = 40.7.
        full, low = (2000, 1), (0, 4)
        games = [(full, low, 76.0, 100)]
        knots, covariance = smooth_line(games, {low}, 200, 3000, 2000, played_by(games))
        self.assertEqual([k for k, _, _ in knots], [0])
        value, se = on_line(knots, covariance, 0)
        self.assertAlmostEqual(value, 3000 - 200.0, delta=1.0)
        self.assertAlmostEqual(se, 173.72 / (100 * 0.76 * 0.24) ** 0.5, delta=0.3)

    def test_errors_add_down_a_chain_and_interpolate_between_knots(self):
        # Full strength -> grade 4 -> grade 0, 100 games each at 76%: grade 4's variance is one
        # step's, grade 0's two steps'; grade 2, halfway, is read from both knots.
        full, mid, low = (2000, 1), (400, 4), (0, 4)
        games = [(full, mid, 76.0, 100), (mid, low, 76.0, 100)]
        knots, covariance = smooth_line(games, {mid, low}, 400, 3000, 2000, played_by(games))
        one = 173.72**2 / (100 * 0.76 * 0.24)
        self.assertAlmostEqual(covariance[(400, 400)], one, delta=one * 0.01)
        self.assertAlmostEqual(covariance[(0, 0)], 2 * one, delta=one * 0.02)
        self.assertAlmostEqual(covariance[(0, 400)], one, delta=one * 0.01, msg="the shared step")
        value, se = on_line(knots, covariance, 200)
        self.assertAlmostEqual(value, 3000 - 300.0, delta=2.0)
        # (a + b) / 2 with var a = 2v, var b = v, cov v: (2v + v + 2v) / 4.
        self.assertAlmostEqual(se**2, 5 * one / 4, delta=one * 0.02)
        self.assertEqual(on_line(knots, covariance, 900), on_line(knots, covariance, 400),
                         "beyond the last knot, the last knot's")

    def test_neighbours_pool_the_runs_at_one_curve_from_the_upper_side(self):
        curve, other = [(0, 100), (2000, 3000)], [(0, 50), (2000, 3000)]
        runs = [({"w": "12", "d": "1", "l": "7"}, curve, (5, 4), None),
                ({"w": "3", "d": "0", "l": "7"}, curve, (4, 5), None),
                ({"w": "9", "d": "0", "l": "1"}, other, (5, 4), None),
                ({"w": "9", "d": "0", "l": "1"}, curve, (6, 4), None)]
        self.assertEqual(neighbours(runs, curve), {5: (19, 1, 10)})


if __name__ == "__main__":
    unittest.main()
