"""Pools the results of several `match` runs (../shared/tools/match) of the same two engines: the
last `game N: ... | A Ww Dd Ll ...` line of each log, summed, with the score, the Elo and its 95%
bounds, and the SPRT's log-likelihood ratio for the bounds given.

    python3 -m tools.pool_match_logs [--sprt ELO0,ELO1] LOG...

Pool only runs that played different games: node-limited runs over the same openings replay each
other's games (docs/strength.md, "How the matches are run"); carry a test on with
`python3 -m tools.unplayed_openings`. The statistics are match's own: a trinomial (win, draw, loss)
model, the normal approximation for the bounds, and the generalised SPRT's LLR
n (s1 - s0) (2 s - s0 - s1) / (2 var) with the usual stopping bounds log(0.05/0.95) and
log(0.95/0.05).
"""
import argparse
import math
import re
import sys

LINE = re.compile(r"^game (\d+): .*\| A W(\d+) D(\d+) L(\d+) ")


def last_result(path: str) -> tuple[int, int, int]:
    """The W, D, L of a log's last game line."""
    found = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if m:
                found = tuple(int(x) for x in m.groups()[1:])
    if found is None:
        raise ValueError(f"{path}: no `game N: ... | A W.. D.. L..` line")
    return found


def elo(score: float) -> float:
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / score - 1)


def stats(w: int, d: int, l: int) -> tuple[float, float]:
    """Score and variance of one game's score."""
    n = w + d + l
    s = (w + 0.5 * d) / n
    var = (w * (1 - s) ** 2 + d * (0.5 - s) ** 2 + l * s**2) / n
    return s, var


def llr(w: int, d: int, l: int, elo0: float, elo1: float) -> float:
    n = w + d + l
    s, var = stats(w, d, l)
    if n < 2 or var <= 0:
        return 0.0
    s0, s1 = (1 / (1 + 10 ** (-e / 400)) for e in (elo0, elo1))
    return n * (s1 - s0) * (2 * s - s0 - s1) / (2 * var)


def main() -> int:
    p = argparse.ArgumentParser(prog="python3 -m tools.pool_match_logs", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("logs", nargs="+", help="match output files")
    p.add_argument("--sprt", help="elo0,elo1: also the LLR for these bounds")
    args = p.parse_args()
    total = [0, 0, 0]
    for path in args.logs:
        try:
            w, d, l = last_result(path)
        except (OSError, ValueError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
        print(f"{path}: {w}-{d}-{l}")
        total = [a + b for a, b in zip(total, (w, d, l))]
    w, d, l = total
    n = w + d + l
    s, var = stats(w, d, l)
    se = math.sqrt(var / n) if n > 1 else 0.5
    line = (f"pooled: {w}-{d}-{l} over {n}, score {s:.3f}, Elo {elo(s):+.1f} "
            f"[{elo(s - 1.96 * se):+.1f}, {elo(s + 1.96 * se):+.1f}]")
    if args.sprt:
        try:
            elo0, elo1 = (float(x) for x in args.sprt.split(","))
        except ValueError:
            print(f"error: --sprt takes ELO0,ELO1, not {args.sprt!r}", file=sys.stderr)
            return 1
        bound = math.log(0.95 / 0.05)
        value = llr(w, d, l, elo0, elo1)
        verdict = "H1" if value >= bound else "H0" if value <= -bound else "undecided"
        line += f", LLR {value:.2f} of (-{bound:.2f}, {bound:.2f}) for [{elo0:g}, {elo1:g}]: {verdict}"
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
