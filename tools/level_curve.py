"""The strength levels' rating curve, fitted to the ledger's games between levels and grades.

    python3 -m tools.level_curve R0180 R0181 ... [--anchor 3076] [--repo DIR]

Each run names its build (the ledger's `commits`) and each side's `SkillLevel`. A side's grade
(hundredths, as src/search/skill.rs counts them) is what that build made of its level: in a build
whose skill.rs has no `CURVE`, `SkillLevel` N was grade N; otherwise the level's rating, evenly
spaced between the curve's ends, read back through the curve as skill.rs does it. The build's
`LINES` (or, before it, its one threshold) says how many lines that grade searched. Every grade
and line count that played is one player; their ratings are the maximum-likelihood fit of all the runs' games
(a draw is half a win), with full strength held at `--anchor` (gpsshogi at one second a move is
2800 on this scale, and full strength is +275.5 over it: R0068). A curve must rise with the
grade, so where a grade fits below a lower one the two are pooled (pool-adjacent violators,
weighted by games played) and only the lowest grade of a pool stays on the curve. Only the
players that search as many lines as the repository's skill.rs would at their grade make the
curve; the others are fitted (they tie the chain together) and listed.

It prints each grade's fitted and pooled rating with its games, the curve as skill.rs writes it,
and the twenty levels evenly spaced on that curve: each one's rating, grade and node budget.

With `--knots G` the curve is instead a broken line with knots every G grades and one at the
highest grade played below full strength (which stays its own player), fitted to the same games
in one piece: each grade's rating is read off the line, so a 20-game
step's noise is shared with the steps beside it rather than taken as the curve. Knots without a
player beside them are left out; the line is then made to rise as above. Each knot, and each
level's rating read off the line, carries 95% bounds from the fit's information (relative to the
anchor, whose own bounds are R0068's).

With `--ladder` (and `--knots`) no new curve is made: the repository's own levels are read off the
line, each beside its games against the level below at builds whose curve is the repository's.
"""

from __future__ import annotations

import argparse
import itertools
import math
import re
import subprocess
import sys
from pathlib import Path

from tools import ledger
from tools.cli import Fatal, run_cli

FULL_LEVEL = 20
ELO_PER_NAT = 400 / math.log(10)


# What a build made of a level (src/search/skill.rs's arithmetic, in integers as it does it).


def parse_curve(source: str) -> list[tuple[int, int]] | None:
    """The `CURVE` of a skill.rs's text as (grade, rating) pairs, or None where it has none."""
    m = re.search(r"pub const CURVE: \[\(u32, i32\); \d+\] = \[(.*?)\];", source, re.DOTALL)
    if not m:
        return None
    full = re.search(r"const FULL_GRADE: u32 = (\d+);", source)
    names = {"FULL_GRADE": int(full.group(1))} if full else {}
    points = []
    for grade, elo in re.findall(r"\(\s*(\w+)\s*,\s*(-?\d+)\s*\)", m.group(1)):
        if grade not in names and not grade.isdigit():
            raise Fatal(f"skill.rs's CURVE names {grade!r}, which this tool cannot read")
        points.append((names.get(grade) or int(grade), int(elo)))
    return points


def parse_lines(source: str) -> list[tuple[float, int]]:
    """A skill.rs's rule for the lines a grade searches: (least temperature, lines), first match.
    Before `LINES` a build had one threshold (four lines at or above it, else one); before that,
    four lines at every grade below full strength."""
    m = re.search(r"pub const LINES: \[\(f64, usize\); \d+\] = \[(.*?)\];", source, re.DOTALL)
    if m:
        rows = [(float(t), int(n)) for t, n in re.findall(r"\(\s*(-?[\d.]+)\s*,\s*(\d+)\s*\)", m.group(1))]
        if not rows:
            raise Fatal("skill.rs's LINES has no row this tool can read")
        return rows
    m = re.search(r"const LEAST_TEMPERATURE_TO_CHOOSE: f64 = ([\d.]+);", source)
    if m:
        return [(float(m.group(1)), 4), (0.0, 1)]
    return [(0.0, 4)]


