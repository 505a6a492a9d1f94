"""`go mate` side by side: mate problems through several USI solvers with the same time limit and
the same table size, one thread each, one problem at a time, each from a fresh process; every line
a solver returns is checked with cshogi, so a wrong line is reported as wrong, not as solved.

    .venv/tools/bin/python -m tools.mate_peers --solver hayate=target/native/release/hayate \
        --solver kh=/work/anchors/bin/KomoringHeights [--solver NAME=PATH ...] \
        [--problems tests/data/mate_suite.tsv ...] [--names SUBSTRING ...] [--exclude SUBSTRING ...] \
        [--secs 60] \
        [--hash-mb 2048] [--option NAME:OPTION=VALUE ...] [--out results.tsv]

A problem file is a TSV with the columns `name`, `sfen` and `mate_plies` (the published length;
0 where none is known), as tests/data/mate.tsv; `--names` keeps the rows whose name holds one of
the substrings, `--exclude` leaves out those that hold one (`--exclude LONG_`: the fast rows). Each solver gets `Threads 1` and its table: `MateHash` (Hayate's `go mate` table,
MiB), else `USI_Hash` (MiB), else `RootDfpnNodes` (maou: its dfpn table's size hint in nodes, at
176 bytes a node; maou caps its table at 2^23 entries), whichever it declares first in that
order, cut to the option's maximum; `--option` sends further options to the solver named. Then
`usinewgame`, a mate in 1 (so that a solver that makes its table at its first `go mate` does not
do it on the problem's clock), `position sfen ...` and `go mate MS`; the time runs from that
`go mate` to the `checkmate ...` line.

The check (`check_line`): every move legal, every attacker move a check, no position repeated,
and at the end a checkmate, or, by tsume convention, a defender in check whose every reply is a
drop between the checker and the king after which cshogi's own df-pn proves the mate again
(futile interpositions left out of the count). A line that fails is `wrong`, with the reason.
`shortest` is what the solver says of its answer where it says it (Hayate's `info string ...
proven shortest`); `-` where it does not say.

The check cannot tell whether the defender resisted longest: a line shorter than the published
length is marked `<` in the table (shtsume at its default `search_level 0` answers such lines).

Output: one TSV row per solver and problem (`--out`, else stdout), then a table on stderr:
plies, `*` where proven shortest, and seconds; `X` a wrong line, `-` no mate found in time.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import sys
import time
from dataclasses import dataclass

from tools.cli import Fatal, log, parse_options, run_cli
from tools.usi.engine import EngineError, UsiEngine

# Bytes a node of maou's dfpn table takes, from its own option text (2,000,000 nodes ~ 352 MB).
MAOU_BYTES_PER_NODE = 176
# How long past the time limit a solver may take to answer before it is stopped, then killed.
GRACE_SECS = 10.0
# The mate in 1 each solver answers before its problem (G*5b).
WARM_UP = "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1"


@dataclass
class Problem:
    name: str
    sfen: str
    plies: int  # the published length; 0 where none is known


@dataclass
class Answer:
    status: str  # mate, wrong, nomate, timeout, error
    plies: int
    shortest: str  # yes, no or - (the solver does not say)
    secs: float
    note: str
    line: list[str]


def read_problems(paths: list[str], names: list[str], exclude: list[str] = ()) -> list[Problem]:
    """The rows of the problem files, in order, those whose name holds one of `names` (all when
    `names` is empty) and none of `exclude`."""
    out = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for row in csv.DictReader(f, delimiter="\t"):
                if not row.get("name") or not row.get("sfen"):
                    continue
                if names and not any(n in row["name"] for n in names):
                    continue
                if any(n in row["name"] for n in exclude):
                    continue
                out.append(Problem(row["name"], row["sfen"].strip(), int(row.get("mate_plies") or 0)))
    return out


def _position_key(sfen: str) -> str:
    """The SFEN without its move number: equal for the same position."""
    return " ".join(sfen.split()[:3])


def _futile_end(board, nodes: int) -> bool:
    """Whether the defender to move, in check, is mated by tsume convention: every reply is a drop
    (an interposition between the checker and the king) and after each the attacker mates again,
    proven by cshogi's df-pn within `nodes` nodes."""
    import cshogi

    if not board.is_check():
        return False
    replies = list(board.legal_moves)
    if not replies or not all(cshogi.move_is_drop(m) for m in replies):
        return False
    dfpn = cshogi.DfPn()
    dfpn.set_max_search_node(nodes)
    for m in replies:
        board.push(m)
        try:
            if not dfpn.search(board):
                return False
        finally:
            board.pop()
    return True


