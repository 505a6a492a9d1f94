"""What the command-line tools (tools.clock, tools.spsa, tools.ledger, tools.records,
tools.layers) share: progress lines on stderr, the error that ends a run with a message,
`NAME=VALUE` option lists, an engine started once for its `usi` answer, the parser of a tool of
subcommands, and the entry point that turns that error into exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from tools.usi.engine import EngineError, UsiEngine


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


class Fatal(Exception):
    """A problem that stops the run with a message (bad arguments or configuration, engine
    missing...)."""


def parse_options(items: list[str], flag: str) -> list[tuple[str, str]]:
    """`NAME=VALUE` items (of the command-line flag `flag`) as (name, value) pairs, trimmed."""
    out = []
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise Fatal(f"{flag} wants NAME=VALUE, got {item!r}")
        out.append((name.strip(), value.strip()))
    return out


def probe_engine(path: str, what: str) -> UsiEngine:
    """The engine at `path` started once and ended, for its `usi` answer (its name and options);
    one that does not start is a `Fatal` that names it as `what`."""
    probe = UsiEngine(path, f"{what} probe", [])
    try:
        probe.start()
    except EngineError as e:
        raise Fatal(f"{what}: {e}") from None
    finally:
        probe.close()
    return probe


def command_parser(name: str, doc: str | None, repo: Path | None = None):
    """The parser of `python3 -m tools.NAME COMMAND ...` described by the tool's docstring `doc` (as
    written), with `--repo` (the repository it works on, by default `repo`, the one holding the
    tool) where `repo` is given, and the subparsers its commands are added to."""
    p = argparse.ArgumentParser(prog=f"python3 -m tools.{name}", description=doc,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    if repo is not None:
        p.add_argument("--repo", type=Path, default=repo, help="the repository (default: the one holding this tool)")
    return p, p.add_subparsers(dest="command_name", required=True)


def run_cli(
    prog: str, parser: argparse.ArgumentParser, run_main: Callable[[argparse.Namespace], int], argv: list[str] | None
) -> int:
    """Parses `argv` and runs `run_main` on the arguments; a `Fatal` is logged as `prog: message`
    and ends the run with status 2."""
    args = parser.parse_args(argv)
    try:
        return run_main(args)
    except Fatal as e:
        log(f"{prog}: {e}")
        return 2
