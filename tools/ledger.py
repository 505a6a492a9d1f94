"""The results ledger: docs/records/ledger.tsv holds one row per match run (its id, date, commits,
engines and options, clock or nodes, threads, hash, seed, openings, machine, games, W-D-L, Elo
and bounds, SPRT and LLR, a label and notes). The match tools append the rows; nobody types them.
The documents' result tables are rendered from it, and `check` fails when one differs.

    python3 -m tools.ledger match --label TEXT [--referee PATH] [--log FILE] [--notes TEXT]
        [--commits TEXT] [--dry-run] -- ENGINE_A ENGINE_B [REFEREE OPTIONS...]
    python3 -m tools.ledger append --label TEXT (--from-log FILE | --wdl W-D-L) [--FIELD VALUE...]
    python3 -m tools.ledger pool ID ID... --label TEXT [--notes TEXT]
    python3 -m tools.ledger check                                # part of `make check`
    python3 -m tools.ledger render [FILE...]
    python3 -m tools.ledger show ID...

`match` runs the referee (../shared/tools/match/match unless --referee or $HAYATE_REFEREE says
otherwise) with the arguments after `--`, passes its output through (and into --log), and
appends a row from its summary (`Result A vs B: W-D-L ...`, `SPRT [e0, e1]: LLR x -> ...`) and
the run's context: the date (UTC), this checkout's commit (`+dirty` when the tree has changes),
the machine (/proc/cpuinfo's model name and the number of CPUs), the engines, their options and
every referee option that shaped the games. A run the referee ends without a summary appends
nothing (status 1).

`append` adds the row of a run played otherwise (another tool, a log kept from before): the
summary read from a referee's log (--from-log) or the W-D-L given (the Elo, its bounds and the
LLR are then computed by the referee's formulas), and the other fields as options.

`pool` appends the pool of runs already in the ledger (a test carried on over the openings the
first run had not reached, `python3 -m tools.unplayed_openings`): their W-D-L summed, the Elo and
bounds and, when they share an SPRT, the LLR by the referee's formulas; its notes name the runs.

`check` fails (status 1) when the ledger is malformed (a field out of form, an id repeated or out
of order, W + D + L not the games, an Elo, its bounds or an LLR that are not the referee's
figures for the W-D-L at the precision recorded) or when a generated table in a document
differs from what the ledger renders, or when a row whose notes say "pooled" and name rows is not
their sum, or when the prose of a document cites a run (`R0012`, or `W-D-L (R0012)`) that is not
in the ledger or gives it another W-D-L. A migrated figure that the formulas do not give is kept as
it was recorded only where the row's notes say so (`elo_hi +168 as recorded`).

A generated table stands between two marker lines in a Markdown file:

    <!-- ledger:table STYLE ID ID ... -->
    | ... the rendered table ... |
    <!-- /ledger -->

STYLE picks its columns (`glance`: comparison, commit, per move, games, W-D-L, Elo; `summary`:
run, commit, comparison with its notes and seed, per move, games, W-D-L, Elo and SPRT) and the ids its
rows, in that order. `render` rewrites every such table (of FILE, or
of the documents `check` reads) from the ledger.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import math
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from tools import tsv
from tools.cli import Fatal, command_parser, log, run_cli

ROOT = Path(__file__).resolve().parent.parent
LEDGER = "docs/records/ledger.tsv"
# The documents whose generated tables `check` compares and `render` rewrites.
DOCUMENTS = ("README.md", "docs/strength.md", "nets/README.md", "docs/records/*.md")
REFEREE = "../shared/tools/match/match"

COLUMNS = ("id", "date", "commits", "engine_a", "options_a", "engine_b", "options_b", "clock", "nodes",
           "threads", "hash", "seed", "openings", "concurrency", "machine", "games", "w", "d", "l", "elo",
           "elo_lo", "elo_hi", "sprt", "llr", "verdict", "label", "notes")
NUMBER = r"0|[1-9][0-9]*"
SIGNED = r"[+-]?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?"
FORMS = {
    "id": re.compile(r"R[0-9]{4}"),
    "date": re.compile(r"\d{4}-\d{2}-\d{2}(?: to \d{4}-\d{2}-\d{2})?"),
    "nodes": re.compile(NUMBER),
    "seed": re.compile(r"-?[0-9]+(?:, -?[0-9]+)*"),
    "games": re.compile(NUMBER),
    "w": re.compile(NUMBER),
    "d": re.compile(NUMBER),
    "l": re.compile(NUMBER),
    "elo": re.compile(SIGNED),
    "elo_lo": re.compile(SIGNED),
    "elo_hi": re.compile(SIGNED),
    "sprt": re.compile(r"-?[0-9.]+, -?[0-9.]+"),
    "llr": re.compile(r"-?[0-9]+\.[0-9]+"),
    "verdict": re.compile(r"H1 accepted|H0 accepted|undecided"),
}
# Columns no row may leave empty.
REQUIRED = ("id", "games", "w", "d", "l", "label")

RESULT = re.compile(r"^Result A vs B: (\d+)-(\d+)-(\d+) \(W-D-L\), score [0-9.]+, "
                    r"Elo ([+-][0-9.]+) \(95% \[([+-][0-9.]+), ([+-][0-9.]+)\]\)", re.MULTILINE)
SPRT_LINE = re.compile(r"^SPRT \[(-?[0-9.]+), (-?[0-9.]+)\]: LLR (-?[0-9.]+) -> (H1 accepted|H0 accepted|undecided)",
                       re.MULTILINE)
OPEN = re.compile(r"^<!-- ledger:table ([a-z]+)((?: R[0-9]{4})*) -->$")
CLOSE = "<!-- /ledger -->"
BOUND = math.log(0.95 / 0.05)


# The referee's statistics (../shared/tools/match/match.py, tools/pool_match_logs.py).


def elo_of(score: float) -> float:
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / score - 1)


def summary(w: int, d: int, l: int) -> tuple[float, float, float]:
    """Elo and its 95% bounds, as the referee prints them."""
    n = w + d + l
    if n == 0:
        return 0.0, 0.0, 0.0
    s = (w + 0.5 * d) / n
    var = (w * (1 - s) ** 2 + d * (0.5 - s) ** 2 + l * s**2) / n
    se = math.sqrt(var / n) if n > 1 else 0.5
    return elo_of(s), elo_of(s - 1.96 * se), elo_of(s + 1.96 * se)


def llr(w: int, d: int, l: int, elo0: float, elo1: float) -> float:
    n = w + d + l
    if n < 2:
        return 0.0
    s = (w + 0.5 * d) / n
    var = (w * (1 - s) ** 2 + d * (0.5 - s) ** 2 + l * s**2) / n
    if var <= 0:
        return 0.0
    s0, s1 = (1 / (1 + 10 ** (-e / 400)) for e in (elo0, elo1))
    return n * (s1 - s0) * (2 * s - s0 - s1) / (2 * var)


def verdict_of(value: float) -> str:
    return "H1 accepted" if value >= BOUND else "H0 accepted" if value <= -BOUND else "undecided"


def agrees(recorded: str, computed: float) -> bool:
    """Whether `recorded` is `computed` rounded to the decimals it shows (half a unit of its last
    place either way, and a little more for the rounding of the computation itself)."""
    decimals = len(recorded.partition(".")[2])
    return abs(float(recorded) - computed) <= 0.5 * 10**-decimals + 1e-9


# The ledger.


def parse_ledger(text: str) -> tuple[list[dict[str, str]], list[str]]:
    """The rows of the ledger's text and the problems found in them (line numbers 1-based)."""
    numbered, problems = tsv.split_rows(text, COLUMNS)
    rows: list[dict[str, str]] = []
    for n, row in numbered:
        problems += [f"line {n}: {p}" for p in row_problems(row, rows)]
        rows.append(row)
    return rows, problems


