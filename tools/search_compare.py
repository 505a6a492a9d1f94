"""Two searches side by side, iteration by iteration: each engine searches the same positions with
`go depth D` from cleared tables, and every completed iteration's figures (cumulative nodes, time,
seldepth, score, best move) are kept; then per depth and per node budget, how the two compare.

    python3 -m tools.search_compare depth --a ENGINE --b ENGINE [--options-a N=V,...]
        [--options-b N=V,...] [--scale-b 0.9] [--depth 16] [--positions tests/data/bench.sfen]
        [--count 30] [--hash 16] [--out rows.tsv]
    python3 -m tools.search_compare summary rows.tsv [--from-depth 6]
    python3 -m tools.search_compare clock --a ENGINE --b ENGINE --go "go byoyomi 1000" [...]

`depth` writes one row per engine, position and completed iteration to `--out` (tab-separated:
engine, position, depth, seldepth, nodes, time_ms, score, move) and prints the summary; `summary`
prints it again from the rows. Both engines run on one thread with `--hash` MiB of table,
`PvInterval=0` (YaneuraOu otherwise holds back the reports of fast iterations), and each search
starts from cleared tables (`isready`, then `usinewgame`). An iteration is the last `info` line of
its depth with a score, a `pv` and no `lowerbound`/`upperbound` (multipv 1). `--scale-b` turns
engine B's printed centipawns into A's units: YaneuraOu prints `100 * v / 90` (its PawnValue 90),
so with the same net `--scale-b 0.9` gives scores comparable with Hayate's, which prints the
evaluation's own units. Positions: `sfen ...` or `startpos [moves ...]` lines of `--positions`
(lines starting with `#` and bare SFENs, as in bench.sfen, are read too); the first `--count`.

The summary (A's figures first, B's second):
- per depth: positions both completed, best-move agreement between the engines, median and
  geometric mean of the nodes to complete the depth, the geometric mean of A's nodes over B's,
  median time, mean seldepth, and each engine's effective branching factor at that depth (the
  geometric mean over positions of nodes(d) / nodes(d - 1));
- the EBF over a span: per position (nodes(D) / nodes(F)) ** (1 / (D - F)) from `--from-depth`
  F to the deepest depth both completed, geometric mean;
- at equal nodes (budgets 10^3.5 .. in half decades, over the positions where both searches went
  past the budget): each engine's last iteration completed within the budget, its nominal depth,
  the agreement of the two best moves, and how often each engine's move is the reference move:
  the move both engines chose at their deepest iteration, where they agree (positions where they
  do not have no reference); `only` counts the positions where one engine has it and the other
  not (the discordant pairs of a sign test);
- nodes to the reference move: the nodes at which an engine's best move became the reference
  move for good (geometric mean and median over the positions with a reference).

`clock` sends the same `go` (any clock) to each engine from cleared tables on the positions,
engines alternating, and prints per search: the last completed iteration's depth, seldepth and
nodes, the engine's reported time, and the wall time from `go` to `bestmove`.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import statistics
import sys
from dataclasses import dataclass

from tools.cli import Fatal, log, parse_options, run_cli
from tools.label_budget import parse_score
from tools.usi.engine import EngineError, UsiEngine

PROG = "python3 -m tools.search_compare"
FIELDS = ("engine", "position", "depth", "seldepth", "nodes", "time_ms", "score", "move")
MATE = 90000  # scores at or beyond this are mates (parse_score gives +-(100000 - n))


@dataclass
class Iteration:
    depth: int
    seldepth: int
    nodes: int
    time_ms: int
    score: int
    move: str


def tokens_value(tokens: list[str], key: str) -> str | None:
    if key in tokens:
        i = tokens.index(key)
        if i + 1 < len(tokens):
            return tokens[i + 1]
    return None


def parse_iteration(line: str, scale: float = 1.0) -> Iteration | None:
    """The figures of an `info` line that ends an iteration (depth, score, pv; not a bound, not
    a second multipv line), the score multiplied by `scale` unless a mate; None otherwise."""
    tokens = line.split()
    if not tokens or tokens[0] != "info" or "string" in tokens[:2] or "pv" not in tokens:
        return None
    if "lowerbound" in tokens or "upperbound" in tokens:
        return None
    multipv = tokens_value(tokens, "multipv")
    if multipv is not None and multipv != "1":
        return None
    score = parse_score(line)
    pv = tokens[tokens.index("pv") + 1 :]
    try:
        depth = int(tokens_value(tokens, "depth") or "")
        nodes = int(tokens_value(tokens, "nodes") or "")
        time_ms = int(tokens_value(tokens, "time") or "0")
        seldepth = int(tokens_value(tokens, "seldepth") or str(depth))
    except ValueError:
        return None
    if score is None or not pv:
        return None
    if abs(score) < MATE:
        score = round(score * scale)
    return Iteration(depth, seldepth, nodes, time_ms, score, pv[0])


def iterations(lines: list[str], scale: float = 1.0) -> list[Iteration]:
    """One iteration per depth, the last line of each depth, in order of depth."""
    by_depth: dict[int, Iteration] = {}
    for line in lines:
        it = parse_iteration(line, scale)
        if it is not None:
            by_depth[it.depth] = it
    return [by_depth[d] for d in sorted(by_depth)]


def geomean(xs: list[float]) -> float:
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def at_budget(its: list[Iteration], budget: int) -> Iteration | None:
    """The last iteration completed within `budget` nodes."""
    best = None
    for it in its:
        if it.nodes <= budget:
            best = it
    return best


def settled_nodes(its: list[Iteration], move: str) -> int | None:
    """The nodes of the first iteration from which on every best move is `move`; None if the
    last is not."""
    found = None
    for it in its:
        if it.move == move:
            found = it.nodes if found is None else found
        else:
            found = None
    return found


def reference_moves(a: dict[int, list[Iteration]], b: dict[int, list[Iteration]]) -> dict[int, str]:
    """Per position, the move both engines chose at their deepest iteration, where they agree."""
    out = {}
    for p, rows in a.items():
        if rows and b.get(p) and rows[-1].move == b[p][-1].move:
            out[p] = rows[-1].move
    return out


def pct(k: int, n: int) -> str:
    return f"{100.0 * k / n:.0f}%" if n else "-"


def ebf_at(its: dict[int, list[Iteration]], d: int) -> list[float]:
    out = []
    for rows in its.values():
        by = {it.depth: it for it in rows}
        if d in by and d - 1 in by and by[d - 1].nodes > 0:
            out.append(by[d].nodes / by[d - 1].nodes)
    return out


def summary(rows: list[dict], labels: tuple[str, str], from_depth: int) -> list[str]:
    """The summary's lines from the rows (dicts of FIELDS) of engines `labels`."""
    its: dict[str, dict[int, list[Iteration]]] = {lab: {} for lab in labels}
    for r in rows:
        if r["engine"] in its:
            its[r["engine"]].setdefault(int(r["position"]), []).append(Iteration(
                int(r["depth"]), int(r["seldepth"]), int(r["nodes"]), int(r["time_ms"]), int(r["score"]), r["move"]))
    for per in its.values():
        for p in per:
            per[p].sort(key=lambda it: it.depth)
    a, b = (its[lab] for lab in labels)
    la, lb = labels
    out = [f"positions: {la} {len(a)}, {lb} {len(b)}", "",
           "per depth (nodes and time to complete the depth; EBF: geometric mean of nodes(d)/nodes(d-1))",
           (f"{'depth':>5} {'pos':>4} {'agree':>6} {'med nodes ' + la:>18} {'med nodes ' + lb:>18} "
            f"{la + '/' + lb:>14} {'med ms ' + la:>14} {'med ms ' + lb:>14} {'seld ' + la:>12} {'seld ' + lb:>12} "
            f"{'EBF ' + la:>11} {'EBF ' + lb:>11}")]
    depths = sorted({it.depth for per in (a, b) for rows in per.values() for it in rows})
    for d in depths:
        pairs = []
        for p in a:
            da = {it.depth: it for it in a[p]}.get(d)
            db = {it.depth: it for it in b.get(p, [])}.get(d)
            if da and db:
                pairs.append((da, db))
        if not pairs:
            continue
        agree = sum(1 for x, y in pairs if x.move == y.move)
        ratio = geomean([x.nodes / y.nodes for x, y in pairs if y.nodes > 0])
        out.append(
            f"{d:>5} {len(pairs):>4} {pct(agree, len(pairs)):>6} "
            f"{statistics.median(x.nodes for x, _ in pairs):>18,.0f} {statistics.median(y.nodes for _, y in pairs):>18,.0f} "
            f"{ratio:>14.2f} {statistics.median(x.time_ms for x, _ in pairs):>14,.0f} "
            f"{statistics.median(y.time_ms for _, y in pairs):>14,.0f} "
            f"{statistics.mean(x.seldepth for x, _ in pairs):>12.1f} {statistics.mean(y.seldepth for _, y in pairs):>12.1f} "
            f"{geomean(ebf_at(a, d)):>11.2f} {geomean(ebf_at(b, d)):>11.2f}")
    # The EBF over a span, per position, to the deepest depth both engines completed there.
    spans = {la: [], lb: []}
    for p in a:
        if p not in b or not a[p] or not b[p]:
            continue
        top = min(a[p][-1].depth, b[p][-1].depth)
        if top <= from_depth:
            continue
        for lab, per in ((la, a), (lb, b)):
            by = {it.depth: it for it in per[p]}
            if from_depth in by and top in by and by[from_depth].nodes > 0:
                spans[lab].append((by[top].nodes / by[from_depth].nodes) ** (1.0 / (top - from_depth)))
    out += ["", (f"EBF from depth {from_depth} to the deepest both completed, geometric mean over positions: "
                 f"{la} {geomean(spans[la]):.3f} ({len(spans[la])}), {lb} {geomean(spans[lb]):.3f} ({len(spans[lb])})")]
    # Equal nodes.
    ref = reference_moves(a, b)
    out += ["", (f"at equal nodes (the last iteration completed within the budget); reference: the move both "
                 f"chose at their deepest iteration, {len(ref)} positions"),
            (f"{'nodes':>10} {'pos':>4} {'depth ' + la:>13} {'depth ' + lb:>13} {'agree':>6} "
             f"{'ref ' + la:>11} {'ref ' + lb:>11} {'refpos':>6} {'only ' + la:>11} {'only ' + lb:>11}")]
    top_nodes = max((it.nodes for per in (a, b) for rows in per.values() for it in rows), default=0)
    k = 7  # 10^3.5
    while 10 ** (k / 2) <= top_nodes:
        budget = int(10 ** (k / 2))
        k += 1
        pairs = []
        for p in a:
            if p not in b:
                continue
            # Only positions where both engines' searches went past the budget: below it, the
            # deepest iteration stands for a budget it did not use.
            if a[p][-1].nodes < budget or b[p][-1].nodes < budget:
                continue
            x, y = at_budget(a[p], budget), at_budget(b[p], budget)
            if x and y:
                pairs.append((p, x, y))
        if not pairs:
            continue
        with_ref = [(p, x, y) for p, x, y in pairs if p in ref]
        out.append(
            f"{budget:>10,} {len(pairs):>4} {statistics.mean(x.depth for _, x, _ in pairs):>13.1f} "
            f"{statistics.mean(y.depth for _, _, y in pairs):>13.1f} "
            f"{pct(sum(1 for _, x, y in pairs if x.move == y.move), len(pairs)):>6} "
            f"{pct(sum(1 for p, x, _ in with_ref if x.move == ref[p]), len(with_ref)):>11} "
            f"{pct(sum(1 for p, _, y in with_ref if y.move == ref[p]), len(with_ref)):>11} {len(with_ref):>6} "
            f"{sum(1 for p, x, y in with_ref if x.move == ref[p] != y.move):>11} "
            f"{sum(1 for p, x, y in with_ref if y.move == ref[p] != x.move):>11}")
    settle = {la: [], lb: []}
    for p, move in ref.items():
        for lab, per in ((la, a), (lb, b)):
            n = settled_nodes(per[p], move)
            if n is not None:
                settle[lab].append(max(n, 1))
    out += ["", "nodes until the best move is the reference move for good: "
            + ", ".join(f"{lab} geometric mean {geomean(settle[lab]):,.0f}, median "
                        f"{statistics.median(settle[lab]) if settle[lab] else float('nan'):,.0f}"
                        for lab in labels)]
    return out