def temperature(grade: int) -> float:
    """The choice's temperature at `grade` (skill.rs: 300 (1 - g/20)^2)."""
    return 300.0 * (1 - grade / (100 * FULL_LEVEL)) ** 2


def lines_at(rule: list[tuple[float, int]], grade: int) -> int:
    """The lines a build with `rule` searches at `grade` (one at full strength)."""
    if grade >= 100 * FULL_LEVEL:
        return 1
    t = temperature(grade)
    return next((n for least, n in rule if t >= least), 1)


def level_elo(curve: list[tuple[int, int]], level: int) -> int:
    lo, hi = curve[0][1], curve[-1][1]
    return lo + (hi - lo) * min(level, FULL_LEVEL) // FULL_LEVEL


def grade_at_elo(curve: list[tuple[int, int]], elo: int) -> int:
    elo = max(curve[0][1], min(curve[-1][1], elo))
    for (g0, e0), (g1, e1) in itertools.pairwise(curve):
        if elo <= e1:
            return g0 + (elo - e0) * (g1 - g0) // max(e1 - e0, 1)
    return curve[-1][0]


def level_grade(curve: list[tuple[int, int]] | None, level: int) -> int:
    """The grade (hundredths) a build with `curve` (None: no curve) plays `SkillLevel` at."""
    if curve is None:
        return 100 * min(level, FULL_LEVEL)
    return grade_at_elo(curve, level_elo(curve, level))


def node_budget(grade: int) -> int:
    """The level's node budget (skill.rs: 2^(7 + 0.6 g), g in whole grades)."""
    return math.floor(2 ** (7.0 + 0.6 * grade / 100) + 0.5)


# The fit.


Player = tuple[int, int]  # (grade in hundredths, lines searched)


def fit(games: list[tuple[Player, Player, float, int]], anchor: int, anchored: Player) -> dict[Player, float]:
    """The ratings of the players of `games`, (a, b, a's score, games) each, that make the games
    likeliest, with player `anchored` held at `anchor`."""
    players = sorted({p for a, b, _, _ in games for p in (a, b)})
    if anchored not in players:
        raise Fatal(f"no game was played by the anchored player {name(anchored)}")
    reached, frontier = {anchored}, [anchored]
    while frontier:
        p = frontier.pop()
        for a, b, _, _ in games:
            for q in (b,) if p == a else (a,) if p == b else ():
                if q not in reached:
                    reached.add(q)
                    frontier.append(q)
    if len(reached) < len(players):
        apart = ", ".join(name(p) for p in players if p not in reached)
        raise Fatal(f"no chain of games ties {apart} to full strength")
    value = fit_parameters(games, {p: [(p, 1.0)] for p in players}, anchor, anchored)
    return {p: value[p] for p in players}


Basis = dict  # player -> [(parameter, weight)]: its rating is the weighted sum of parameters


def fit_parameters(games: list[tuple[Player, Player, float, int]], basis: Basis, anchor: int,
                   anchored: object) -> dict:
    """The parameters that make `games` likeliest, each player's rating being its `basis`
    combination of them, with parameter `anchored` held at `anchor` (coordinate Newton steps)."""
    params = sorted({q for terms in basis.values() for q, _ in terms} - {anchored}, key=str)
    value = {q: float(anchor) for q in params} | {anchored: float(anchor)}

    def rating(p: Player) -> float:
        return sum(value[q] * w for q, w in basis[p])

    for _ in range(20000):
        largest = 0.0
        for q in params:
            surplus, information = 0.0, 0.0
            for a, b, score, n in games:
                slope = sum(w for r, w in basis[a] if r == q) - sum(w for r, w in basis[b] if r == q)
                if slope == 0:
                    continue
                expected = 1 / (1 + 10 ** (-(rating(a) - rating(b)) / 400))
                surplus += slope * (score - n * expected)
                information += slope * slope * n * expected * (1 - expected)
            step = ELO_PER_NAT * surplus / max(information, 1e-9)
            step = max(-200.0, min(200.0, step))
            value[q] += step
            largest = max(largest, abs(step))
        if largest < 1e-6:
            return value
    players = list(basis)
    unbounded = [name(p) for p in players if abs(rating(p) - anchor) > 10000] or [name(p) for p in players]
    raise Fatal(f"the games do not bound the rating of {', '.join(unbounded)}: a side won or lost every game")