def row_problems(row: dict[str, str], before: list[dict[str, str]]) -> list[str]:
    """What is wrong with `row`, a ledger row following the rows `before`."""
    problems = []
    for col in COLUMNS:
        value, form = row[col], FORMS.get(col)
        if value != value.strip():
            problems.append(f"{col} has spaces around it")
        elif not value:
            if col in REQUIRED:
                problems.append(f"{col} is empty")
        elif form and not form.fullmatch(value):
            problems.append(f"{col} {value!r} is not of the form {form.pattern}")
    if problems:
        return problems
    rid = row["id"]
    if any(r["id"] == rid for r in before):
        problems.append(f"{rid} has a row already")
    elif before and FORMS["id"].fullmatch(before[-1]["id"]) and rid != next_id(before):
        problems.append(f"{rid} follows {before[-1]['id']}: ids go up one at a time")
    w, d, l, games = (int(row[c]) for c in ("w", "d", "l", "games"))
    if w + d + l != games:
        problems.append(f"{rid}: {w}-{d}-{l} is {w + d + l} games, not {games}")
        return problems
    elo, lo, hi = summary(w, d, l)
    for col, value in (("elo", elo), ("elo_lo", lo), ("elo_hi", hi)):
        if row[col] and not agrees(row[col], value) and f"{col} {row[col]} as recorded" not in row["notes"]:
            problems.append(f"{rid}: {col} {row[col]} is not {value:+.1f}, the referee's figure for {w}-{d}-{l}")
    if (row["elo_lo"] == "") != (row["elo_hi"] == "") or (row["elo_lo"] and not row["elo"]):
        problems.append(f"{rid}: an Elo's bounds go together, and with the Elo")
    pooled = re.findall(r"R[0-9]{4}", row["notes"]) if "pooled" in row["notes"] else []
    if pooled:
        parts = [r for r in before if r["id"] in pooled]
        if len(parts) != len(set(pooled)):
            problems.append(f"{rid}: pools {', '.join(pooled)}, not all of them rows before it")
        elif [sum(int(r[c]) for r in parts) for c in "wdl"] != [w, d, l]:
            problems.append(f"{rid}: {w}-{d}-{l} is not the sum of the rows it pools ({', '.join(pooled)})")
    if row["llr"] or row["verdict"]:
        if not row["sprt"]:
            problems.append(f"{rid}: an LLR or a verdict without the SPRT's bounds")
        elif row["llr"]:
            elo0, elo1 = (float(x) for x in row["sprt"].split(","))
            value = llr(w, d, l, elo0, elo1)
            if not agrees(row["llr"], value):
                problems.append(f"{rid}: LLR {row['llr']} is not {value:.2f}, the referee's for {w}-{d}-{l} "
                                f"and SPRT [{row['sprt']}]")
            elif row["verdict"] and row["verdict"] != verdict_of(value):
                problems.append(f"{rid}: LLR {row['llr']} is not {row['verdict']!r}")
    return problems


