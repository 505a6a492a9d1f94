"""SPSA tuning of Hayate's search parameters by self-play.

The engine (a `--features tune` build) offers every search parameter as a USI spin option; this
driver reads those options from the engine's `usi` answer at run time, tunes the ones a config
file or `--params` names, and plays its own games with a cshogi referee (tools/usi/referee.py). Each
iteration plays a game pair (one opening, colours swapped) between theta + c_k * flip and
theta - c_k * flip and moves theta by a_k / c_k * result * flip (spsa_math.py has the formulas).

    make spsa SPSA_ARGS="--iterations 2000 --concurrency 2"
    .venv/tools/bin/python -m tools.spsa --engine target/tune/release/hayate \\
        --config tools/spsa/params.toml --iterations 2000 --nodes 20000

Progress goes to stderr; the state (k, theta, settings, statistics) is written atomically to
--state after every iteration, and `--resume` carries on from it. At the end the tuned values are
printed to stdout as `name value` lines and as `name: old -> new` changes of the defaults.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import time
import tomllib
from dataclasses import dataclass

from tools.cli import Fatal, log, parse_options, probe_engine, run_cli
from tools.spsa import spsa_math
from tools.spsa.spsa_math import ParamSpec
from tools.usi.engine import SpinOption, UsiEngine
from tools.usi.workers import Workers

STATE_VERSION = 1
# The repository root: the default engine, openings and state live under it, wherever the driver
# is started from.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Settings that define a run: given again with --resume they must equal the state's.
RUN_DEFAULTS = {
    "iterations": 1000,
    "seed": None,  # None: drawn at random when a run starts, then kept in the state
    "nodes": 20000,
    "byoyomi": None,
    "max_plies": 320,
    "openings": os.path.join(REPO, "data", "openings-8000.txt"),
    "threads": 1,
    "hash": 16,
    "r_end": spsa_math.DEFAULT_R_END,
}
# How often (iterations) theta is kept in the state's history.
HISTORY_EVERY = 50


# --- Configuration -----------------------------------------------------------------------------


@dataclass
class ParamChoice:
    """A parameter named by the configuration, with its optional SPSA settings."""

    name: str
    c_end: float | None = None
    r_end: float | None = None
    start: float | None = None  # start from this value instead of the engine's default


def load_config(path: str) -> tuple[list[ParamChoice], float | None]:
    """Reads a TOML or JSON config: `params` is a list of names or a table of
    name -> {c_end, r_end, start} (all optional); a top-level `r_end` is the default learning
    rate. Returns the choices and that default (None if absent)."""
    try:
        with open(path, "rb") as f:
            if path.endswith(".json"):
                data = json.load(f)
            else:
                data = tomllib.load(f)
    except (OSError, ValueError) as e:  # tomllib.TOMLDecodeError and JSONDecodeError are ValueErrors
        raise Fatal(f"cannot read the config {path}: {e}") from None
    params = data.get("params")
    if params is None:
        raise Fatal(f"{path}: no `params` (a list of names or a table of name -> settings)")
    choices = []
    if isinstance(params, list):
        for name in params:
            if not isinstance(name, str):
                raise Fatal(f"{path}: params must hold names, got {name!r}")
            choices.append(ParamChoice(name))
    elif isinstance(params, dict):
        for name, settings in params.items():
            if not isinstance(settings, dict):
                raise Fatal(f"{path}: params.{name} must be a table (may be empty)")
            unknown = set(settings) - {"c_end", "r_end", "start"}
            if unknown:
                raise Fatal(f"{path}: params.{name}: unknown keys {sorted(unknown)}")
            choices.append(
                ParamChoice(
                    name,
                    c_end=_positive(settings.get("c_end"), f"{path}: params.{name}.c_end"),
                    r_end=_positive(settings.get("r_end"), f"{path}: params.{name}.r_end"),
                    start=float(settings["start"]) if "start" in settings else None,
                )
            )
    else:
        raise Fatal(f"{path}: params must be a list or a table")
    return choices, _positive(data.get("r_end"), f"{path}: r_end")


def _positive(value, what: str) -> float | None:
    if value is None:
        return None
    if not isinstance(value, (int, float)) or value <= 0:
        raise Fatal(f"{what} must be a positive number, got {value!r}")
    return float(value)


def choose_params(
    choices: list[ParamChoice],
    strict_names: list[str] | None,
    spins: dict[str, SpinOption],
    reserved: set[str],
    r_end_default: float,
    iterations: int,
) -> tuple[list[ParamSpec], list[float]]:
    """The specs and start values of the parameters to tune.

    `strict_names` (from --params) selects names and must all be engine spin options; names only
    in the config file that the engine does not offer are skipped with a warning (the engine's
    parameter list changes as the search does)."""
    by_name = {c.name: c for c in choices}
    if strict_names is not None:
        missing = [n for n in strict_names if n not in spins]
        if missing:
            raise Fatal(f"--params: not a spin option of the engine: {', '.join(missing)}")
        selected = [by_name.get(n, ParamChoice(n)) for n in strict_names]
    else:
        selected = []
        for c in choices:
            if c.name in spins:
                selected.append(c)
            else:
                log(f"warning: {c.name} (config) is not a spin option of the engine; skipped")
    if not selected:
        raise Fatal("no parameter to tune")
    seen = set()
    specs, theta = [], []
    for c in selected:
        if c.name in seen:
            raise Fatal(f"{c.name} named twice")
        seen.add(c.name)
        if c.name in reserved:
            raise Fatal(f"{c.name} is set by --threads/--hash/--option and cannot be tuned")
        o = spins[c.name]
        if o.min >= o.max:
            raise Fatal(f"{c.name}: empty range {o.min}..{o.max}")
        spec = ParamSpec(
            name=c.name,
            default=o.default,
            min=o.min,
            max=o.max,
            c_end=c.c_end if c.c_end is not None else spsa_math.default_c_end(o.min, o.max),
            r_end=c.r_end if c.r_end is not None else r_end_default,
        )
        spec.c, spec.a = spsa_math.schedule_constants(spec.c_end, spec.r_end, iterations)
        if spec.c_end < 0.5:
            log(f"warning: {c.name}: c_end {spec.c_end} < 0.5, late plus and minus values often round alike")
        start = o.default if c.start is None else c.start
        if not o.min <= start <= o.max:
            raise Fatal(f"{c.name}: start {start} outside {o.min}..{o.max}")
        specs.append(spec)
        theta.append(float(start))
    return specs, theta


# --- State -------------------------------------------------------------------------------------


def new_stats() -> dict:
    return {"pairs": 0, "plus_wins": 0, "draws": 0, "plus_losses": 0, "pair_results": {}, "reasons": {}}


def write_state(path: str, state: dict) -> None:
    """Writes the state atomically (a temporary file renamed over the old one)."""
    state["updated"] = time.strftime("%Y-%m-%dT%H:%M:%S")
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(state, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def read_state(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            state = json.load(f)
    except (OSError, ValueError) as e:
        raise Fatal(f"cannot read the state {path}: {e}") from None
    if state.get("version") != STATE_VERSION:
        raise Fatal(f"{path}: state version {state.get('version')}, this driver writes {STATE_VERSION}")
    return state


def report(state: dict, out=None) -> None:
    """The tuned values as `name value` lines and the changes to the engine's defaults."""
    out = out or sys.stdout
    specs = [ParamSpec.from_json(d) for d in state["params"]]
    theta = state["theta"]
    k, n = state["k"], state["settings"]["iterations"]
    print(f"# tuned values after {k} of {n} iterations (name value)", file=out)
    for s in specs:
        print(f"{s.name} {spsa_math.engine_value(theta[s.name], s)}", file=out)
    print("# changes to the defaults (name: old -> new)", file=out)
    changed = 0
    for s in specs:
        new = spsa_math.engine_value(theta[s.name], s)
        if new != s.default:
            print(f"{s.name}: {s.default} -> {new}", file=out)
            changed += 1
    if not changed:
        print("# (none: every tuned value rounds to its default)", file=out)
    out.flush()