def check_line(sfen: str, line: list[str], futile_nodes: int = 200_000) -> tuple[bool, str]:
    """Whether `line` (USI moves from `sfen`, the attacker to move) is a mate: (True, "mate") or
    (True, "mate by convention"), else (False, why)."""
    import cshogi

    board = cshogi.Board(sfen)
    if not line or len(line) % 2 == 0:
        return False, f"{len(line)} plies: a mate has an odd number"
    seen = {_position_key(board.sfen())}
    for ply, usi in enumerate(line, 1):
        legal = {cshogi.move_to_usi(m): m for m in board.legal_moves}
        if usi not in legal:
            return False, f"ply {ply} {usi}: not a legal move"
        board.push(legal[usi])
        if ply % 2 == 1 and not board.is_check():
            return False, f"ply {ply} {usi}: the attacker's move is not a check"
        key = _position_key(board.sfen())
        if key in seen:
            return False, f"ply {ply} {usi}: a position repeated"
        seen.add(key)
    if board.is_game_over():
        return True, "mate"
    if _futile_end(board, futile_nodes):
        return True, "mate by convention"
    return False, f"after ply {len(line)}: not checkmate"


def table_option(solver: UsiEngine, hash_mb: int) -> tuple[str, str] | None:
    """The option that sets the solver's mate table to `hash_mb` MiB, as it declares it (cut to
    the option's maximum: shtsume's `USI_Hash` stops at 2047)."""
    for name, value in (("MateHash", hash_mb), ("USI_Hash", hash_mb),
                        ("RootDfpnNodes", hash_mb * 1024 * 1024 // MAOU_BYTES_PER_NODE)):
        if name in solver.option_names:
            spin = solver.spin_options.get(name)
            return (name, str(min(value, spin.max) if spin else value))
    return None


def claims_shortest(lines: list[str]) -> str:
    """What a solver's output says of its mate's length: yes (proven shortest), no, or - (it does
    not say). Hayate: `info string mate in N plies, proven shortest; ...`, or `...; a shorter mate
    is not ruled out ...`. KomoringHeights (`PostSearchLevel MinLength`): `# Kth result: mate in
    N(upper_bound:N)` for each mate, then a search for a shorter one whose `# Kth result: {...}`
    line (a disproof) proves the last mate shortest; a stop by the clock prints none."""
    claim = "-"
    for text in lines:
        if not text.startswith("info") or " string " not in text:
            continue
        said = text[text.index(" string ") + len(" string "):]
        if said.startswith("mate in ") and " plies" in said:
            claim = "yes" if "proven shortest" in said else "no"
        elif said.startswith("# ") and " result: " in said:
            result = said[said.index(" result: ") + len(" result: "):]
            if result.startswith("mate in "):
                claim = "yes" if result.startswith("mate in 1(") else "no"
            elif claim == "no":
                claim = "yes"
    return claim


def parse_answer(lines: list[str]) -> tuple[str, list[str], str]:
    """From a solver's output up to its `checkmate ...` line: (status, line, shortest), status one
    of mate, nomate, timeout, error, and shortest what `claims_shortest` reads."""
    last = lines[-1].split() if lines else []
    shortest = claims_shortest(lines)
    if len(last) < 2 or last[0] != "checkmate":
        return "error", [], shortest
    if last[1] in ("nomate", "timeout", "notimplemented"):
        return {"nomate": "nomate", "timeout": "timeout"}.get(last[1], "error"), [], shortest
    return "mate", last[1:], shortest


def solve(path: str, label: str, options: list[tuple[str, str]], problem: Problem, secs: float,
          hash_mb: int) -> Answer:
    """One problem through one solver from a fresh process."""
    engine = UsiEngine(path, label, [], init_timeout=120.0)
    try:
        try:
            engine.start()
            if "Threads" in engine.option_names:
                engine.set_option("Threads", "1")
            table = table_option(engine, hash_mb)
            if table:
                engine.set_option(*table)
            for name, value in options:
                engine.set_option(name, value)
            engine.sync(timeout=300.0)
            engine.send("usinewgame")  # shtsume answers no `go mate` before it
            # A mate in 1 first: a solver that makes its table at its first `go mate` (Hayate)
            # does it here, not on the problem's clock.
            engine.send(f"position sfen {WARM_UP}")
            engine.send("go mate 60000")
            deadline = time.monotonic() + 300.0
            while not engine.read_line(deadline).startswith("checkmate"):
                pass
            engine.send(f"position sfen {problem.sfen}")
            start = time.monotonic()
            engine.send(f"go mate {int(secs * 1000)}")
            lines: list[str] = []
            deadline = start + secs + GRACE_SECS
            stopped = False
            while True:
                try:
                    at, text = engine.read_line_timed(deadline)
                except EngineError:
                    if stopped or not engine.alive():
                        raise
                    engine.send("stop")
                    stopped = True
                    deadline = time.monotonic() + GRACE_SECS
                    continue
                lines.append(text)
                if text.startswith("checkmate"):
                    break
            elapsed = at - start
        except EngineError as e:
            return Answer("timeout" if "in time" in str(e) else "error", 0, "-", secs, str(e), [])
    finally:
        engine.close()
    status, line, shortest = parse_answer(lines)
    if status != "mate":
        return Answer(status, 0, "-", elapsed, lines[-1] if lines else "", [])
    ok, why = check_line(problem.sfen, line)
    if stopped:
        why = f"answered only after `stop`, {GRACE_SECS:.0f} s past the limit; {why}"
    return Answer("mate" if ok else "wrong", len(line), shortest, elapsed, why, line)


def cell(a: Answer, published: int = 0) -> str:
    """A result in the printed table: `<` marks a line shorter than the published length (a
    defender that does not resist longest: the check cannot see that)."""
    if a.status == "mate":
        short = "<" if 0 < a.plies < published else ""
        return f"{short}{a.plies}{'*' if a.shortest == 'yes' else ''} {a.secs:.1f}s"
    if a.status == "wrong":
        return f"X {a.plies}"
    return "-"


def print_table(problems: list[Problem], labels: list[str], results: dict[tuple[str, str], Answer]) -> None:
    width = max([len(p.name) for p in problems] + [7])
    log(f"{'problem':<{width}} {'pub':>5}  " + "  ".join(f"{x:>14}" for x in labels))
    for p in problems:
        cells = [cell(results[(x, p.name)], p.plies) if (x, p.name) in results else "" for x in labels]
        log(f"{p.name:<{width}} {p.plies or '?':>5}  " + "  ".join(f"{c:>14}" for c in cells))


HEADER = ["solver", "problem", "published", "status", "plies", "shortest", "secs", "note", "line"]


def main(args: argparse.Namespace) -> int:
    solvers = parse_options(args.solver, "--solver")
    if not solvers:
        raise Fatal("name at least one --solver NAME=PATH")
    labels = [name for name, _ in solvers]
    extra: dict[str, list[tuple[str, str]]] = {name: [] for name in labels}
    for item in args.option:
        who, sep, rest = item.partition(":")
        if not sep or who not in extra:
            raise Fatal(f"--option wants SOLVER:NAME=VALUE with a solver named by --solver, got {item!r}")
        extra[who] += parse_options([rest], "--option")
    problems = read_problems(args.problems, args.names, args.exclude)
    if not problems:
        raise Fatal("no problem selected")
    results: dict[tuple[str, str], Answer] = {}
    with open(args.out, "w", encoding="utf-8") if args.out else contextlib.nullcontext(sys.stdout) as out:
        out.write("\t".join(HEADER) + "\n")
        for p in problems:
            for name, path in solvers:
                a = solve(path, name, extra[name], p, args.secs, args.hash_mb)
                results[(name, p.name)] = a
                out.write("\t".join([name, p.name, str(p.plies), a.status, str(a.plies), a.shortest,
                                     f"{a.secs:.2f}", a.note.replace("\t", " "), " ".join(a.line)]) + "\n")
                out.flush()
                log(f"mate_peers: {p.name} {name}: {cell(a, p.plies)} ({a.status}; {a.note})")
    print_table(problems, labels, results)
    return 0


def parser() -> argparse.ArgumentParser:
    """The command line, described by the module's docstring."""
    p = argparse.ArgumentParser(prog="python3 -m tools.mate_peers", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--solver", action="append", default=[], help="NAME=PATH of a USI solver (repeat)")
    p.add_argument("--problems", nargs="+", default=["tests/data/mate.tsv", "tests/data/mate_suite.tsv", "tests/data/mate_hard.tsv"],
                   help="problem files (TSV: name, sfen, mate_plies)")
    p.add_argument("--names", nargs="*", default=[], help="keep the problems whose name holds one of these")
    p.add_argument("--exclude", nargs="*", default=[], help="leave out the problems whose name holds one of these")
    p.add_argument("--secs", type=float, default=60.0, help="time limit a problem, seconds (go mate MS)")
    p.add_argument("--hash-mb", type=int, default=2048, help="each solver's table, MiB")
    p.add_argument("--option", action="append", default=[], help="SOLVER:NAME=VALUE, a further option")
    p.add_argument("--out", help="the TSV of results (default: stdout)")
    return p


if __name__ == "__main__":
    sys.exit(run_cli("mate_peers", parser(), main, None))