def next_id(rows: list[dict[str, str]]) -> str:
    return f"R{int(rows[-1]['id'][1:]) + 1:04d}" if rows else "R0001"


def format_row(row: dict[str, str]) -> str:
    return tsv.format_row(row, COLUMNS, "ledger")


def read_ledger(root: Path) -> list[dict[str, str]]:
    return tsv.read_rows(root / LEDGER, parse_ledger, "python3 -m tools.ledger check")


def sprt_fields(w: int, d: int, l: int, e0: float, e1: float) -> dict[str, str]:
    """The LLR and verdict columns of a W-D-L under the SPRT bounds `e0`, `e1`."""
    value = llr(w, d, l, e0, e1)
    return {"llr": f"{value:.2f}", "verdict": verdict_of(value)}


def result_fields(w: int, d: int, l: int, sprt: str = "") -> dict[str, str]:
    """The row's figures for a W-D-L (and an SPRT's `ELO0, ELO1`) by the referee's formulas."""
    elo, lo, hi = summary(w, d, l)
    fields = {"w": str(w), "d": str(d), "l": str(l), "games": str(w + d + l), "elo": f"{elo:+.1f}",
              "elo_lo": f"{lo:+.1f}", "elo_hi": f"{hi:+.1f}"}
    if sprt:
        e0, e1 = (float(x) for x in sprt.split(","))
        fields |= {"sprt": f"{e0:g}, {e1:g}"} | sprt_fields(w, d, l, e0, e1)
    return fields