def knot_basis(players: list[Player], today: set[Player], knots: list[int], full: int) -> Basis:
    """Each player of `today` below full strength on the broken line through `knots` (grades, the
    first 0, the last at or above every such player's), by linear interpolation between the two
    around it; every other player, full strength included, its own parameter (full strength's
    clock, not a node budget, stops it: it is not a point of the budgets' line)."""
    basis: Basis = {}
    for p in players:
        grade = p[0]
        if p not in today or grade >= full:
            basis[p] = [(p, 1.0)]
            continue
        i = max(j for j, k in enumerate(knots) if k <= grade)
        lo, hi = knots[i], knots[min(i + 1, len(knots) - 1)]
        ends = [(lo, 1.0)] if hi == lo else [(lo, (hi - grade) / (hi - lo)), (hi, (grade - lo) / (hi - lo))]
        basis[p] = [(("knot", k), w) for k, w in ends if w > 0]
    return basis


def played_by(games: list[tuple[Player, Player, float, int]]) -> dict[Player, int]:
    """The games each player of `games` played."""
    played: dict[Player, int] = {}
    for a, b, _, n in games:
        for p in (a, b):
            played[p] = played.get(p, 0) + n
    return played


def knot_weights(basis: Basis) -> list[tuple[Player, int, float]]:
    """(player, knot, weight) of every term of `basis` that is a knot."""
    return [(p, q[1], w) for p, terms in basis.items() for q, w in terms if q[0] == "knot"]


def smooth_curve(games: list[tuple[Player, Player, float, int]], today: set[Player], step: int,
                 anchor: int, full: int, played: dict[Player, int]) -> list[tuple[int, float, int]]:
    """(knot, rating, weight) of the broken line with knots every `step` hundredths of a grade,
    and one at the highest grade below full strength that played, that fits `games` likeliest;
    knots without a player of `today` beside them are left out (a player weighs on the two knots
    around it; the weight is its games, `played`, times that share)."""
    return smooth_line(games, today, step, anchor, full, played)[0]


def smooth_line(games: list[tuple[Player, Player, float, int]], today: set[Player], step: int,
                anchor: int, full: int, played: dict[Player, int]) -> tuple[list[tuple[int, float, int]], dict]:
    """`smooth_curve`'s knots and the covariance of their ratings (Elo squared, keyed by pairs
    of knot grades): the inverse of the fit's information, full strength held fixed."""
    players = sorted({p for a, b, _, _ in games for p in (a, b)})
    top = max((g for g, n in players if (g, n) in today and g < full), default=0)
    knots = list(range(0, top, step)) + [top]
    while True:
        basis = knot_basis(players, today, knots, full)
        used = sorted({k for _, k, _ in knot_weights(basis)})
        if used == knots:
            break
        knots = used
    value = fit_parameters(games, basis, anchor, (full, 1))
    weight = dict.fromkeys(knots, 0.0)
    for p, k, w in knot_weights(basis):
        weight[k] += played[p] * w
    covariance = {(q[1], r[1]): c for (q, r), c in fit_covariance(games, basis, value, (full, 1)).items()
                  if q[0] == "knot" and r[0] == "knot"}
    return [(k, value[("knot", k)], round(weight[k])) for k in knots], covariance


