"""Hayate's and YaneuraOu's search speed on the same NNUE net: both engines search the same
positions with the same limit, one after the other, and their nps are compared.

    python3 -m tools.nnue_nps --hayate ENGINE --yaneuraou ENGINE --net DIR/nn.bin [--fv-scale 16]
        [--positions 20] [--nodes 300000 | --depth D] [--rounds 3] [--timeout 300]

YaneuraOu must be built for the net's shape (its Makefile's `YANEURAOU_EDITION`, one build per
shape); Hayate reads any shape of the family from `EvalFile`. YaneuraOu reads `nn.bin` from the
folder `EvalDir`, so the net's file must be named `nn.bin`. Both run on one thread with a 64 MiB
table, and every search starts from cleared tables (`isready`, which clears YaneuraOu's, then
`usinewgame`, which clears Hayate's). The positions are the start position and the first
`--positions` of tests/data/bench.sfen; within a round the engines alternate position by position
(Hayate, YaneuraOu, Hayate, ...), so that a change in the machine's speed falls on both alike.

Each search's figures are the last `info` line with `nodes` and `time` before `bestmove`, as the
engine reports them. Per engine: the nodes and milliseconds summed over all searches, the nps of
those sums, the median of the rounds' nps, and the wall clock (`go` sent to `bestmove` read,
summed). The ratio is Hayate's nps over YaneuraOu's, with the lowest and highest of the rounds'
ratios. The `info string` lines each engine printed while loading are shown first, to see that
each read the net (Hayate names the shape it found); a Hayate that falls back to its embedded net
stops the run. Run it on an idle machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import dataclass

from tools.cli import Fatal, log, run_cli
from tools.usi.engine import EngineError, UsiEngine

PROG = "python3 -m tools.nnue_nps"
BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data", "bench.sfen")


class LoadLoggingEngine(UsiEngine):
    """A UsiEngine that keeps the `info string` (and `Error`) lines it reads while waiting for
    `readyok`: what the engine said about loading its net."""

    def __init__(self, path: str, label: str, fixed_options: list[tuple[str, str]], init_timeout: float):
        super().__init__(path, label, fixed_options, init_timeout)
        self.load_lines: list[str] = []
        self.loading = False

    def start(self) -> None:
        self.load_lines = []
        self.loading = True
        try:
            super().start()
        finally:
            self.loading = False

    def sync(self, timeout: float | None = None) -> None:
        self.send("isready")
        deadline = time.monotonic() + (self.init_timeout if timeout is None else timeout)
        while (line := self.read_line(deadline)) != "readyok":
            if self.loading and (line.startswith("info string") or line.lower().startswith("error")):
                self.load_lines.append(line)


@dataclass
class Search:
    nodes: int
    time_ms: int
    wall_s: float


def info_figures(line: str) -> tuple[int, int] | None:
    """(nodes, time in ms) of an `info` line that has both, read by keyword in any order
    (Hayate writes `time T nodes N`, YaneuraOu `nodes N ... time T`); None otherwise."""
    tokens = line.split()
    if not tokens or tokens[0] != "info" or "string" in tokens[:2]:
        return None
    figures = {}
    for key in ("nodes", "time"):
        if key not in tokens:
            return None
        i = tokens.index(key)
        if i + 1 >= len(tokens) or not tokens[i + 1].isdigit():
            return None
        figures[key] = int(tokens[i + 1])
    return figures["nodes"], figures["time"]


def search(engine: UsiEngine, position: str, go: str, timeout: float) -> Search:
    """One search from cleared tables; its last reported nodes and time, and the wall clock from
    `go` to `bestmove`."""
    lines, wall = engine.fresh_search_timed(position, go, timeout)
    figures = [f for f in map(info_figures, lines[:-1]) if f is not None]
    if not figures:
        raise Fatal(f"{engine.label}: `{lines[-1]}` came with no `info ... nodes N ... time T` line for {position}")
    return Search(figures[-1][0], figures[-1][1], wall)


def read_positions(count: int) -> list[str]:
    """`position` commands: the start position and the first `count` positions of bench.sfen."""
    with open(BENCH, encoding="utf-8") as f:
        sfens = [s.strip() for s in f if s.strip() and not s.startswith("#")]
    if count > len(sfens):
        raise Fatal(f"--positions {count}: {BENCH} has {len(sfens)}")
    return ["position startpos"] + [f"position sfen {s}" for s in sfens[:count]]


def nps(searches: list[Search]) -> float:
    ms = sum(s.time_ms for s in searches)
    return 1000.0 * sum(s.nodes for s in searches) / ms if ms else float("nan")


def start(engine: LoadLoggingEngine, needed: str) -> None:
    try:
        engine.start()
    except EngineError as e:
        said = "".join(f"\n  {line}" for line in engine.load_lines)
        raise Fatal(f"{e} (loading {engine.path}){said}") from None
    if needed not in engine.option_names:
        raise Fatal(f"{engine.label}: {engine.path} has no option {needed}")


def run(args: argparse.Namespace) -> int:
    for flag, value, least in (("--positions", args.positions, 0), ("--rounds", args.rounds, 1),
                               ("--nodes", args.nodes, 1), ("--depth", args.depth, 1)):
        if value is not None and value < least:
            raise Fatal(f"{flag} {value}: at least {least}")
    net = os.path.abspath(args.net)
    if not os.path.isfile(net):
        raise Fatal(f"--net {args.net}: no such file")
    if os.path.basename(net) != "nn.bin":
        raise Fatal(f"--net {args.net}: YaneuraOu reads only a file named nn.bin (from EvalDir)")
    for flag, path in (("--hayate", args.hayate), ("--yaneuraou", args.yaneuraou)):
        if not os.access(path, os.X_OK):
            raise Fatal(f"{flag} {path}: not an executable file")
    go = f"go depth {args.depth}" if args.depth is not None else f"go nodes {args.nodes}"
    positions = read_positions(args.positions)
    common = [("Threads", "1"), ("USI_Hash", "64"), ("FV_SCALE", str(args.fv_scale))]
    timing = [("NetworkDelay", "0"), ("NetworkDelay2", "0"), ("MinimumThinkingTime", "0")]
    hayate = LoadLoggingEngine(os.path.abspath(args.hayate), "Hayate",
                               [("EvalFile", net), ("BookFile", "no_book"), *common], args.timeout)
    yaneuraou = LoadLoggingEngine(os.path.abspath(args.yaneuraou), "YaneuraOu",
                                  [("EvalDir", os.path.dirname(net)), ("BookFile", "no_book"), *common, *timing],
                                  args.timeout)
    engines = (hayate, yaneuraou)
    try:
        start(hayate, "EvalFile")
        if not any("NNUE loaded from" in line for line in hayate.load_lines):
            # Hayate plays on with its embedded net when it cannot use the file: no comparison.
            said = "".join(f"\n  {line}" for line in hayate.load_lines)
            raise Fatal(f"Hayate did not load {net}:{said}")
        start(yaneuraou, "EvalDir")
        which = f"startpos and bench.sfen 1-{args.positions}" if args.positions else "startpos"
        print(f"net {net}, {go}, {len(positions)} positions ({which}), "
              f"{args.rounds} round{'s' if args.rounds != 1 else ''}, Threads 1, USI_Hash 64, FV_SCALE {args.fv_scale}")
        for e in engines:
            print(f"{e.label}: {e.name} ({e.path})")
            for line in e.load_lines:
                print(f"  {line}")
        sys.stdout.flush()
        # rounds[engine label][round] = that round's searches.
        rounds: dict[str, list[list[Search]]] = {e.label: [] for e in engines}
        for r in range(args.rounds):
            for e in engines:
                rounds[e.label].append([])
            for i, position in enumerate(positions):
                for e in engines:
                    try:
                        s = search(e, position, go, args.timeout)
                    except EngineError as err:
                        raise Fatal(f"{err} (round {r + 1}, position {i})") from None
                    rounds[e.label][r].append(s)
            log(f"round {r + 1}/{args.rounds}: " + ", ".join(
                f"{e.label} {nps(rounds[e.label][r]):,.0f} nps" for e in engines))
    finally:
        for e in engines:
            e.close()

    print(f"{'engine':<10} {'nodes':>13} {'time ms':>10} {'nps':>11} {'median nps':>11} {'wall s':>8}")
    for e in engines:
        every = [s for rnd in rounds[e.label] for s in rnd]
        print(f"{e.label:<10} {sum(s.nodes for s in every):>13,} {sum(s.time_ms for s in every):>10,} "
              f"{nps(every):>11,.0f} {statistics.median(nps(rnd) for rnd in rounds[e.label]):>11,.0f} "
              f"{sum(s.wall_s for s in every):>8.1f}")
    ratios = [nps(h) / nps(y) for h, y in zip(rounds["Hayate"], rounds["YaneuraOu"])]
    overall = nps([s for rnd in rounds["Hayate"] for s in rnd]) / nps([s for rnd in rounds["YaneuraOu"] for s in rnd])
    print(f"Hayate/YaneuraOu nps: {overall:.3f} (rounds {min(ratios):.3f} to {max(ratios):.3f})")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Hayate's and YaneuraOu's nps on the same NNUE net, the same positions and limits, "
        "the engines alternating position by position.",
    )
    parser.add_argument("--hayate", required=True, metavar="ENGINE", help="Hayate's binary")
    parser.add_argument("--yaneuraou", required=True, metavar="ENGINE", help="YaneuraOu built for the net's shape")
    parser.add_argument("--net", required=True, metavar="DIR/nn.bin", help="the net (its file named nn.bin)")
    parser.add_argument("--fv-scale", type=int, default=16, help="FV_SCALE for both (default 16)")
    parser.add_argument("--positions", type=int, default=20,
                        help="bench.sfen positions searched after the start position (default 20)")
    limit = parser.add_mutually_exclusive_group()
    limit.add_argument("--nodes", type=int, default=300000, help="go nodes N (default 300000)")
    limit.add_argument("--depth", type=int, help="go depth D instead of go nodes")
    parser.add_argument("--rounds", type=int, default=3, help="passes over the positions (default 3)")
    parser.add_argument("--timeout", type=float, default=300.0,
                        help="seconds an engine may take to load, get ready or search one position (default 300)")
    return run_cli(PROG, parser, run, argv)


if __name__ == "__main__":
    sys.exit(main())