def add_row(root: Path, fields: dict[str, str], dry_run: bool = False) -> dict[str, str]:
    """`fields` appended to the ledger as a new row with the next id (checked first)."""
    rows = read_ledger(root)
    row = {c: "" for c in COLUMNS} | {k: v.strip() for k, v in fields.items()}
    row["id"] = next_id(rows)
    problems = row_problems(row, rows)
    if problems:
        raise Fatal("the row is refused: " + "; ".join(problems))
    line = format_row(row)
    if dry_run:
        print("\t".join(COLUMNS))
        print(line, end="")
        return row
    with (root / LEDGER).open("a", encoding="utf-8") as f:
        f.write(line)
    return row


# Tables.


def per_move(row: dict[str, str]) -> str:
    return f"{int(row['nodes']):,} nodes" if row["nodes"] else row["clock"]


def wdl(row: dict[str, str]) -> str:
    return f"{row['w']}-{row['d']}-{row['l']}"


def elo_text(row: dict[str, str]) -> str:
    if not row["elo"]:
        return ""
    return row["elo"] + (f" [{row['elo_lo']}, {row['elo_hi']}]" if row["elo_lo"] else "")


def result_text(row: dict[str, str]) -> str:
    parts = [elo_text(row)] if row["elo"] else []
    if row["sprt"]:
        test = ", ".join(p for p in (f"LLR {row['llr']}" if row["llr"] else "", row["verdict"]) if p)
        parts.append(f"{test} (SPRT [{row['sprt']}])" if test else f"SPRT [{row['sprt']}]")
    return ", ".join(parts)


def described(row: dict[str, str]) -> str:
    seed = f"seed{'s' if ',' in row['seed'] else ''} {row['seed']}" if row["seed"] else ""
    return "; ".join(p for p in (row["label"], row["notes"], seed) if p)


STYLES = {
    "glance": (("comparison", "commit", "per move", "games", "W-D-L", "Elo"),
               lambda r: (r["label"], r["commits"], per_move(r), f"{int(r['games']):,}", wdl(r), elo_text(r)),
               ),
    "summary": (("run", "commit", "comparison", "per move", "games", "W-D-L", "result"),
                lambda r: (r["id"], r["commits"], described(r), per_move(r), f"{int(r['games']):,}", wdl(r),
                           result_text(r))),
}


def render_table(style: str, ids: list[str], by_id: dict[str, dict[str, str]]) -> list[str]:
    if style not in STYLES:
        raise Fatal(f"no table style {style!r} (the styles: {', '.join(STYLES)})")
    head, cells = STYLES[style]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for rid in ids:
        if rid not in by_id:
            raise Fatal(f"{rid} is not in {LEDGER}")
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells(by_id[rid])) + " |")
    return lines


def difference(line: str, rendered: str) -> str:
    """Where a table's line differs from the ledger's rendering: the first cell that differs, with
    its row's first cell, or the whole lines."""
    cells, want = line.split(" | "), rendered.split(" | ")
    if line and rendered and len(cells) == len(want):
        k = next(k for k, (a, b) in enumerate(zip(cells, want)) if a != b)
        return (f"{cells[0].lstrip('| ')}: {cells[k].strip(' |')!r} where the ledger has {want[k].strip(' |')!r}"
                if k else f"{line!r} where the ledger renders {rendered!r}")
    return f"{(line or '(nothing)')!r} where the ledger renders {(rendered or '(nothing)')!r}"


