"""Games between two USI engines at real clocks: checks an engine's time management and compares
it with another engine's use of the clock.

    python3 -m tools.clock ENGINE_A ENGINE_B --games 2 --tc fischer:300+10
    python3 -m tools.clock ENGINE_A ENGINE_B --games 20 --tc byoyomi:0+10 --whole-seconds \\
        --options-a Threads=1 --options-b Threads=1 BookFile=no_book --log clock.jsonl

The referee (tools/usi/referee.py: cshogi rules) keeps both clocks itself (clock_math.py has the
arithmetic and the rules): each move is timed with time.monotonic() from just before `position`
and `go` are written to the engine to the moment its `bestmove` line is read from the pipe, so the
time includes the pipe's round trip (the quickest `isready` or `usi` answer before each game is
reported as "I/O round trip", an upper bound of it). A move later than its side may use (plus
--grace) loses on time; so do a crash, an illegal move, a false declaration and `bestmove resign`.

Engines alternate colours game by game; games 2k+1 and 2k+2 share an opening. Progress lines go to
stderr, the summary table to stdout, and --log FILE appends JSON lines: a `start` record, a `move`
record for every move (its time and both sides of the clock), a `game` record per game (result,
reason, per-side statistics, the moves) and a `summary` record.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import signal
import statistics
import time
from dataclasses import dataclass, field

from tools.cli import Fatal, log, parse_options, probe_engine, run_cli
from tools.clock.clock_math import Charge, Clock, TimeControl, elapsed_ms_from_seconds
from tools.usi.engine import EngineError, EngineTimeout, UsiEngine
from tools.usi.workers import Workers

# The repository root: the default openings live under it, wherever the tool is started from.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

BLACK, WHITE = 0, 1  # as referee.BLACK/WHITE (referee needs cshogi, imported in main)
COLOURS = ("black", "white")
LABELS = ("A", "B")

# How long the referee keeps reading after a move's deadline before it declares the move lost:
# the decision is made on the time the line was read from the pipe, so this slack only lets a
# line read just in time reach the worker thread; it never makes a late move count as on time.
ANSWER_SLACK_S = 0.25
# After a loss on time the referee sends `stop` and waits this long for the engine's bestmove
# (to report how late it was); an engine that does not answer is restarted before the next game.
STOP_WAIT_S = 5.0
# `isready` and `usi` round trips timed before each game (the quickest is reported).
PINGS = 3


# --- One game ----------------------------------------------------------------------------------


@dataclass
class MoveRecord:
    """One move of an engine (the opening's moves are not timed and have none)."""

    ply: int  # 1-based, counted from the opening's start position
    colour: int
    word: str  # the move, `resign`, `win`, or "" when no bestmove came
    go: str
    charge: Charge
    answered: bool = True  # False: no bestmove at all (the time is how long the referee waited)


@dataclass
class Answer:
    word: str | None  # None: no bestmove came, even after `stop`
    seconds: float  # from writing `position`/`go` to reading `bestmove` (or giving up)
    hung: bool = False  # no bestmove after the deadline and `stop`: the engine must be restarted


@dataclass
class GameResult:
    number: int  # 1-based
    black: int  # 0 when engine A plays black, 1 when B does
    opening: str
    winner: int | None = None  # colour
    reason: str = ""
    detail: str = ""
    moves: list[str] = field(default_factory=list)  # every move, the opening's included
    timed: list[MoveRecord] = field(default_factory=list)
    latency_ms: list[float | None] = field(default_factory=lambda: [None, None])  # per colour
    broken: list[UsiEngine] = field(default_factory=list)

    def label_of(self, colour: int) -> str:
        return LABELS[self.black if colour == BLACK else 1 - self.black]

    def colour_of(self, label: str) -> int:
        return BLACK if LABELS[self.black] == label else WHITE

    def result_text(self) -> str:
        return "1/2" if self.winner is None else "1-0" if self.winner == BLACK else "0-1"


def ask_move(engine: UsiEngine, position: str, go: str, deadline_ms: int) -> Answer:
    """Sends `position` and `go` and times the answer. EngineError when the engine dies before its
    deadline (a crash); past the deadline it is sent `stop` and the answer says how late it was."""
    start = time.monotonic()
    # Both lines in one write: the clock runs from here, as a server's does from sending the move.
    engine.send(f"{position}\n{go}")
    wait_until = start + deadline_ms / 1000 + ANSWER_SLACK_S
    try:
        while True:
            read_at, line = engine.read_line_timed(wait_until)
            if line.startswith("bestmove"):
                parts = line.split()
                return Answer(parts[1] if len(parts) > 1 else "", read_at - start)
    except EngineTimeout:
        pass
    # Lost on time for certain: any line still to come is read after the deadline.
    try:
        engine.send("stop")
        stop_until = time.monotonic() + STOP_WAIT_S
        while True:
            read_at, line = engine.read_line_timed(stop_until)
            if line.startswith("bestmove"):
                parts = line.split()
                return Answer(parts[1] if len(parts) > 1 else "", read_at - start)
    except EngineError:  # no answer to `stop`, or it died meanwhile
        return Answer(None, time.monotonic() - start, hung=True)


def prepare(engine: UsiEngine) -> float:
    """Readies the engine for a game and returns an upper bound of its I/O round trip in ms: the
    quickest answer to PINGS `isready` and PINGS `usi` (an engine may do work on either: YaneuraOu
    clears its hash on every `isready`, Hayate prints its option list on `usi`). The first
    `isready`, which may allocate the hash table, is not timed."""
    engine.sync()
    trips = []
    for command, answer in (("isready", "readyok"), ("usi", "usiok")):
        for _ in range(PINGS):
            start = time.monotonic()
            engine.send(command)
            deadline = start + engine.init_timeout
            while True:
                read_at, line = engine.read_line_timed(deadline)
                if line == answer:
                    trips.append((read_at - start) * 1000)
                    break
    engine.new_game({})  # isready/readyok, usinewgame
    return min(trips)


def play_clock_game(
    number: int,
    engines: tuple[UsiEngine, UsiEngine],
    black: int,
    opening,
    settings: Settings,
    on_move=None,
) -> GameResult:
    """One game at the clock: engines[0] plays black, engines[1] white; `black` says which of A
    and B that is (for the record). `on_move(result, record)` is called after every timed move.
    Engines that crashed or hung are listed in `broken` (the caller restarts them)."""
    from tools.usi import referee

    game = referee.Game(opening, settings.max_plies)
    clocks = (
        Clock(settings.tc, settings.whole_seconds, settings.grace_ms),
        Clock(settings.tc, settings.whole_seconds, settings.grace_ms),
    )
    result = GameResult(number, black, opening.text)
    for colour in (BLACK, WHITE):
        if game.outcome is not None:
            break
        try:
            result.latency_ms[colour] = prepare(engines[colour])
        except EngineError as e:
            result.broken.append(engines[colour])
            game.finish(1 - colour, "crash", f"{COLOURS[colour]} could not start the game: {e}")
    while game.outcome is None:
        colour = game.side_to_move()
        engine, clock = engines[colour], clocks[colour]
        go = settings.tc.go_command(clocks[BLACK].remaining_ms, clocks[WHITE].remaining_ms)
        try:
            answer = ask_move(engine, game.position_command(), go, clock.deadline_ms())
        except EngineError as e:
            result.broken.append(engine)
            game.finish(1 - colour, "crash", str(e))
            break
        charge = clock.charge(elapsed_ms_from_seconds(answer.seconds))
        record = MoveRecord(game.plies() + 1, colour, answer.word or "", go, charge, answer.word is not None)
        result.timed.append(record)
        if on_move:
            on_move(result, record)
        if answer.hung:
            result.broken.append(engine)
        if charge.lost_on_time:
            if answer.word is not None:
                how = f"bestmove after {charge.elapsed_ms} ms"
            else:
                how = f"no bestmove in {charge.elapsed_ms} ms, nor after stop"
            game.finish(
                1 - colour,
                "time",
                f"{result.label_of(colour)} ({COLOURS[colour]}) at ply {record.ply}: {how}, allowed {charge.allowance_ms} ms"
                + (f" + grace {settings.grace_ms} ms" if settings.grace_ms else ""),
            )
            break
        game.play(answer.word or "")
    outcome = referee.end_game(game, engines, result.broken)
    result.winner, result.reason, result.detail = outcome.winner, outcome.reason, outcome.detail
    result.moves = list(game.moves)
    return result


# --- Statistics --------------------------------------------------------------------------------


def side_stats(result: GameResult, label: str, tc: TimeControl) -> dict:
    """One side's numbers in one game (all times in ms)."""
    colour = result.colour_of(label)
    mine = [m for m in result.timed if m.colour == colour]
    elapsed = [m.charge.elapsed_ms for m in mine]
    clocks = [m.charge.clock_after_ms for m in mine]
    score = 0 if result.winner is None else (1 if result.winner == colour else -1)
    return {
        "colour": COLOURS[colour],
        "score": score,
        "moves": len(mine),
        "time_min_ms": min(elapsed) if elapsed else None,
        "time_mean_ms": round(statistics.fmean(elapsed), 1) if elapsed else None,
        "time_max_ms": max(elapsed) if elapsed else None,
        "time_total_ms": sum(elapsed),
        "charged_total_ms": sum(m.charge.charged_ms for m in mine),
        "clock_least_ms": min(clocks) if clocks else tc.main_ms,
        "clock_end_ms": clocks[-1] if clocks else tc.main_ms,
        "margin_least_ms": min(m.charge.margin_ms for m in mine) if mine else None,
        "lost_on_time": result.reason == "time" and score < 0,
        "io_round_trip_ms": None if result.latency_ms[colour] is None else round(result.latency_ms[colour], 3),
    }


def game_record(result: GameResult, tc: TimeControl) -> dict:
    return {
        "type": "game",
        "game": result.number,
        "black": LABELS[result.black],
        "white": LABELS[1 - result.black],
        "opening": result.opening,
        "result": result.result_text(),
        "winner": None if result.winner is None else result.label_of(result.winner),
        "reason": result.reason,
        "detail": result.detail,
        "plies": len(result.moves),
        "sides": {label: side_stats(result, label, tc) for label in LABELS},
        "moves": result.moves,
    }


def move_record(result: GameResult, m: MoveRecord) -> dict:
    c = m.charge
    return {
        "type": "move",
        "game": result.number,
        "ply": m.ply,
        "side": COLOURS[m.colour],
        "engine": result.label_of(m.colour),
        "move": m.word if m.answered else None,
        "go": m.go,
        "elapsed_ms": c.elapsed_ms,
        "charged_ms": c.charged_ms,
        "clock_before_ms": c.clock_before_ms,
        "allowance_ms": c.allowance_ms,
        "clock_after_ms": c.clock_after_ms,
        "margin_ms": c.margin_ms,
        "late": c.lost_on_time,
    }


def summarize(games: list[dict]) -> dict:
    """Totals per engine over the `game` records."""
    out: dict = {"games": len(games)}
    for label in LABELS:
        sides = [g["sides"][label] for g in games]
        moves = sum(s["moves"] for s in sides)
        ends = [s["clock_end_ms"] for s in sides]
        maxima = [s["time_max_ms"] for s in sides if s["time_max_ms"] is not None]
        minima = [s["time_min_ms"] for s in sides if s["time_min_ms"] is not None]
        margins = [s["margin_least_ms"] for s in sides if s["margin_least_ms"] is not None]
        trips = [s["io_round_trip_ms"] for s in sides if s["io_round_trip_ms"] is not None]
        losses: dict[str, int] = {}
        for g, s in zip(games, sides):
            if s["score"] < 0:
                losses[g["reason"]] = losses.get(g["reason"], 0) + 1
        out[label] = {
            "wins": sum(s["score"] > 0 for s in sides),
            "draws": sum(s["score"] == 0 for s in sides),
            "losses": sum(s["score"] < 0 for s in sides),
            "time_losses": sum(s["lost_on_time"] for s in sides),
            "losses_by_reason": losses,
            "moves": moves,
            "time_per_move_mean_ms": round(sum(s["time_total_ms"] for s in sides) / moves, 1) if moves else None,
            "time_per_move_min_ms": min(minima) if minima else None,
            "time_per_move_max_ms": max(maxima) if maxima else None,
            "time_used_per_game_mean_ms": round(statistics.fmean(s["time_total_ms"] for s in sides), 1) if sides else None,
            "clock_end_mean_ms": round(statistics.fmean(ends), 1) if ends else None,
            "clock_end_least_ms": min(ends) if ends else None,
            "clock_least_ms": min(s["clock_least_ms"] for s in sides) if sides else None,
            "margin_least_ms": min(margins) if margins else None,
            "io_round_trip_median_ms": round(statistics.median(trips), 3) if trips else None,
        }
    plies = [g["plies"] for g in games]
    out["plies"] = {
        "mean": round(statistics.fmean(plies), 1) if plies else None,
        "min": min(plies) if plies else None,
        "max": max(plies) if plies else None,
    }
    reasons: dict[str, int] = {}
    for g in games:
        reasons[g["reason"]] = reasons.get(g["reason"], 0) + 1
    out["reasons"] = reasons
    return out


def _fmt(value, digits: int = 0) -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and digits:
        return f"{value:.{digits}f}"
    return f"{round(value):d}" if isinstance(value, float) else str(value)


def format_summary(summary: dict, games: list[dict], names: tuple[str, str], header: str) -> str:
    """The table printed at the end: one line per game, then the totals per engine."""
    lines = [header, ""]
    lines.append(f"{'game':>5} {'black':>5} {'white':>5} {'result':>6}  {'reason':<16} {'plies':>5}"
                 f"  {'A mean/max ms':>14} {'A least clock':>13}  {'B mean/max ms':>14} {'B least clock':>13}")
    for g in games:
        a, b = g["sides"]["A"], g["sides"]["B"]
        lines.append(
            f"{g['game']:>5} {g['black']:>5} {g['white']:>5} {g['result']:>6}  {g['reason']:<16} {g['plies']:>5}"
            f"  {_fmt(a['time_mean_ms']) + '/' + _fmt(a['time_max_ms']):>14} {_fmt(a['clock_least_ms']):>13}"
            f"  {_fmt(b['time_mean_ms']) + '/' + _fmt(b['time_max_ms']):>14} {_fmt(b['clock_least_ms']):>13}"
        )
    lines.append("")
    a, b = summary["A"], summary["B"]
    width = max(len(names[0]), len(names[1]), 12) + 2
    rows = [
        ("engine", names[0], names[1]),
        ("W/D/L", f"{a['wins']}/{a['draws']}/{a['losses']}", f"{b['wins']}/{b['draws']}/{b['losses']}"),
        ("losses on time", a["time_losses"], b["time_losses"]),
        ("losses by reason", _reasons(a["losses_by_reason"]), _reasons(b["losses_by_reason"])),
        ("moves", a["moves"], b["moves"]),
        ("time per move, mean ms", _fmt(a["time_per_move_mean_ms"], 1), _fmt(b["time_per_move_mean_ms"], 1)),
        ("time per move, min/max ms", f"{_fmt(a['time_per_move_min_ms'])}/{_fmt(a['time_per_move_max_ms'])}",
         f"{_fmt(b['time_per_move_min_ms'])}/{_fmt(b['time_per_move_max_ms'])}"),
        ("time used per game, mean s", _secs(a["time_used_per_game_mean_ms"]), _secs(b["time_used_per_game_mean_ms"])),
        ("clock left at end, mean ms", _fmt(a["clock_end_mean_ms"]), _fmt(b["clock_end_mean_ms"])),
        ("clock left at end, least ms", _fmt(a["clock_end_least_ms"]), _fmt(b["clock_end_least_ms"])),
        ("least clock in a game, ms", _fmt(a["clock_least_ms"]), _fmt(b["clock_least_ms"])),
        ("least margin to a loss, ms", _fmt(a["margin_least_ms"]), _fmt(b["margin_least_ms"])),
        ("I/O round trip, median ms", _fmt(a["io_round_trip_median_ms"], 3), _fmt(b["io_round_trip_median_ms"], 3)),
    ]
    for title, x, y in rows:
        lines.append(f"{title:<30}{x!s:>{width}}{y!s:>{width}}")
    p = summary["plies"]
    lines.append("")
    lines.append(
        f"games {summary['games']}; lengths (plies, opening included):"
        f" mean {_fmt(p['mean'], 1)}, min {_fmt(p['min'])}, max {_fmt(p['max'])}"
    )
    lines.append("ends: " + (_reasons(summary["reasons"]) or "-"))
    return "\n".join(lines)


def _reasons(counts: dict) -> str:
    return ", ".join(f"{r} {n}" for r, n in sorted(counts.items(), key=lambda x: (-x[1], x[0]))) or "-"


def _secs(ms) -> str:
    return "-" if ms is None else f"{ms / 1000:.1f}"


# --- The match ---------------------------------------------------------------------------------


@dataclass
class EngineSpec:
    path: str
    options: list[tuple[str, str]]
    name: str = ""  # from `id name`, filled in when probed


@dataclass
class Settings:
    tc: TimeControl
    whole_seconds: bool
    grace_ms: int
    max_plies: int
    games: int


class Match(Workers):
    """Hands out games to the workers, collects the results and writes the log."""

    def __init__(self, specs: tuple[EngineSpec, EngineSpec], settings: Settings, openings, offset: int, log_path: str | None):
        super().__init__()
        self.specs = specs
        self.settings = settings
        self.openings = openings
        self.offset = offset
        self.next_index = 0
        self.records: list[dict] = []
        # Open for the whole run (close_log() closes it), so no `with` block can hold it.
        self.log_file = open(log_path, "a", encoding="utf-8") if log_path else None  # noqa: SIM115

    def engines_for(self, index: int) -> tuple[UsiEngine, UsiEngine]:
        """Worker `index`'s pair of engines (A's, B's), not started."""
        return tuple(UsiEngine(s.path, f"{label} (worker {index})", s.options) for s, label in zip(self.specs, LABELS))

    def play_next(self, engines: tuple[UsiEngine, UsiEngine]) -> bool:
        """Plays the next game with a worker's pair of engines."""
        game_index = self.next_game()
        if game_index is None:
            return False
        black = game_index % 2  # A plays black in games 1, 3, 5... (1-based)
        pair = (engines[black], engines[1 - black])
        result = play_clock_game(game_index + 1, pair, black, self.opening_for(game_index), self.settings, self.on_move)
        if self.stop.is_set():
            return False  # interrupted meanwhile: the game does not count
        self.complete(result)
        for e in result.broken:
            e.start()  # EngineError when it cannot start again: the run stops
        return True

    def next_game(self) -> int | None:
        with self.lock:
            if self.stop.is_set() or self.next_index >= self.settings.games:
                return None
            self.next_index += 1
            return self.next_index - 1

    def opening_for(self, index: int):
        # Games 2k and 2k+1 (0-based) share an opening, with the colours swapped.
        return self.openings[(self.offset + index // 2) % len(self.openings)]

    def write(self, record: dict) -> None:
        if self.log_file is None:
            return
        with self.lock:
            self.log_file.write(json.dumps(record, separators=(",", ":")) + "\n")
            self.log_file.flush()

    def on_move(self, result: GameResult, m: MoveRecord) -> None:
        if self.log_file is not None and not self.stop.is_set():
            self.write(move_record(result, m))

    def complete(self, result: GameResult) -> None:
        record = game_record(result, self.settings.tc)
        self.write(record)
        with self.lock:
            self.records.append(record)
            done = len(self.records)
        a, b = record["sides"]["A"], record["sides"]["B"]
        winner = "draw" if record["winner"] is None else f"{record['winner']} wins"
        log(
            f"[{done}/{self.settings.games}] game {record['game']}: A {a['colour']}, {record['result']} ({winner}, {record['reason']}),"
            f" {record['plies']} plies | A {_side_line(a)} | B {_side_line(b)}"
        )
        if record["reason"] in ("time", "crash", "illegal move", "false declaration"):
            loser = "A" if record["winner"] == "B" else "B"
            log(f"  note: {loser} lost by {record['reason']}: {record['detail']}")

    def close_log(self) -> None:
        if self.log_file is not None:
            self.log_file.close()
            self.log_file = None


def _side_line(s: dict) -> str:
    return (
        f"{s['moves']} moves, {_fmt(s['time_mean_ms'])}/{_fmt(s['time_max_ms'])} ms mean/max,"
        f" clock least {_fmt(s['clock_least_ms'])} end {_fmt(s['clock_end_ms'])} ms"
    )


# --- Command line ------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python3 -m tools.clock",
        description="Games between two USI engines at real clocks, to check and compare their time management.",
        epilog="Times: fischer:300+10 is floodgate's 300 s + 10 s per move; byoyomi:0+10 is 10 s a move; "
        "sudden:600 is 10 minutes for the game. See tools/clock/README.md.",
    )
    p.add_argument("engine_a", metavar="ENGINE_A", help="the engine under test (A)")
    p.add_argument("engine_b", metavar="ENGINE_B", help="the engine to compare with (B)")
    p.add_argument("--games", type=int, default=2, help="games to play, colours alternating (default: %(default)s)")
    p.add_argument("--tc", required=True, help="fischer:MAIN+INC, byoyomi:MAIN+BYO or sudden:MAIN, in seconds")
    p.add_argument("--whole-seconds", action="store_true",
                   help="count as floodgate/shogi-server do: each move's time floored to whole seconds,"
                   " lost on time once it reaches the allowance")
    p.add_argument("--grace", type=int, default=0, metavar="MS", help="ms a move may exceed its time before it is lost (default: 0)")
    p.add_argument("--options-a", nargs="+", action="extend", default=[], metavar="NAME=VALUE", help="USI options for engine A")
    p.add_argument("--options-b", nargs="+", action="extend", default=[], metavar="NAME=VALUE", help="USI options for engine B")
    p.add_argument("--openings", default=os.path.join(REPO, "tests", "data", "openings.txt"),
                   help="file of `startpos moves ...`/`sfen ...` lines, one opening per game pair (default: tests/data/openings.txt)")
    p.add_argument("--seed", type=int, help="picks the first opening (default: random)")
    p.add_argument("--max-plies", type=int, default=320, help="a game this long (opening included) is a draw (default: %(default)s)")
    p.add_argument("--concurrency", type=int, default=1, help="games played at once, two engines each (default: 1)")
    p.add_argument("--log", metavar="FILE", help="append JSON lines: every move's time and clock, every game, the summary")
    p.add_argument("--ledger-label", metavar="TEXT",
                   help="append the run's row (A's W-D-L, the clock, the engines and options) to the results ledger,"
                   " docs/records/ledger.tsv, with this label (python3 -m tools.ledger)")
    p.add_argument("--ledger-notes", default="", metavar="TEXT", help="the row's notes (losses on time are added)")
    p.add_argument("--ledger-repo", default=REPO, metavar="DIR", help="the repository whose ledger gets the row (default: this one)")
    return p


def main(argv: list[str] | None = None) -> int:
    return run_cli("clock_games", build_parser(), run_main, argv)


def _terminate(signum, frame):
    raise KeyboardInterrupt


def run_main(args) -> int:
    try:
        tc = TimeControl.parse(args.tc)
    except ValueError as e:
        raise Fatal(str(e)) from None
    if args.whole_seconds and not tc.whole_seconds_only():
        raise Fatal("--whole-seconds needs a time control in whole seconds")
    if args.games < 1:
        raise Fatal("--games must be at least 1")
    if args.concurrency < 1:
        raise Fatal("--concurrency must be at least 1")
    if args.grace < 0:
        raise Fatal("--grace must not be negative")
    if args.max_plies < 1:
        raise Fatal("--max-plies must be at least 1")
    specs = (
        EngineSpec(args.engine_a, parse_options(args.options_a, "--options-a")),
        EngineSpec(args.engine_b, parse_options(args.options_b, "--options-b")),
    )
    for s in specs:
        if not os.path.isfile(s.path) or not os.access(s.path, os.X_OK):
            raise Fatal(f"engine {s.path} not found or not executable")
    try:
        from tools.usi import referee
    except ImportError as e:
        raise Fatal(f"{e}: install cshogi (tools/requirements.txt; `make clock-games` uses .venv/tools)") from None
    try:
        openings = referee.load_openings(args.openings)
    except (OSError, ValueError) as e:
        raise Fatal(str(e)) from None

    # Each engine once, for its name and to check the options it is given.
    for s, label in zip(specs, LABELS):
        probe = probe_engine(s.path, f"engine {label} {s.path}")
        unknown = [n for n, _ in s.options if n not in probe.option_names]
        if unknown:
            raise Fatal(f"engine {label} ({probe.name}) has no option {', '.join(unknown)}")
        s.name = probe.name

    settings = Settings(tc, args.whole_seconds, args.grace, args.max_plies, args.games)
    offset = (random.Random(args.seed) if args.seed is not None else random.Random()).randrange(len(openings))
    counting = "whole seconds (floodgate)" if args.whole_seconds else "exact ms"
    header = (
        f"clock games: A = {specs[0].name} ({specs[0].path}), B = {specs[1].name} ({specs[1].path});"
        f" {tc.describe()}, {counting}, grace {args.grace} ms"
    )
    match = Match(specs, settings, openings, offset, args.log)
    match.write(
        {
            "type": "start",
            "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "tc": args.tc,
            "whole_seconds": args.whole_seconds,
            "grace_ms": args.grace,
            "games": args.games,
            "max_plies": args.max_plies,
            "openings": args.openings,
            "first_opening": offset,
            "engines": {label: {"path": s.path, "name": s.name, "options": dict(s.options)} for s, label in zip(specs, LABELS)},
        }
    )
    log(header + f"; {args.games} games, concurrency {args.concurrency}")

    signal.signal(signal.SIGTERM, _terminate)  # `kill` ends the engines as Ctrl-C does

    def interrupted() -> None:
        # A second Ctrl-C must not cut the clean-up short.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        log(f"\nclock_games: interrupted after {len(match.records)} games; ending the engines")

    workers = [functools.partial(match.work, match.engines_for(i + 1)) for i in range(args.concurrency)]
    status = 0 if match.run(workers, interrupted) else 130
    if match.error is not None and status == 0:
        e = match.error
        log(f"clock_games: stopped after {len(match.records)} games: {type(e).__name__}: {e}")
        status = 1
    records = sorted(match.records, key=lambda r: r["game"])
    summary = summarize(records)
    match.write({"type": "summary", **summary})
    match.close_log()
    print(format_summary(summary, records, (specs[0].name, specs[1].name), header), flush=True)
    if args.ledger_label and records and status == 0:
        append_to_ledger(args, summary, specs)
    elif args.ledger_label:
        log("clock_games: no ledger row: the run did not end normally")
    return status


def append_to_ledger(args, summary: dict, specs) -> None:
    """The run's row in the results ledger (tools/ledger.py): A's W-D-L and the run's context."""
    from pathlib import Path

    from tools import ledger

    a = summary["A"]
    time_losses = a["time_losses"] + summary["B"]["time_losses"]
    notes = [n for n in (args.ledger_notes, f"{time_losses} losses on time" if time_losses else "no loss on time") if n]
    root = Path(args.ledger_repo).resolve()
    tc = f"{args.tc}{', whole seconds' if args.whole_seconds else ''}"
    opts = [dict(s.options) for s in specs]
    same = {k for k in ("Threads", "USI_Hash") if opts[0].get(k) == opts[1].get(k) and k in opts[0]}
    fields = ledger.result_fields(a["wins"], a["draws"], a["losses"]) | {
        "date": ledger.today(), "commits": ledger.git_commit(root), "machine": ledger.machine(),
        "engine_a": f"{specs[0].path} ({specs[0].name})", "engine_b": f"{specs[1].path} ({specs[1].name})",
        "options_a": ",".join(f"{k}={v}" for k, v in specs[0].options),
        "options_b": ",".join(f"{k}={v}" for k, v in specs[1].options),
        "clock": f"`tools/clock --tc {tc}`", "threads": opts[0]["Threads"] if "Threads" in same else "",
        "hash": opts[0]["USI_Hash"] if "USI_Hash" in same else "", "seed": "" if args.seed is None else str(args.seed),
        "openings": args.openings, "concurrency": str(args.concurrency), "label": args.ledger_label,
        "notes": "; ".join(notes),
    }
    try:
        row = ledger.add_row(root, fields)
    except Fatal as e:
        log(f"clock_games: no ledger row: {e}")
        return
    print(f"clock_games: {row['id']} appended to {ledger.LEDGER}", flush=True)