def fit_covariance(games: list[tuple[Player, Player, float, int]], basis: Basis, value: dict,
                   anchored: object) -> dict:
    """The covariance (Elo squared) of `fit_parameters`'s parameters at `value`, `anchored` held
    fixed: the inverse of the likelihood's information, the usual large-sample bounds."""
    params = sorted({q for terms in basis.values() for q, _ in terms} - {anchored}, key=str)
    index = {q: i for i, q in enumerate(params)}

    def rating(p: Player) -> float:
        return sum(value[q] * w for q, w in basis[p])

    info = [[0.0] * len(params) for _ in params]
    for a, b, _, n in games:
        slope = [0.0] * len(params)
        for side, sign in ((a, 1.0), (b, -1.0)):
            for q, w in basis[side]:
                if q in index:
                    slope[index[q]] += sign * w
        expected = 1 / (1 + 10 ** (-(rating(a) - rating(b)) / 400))
        scale = n * expected * (1 - expected) / ELO_PER_NAT**2
        for i, si in enumerate(slope):
            if si:
                for j, sj in enumerate(slope):
                    info[i][j] += scale * si * sj
    inverse = inverted(info)
    return {(q, r): inverse[index[q]][index[r]] for q in params for r in params}


def inverted(matrix: list[list[float]]) -> list[list[float]]:
    """The inverse of a square matrix (Gauss-Jordan with partial pivoting)."""
    n = len(matrix)
    rows = [list(row) + [1.0 if i == j else 0.0 for j in range(n)] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        if abs(rows[pivot][col]) < 1e-12:
            raise Fatal("the games do not bound every knot of the line: its information is singular")
        rows[col], rows[pivot] = rows[pivot], rows[col]
        lead = rows[col][col]
        rows[col] = [x / lead for x in rows[col]]
        for r in range(n):
            if r != col and rows[r][col]:
                factor = rows[r][col]
                rows[r] = [x - factor * y for x, y in zip(rows[r], rows[col], strict=True)]
    return [row[n:] for row in rows]


def on_line(knots: list[tuple[int, float, int]], covariance: dict, grade: int) -> tuple[float, float]:
    """The line's rating at `grade` (below full strength) and its standard error: the knots around
    it weighted as `knot_basis` weighs a player there."""
    player = (grade, 0)
    terms = knot_basis([player], {player}, [k for k, _, _ in knots], 100 * FULL_LEVEL)[player]
    ends = [(q[1], w) for q, w in terms]
    rating = {k: r for k, r, _ in knots}
    value = sum(rating[k] * w for k, w in ends)
    variance = sum(wq * wr * covariance[(q, r)] for q, wq in ends for r, wr in ends)
    return value, math.sqrt(max(variance, 0.0))


def name(player: Player) -> str:
    grade, lines = player
    return f"grade {grade / 100:.2f} ({lines} line{'s' if lines > 1 else ''})"


def pooled(points: list[tuple[int, float, int]]) -> list[tuple[int, float, int]]:
    """(grade, rating, weight) in grade order made to rise: each run of grades whose ratings fall
    is pooled to its weighted mean (pool-adjacent violators)."""
    blocks: list[list] = []  # [sum of weight*rating, weight, grades]
    for grade, rating, weight in points:
        blocks.append([rating * weight, weight, [grade]])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] >= blocks[-1][0] / blocks[-1][1]:
            total, w, grades = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += w
            blocks[-1][2] += grades
    weights = {g: w for g, _, w in points}
    return [(g, total / w, weights[g]) for total, w, grades in blocks for g in grades]


def curve_of(pool: list[tuple[int, float, int]], full: int) -> list[tuple[int, int]]:
    """The rising curve: the lowest grade of each pooled run, and full strength."""
    out: list[tuple[int, int]] = []
    for grade, rating, _ in pool:
        elo = round(rating)
        if grade == full:
            out = [p for p in out if p[1] < elo] + [(grade, elo)]
        elif not out or elo > out[-1][1]:
            out.append((grade, elo))
    return out


# The ledger's runs.


def build_source(root: Path, commit: str) -> str:
    try:
        return subprocess.run(["git", "-C", str(root), "show", f"{commit}:src/search/skill.rs"],
                              check=True, capture_output=True, text=True).stdout
    except subprocess.CalledProcessError as e:
        raise Fatal(f"cannot read src/search/skill.rs at {commit}: {e.stderr.strip()}") from None