def render_text(text: str, by_id: dict[str, dict[str, str]], name: str) -> tuple[str, list[str]]:
    """`text` with every generated table rendered again, and the tables (`name:line STYLE`) that differed."""
    lines = text.split("\n")
    out, differ = [], []
    i = 0
    while i < len(lines):
        m = OPEN.match(lines[i])
        out.append(lines[i])
        if not m and lines[i].startswith("<!-- ledger:"):
            raise Fatal(f"{name}:{i + 1}: not a ledger marker: {lines[i]!r} (`<!-- ledger:table STYLE ID... -->`)")
        if not m:
            i += 1
            continue
        try:
            end = lines.index(CLOSE, i + 1)
        except ValueError:
            raise Fatal(f"{name}:{i + 1}: a ledger table without its closing {CLOSE}") from None
        try:
            table = render_table(m.group(1), m.group(2).split(), by_id)
        except Fatal as e:
            raise Fatal(f"{name}:{i + 1}: {e}") from None
        old = lines[i + 1:end]
        if old != table:
            first = next((k for k, (a, b) in enumerate(zip(old, table)) if a != b), min(len(old), len(table)))
            differ.append(f"{name}:{i + 2 + first}: the table `{m.group(1)}` differs from the ledger: "
                          + difference(old[first] if first < len(old) else "", table[first] if first < len(table) else ""))
        out += table + [CLOSE]
        i = end + 1
    return "\n".join(out), differ


CITED = re.compile(r"\b(?:(\d+)-(\d+)-(\d+) \()?(R[0-9]{4})\b")


def citations(text: str, by_id: dict[str, dict[str, str]], name: str) -> tuple[int, list[str]]:
    """The runs the prose of `text` cites (outside the generated tables), and the citations that
    name no run or give a W-D-L (`W-D-L (R0001)`) other than the run's."""
    count, problems, generated = 0, [], False
    for n, line in enumerate(text.split("\n"), start=1):
        if OPEN.match(line):
            generated = True
        elif line == CLOSE:
            generated = False
        if generated or OPEN.match(line):
            continue
        for m in CITED.finditer(line):
            rid = m.group(4)
            count += 1
            if rid not in by_id:
                problems.append(f"{name}:{n}: cites {rid}, which is not in {LEDGER}")
            elif m.group(1) and m.group(1, 2, 3) != tuple(by_id[rid][c] for c in "wdl"):
                problems.append(f"{name}:{n}: {'-'.join(m.group(1, 2, 3))} ({rid}), where {rid} is {wdl(by_id[rid])}")
    return count, problems


def documents(root: Path, names: list[str]) -> list[Path]:
    if names:
        return [Path(n).resolve() for n in names]
    return sorted({p for pattern in DOCUMENTS for p in root.glob(pattern)})


# Git and the machine.


def git_commit(root: Path) -> str:
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short=7", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""
    return head + ("+dirty" if dirty else "")


def machine() -> str:
    model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name":
                    model = " ".join(value.split())
                    break
    except OSError:
        pass
    return ", ".join(p for p in (model, f"{os.cpu_count()} CPUs") if p)


def today() -> str:
    return datetime.datetime.now(datetime.UTC).date().isoformat()


def referee_parser() -> argparse.ArgumentParser:
    """The referee's options that shape the games (`match --help`), to read them back."""
    p = argparse.ArgumentParser(prog="referee", add_help=False, exit_on_error=False)
    p.add_argument("engine_a")
    p.add_argument("engine_b")
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--byoyomi", type=int, default=100)
    p.add_argument("--time", type=int, default=0)
    p.add_argument("--inc", type=int, default=0)
    p.add_argument("--nodes", type=int, default=0)
    p.add_argument("--margin", type=int, default=1000)
    p.add_argument("--max-plies", type=int, default=320)
    p.add_argument("--options-a", default="")
    p.add_argument("--options-b", default="")
    p.add_argument("--openings", default="")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--concurrency", type=int, default=1)
    p.add_argument("--sprt", default="")
    return p


def options_of(text: str) -> dict[str, str]:
    """The referee's USI options for an engine: Threads=1 and USI_Hash=16 unless given."""
    opts = {"Threads": "1", "USI_Hash": "16"}
    for item in filter(None, text.split(",")):
        key, _, value = item.partition("=")
        opts[key.strip()] = value.strip()
    return opts