# --- The run -----------------------------------------------------------------------------------


@dataclass
class Job:
    """One iteration handed to a worker."""

    perturbation: spsa_math.Perturbation
    opening_index: int


class Run(Workers):
    """Hands out iterations, applies their results in the order they arrive, and saves the state.

    With several workers an iteration is perturbed around the theta of the moment it starts,
    while others are still playing (as fishtest does); its update uses its own k's gains."""

    def __init__(self, state: dict, state_path: str, openings, limits, report_every: int, games_log: str | None):
        super().__init__()
        self.limits = limits
        self.state = state
        self.state_path = state_path
        self.specs = [ParamSpec.from_json(d) for d in state["params"]]
        self.theta = [float(state["theta"][s.name]) for s in self.specs]
        self.settings = state["settings"]
        self.iterations = self.settings["iterations"]
        self.seed = self.settings["seed"]
        self.openings = openings
        self.report_every = report_every
        # Open for the whole run, flushed after every game and closed at exit: no `with` block fits.
        self.games_log = open(games_log, "a", encoding="utf-8") if games_log else None  # noqa: SIM115
        # Iterations in flight when a run stopped are not in the state: they are played again.
        self.next_k = state["k"]
        self.started = time.monotonic()
        self.done_here = 0

    def play_next(self, engines: tuple[UsiEngine, UsiEngine]) -> bool:
        """Plays the next iteration's game pair with a worker's engines (plus, minus)."""
        job = self.next_job()
        if job is None:
            return False
        played = play_pair(self, engines, job, self.limits)
        if played is None or self.stop.is_set():
            return False  # interrupted meanwhile: the state must not move on
        self.complete(job, *played)
        return True

    def next_job(self) -> Job | None:
        with self.lock:
            if self.stop.is_set() or self.next_k >= self.iterations:
                return None
            k = self.next_k
            self.next_k += 1
            rng = spsa_math.iteration_rng(self.seed, k)
            flips = spsa_math.draw_flips(rng, len(self.specs))
            opening_index = rng.randrange(len(self.openings))
            p = spsa_math.perturb(self.specs, self.theta, k, self.iterations, flips)
            return Job(p, opening_index)

    def complete(self, job: Job, result: int, games: list) -> None:
        with self.lock:
            self.theta = spsa_math.update(self.specs, self.theta, job.perturbation, result)
            st = self.state
            st["k"] += 1
            st["theta"] = {s.name: t for s, t in zip(self.specs, self.theta)}
            stats = st["stats"]
            stats["pairs"] += 1
            key = f"{result:+d}"
            stats["pair_results"][key] = stats["pair_results"].get(key, 0) + 1
            for g in games:
                score = g["plus_score"]
                stats["plus_wins" if score > 0 else "plus_losses" if score < 0 else "draws"] += 1
                stats["reasons"][g["reason"]] = stats["reasons"].get(g["reason"], 0) + 1
            if st["k"] % HISTORY_EVERY == 0 or st["k"] == self.iterations:
                st["history"].append([st["k"], {s.name: round(t, 3) for s, t in zip(self.specs, self.theta)}])
            write_state(self.state_path, st)
            self.done_here += 1
            self._progress(job, result, games)

    def _progress(self, job: Job, result: int, games: list) -> None:
        st = self.state
        stats = st["stats"]
        k = st["k"]
        elapsed = time.monotonic() - self.started
        per_pair = elapsed / self.done_here
        eta = per_pair * (self.iterations - k)
        plies = "/".join(str(g["plies"]) for g in games)
        reasons = "/".join(g["reason"] for g in games)
        log(
            f"[{k:>{len(str(self.iterations))}}/{self.iterations}] k={job.perturbation.k} pair {result:+d}"
            f" ({reasons}, {plies} plies) | plus W-D-L {stats['plus_wins']}-{stats['draws']}-{stats['plus_losses']}"
            f" | {per_pair:.1f} s/pair, eta {format_duration(eta)}"
        )
        for g in games:
            if g["reason"] in ("illegal move", "timeout", "crash", "false declaration"):
                log(f"  warning: game {g['game']}: {g['loser']} lost by {g['reason']} {g['detail']}: {g['position']}")
        if k % self.report_every == 0 or k == self.iterations:
            log("  theta: " + " ".join(f"{s.name}={t:.2f}" for s, t in zip(self.specs, self.theta)))

    def log_game(self, k: int, number: int, plus_colour: str, record) -> None:
        if not self.games_log:
            return
        o = record.outcome
        result = "1/2" if o.winner is None else "1-0" if o.winner == 0 else "0-1"
        with self.lock:
            self.games_log.write(
                f"{k}\t{number}\tplus={plus_colour}\t{result}\t{o.reason}\t{o.detail}\t{record.position}\n"
            )
            self.games_log.flush()