def sides(row: dict[str, str]) -> tuple[int, int]:
    """Both sides' `SkillLevel` (20, full strength, where a side sets none)."""
    levels = []
    for key in ("options_a", "options_b"):
        options = ledger.options_of(row[key])
        try:
            levels.append(int(options.get("SkillLevel", str(FULL_LEVEL))))
        except ValueError:
            raise Fatal(f"{row['id']}: SkillLevel {options['SkillLevel']!r} is not a number") from None
    return levels[0], levels[1]


def runs_played(root: Path, ids: list[str]) -> list[tuple[dict[str, str], list[tuple[int, int]] | None,
                                                        tuple[int, int], tuple[Player, Player]]]:
    """Each run's ledger row, its build's curve, both sides' levels and both sides as players."""
    by_id = {row["id"]: row for row in ledger.read_ledger(root)}
    out = []
    builds: dict[str, tuple[list[tuple[int, int]] | None, list[tuple[float, int]]]] = {}
    for rid in ids:
        row = by_id.get(rid)
        if row is None:
            raise Fatal(f"{rid}: no such run in the ledger")
        commit = row["commits"].split()[0]
        if commit not in builds:
            source = build_source(root, commit)
            builds[commit] = (parse_curve(source), parse_lines(source))
        curve, rule = builds[commit]
        levels = sides(row)
        a, b = ((g, lines_at(rule, g)) for g in (level_grade(curve, level) for level in levels))
        out.append((row, curve, levels, (a, b)))
    return out


def games_of(played: list) -> list[tuple[Player, Player, float, int]]:
    """`runs_played`'s runs as games: (a, b, a's score, games) each."""
    games = []
    for row, _, _, (a, b) in played:
        w, d, l = (int(row[k]) for k in ("w", "d", "l"))
        games.append((a, b, w + d / 2, w + d + l))
    return games


def neighbours(played: list, curve: list[tuple[int, int]] | None) -> dict[int, tuple[int, int, int]]:
    """W-D-L of each level against the level below it, from the upper level's side, pooled over
    the runs whose build had `curve`."""
    pairs: dict[int, tuple[int, int, int]] = {}
    for row, build_curve, (a, b), _ in played:
        if build_curve != curve or abs(a - b) != 1:
            continue
        w, d, l = (int(row[k]) for k in ("w", "d", "l"))
        upper, wdl = (a, (w, d, l)) if a > b else (b, (l, d, w))
        pairs[upper] = tuple(x + y for x, y in zip(pairs.get(upper, (0, 0, 0)), wdl, strict=True))
    return pairs


def main(args: argparse.Namespace) -> int:
    if args.ladder and not args.knots:
        raise Fatal("--ladder reads each level off the broken line: give --knots too")
    played_runs = runs_played(args.repo, args.runs)
    games = games_of(played_runs)
    full = 100 * FULL_LEVEL
    source = (args.repo / "src/search/skill.rs").read_text()
    rule = parse_lines(source)
    rating = fit(games, args.anchor, (full, 1))
    played = played_by(games)
    today = sorted(p for p in rating if lines_at(rule, p[0]) == p[1])
    pool = pooled([(g, rating[(g, n)], played[(g, n)]) for g, n in today])
    rising = {g: r for g, r, _ in pool}
    print("| grade | lines | games | fitted | rising |")
    print("|---|---|---|---|---|")
    for g, n in sorted(rating):
        kept = f"{rising[g]:.0f}" if (g, n) in today else "(searches otherwise today)"
        print(f"| {g / 100:.2f} | {n} | {played[(g, n)]} | {rating[(g, n)]:.0f} | {kept} |")
    print()
    line = None
    if args.knots:
        line = smooth_line(games, set(today), round(100 * args.knots), args.anchor, full, played)
        knots = line[0]
        pool = pooled(knots + [(full, float(args.anchor), played[(full, 1)])])
        print("| knot | weight | fitted | 95% | rising |")
        print("|---|---|---|---|---|")
        for (g, r, w), (_, kept, _) in zip(knots, pool):
            se = math.sqrt(line[1][(g, g)])
            print(f"| {g / 100:.2f} | {w} | {r:.0f} | [{r - 1.96 * se:.0f}, {r + 1.96 * se:.0f}] | {kept:.0f} |")
        print()
    if args.ladder:
        curve = parse_curve(source)
        if curve is None:
            raise Fatal("the repository's skill.rs has no CURVE to read the levels from")
        print_ladder(curve, line, neighbours(played_runs, curve), args.anchor)
        return 0
    curve = curve_of(pool, full)
    print("CURVE: " + ", ".join(f"({g}, {e})" for g, e in curve))
    print()
    print("| level | rating | grade | node budget |" + (" on the line, 95% |" if line else ""))
    print("|---|---|---|---|" + ("---|" if line else ""))
    for level in range(FULL_LEVEL + 1):
        g, budget = grade_and_budget(curve, level)
        bounds = f" {bounds_text(line, g, args.anchor)} |" if line else ""
        print(f"| {level} | {level_elo(curve, level)} | {g / 100:.2f} | {budget} |{bounds}")
    return 0


