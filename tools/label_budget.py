"""How good a training label is for the nodes spent on it: positions from self-play records
searched again at several node budgets and once at a much larger one (the reference), from an
empty table each time, and each budget's score compared with the reference's and with the
game's result.

    .venv/tools/bin/python -m tools.label_budget ENGINE POSITIONS.txt [--budgets 1000,2000,5000]
        [--reference 200000] [--count 1000] [--seed 1] [--scale auto|K] [--option NAME=VALUE ...]

POSITIONS.txt is what `hayate gensfen convert RECORDS.hgr --text --out POSITIONS.txt` writes
(`sfen<TAB>move<TAB>score<TAB>ply<TAB>result` a line, the score and result for the side to
move); `--count` lines are drawn from it with `random.Random(--seed)`. The recorded score, the
label `gensfen` kept (searched with the table of the game so far), is compared as the budget
`recorded`, the reference as `ref`. Scores become win probabilities `sigmoid(score / --scale)` (mate scores the
certainty of their side), as the trainer's loss sees them, K by default fitted as the trainer's
`--scale auto` fits it (the K with which the recorded scores best predict the results); each
budget gets:

- `rmse_ref`: root mean square of its probability minus the reference's (the label's noise);
- `mae_cp_ref`: mean absolute score difference to the reference, scores clipped to +-3000;
- `loss_result`: mean squared error of its probability against the game's result (1, 0.5, 0);
- `nodes`: the mean nodes the engine reported for the search.

The budgets' cost per position is what `gensfen` prints (positions a second, nodes a second);
docs/records/nets.md, "What a training label costs and how good it is (2026-12-05)", has the
runs and the reading.
"""

from __future__ import annotations

import argparse
import math
import random
import sys

from tools.cli import Fatal, log, parse_options, run_cli
from tools.usi.engine import EngineError, UsiEngine

# A mate score's magnitude in centipawns, for the clipped differences.
CLIP_CP = 3000


def parse_score(line: str) -> int | None:
    """The score of an `info ... score cp X` / `score mate N` line, mates as +-(100000 - N);
    None for a line without a score (`info string ...`) or with an unreadable one."""
    tokens = line.split()
    if not tokens or tokens[0] != "info" or "string" in tokens[:2] or "score" not in tokens:
        return None
    i = tokens.index("score")
    if i + 2 >= len(tokens):
        return None
    kind, value = tokens[i + 1], tokens[i + 2]
    try:
        if kind == "cp":
            return int(value)
        if kind == "mate":
            # `mate +` / `mate -` (no count) are certain too.
            n = abs(int(value)) if value.lstrip("+-") else 0
            sign = -1 if value.startswith("-") else 1
            return sign * (100000 - n)
    except ValueError:
        return None
    return None


def parse_nodes(line: str) -> int | None:
    tokens = line.split()
    if "nodes" in tokens:
        i = tokens.index("nodes")
        if i + 1 < len(tokens) and tokens[i + 1].isdigit():
            return int(tokens[i + 1])
    return None


def win_probability(score: int, scale: float) -> float:
    x = max(min(score / scale, 50.0), -50.0)
    return 1.0 / (1.0 + math.exp(-x))


def fit_scale(scores: list[int], results: list[int]) -> float:
    """The K for which `sigmoid(score / K)` best predicts the results (least squares, as the
    trainer's `--scale auto` fits it), searched between 50 and 20000 on a log scale."""

    def loss(k: float) -> float:
        return sum((win_probability(s, k) - result_value(r)) ** 2 for s, r in zip(scores, results))

    lo, hi = math.log(50.0), math.log(20000.0)
    for _ in range(60):  # golden-section search; the loss is unimodal in log K on real data
        a, b = lo + (hi - lo) * 0.382, lo + (hi - lo) * 0.618
        if loss(math.exp(a)) <= loss(math.exp(b)):
            hi = b
        else:
            lo = a
    return math.exp((lo + hi) / 2)


def result_value(result: int) -> float:
    """The record's result for the side to move (1 win, 0 draw, -1 loss) as a target."""
    return {1: 1.0, 0: 0.5, -1: 0.0}[result]


def read_positions(path: str) -> list[tuple[str, int, int]]:
    """(sfen, recorded score, result) of every line of a `gensfen convert --text` file."""
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 5:
                raise Fatal(f"{path}:{n}: expected 5 tab-separated fields, got {len(fields)}")
            try:
                score, result = int(fields[2]), int(fields[4])
            except ValueError:
                raise Fatal(f"{path}:{n}: score and result must be integers") from None
            if result not in (1, 0, -1):
                raise Fatal(f"{path}:{n}: result must be 1, 0 or -1, got {result}")
            out.append((fields[0], score, result))
    return out