def format_duration(seconds: float) -> str:
    seconds = int(seconds)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}h{m:02d}m" if h else f"{m}m{s:02d}s"


def play_pair(run: Run, engines: tuple[UsiEngine, UsiEngine], job: Job, limits) -> tuple[int, list] | None:
    """The iteration's two games: plus plays black, then white, from the same opening. Returns
    the plus side's wins minus losses and a summary of each game, or None when the run was
    interrupted meanwhile."""
    from tools.usi import referee

    p = job.perturbation
    names = [s.name for s in run.specs]
    plus_values = dict(zip(names, p.plus))
    minus_values = dict(zip(names, p.minus))
    opening = run.openings[job.opening_index]
    plus_engine, minus_engine = engines
    result = 0
    games = []
    for number, plus_colour in ((1, referee.BLACK), (2, referee.WHITE)):
        if plus_colour == referee.BLACK:
            pair, values = (plus_engine, minus_engine), (plus_values, minus_values)
        else:
            pair, values = (minus_engine, plus_engine), (minus_values, plus_values)
        record = referee.play_game(pair, values, opening, limits, run.settings["max_plies"])
        if run.stop.is_set():
            return None  # interrupted: this pair does not count
        for engine in record.broken:
            engine.start()  # raises EngineError if the engine cannot be started again
        score = record.outcome.score_for(plus_colour)
        result += score
        loser = None if record.outcome.winner is None else ("minus" if score > 0 else "plus")
        games.append(
            {
                "game": number,
                "plus_score": score,
                "reason": record.outcome.reason,
                "detail": record.outcome.detail,
                "plies": len(record.moves),
                "loser": loser,
                "position": record.position,
            }
        )
        run.log_game(p.k, number, referee.COLOUR_NAMES[plus_colour], record)
    return result, games


