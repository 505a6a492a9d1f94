"""The strength levels' rating curve, fitted to the ledger's games between levels and grades.

    python3 -m tools.level_curve R0180 R0181 ... [--anchor 3076] [--repo DIR]

Each run names its build (the ledger's `commits`) and each side's `SkillLevel`. A side's grade
(hundredths, as src/search/skill.rs counts them) is what that build made of its level: in a build
whose skill.rs has no `CURVE`, `SkillLevel` N was grade N; otherwise the level's rating, evenly
spaced between the curve's ends, read back through the curve as skill.rs does it. Every grade
that played is one player; their ratings are the maximum-likelihood fit of all the runs' games
(a draw is half a win), with full strength held at `--anchor` (gpsshogi at one second a move is
2800 on this scale, and full strength is +275.5 over it: R0068). A curve must rise with the
grade, so where a grade fits below a lower one the two are pooled (pool-adjacent violators,
weighted by games played) and only the lowest grade of a pool stays on the curve.

It prints each grade's fitted and pooled rating with its games, the curve as skill.rs writes it,
and the twenty levels evenly spaced on that curve: each one's rating, grade and node budget.
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


def fit(games: list[tuple[int, int, float, int]], anchor: int, anchored: int) -> dict[int, float]:
    """The ratings of the players (grades) of `games`, (a, b, a's score, games) each, that make
    the games likeliest, with player `anchored` held at `anchor`."""
    players = sorted({p for a, b, _, _ in games for p in (a, b)})
    if anchored not in players:
        raise Fatal(f"no game was played at the anchored grade {anchored}")
    reached, frontier = {anchored}, [anchored]
    while frontier:
        p = frontier.pop()
        for a, b, _, _ in games:
            for q in (b,) if p == a else (a,) if p == b else ():
                if q not in reached:
                    reached.add(q)
                    frontier.append(q)
    if len(reached) < len(players):
        apart = ", ".join(f"{p / 100:.2f}" for p in players if p not in reached)
        raise Fatal(f"no chain of games ties grade(s) {apart} to full strength")
    rating = {p: float(anchor) for p in players}
    for _ in range(20000):
        largest = 0.0
        for p in players:
            if p == anchored:
                continue
            surplus, information = 0.0, 0.0
            for a, b, score, n in games:
                if p not in (a, b):
                    continue
                sign = 1 if p == a else -1
                expected = 1 / (1 + 10 ** (-(rating[a] - rating[b]) / 400))
                mine = score if sign == 1 else n - score
                surplus += mine - n * (expected if sign == 1 else 1 - expected)
                information += n * expected * (1 - expected)
            step = ELO_PER_NAT * surplus / max(information, 1e-9)
            step = max(-200.0, min(200.0, step))
            rating[p] += step
            largest = max(largest, abs(step))
        if largest < 1e-6:
            return rating
    unbounded = [p for p in players if abs(rating[p] - anchor) > 10000]
    raise Fatal(f"the games do not bound the rating of grade(s) {unbounded or players}: a side won or lost every game")


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


def build_curve(root: Path, commit: str) -> list[tuple[int, int]] | None:
    try:
        source = subprocess.run(["git", "-C", str(root), "show", f"{commit}:src/search/skill.rs"],
                                check=True, capture_output=True, text=True).stdout
    except subprocess.CalledProcessError as e:
        raise Fatal(f"cannot read src/search/skill.rs at {commit}: {e.stderr.strip()}") from None
    return parse_curve(source)


def runs_games(root: Path, ids: list[str]) -> list[tuple[int, int, float, int]]:
    by_id = {row["id"]: row for row in ledger.read_ledger(root)}
    games = []
    curves: dict[str, list[tuple[int, int]] | None] = {}
    for rid in ids:
        row = by_id.get(rid)
        if row is None:
            raise Fatal(f"{rid}: no such run in the ledger")
        commit = row["commits"].split()[0]
        if commit not in curves:
            curves[commit] = build_curve(root, commit)
        a, b = (level_grade(curves[commit], level) for level in sides(row))
        w, d, l = (int(row[k]) for k in ("w", "d", "l"))
        games.append((a, b, w + d / 2, w + d + l))
    return games


def main(args: argparse.Namespace) -> int:
    games = runs_games(args.repo, args.runs)
    full = 100 * FULL_LEVEL
    rating = fit(games, args.anchor, full)
    played = {g: sum(n for a, b, _, n in games if g in (a, b)) for g in rating}
    pool = pooled([(g, rating[g], played[g]) for g in sorted(rating)])
    curve = curve_of(pool, full)
    print("| grade | games | fitted | rising |")
    print("|---|---|---|---|")
    for g, r, n in pool:
        print(f"| {g / 100:.2f} | {n} | {rating[g]:.0f} | {r:.0f} |")
    print()
    print("CURVE: " + ", ".join(f"({g}, {e})" for g, e in curve))
    print()
    print("| level | rating | grade | node budget |")
    print("|---|---|---|---|")
    for level in range(FULL_LEVEL + 1):
        g = level_grade(curve, level)
        budget = "none" if g >= full else f"{node_budget(g):,}"
        print(f"| {level} | {level_elo(curve, level)} | {g / 100:.2f} | {budget} |")
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python3 -m tools.level_curve", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", nargs="+", help="ledger run ids (R0180 ...)")
    p.add_argument("--anchor", type=int, default=3076, help="full strength's rating (default 3076)")
    p.add_argument("--repo", type=Path, default=Path(__file__).resolve().parent.parent,
                   help="the repository (default: the one holding this tool)")
    return p


if __name__ == "__main__":
    sys.exit(run_cli("level_curve", parser(), main, None))