def clock_text(time_ms: int, inc_ms: int, byoyomi_ms: int) -> str:
    def ms(v: int) -> str:
        return f"{v // 1000} s" if v % 1000 == 0 and v else f"{v} ms"

    if inc_ms:
        return f"{ms(time_ms)} + {ms(inc_ms)} a move" if time_ms else f"increment {ms(inc_ms)}"
    return (f"{ms(time_ms)} + " if time_ms else "") + f"byoyomi {ms(byoyomi_ms)}"


def context_of(referee_args: list[str]) -> dict[str, str]:
    """The row's fields that the referee's arguments fix."""
    try:
        a = referee_parser().parse_args(referee_args)
    except (argparse.ArgumentError, SystemExit) as e:
        raise Fatal(f"the referee's arguments: {e}") from None
    oa, ob = options_of(a.options_a), options_of(a.options_b)
    same = {k: v for k, v in oa.items() if ob.get(k) == v}
    extra = []
    if a.margin != 1000:
        extra.append(f"--margin {a.margin}")
    if a.max_plies != 320:
        extra.append(f"--max-plies {a.max_plies}")
    return {
        "engine_a": a.engine_a, "engine_b": a.engine_b,
        "options_a": ",".join(f"{k}={v}" for k, v in oa.items() if k not in ("Threads", "USI_Hash")),
        "options_b": ",".join(f"{k}={v}" for k, v in ob.items() if k not in ("Threads", "USI_Hash")),
        "threads": same.get("Threads", f"{oa['Threads']} vs {ob['Threads']}"),
        "hash": same.get("USI_Hash", f"{oa['USI_Hash']} vs {ob['USI_Hash']}"),
        "clock": "" if a.nodes else clock_text(a.time, a.inc, a.byoyomi),
        "nodes": str(a.nodes) if a.nodes else "",
        "seed": str(a.seed), "openings": a.openings or "the referee's own",
        "concurrency": str(a.concurrency), "sprt": a.sprt.replace(",", ", ") if a.sprt else "",
        "notes": " ".join(extra),
    }


def results_of(output: str) -> dict[str, str]:
    """The summary the referee prints at the end: W-D-L, the Elo and bounds, the SPRT's LLR."""
    m = RESULT.search(output)
    if not m:
        raise Fatal("the referee's output has no `Result A vs B: W-D-L ...` line")
    w, d, l, elo, lo, hi = m.groups()
    fields = {"w": w, "d": d, "l": l, "games": str(int(w) + int(d) + int(l)), "elo": elo, "elo_lo": lo,
              "elo_hi": hi}
    s = SPRT_LINE.search(output)
    if s:
        e0, e1, value, verdict = s.groups()
        fields |= {"sprt": f"{float(e0):g}, {float(e1):g}", "llr": value, "verdict": verdict}
    return fields


# Subcommands.


def cmd_check(args: argparse.Namespace) -> int:
    root = args.repo
    try:
        rows, problems = parse_ledger((root / LEDGER).read_text(encoding="utf-8"))
    except OSError as e:
        rows, problems = [], [f"cannot be read: {e.strerror}"]
    problems = [f"{LEDGER}: {p}" for p in problems]
    by_id = {r["id"]: r for r in rows}
    tables = citing = 0
    for path in documents(root, []):
        name = str(path.relative_to(root))
        text = path.read_text(encoding="utf-8")
        try:
            _, differ = render_text(text, by_id, name)
        except Fatal as e:
            problems.append(str(e))
            continue
        tables += sum(1 for line in text.split("\n") if OPEN.match(line))
        cited, bad = citations(text, by_id, name)
        citing += cited
        problems += bad
        problems += [f"{d} (`python3 -m tools.ledger render` writes the ledger's)" for d in differ]
    if problems:
        for p in problems:
            log(f"ledger check: {p}")
        return 1
    print(f"ledger check: {len(rows)} runs well-formed, their figures the referee's; {tables} generated tables "
          f"equal to the ledger's; {citing} citations of runs in the prose agree with it")
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    root = args.repo
    by_id = {r["id"]: r for r in read_ledger(root)}
    for path in documents(root, args.files):
        text = path.read_text(encoding="utf-8")
        new, differ = render_text(text, by_id, str(path))
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"{path}: {len(differ)} tables rewritten")
    return 0