# --- Command line ------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python3 -m tools.spsa",
        description="SPSA tuning of the engine's search parameters (USI spin options) by self-play game pairs.",
    )
    p.add_argument("--engine", default=os.path.join(REPO, "target", "tune", "release", "hayate"), help="the engine, a --features tune build (default: %(default)s)")
    p.add_argument("--config", help="TOML or JSON file: `params` (names, or name -> {c_end, r_end, start}), optional `r_end`")
    p.add_argument("--params", help="comma-separated names to tune (settings from --config where it has them)")
    p.add_argument("--state", default=os.path.join(REPO, "tools", "spsa", "runs", "state.json"), help="state file, written after every iteration (default: %(default)s)")
    p.add_argument("--resume", action="store_true", help="carry on from --state (its settings and parameters)")
    p.add_argument("--show", action="store_true", help="print the values in --state and exit")
    p.add_argument("--iterations", type=int, help=f"game pairs in the run (default {RUN_DEFAULTS['iterations']})")
    p.add_argument("--seed", type=int, help="seed of the flips and openings (default: random, kept in the state)")
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--nodes", type=int, help=f"`go nodes N` per move (default {RUN_DEFAULTS['nodes']})")
    limit.add_argument("--byoyomi", type=int, help="byoyomi per move in ms instead of a node limit")
    p.add_argument("--max-plies", type=int, help=f"a game this long is a draw (default {RUN_DEFAULTS['max_plies']})")
    p.add_argument("--openings", help="file of `startpos moves ...` lines (default: data/openings-8000.txt)")
    p.add_argument("--threads", type=int, help="the engines' Threads (default 1)")
    p.add_argument("--hash", type=int, help="the engines' USI_Hash in MB (default 16)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="another USI option for both engines (repeatable)")
    p.add_argument("--r-end", type=float, help=f"r_end of every parameter without its own in the config; overrides the config's top-level r_end (default {RUN_DEFAULTS['r_end']})")
    p.add_argument("--concurrency", type=int, default=1, help="game pairs played at once, two engines each (default: 1)")
    p.add_argument("--move-timeout", type=float, help="seconds before a move is lost on time (default: 30 with --nodes, byoyomi + 1 s otherwise)")
    p.add_argument("--report-every", type=int, default=10, help="print theta every this many iterations (default: 10)")
    p.add_argument("--games-log", help="append one line per game (result, reason, moves) to this file")
    return p


def settings_from_args(args, base: dict | None) -> dict:
    """The run's settings: the state's (`base`, on --resume) or the defaults, with what the command
    line gives. On resume a different value for a setting that shapes the run is an error."""
    given = {
        "iterations": args.iterations,
        "seed": args.seed,
        "nodes": args.nodes,
        "byoyomi": args.byoyomi,
        "max_plies": args.max_plies,
        "openings": args.openings,
        "threads": args.threads,
        "hash": args.hash,
        "r_end": args.r_end,
    }
    if args.option:
        given["options"] = parse_options(args.option, "--option")
    if base is None:
        s = dict(RUN_DEFAULTS)
        s["options"] = []
        s.update({k: v for k, v in given.items() if v is not None})
        if s["byoyomi"] is not None:
            s["nodes"] = None
        if s["seed"] is None:
            s["seed"] = int.from_bytes(os.urandom(4), "little")
        return s
    s = dict(base)
    s["options"] = [tuple(o) for o in s.get("options", [])]
    for k, v in given.items():
        if v is not None and v != s.get(k):
            raise Fatal(f"--{k.replace('_', '-')} {v} differs from the state's {s.get(k)}; a resumed run keeps its settings")
    return s


def check_settings(s: dict) -> None:
    if s["iterations"] < 1:
        raise Fatal("--iterations must be at least 1")
    if s["byoyomi"] is None and (s["nodes"] is None or s["nodes"] < 1):
        raise Fatal("--nodes must be at least 1")
    if s["byoyomi"] is not None and s["byoyomi"] < 1:
        raise Fatal("--byoyomi must be at least 1 ms")
    if s["max_plies"] < 1:
        raise Fatal("--max-plies must be at least 1")


def main(argv: list[str] | None = None) -> int:
    return run_cli("spsa", build_parser(), run_main, argv)


def run_main(args) -> int:
    if args.show:
        report(read_state(args.state))
        return 0
    if args.concurrency < 1:
        raise Fatal("--concurrency must be at least 1")
    if not os.path.isfile(args.engine) or not os.access(args.engine, os.X_OK):
        raise Fatal(f"engine {args.engine} not found or not executable (make spsa builds it)")

    # cshogi is needed from here on; a clear message when it is missing.
    try:
        from tools.usi import referee
    except ImportError as e:
        raise Fatal(f"{e}: install cshogi (tools/requirements.txt; `make spsa` makes .venv/tools)") from None

    if args.resume:
        state = read_state(args.state)
        settings = settings_from_args(args, state["settings"])
        if args.config or args.params:
            log("note: --config/--params ignored on --resume: the state names the parameters")
    else:
        if os.path.exists(args.state):
            raise Fatal(f"{args.state} exists: pass --resume to carry on, or another --state")
        settings = settings_from_args(args, None)
        state = None
    check_settings(settings)

    fixed = [("Threads", str(settings["threads"])), ("USI_Hash", str(settings["hash"]))]
    fixed += [(n, v) for n, v in settings["options"]]
    reserved = {n for n, _ in fixed}

    # The engine's options, read from its `usi` answer.
    probe = probe_engine(args.engine, f"engine {args.engine}")
    for name, _ in fixed:
        if name not in probe.option_names:
            raise Fatal(f"the engine has no option {name}")

    if state is None:
        choices, config_r_end = load_config(args.config) if args.config else ([], None)
        strict = [n.strip() for n in args.params.split(",") if n.strip()] if args.params else None
        if not choices and strict is None:
            raise Fatal("name the parameters with --config or --params")
        r_end = args.r_end if args.r_end is not None else config_r_end or settings["r_end"]
        settings["r_end"] = r_end
        specs, theta = choose_params(choices, strict, probe.spin_options, reserved, r_end, settings["iterations"])
        state = {
            "version": STATE_VERSION,
            "engine_name": probe.name,
            "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "settings": settings,
            "params": [s.to_json() for s in specs],
            "k": 0,
            "theta": {s.name: t for s, t in zip(specs, theta)},
            "stats": new_stats(),
            "history": [[0, {s.name: t for s, t in zip(specs, theta)}]],
        }
        os.makedirs(os.path.dirname(os.path.abspath(args.state)), exist_ok=True)
        write_state(args.state, state)
    else:
        for d in state["params"]:
            o = probe.spin_options.get(d["name"])
            if o is None:
                raise Fatal(f"the engine no longer offers {d['name']}, which the state tunes")
            if (o.min, o.max) != (d["min"], d["max"]):
                log(f"warning: {d['name']}: the engine's range is now {o.min}..{o.max}, the state's {d['min']}..{d['max']} is kept")
        state["settings"] = settings

    try:
        openings = referee.load_openings(settings["openings"])
    except (OSError, ValueError) as e:
        raise Fatal(str(e)) from None

    if settings["byoyomi"] is not None:
        timeout = args.move_timeout or settings["byoyomi"] / 1000 + 1.0
    else:
        timeout = args.move_timeout or 30.0
    limits = referee.Limits(nodes=settings["nodes"], byoyomi_ms=settings["byoyomi"], move_timeout=timeout)

    specs = [ParamSpec.from_json(d) for d in state["params"]]
    limit_text = f"byoyomi {settings['byoyomi']} ms" if settings["byoyomi"] is not None else f"nodes {settings['nodes']}"
    log(
        f"spsa: {probe.name}, {len(specs)} parameters, iterations {state['k']}/{settings['iterations']}, {limit_text},"
        f" seed {settings['seed']}, {len(openings)} openings, concurrency {args.concurrency}, state {args.state}"
    )
    for s in specs:
        log(f"  {s.name}: {state['theta'][s.name]:.2f} in {s.min}..{s.max}, c_end {s.c_end:g}, r_end {s.r_end:g} (c {s.c:.3g}, a {s.a:.3g})")

    run = Run(state, args.state, openings, limits, max(1, args.report_every), args.games_log)
    if run.next_k >= run.iterations:
        log("spsa: the run is complete")
        report(state)
        return 0

    def interrupted() -> None:
        log(f"\nspsa: interrupted after {state['k']} iterations; the state is saved, carry on with --resume")

    engines = [
        (UsiEngine(args.engine, f"worker {i} plus", fixed), UsiEngine(args.engine, f"worker {i} minus", fixed))
        for i in range(args.concurrency)
    ]
    workers = [functools.partial(run.work, pair) for pair in engines]
    if not run.run(workers, interrupted):
        report(state)
        return 130
    if run.error is not None:
        e = run.error
        log(f"spsa: stopped after {state['k']} iterations: {type(e).__name__}: {e}; carry on with --resume")
        report(state)
        return 1
    stats = state["stats"]
    log(
        f"spsa: done, {stats['pairs']} pairs, plus W-D-L {stats['plus_wins']}-{stats['draws']}-{stats['plus_losses']},"
        f" ends: " + ", ".join(f"{r} {n}" for r, n in sorted(stats["reasons"].items(), key=lambda x: -x[1]))
    )
    report(state)
    return 0