def grade_and_budget(curve: list[tuple[int, int]], level: int) -> tuple[int, str]:
    """A level's grade on `curve` and its node budget as the tables print it ("none": the clock)."""
    g = level_grade(curve, level)
    return g, "none" if g >= 100 * FULL_LEVEL else f"{node_budget(g):,}"


def bounds_text(line: tuple[list[tuple[int, float, int]], dict], grade: int, anchor: int) -> str:
    """The line's rating at `grade` with its 95% bounds (full strength: the anchor, exact)."""
    if grade >= 100 * FULL_LEVEL:
        return f"{anchor} (anchor)"
    value, se = on_line(*line, grade)
    return f"{value:.0f} [{value - 1.96 * se:.0f}, {value + 1.96 * se:.0f}]"


def print_ladder(curve: list[tuple[int, int]], line: tuple[list[tuple[int, float, int]], dict],
                 pairs: dict[int, tuple[int, int, int]], anchor: int) -> None:
    """The repository's levels: each one's designed rating, grade and budget, its rating on the
    fitted line with 95% bounds, and its games against the level below at a build with this curve."""
    print("| level | designed | grade | node budget | on the line, 95% | vs the level below | Elo, 95% |")
    print("|---|---|---|---|---|---|---|")
    for level in range(FULL_LEVEL + 1):
        g, budget = grade_and_budget(curve, level)
        w, d, l = pairs.get(level, (0, 0, 0))
        if w + d + l:
            elo, lo, hi = ledger.summary(w, d, l)
            games, result = f"{w}-{d}-{l}", f"{elo:+.1f} [{lo:+.1f}, {hi:+.1f}]"
        else:
            games, result = "", ""
        print(f"| {level} | {level_elo(curve, level)} | {g / 100:.2f} | {budget} | "
              f"{bounds_text(line, g, anchor)} | {games} | {result} |")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python3 -m tools.level_curve", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", nargs="+", help="ledger run ids (R0180 ...)")
    p.add_argument("--anchor", type=int, default=3076, help="full strength's rating (default 3076)")
    p.add_argument("--knots", type=float, metavar="GRADES",
                   help="fit a broken line with knots this many grades apart instead of a rating "
                        "per grade: each step's noise spread over its neighbours")
    p.add_argument("--ladder", action="store_true",
                   help="instead of a new curve, the repository's levels read off the line (with "
                        "--knots), with 95%% bounds, and each one's games against the level below "
                        "at builds with the repository's curve")
    p.add_argument("--repo", type=Path, default=Path(__file__).resolve().parent.parent,
                   help="the repository (default: the one holding this tool)")
    return p


if __name__ == "__main__":
    sys.exit(run_cli("level_curve", parser(), main, None))