def cmd_pool(args: argparse.Namespace) -> int:
    rows = read_ledger(args.repo)
    by_id = {r["id"]: r for r in rows}
    missing = [i for i in args.ids if i not in by_id]
    if missing:
        raise Fatal(f"{', '.join(missing)} not in {LEDGER}")
    if len(set(args.ids)) != len(args.ids) or len(args.ids) < 2:
        raise Fatal("pool wants two or more different runs")
    parts = [by_id[i] for i in args.ids]
    w, d, l = (sum(int(r[c]) for r in parts) for c in "wdl")
    # What the runs share is the pool's; what differs between them stays in their own rows.
    shared = {c: parts[0][c] for c in ("commits", "engine_a", "options_a", "engine_b", "options_b", "clock", "nodes",
                                       "threads", "hash", "openings", "machine", "sprt")
              if all(r[c] == parts[0][c] for r in parts)}
    fields = shared | result_fields(w, d, l, shared.get("sprt", "")) | {
        "date": args.date, "label": args.label,
        "notes": "; ".join(n for n in (f"pooled: {', '.join(args.ids)}", args.notes) if n)}
    row = add_row(args.repo, fields, args.dry_run)
    if not args.dry_run:
        print(f"{row['id']}: {wdl(row)} over {row['games']}, {result_text(row)} appended to {LEDGER}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    by_id = {r["id"]: r for r in read_ledger(args.repo)}
    for rid in args.ids:
        if rid not in by_id:
            raise Fatal(f"{rid} is not in {LEDGER}")
        row = by_id[rid]
        for col in COLUMNS:
            if row[col]:
                print(f"{col}: {row[col]}")
        print()
    return 0


FIELD_OPTIONS = ("date", "commits", "engine_a", "options_a", "engine_b", "options_b", "clock", "nodes", "threads",
                 "hash", "seed", "openings", "concurrency", "machine", "sprt", "llr", "verdict", "label", "notes")


def cmd_append(args: argparse.Namespace) -> int:
    fields: dict[str, str] = {}
    if args.from_log:
        try:
            fields |= results_of(Path(args.from_log).read_text(encoding="utf-8", errors="replace"))
        except OSError as e:
            raise Fatal(f"{args.from_log}: {e.strerror}") from None
    elif args.wdl:
        m = re.fullmatch(r"(\d+)-(\d+)-(\d+)", args.wdl)
        if not m:
            raise Fatal(f"--wdl wants W-D-L, got {args.wdl!r}")
        fields |= result_fields(*(int(x) for x in m.groups()))
    else:
        raise Fatal("--from-log or --wdl gives the result")
    fields |= {col: getattr(args, col) for col in FIELD_OPTIONS if getattr(args, col) is not None}
    if fields.get("sprt"):
        try:
            e0, e1 = (float(x) for x in fields["sprt"].split(","))
        except ValueError:
            raise Fatal(f"--sprt wants ELO0,ELO1, got {fields['sprt']!r}") from None
        fields["sprt"] = f"{e0:g}, {e1:g}"
        if args.wdl and not fields.get("llr"):
            fields |= sprt_fields(int(fields["w"]), int(fields["d"]), int(fields["l"]), e0, e1)
    row = add_row(args.repo, fields, args.dry_run)
    if not args.dry_run:
        print(f"{row['id']}: {wdl(row)} over {row['games']}, {elo_text(row)} appended to {LEDGER}")
    return 0


def cmd_match(args: argparse.Namespace) -> int:
    referee_args = list(args.referee_args)
    if referee_args[:1] == ["--"]:
        referee_args = referee_args[1:]
    context = context_of(referee_args)  # Refuses arguments the referee would refuse, before it runs.
    referee = args.referee or os.environ.get("HAYATE_REFEREE") or str((args.repo / REFEREE).resolve())
    cmd = shlex.split(referee) + referee_args
    date = today()
    commits = args.commits if args.commits is not None else git_commit(args.repo)
    log(f"ledger: {shlex.join(cmd)}")
    out = []
    with open(args.log, "w", encoding="utf-8") if args.log else contextlib.nullcontext() as logf:
        try:
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, bufsize=1)
        except OSError as e:
            raise Fatal(f"the referee {cmd[0]}: {e.strerror}") from None
        for line in proc.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            out.append(line)
            if logf:
                logf.write(line)
                logf.flush()
        rc = proc.wait()
    try:
        results = results_of("".join(out))
    except Fatal as e:
        log(f"ledger: the referee ended with status {rc} and no result: nothing appended ({e})")
        return 1
    notes = [n for n in (context.pop("notes"), args.notes or "") if n]
    if rc != 0:
        notes.append(f"the referee's status {rc} (an illegal move, a loss on time or a start failure: see its log)")
    fields = context | results | {"date": date, "commits": commits, "machine": machine(), "label": args.label,
                                  "notes": "; ".join(notes)}
    row = add_row(args.repo, fields, args.dry_run)
    if not args.dry_run:
        print(f"ledger: {row['id']}: {wdl(row)} over {row['games']}, {elo_text(row)} appended to {LEDGER}")
    return 0