def read_positions(path: str, count: int) -> list[str]:
    """`position ...` commands from the lines of `path`: `sfen ...`, `startpos ...` or a bare SFEN."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = [s.strip() for s in f if s.strip() and not s.startswith("#")]
    except OSError as e:
        raise Fatal(f"{path}: {e}") from None
    out = []
    for s in lines[:count]:
        out.append(f"position {s}" if s.startswith(("sfen ", "startpos")) else f"position sfen {s}")
    if not out:
        raise Fatal(f"{path}: no positions")
    return out


def start_engines(args: argparse.Namespace) -> tuple[UsiEngine, UsiEngine]:
    engines = []
    for which, path, options in (("a", args.a, args.options_a), ("b", args.b, args.options_b)):
        fixed = [("Threads", "1"), ("USI_Hash", str(args.hash)), ("PvInterval", "0")]
        fixed += parse_options([o for o in (options or "").split(",") if o.strip()], f"--options-{which}")
        e = UsiEngine(path, getattr(args, f"label_{which}"), fixed, init_timeout=120.0)
        try:
            e.start()
        except EngineError as err:
            for x in engines:
                x.close()
            raise Fatal(f"--{which} {path}: {err}") from None
        engines.append(e)
    return engines[0], engines[1]


def run_depth(args: argparse.Namespace) -> int:
    positions = read_positions(args.positions, args.count)
    a, b = start_engines(args)
    scales = {a.label: 1.0, b.label: args.scale_b}
    rows = []
    try:
        with open(args.out, "w", encoding="utf-8") if args.out else contextlib.nullcontext() as out:
            if out:
                out.write("\t".join(FIELDS) + "\n")
            for i, position in enumerate(positions):
                for e in (a, b):
                    try:
                        lines, wall = e.fresh_search_timed(position, f"go depth {args.depth}", args.timeout)
                    except EngineError as err:
                        raise Fatal(f"{err} (position {i})") from None
                    its = iterations(lines, scales[e.label])
                    for it in its:
                        row = {"engine": e.label, "position": str(i), "depth": str(it.depth),
                               "seldepth": str(it.seldepth), "nodes": str(it.nodes), "time_ms": str(it.time_ms),
                               "score": str(it.score), "move": it.move}
                        rows.append(row)
                        if out:
                            out.write("\t".join(row[f] for f in FIELDS) + "\n")
                    if out:
                        out.flush()
                    last = its[-1] if its else None
                    log(f"position {i + 1}/{len(positions)} {e.label}: depth {last.depth if last else '-'}, "
                        f"{last.nodes if last else 0:,} nodes, {wall:.1f} s")
    except OSError as err:
        raise Fatal(f"--out {args.out}: {err}") from None
    finally:
        a.close()
        b.close()
    print("\n".join(summary(rows, (a.label, b.label), args.from_depth)))
    return 0


def run_summary(args: argparse.Namespace) -> int:
    try:
        with open(args.rows, encoding="utf-8") as f:
            header = f.readline().rstrip("\n").split("\t")
            if tuple(header) != FIELDS:
                raise Fatal(f"{args.rows}: the header is not {' '.join(FIELDS)}")
            rows = [dict(zip(FIELDS, line.rstrip("\n").split("\t"))) for line in f if line.strip()]
    except OSError as e:
        raise Fatal(f"{args.rows}: {e}") from None
    labels = list(dict.fromkeys(r["engine"] for r in rows))
    if len(labels) != 2:
        raise Fatal(f"{args.rows}: rows of {len(labels)} engines, not 2")
    print("\n".join(summary(rows, (labels[0], labels[1]), args.from_depth)))
    return 0


def run_clock(args: argparse.Namespace) -> int:
    positions = read_positions(args.positions, args.count)
    a, b = start_engines(args)
    print(f"{'engine':<10} {'pos':>3} {'depth':>5} {'seld':>4} {'nodes':>12} {'time ms':>8} {'wall ms':>8} move")
    try:
        for i, position in enumerate(positions):
            for e in (a, b):
                try:
                    lines, wall = e.fresh_search_timed(position, args.go, args.timeout)
                except EngineError as err:
                    raise Fatal(f"{err} (position {i})") from None
                its = iterations(lines)
                # The last report (the stop's) for nodes and time; the last completed iteration's depth.
                last_nodes = last_time = 0
                for line in lines:
                    t = line.split()
                    if t and t[0] == "info" and "nodes" in t and "time" in t:
                        last_nodes = int(tokens_value(t, "nodes") or 0)
                        last_time = int(tokens_value(t, "time") or 0)
                it = its[-1] if its else None
                move = lines[-1].split()[1] if len(lines[-1].split()) > 1 else ""
                print(f"{e.label:<10} {i:>3} {it.depth if it else 0:>5} {it.seldepth if it else 0:>4} "
                      f"{last_nodes:>12,} {last_time:>8,} {wall * 1000:>8,.0f} {move}", flush=True)
    finally:
        a.close()
        b.close()
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command_name", required=True)
    for name, func in (("depth", run_depth), ("clock", run_clock)):
        s = sub.add_parser(name)
        s.set_defaults(func=func)
        s.add_argument("--a", required=True, metavar="ENGINE", help="engine A (Hayate)")
        s.add_argument("--b", required=True, metavar="ENGINE", help="engine B (YaneuraOu)")
        s.add_argument("--label-a", default="Hayate")
        s.add_argument("--label-b", default="YaneuraOu")
        s.add_argument("--options-a", help="A's options, NAME=VALUE,...")
        s.add_argument("--options-b", help="B's options, NAME=VALUE,...")
        s.add_argument("--positions", default="tests/data/bench.sfen", help="file of positions")
        s.add_argument("--count", type=int, default=30, help="the first N positions (default 30)")
        s.add_argument("--hash", type=int, default=16, help="USI_Hash of both, MiB (default 16)")
        s.add_argument("--timeout", type=float, default=1800.0, help="seconds a search may take")
        if name == "depth":
            s.add_argument("--depth", type=int, default=16)
            s.add_argument("--scale-b", type=float, default=1.0, help="B's centipawns times this are A's units")
            s.add_argument("--out", help="the rows, tab-separated")
            s.add_argument("--from-depth", type=int, default=6, help="the EBF span's first depth (default 6)")
        else:
            s.add_argument("--go", required=True, help='the `go` command, e.g. "go byoyomi 1000"')
    s = sub.add_parser("summary")
    s.set_defaults(func=run_summary)
    s.add_argument("rows", help="the rows `depth --out` wrote")
    s.add_argument("--from-depth", type=int, default=6)
    return p


if __name__ == "__main__":
    sys.exit(run_cli(PROG, parser(), lambda args: args.func(args), None))
