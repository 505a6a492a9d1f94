"""How often a strength level blunders, by the full engine's judgement: the level plays games
against itself from the openings, and a judge (the full-strength engine, `go nodes N` from an
empty table) scores every position of each game; a move loses what its position was worth to the
mover less what the next position is worth to the mover.

    python3 -m tools.blunder_rate ENGINE --levels 0,10,16 [--games 4] [--judge-nodes 200000]
        [--byoyomi 1000] [--openings data/openings-8000.txt] [--seed 1] [--threshold 300]

Scores are clamped to +-2000 before the loss is taken (a win that stays won is no blunder, and a
mate's distance is not centipawns). A move is a blunder when it loses more than `--threshold`.
The opening's moves are not the level's and are not counted. A game ends at `bestmove resign` or
`win` (a mated side resigns), or after `--max-plies` plies (the opening's included). Per level it
prints the moves judged, the blunders and their share with a 95% Wilson interval, and the mean
loss. The level plays with `SkillLevel` (the engine's other options at their defaults, 16 MiB of
table, one thread); the judge with the defaults and `--judge-hash`.
"""

from __future__ import annotations

import argparse
import math
import random
import sys

from tools.cli import Fatal, log, run_cli
from tools.label_budget import parse_score
from tools.usi.engine import EngineError, UsiEngine

CLAMP = 2000


def move_loss(before: int, after: int) -> int:
    """What a move lost, in clamped centipawns: `before` is the position's score for the mover,
    `after` the next position's score for the opponent."""
    return max(-CLAMP, min(CLAMP, before)) + max(-CLAMP, min(CLAMP, after))


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion k/n."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def judge(engine: UsiEngine, position: str, nodes: int, timeout: float) -> int | None:
    """The judge's last score for the side to move of `position` at `go nodes N` from an empty
    table; None when it has no move (it reports no score and answers resign)."""
    score = None
    for line in engine.fresh_search(position, f"go nodes {nodes}", timeout):
        s = parse_score(line)
        if s is not None and (" multipv " not in line or " multipv 1 " in line):
            score = s
    return score


def position_line(opening: str, moves: list[str]) -> str:
    """The `position` command of `opening` (`startpos [moves ...]`) followed by `moves`."""
    words = opening.split()
    if moves:
        words += ([] if "moves" in words else ["moves"]) + moves
    return "position " + " ".join(words)


def play(player: UsiEngine, opening: str, max_plies: int, byoyomi: int) -> list[str]:
    """One game of the level against itself from `opening` (`startpos moves ...`): its moves."""
    moves: list[str] = []
    words = opening.split()
    start_plies = len(words) - words.index("moves") - 1 if "moves" in words else 0
    player.send("usinewgame")
    while start_plies + len(moves) < max_plies:
        position = position_line(opening, moves)
        word = player.best_move(position, f"go btime 0 wtime 0 byoyomi {byoyomi}", byoyomi / 1000 + 30)
        if word in ("resign", "win", ""):
            break
        moves.append(word)
    return moves


def main(args: argparse.Namespace) -> int:
    levels = [int(x) for x in args.levels.split(",") if x.strip()]
    if not levels or any(not 0 <= lv <= 20 for lv in levels):
        raise Fatal("--levels takes levels 0 to 20, comma-separated")
    try:
        with open(args.openings, encoding="utf-8") as f:
            openings = [line.strip() for line in f if line.strip().startswith("startpos")]
    except OSError as e:
        raise Fatal(f"{args.openings}: {e}") from None
    if not openings:
        raise Fatal(f"{args.openings}: no `startpos ...` lines")
    rng = random.Random(args.seed)
    judge_engine = UsiEngine(args.engine, "judge", [("USI_Hash", str(args.judge_hash)), ("Threads", "1")])
    try:
        judge_engine.start()
    except EngineError as e:
        raise Fatal(f"judge: {e}") from None
    print("level\tmoves\tblunders\tshare\tlow\thigh\tmean_loss")
    try:
        for level in levels:
            player = UsiEngine(args.engine, f"level {level}", [("SkillLevel", str(level)), ("USI_Hash", "16"),
                                                                ("Threads", "1")])
            try:
                player.start()
            except EngineError as e:
                raise Fatal(f"level {level}: {e}") from None
            losses: list[int] = []
            try:
                for game in range(args.games):
                    opening = rng.choice(openings)
                    moves = play(player, opening, args.max_plies, args.byoyomi)
                    scores = []
                    for k in range(len(moves) + 1):
                        s = judge(judge_engine, position_line(opening, moves[:k]), args.judge_nodes, 600.0)
                        scores.append(s)
                        if s is None:
                            break
                    for k in range(len(scores) - 1):
                        before, after = scores[k], scores[k + 1]
                        if before is None or after is None:
                            break
                        losses.append(move_loss(before, after))
                    log(f"blunder_rate: level {level}, game {game + 1}/{args.games}: {len(moves)} moves")
            finally:
                player.close()
            blunders = sum(1 for x in losses if x > args.threshold)
            lo, hi = wilson(blunders, len(losses))
            share = blunders / len(losses) if losses else float("nan")
            mean = sum(losses) / len(losses) if losses else float("nan")
            print(f"{level}\t{len(losses)}\t{blunders}\t{share:.3f}\t{lo:.3f}\t{hi:.3f}\t{mean:.1f}", flush=True)
    finally:
        judge_engine.close()
    return 0


def parser() -> argparse.ArgumentParser:
    """The command line, described by the module's docstring."""
    p = argparse.ArgumentParser(prog="python3 -m tools.blunder_rate", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    for flag, kind, default, what in (
        ("--levels", str, None, "SkillLevel values, comma-separated"),
        ("--games", int, 4, "games of each level against itself"),
        ("--judge-nodes", int, 200000, "nodes of each judgement"),
        ("--judge-hash", int, 64, "the judge's USI_Hash, MiB"),
        ("--byoyomi", int, 1000, "ms per move of the level"),
        ("--max-plies", int, 256, "plies after which a game stops"),
        ("--openings", str, "data/openings-8000.txt", "file of `startpos moves ...` lines"),
        ("--seed", int, 1, "seed of the openings' draw"),
        ("--threshold", int, 300, "centipawns a blunder loses at least"),
    ):
        p.add_argument(flag, type=kind, default=default, required=default is None, help=what)
    p.add_argument("engine", help="the USI engine (Hayate: SkillLevel)")
    return p


if __name__ == "__main__":
    sys.exit(run_cli("blunder_rate", parser(), main, None))