def summarise(rows: list[dict], budgets: list[str], scale: float) -> dict[str, dict[str, float]]:
    """Each budget's statistics over `rows`: dicts holding `ref` (the reference score), `result`
    and a score under each budget name (plus `nodes:NAME`, where searched)."""
    out = {}
    for b in budgets:
        sq_ref = cp_ref = sq_res = nodes = 0.0
        counted = 0
        for r in rows:
            p = win_probability(r[b], scale)
            sq_ref += (p - win_probability(r["ref"], scale)) ** 2
            clip = max(min(r[b], CLIP_CP), -CLIP_CP) - max(min(r["ref"], CLIP_CP), -CLIP_CP)
            cp_ref += abs(clip)
            sq_res += (p - result_value(r["result"])) ** 2
            if f"nodes:{b}" in r:
                nodes += r[f"nodes:{b}"]
                counted += 1
        n = len(rows)
        out[b] = {
            "rmse_ref": math.sqrt(sq_ref / n),
            "mae_cp_ref": cp_ref / n,
            "loss_result": sq_res / n,
            "nodes": nodes / counted if counted else float("nan"),
        }
    return out


def search(engine: UsiEngine, sfen: str, nodes: int, timeout: float) -> tuple[int, int]:
    """The last score and node count the engine reports for `go nodes N` from an empty table."""
    score = searched = None
    for line in engine.fresh_search(f"position sfen {sfen}", f"go nodes {nodes}", timeout):
        s = parse_score(line)
        if s is not None:
            score = s
            searched = parse_nodes(line) or searched
    if score is None:
        raise Fatal(f"no score for {sfen} at {nodes} nodes")
    return score, searched or 0


def main(args: argparse.Namespace) -> int:
    budgets = [int(b) for b in args.budgets.split(",") if b.strip()]
    if not budgets or min(budgets) <= 0 or args.reference <= max(budgets):
        raise Fatal("--budgets must be positive and below --reference")
    positions = read_positions(args.positions)
    if len(positions) < args.count:
        raise Fatal(f"{args.positions}: {len(positions)} positions, fewer than --count {args.count}")
    sample = random.Random(args.seed).sample(positions, args.count)
    if args.scale == "auto":
        scale = fit_scale([p[1] for p in sample], [p[2] for p in sample])
    else:
        try:
            scale = float(args.scale)
        except ValueError:
            raise Fatal("--scale must be a number or auto") from None
        if scale <= 0:
            raise Fatal("--scale must be positive")
    engine = UsiEngine(args.engine, "engine", parse_options(args.option, "--option"))
    try:
        engine.start()
    except EngineError as e:
        raise Fatal(f"engine: {e}") from None
    rows = []
    try:
        for i, (sfen, recorded, result) in enumerate(sample, 1):
            row = {"recorded": recorded, "result": result}
            for b in budgets:
                row[str(b)], row[f"nodes:{b}"] = search(engine, sfen, b, 60.0)
            row["ref"], row["nodes:ref"] = search(engine, sfen, args.reference, 600.0)
            rows.append(row)
            if i % 50 == 0:
                log(f"label_budget: {i}/{args.count} positions")
    finally:
        engine.close()
    names = ["recorded"] + [str(b) for b in budgets] + ["ref"]
    stats = summarise(rows, names, scale)
    print(f"{args.count} positions, reference {args.reference} nodes, scale {scale:.0f}")
    print("budget\trmse_ref\tmae_cp_ref\tloss_result\tnodes")
    for b in names:
        s = stats[b]
        print(f"{b}\t{s['rmse_ref']:.4f}\t{s['mae_cp_ref']:.1f}\t{s['loss_result']:.4f}\t{s['nodes']:.0f}")
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python3 -m tools.label_budget",
        description="Label noise of self-play positions searched at several node budgets, against "
        "a reference search and the game's result.",
    )
    p.add_argument("engine", help="USI engine to search with")
    p.add_argument("positions", help="`hayate gensfen convert --text` output")
    p.add_argument("--budgets", default="1000,2000,5000", help="nodes per search, comma-separated")
    p.add_argument("--reference", type=int, default=200000, help="nodes of the reference search")
    p.add_argument("--count", type=int, default=1000, help="positions drawn")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--scale", default="auto",
                   help="score scale K of the win probability, or auto: fitted to the sample's recorded "
                   "scores and results")
    p.add_argument("--option", action="append", default=[], help="USI option NAME=VALUE (repeatable)")
    return p


if __name__ == "__main__":
    sys.exit(run_cli("label_budget", parser(), main, None))