def parser() -> argparse.ArgumentParser:
    p, sub = command_parser("ledger", __doc__, ROOT)

    c = sub.add_parser("check", help="the ledger well-formed and every generated table equal to its rendering")
    c.set_defaults(run=cmd_check)

    r = sub.add_parser("render", help="rewrite the generated tables from the ledger")
    r.add_argument("files", nargs="*", metavar="FILE", help="Markdown files (default: the documents check reads)")
    r.set_defaults(run=cmd_render)

    o = sub.add_parser("pool", help="append the pool of runs of the ledger: their W-D-L summed, Elo and LLR computed")
    o.add_argument("ids", nargs="+", metavar="ID", help="the runs (over different games: see docs/strength.md)")
    o.add_argument("--label", required=True, help="what the pool compares, as the tables show it")
    o.add_argument("--notes", default="", help="anything else worth keeping")
    o.add_argument("--date", help="the pool's date (default: today, UTC)")
    o.add_argument("--dry-run", action="store_true", help="print the row, change nothing")
    o.set_defaults(run=cmd_pool)

    s = sub.add_parser("show", help="a run's fields")
    s.add_argument("ids", nargs="+", metavar="ID")
    s.set_defaults(run=cmd_show)

    m = sub.add_parser("match", help="play a match with the referee and append its row")
    m.add_argument("--label", required=True, help="what the run compares, as the tables show it")
    m.add_argument("--notes", help="anything else worth keeping")
    m.add_argument("--referee", help=f"the referee's command (default: $HAYATE_REFEREE or {REFEREE})")
    m.add_argument("--log", help="also write the referee's output to this file")
    m.add_argument("--commits", help="what was measured (default: this checkout's commit, +dirty with changes)")
    m.add_argument("--dry-run", action="store_true", help="play, then print the row instead of appending it")
    m.add_argument("referee_args", nargs=argparse.REMAINDER, metavar="-- ENGINE_A ENGINE_B [OPTIONS]")
    m.set_defaults(run=cmd_match)

    a = sub.add_parser("append", help="append a run played otherwise: its log's summary or its W-D-L")
    a.add_argument("--from-log", help="a referee's output: its `Result A vs B` and `SPRT` lines")
    a.add_argument("--wdl", help="W-D-L (the Elo, its bounds and the LLR are computed)")
    a.add_argument("--dry-run", action="store_true", help="print the row, change nothing")
    for col in FIELD_OPTIONS:
        a.add_argument(f"--{col.replace('_', '-')}", dest=col, required=col == "label")
    a.set_defaults(run=cmd_append)
    return p


def main(args: argparse.Namespace) -> int:
    args.repo = args.repo.resolve()
    if args.command_name in ("append", "pool") and args.date is None:
        args.date = today()
    return args.run(args)


if __name__ == "__main__":
    sys.exit(run_cli("ledger", parser(), main, None))
