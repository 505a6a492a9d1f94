"""The self-play records (`hayate gensfen`'s `.hgr` files) live in git's history, not in the tree:
data/selfplay/manifest.tsv is their one ledger (a row a file: name, sha256, bytes, games,
positions, distinct positions, how and by what it was made, and the commit of main whose tree
holds it), and this tool restores them, counts them, checks the ledger and lands new ones.

    python3 -m tools.records restore [PATTERN...] [--dest DIR]   # `make data`
    python3 -m tools.records totals
    python3 -m tools.records check                               # part of `make check`
    python3 -m tools.records land FILE.hgr --command CMD --binary B --net N --machine M
        [--notes TEXT] [--name NAME.hgr] [--date YYYY-MM-DD] [--engine PATH]
        [--games G --positions P --distinct D] [--subject TEXT] [--dry-run]

`restore` writes every record (or those whose name matches a shell-style PATTERN, `gen7-*`) into
the ignored folder data/selfplay/records/ (or DIR), each the blob `COMMIT:data/selfplay/FILE`
(one `git cat-file --batch` reads them all), checking each sha256; a file already there with the
right sha256 is left as it is. A commit missing from the clone (a shallow clone) or a wrong
sha256 is an error (status 1).

`totals` sums the manifest by generation (the name before its first `-`) and in all; the sum of
distinct positions is each file's own count added up (`hayate gensfen merge` of all the files
also drops a position repeated across files).

`check` fails (status 1) when the manifest is malformed, when a row's commit is not an ancestor of
HEAD or does not hold a blob of the row's sha256 and size, or when a `.hgr` is tracked under
data/selfplay/. On a shallow clone or outside git it checks what it can and says what it skipped.

`land` takes a new record from `hayate gensfen` (a shard's file or a merge's output) into the
history in two commits: the first adds data/selfplay/NAME (so that the history holds it), the
second removes it from the tree and appends its manifest row, whose commit is the first's. The
counts come from `ENGINE gensfen merge FILE` (games in, positions in, positions out: the file's
distinct positions; --engine, default target/native/release/hayate) unless --games, --positions
and --distinct are all given. The file is also copied into data/selfplay/records/. Each commit
holds only its own paths (other staged changes stay staged); `--dry-run` prints the row and the
git commands and changes nothing.
"""

from __future__ import annotations

import argparse
import datetime
import fnmatch
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Self

from tools import tsv
from tools.cli import Fatal, command_parser, log, run_cli

ROOT = Path(__file__).resolve().parent.parent
# Paths inside the repository.
RECORDS_DIR = "data/selfplay"
MANIFEST = f"{RECORDS_DIR}/manifest.tsv"
RESTORED = f"{RECORDS_DIR}/records"
ENGINE = "target/native/release/hayate"

COLUMNS = ("file", "sha256", "bytes", "games", "positions", "distinct", "command", "binary", "net",
           "date", "machine", "notes", "commit")
COUNTS = ("bytes", "games", "positions", "distinct")
FORMS = {
    "file": re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\.hgr"),
    "sha256": re.compile(r"[0-9a-f]{64}"),
    "date": re.compile(r"\d{4}-\d{2}-\d{2}"),
    "commit": re.compile(r"[0-9a-f]{40}"),
    **{c: re.compile(r"0|[1-9][0-9]*") for c in COUNTS},
}
# Columns that may be empty.
OPTIONAL = {"notes"}

MERGE_LINE = re.compile(r"gensfen merge: (\d+) games in, (\d+) out \((\d+) duplicates\); (\d+) positions in, (\d+) out")


# The manifest.


def parse_manifest(text: str) -> tuple[list[dict[str, str]], list[str]]:
    """The rows of the manifest's text and the problems found in it (line numbers 1-based)."""
    numbered, problems = tsv.split_rows(text, COLUMNS)
    rows, seen = [], set()
    for n, row in numbered:
        for col in COLUMNS:
            value = row[col]
            form = FORMS.get(col)
            if value != value.strip():
                problems.append(f"line {n}: {col} has spaces around it")
            elif not value and col not in OPTIONAL:
                problems.append(f"line {n}: {col} is empty")
            elif form and not form.fullmatch(value):
                problems.append(f"line {n}: {col} {value!r} is not of the form {form.pattern}")
        counted = FORMS["positions"].fullmatch(row["positions"]) and FORMS["distinct"].fullmatch(row["distinct"])
        if counted and int(row["distinct"]) > int(row["positions"]):
            problems.append(f"line {n}: {row['file']}: more distinct positions than positions")
        if row["file"] in seen:
            problems.append(f"line {n}: {row['file']} has a row already")
        seen.add(row["file"])
        rows.append(row)
    return rows, problems


def format_row(row: dict[str, str]) -> str:
    return tsv.format_row(row, COLUMNS, "manifest")


def read_manifest(root: Path) -> list[dict[str, str]]:
    return tsv.read_rows(root / MANIFEST, parse_manifest, "python3 -m tools.records check")


# Git.


def git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """`git -C root args...`, output as bytes; a failure is a `Fatal` naming the command."""
    try:
        r = subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=False)
    except OSError as e:
        raise Fatal(f"git: {e.strerror}") from None
    if check and r.returncode != 0:
        raise Fatal(f"git {' '.join(args)}: {r.stderr.decode(errors='replace').strip()}")
    return r


def git_text(root: Path, *args: str) -> str:
    return git(root, *args).stdout.decode().strip()


def in_git(root: Path) -> bool:
    return git(root, "rev-parse", "--git-dir", check=False).returncode == 0


def is_shallow(root: Path) -> bool:
    return git(root, "rev-parse", "--is-shallow-repository", check=False).stdout.strip() == b"true"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class History:
    """The records' blobs read from git's history by one `git cat-file --batch`, object by object."""

    def __init__(self, root: Path):
        self.root = root
        try:
            self.proc = subprocess.Popen(["git", "-C", str(root), "cat-file", "--batch"], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except OSError as e:
            raise Fatal(f"git: {e.strerror}") from None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.proc.stdin.close()
        self.proc.stdout.close()
        self.proc.wait()

    def _object(self, spec: str) -> bytes | None:
        """The content of the blob `spec` names (`COMMIT:PATH`); None when there is none."""
        self.proc.stdin.write(spec.encode() + b"\n")
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().split()
        if len(header) != 3:
            if not header:
                raise Fatal("git cat-file --batch ended early")
            return None  # `SPEC missing`, `SPEC ambiguous`
        size = int(header[2])
        data = self.proc.stdout.read(size)
        self.proc.stdout.read(1)
        return data if header[1] == b"blob" else None

    def blob_of(self, row: dict[str, str]) -> bytes:
        """The record's bytes from its commit, checked against the row's sha256 and size."""
        commit, name = row["commit"], row["file"]
        data = self._object(f"{commit}:{RECORDS_DIR}/{name}")
        if data is None:
            if git(self.root, "cat-file", "-e", f"{commit}^{{commit}}", check=False).returncode != 0:
                hint = (" (this clone is shallow: `git fetch --unshallow` first)" if is_shallow(self.root)
                        else " (fetch main's full history)")
                raise Fatal(f"{name}: commit {commit[:12]} is not in this clone{hint}")
            raise Fatal(f"{name}: commit {commit[:12]} holds no {RECORDS_DIR}/{name}")
        got = sha256(data)
        if got != row["sha256"] or len(data) != int(row["bytes"]):
            raise Fatal(f"{name}: the blob in {commit[:12]} has sha256 {got} and {len(data)} bytes; "
                        f"the manifest says {row['sha256']} and {row['bytes']}")
        return data


def tracked_records(root: Path) -> list[str]:
    out = git(root, "ls-files", "-z", "--", RECORDS_DIR).stdout.decode()
    return [p for p in out.split("\0") if p.endswith(".hgr")]


# Subcommands.


def select(rows: list[dict[str, str]], patterns: list[str]) -> list[dict[str, str]]:
    """The rows whose file name (with or without `.hgr`) matches one of `patterns` (all rows
    without any); a pattern matching no row is an error."""
    if not patterns:
        return rows
    for p in patterns:
        if not any(fnmatch.fnmatchcase(r["file"], p) or fnmatch.fnmatchcase(r["file"][:-4], p) for r in rows):
            raise Fatal(f"no record matches {p!r} (`python3 -m tools.records totals` lists the generations)")
    return [r for r in rows if any(fnmatch.fnmatchcase(r["file"], p) or fnmatch.fnmatchcase(r["file"][:-4], p)
                                   for p in patterns)]


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def write_atomically(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def cmd_restore(args: argparse.Namespace) -> int:
    root = args.repo
    if not in_git(root):
        raise Fatal(f"{root} is not a git repository: the records are restored from its history")
    rows = select(read_manifest(root), args.patterns)
    dest = Path(args.dest) if args.dest else root / RESTORED
    dest.mkdir(parents=True, exist_ok=True)
    restored = present = 0
    failed = []
    with History(root) as history:
        for row in rows:
            target = dest / row["file"]
            if target.is_file() and file_sha256(target) == row["sha256"]:
                present += 1
                continue
            try:
                data = history.blob_of(row)
            except Fatal as e:
                log(f"records: {e}")
                failed.append(row["file"])
                continue
            write_atomically(target, data)
            restored += 1
    print(f"{len(rows)} records in {dest}: {restored} restored, {present} already there"
          + (f", {len(failed)} FAILED ({', '.join(failed)})" if failed else ""))
    return 1 if failed else 0


def group_of(name: str) -> str:
    return name.split("-", 1)[0]


def cmd_totals(args: argparse.Namespace) -> int:
    rows = read_manifest(args.repo)
    groups: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        groups.setdefault(group_of(row["file"]), []).append(row)

    def line(label: str, rs: list[dict[str, str]]) -> str:
        s = {c: sum(int(r[c]) for r in rs) for c in COUNTS}
        return (f"{label}: {len(rs):,} files, {s['games']:,} games, {s['positions']:,} positions, "
                f"{s['distinct']:,} distinct, {s['bytes']:,} bytes")

    for label, rs in groups.items():
        print(line(label, rs))
    print(line("all", rows))
    print("(distinct: each file's own count, summed; `hayate gensfen merge` of all the files also "
          "drops the positions repeated across files)")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    root = args.repo
    path = root / MANIFEST
    try:
        rows, problems = parse_manifest(path.read_text(encoding="utf-8"))
    except OSError as e:
        rows, problems = [], [f"cannot be read: {e.strerror}"]
    problems = [f"{MANIFEST}: {p}" for p in problems]
    checked = "the manifest well-formed"
    if not in_git(root):
        print(f"records check: {root} is not a git repository: only the manifest's form is checked")
    else:
        problems += [f"{p} is tracked: records live in the history only (python3 -m tools.records land)"
                     for p in tracked_records(root)]
        checked += ", no record in the tree"
        if is_shallow(root):
            print(f"records check: a shallow clone: the {len(rows)} records in the history are not checked "
                  "(`git fetch --unshallow` to check them)")
        else:
            checked += ", every sha256 found in its commit"
            ancestors = set(git(root, "rev-list", "HEAD").stdout.decode().split())
            with History(root) as history:
                for row in rows:
                    if not all(form.fullmatch(row[col]) for col, form in FORMS.items()):
                        continue  # Reported above.
                    try:
                        history.blob_of(row)
                    except Fatal as e:
                        problems.append(str(e))
                        continue
                    if row["commit"] not in ancestors:
                        problems.append(f"{row['file']}: commit {row['commit'][:12]} is not an ancestor of HEAD")
    if problems:
        for p in problems:
            log(f"records check: {p}")
        return 1
    print(f"records check: {len(rows)} records, {checked}")
    return 0


@dataclass
class Counts:
    games: int
    positions: int
    distinct: int


def counts_from_engine(engine: str, record: Path) -> Counts:
    """Games, positions and distinct positions of `record`, as `ENGINE gensfen merge` prints them
    for the file alone (games in, positions in, positions out)."""
    with tempfile.TemporaryDirectory() as d:
        try:
            r = subprocess.run([engine, "gensfen", "merge", str(record), "--out", os.path.join(d, "x.hgr")],
                               capture_output=True, text=True, check=False)
        except OSError as e:
            raise Fatal(f"{engine}: {e.strerror} (build it with `make build`, or give --engine, or "
                        "--games, --positions and --distinct)") from None
    m = MERGE_LINE.search(r.stdout)
    if r.returncode != 0 or not m:
        raise Fatal(f"{engine} gensfen merge {record}: exit status {r.returncode}: "
                    f"{(r.stderr or r.stdout).strip()}")
    if r.stderr.strip():
        log(r.stderr.strip())
    games_in, _, _, positions_in, positions_out = map(int, m.groups())
    return Counts(games_in, positions_in, positions_out)


def cmd_land(args: argparse.Namespace) -> int:
    root = args.repo
    src = Path(args.file)
    if not src.is_file():
        raise Fatal(f"{src}: no such file")
    name = args.name or src.name
    if not FORMS["file"].fullmatch(name):
        raise Fatal(f"{name!r}: a record's name is letters, digits, `.`, `_`, `-`, ending in .hgr")
    if not in_git(root):
        raise Fatal(f"{root} is not a git repository")
    rows = read_manifest(root)
    if any(r["file"] == name for r in rows):
        raise Fatal(f"{name} has a manifest row already: choose another --name")
    digest = file_sha256(src)
    for r in rows:
        if r["sha256"] == digest:
            raise Fatal(f"{src} is {r['file']} (the same sha256): landed already")
    if git(root, "status", "--porcelain", "--", MANIFEST).stdout.strip():
        raise Fatal(f"{MANIFEST} has changes not committed: commit or drop them first")
    rel = f"{RECORDS_DIR}/{name}"
    in_tree = root / rel
    if in_tree.exists() and not in_tree.samefile(src):
        raise Fatal(f"{rel} exists already and is not {src}")
    if git(root, "ls-files", "--", rel).stdout.strip():
        raise Fatal(f"{rel} is tracked already")
    given = [args.games, args.positions, args.distinct]
    if any(v is not None for v in given) and not all(v is not None for v in given):
        raise Fatal("--games, --positions and --distinct go together (or none, to count with --engine)")
    if args.games is not None:
        counts = Counts(args.games, args.positions, args.distinct)
    else:
        engine = args.engine or str(root / ENGINE)
        counts = counts_from_engine(engine, src)
    if counts.distinct > counts.positions:
        raise Fatal(f"{counts.distinct} distinct positions of {counts.positions}")
    data = src.read_bytes()
    row = {
        "file": name, "sha256": sha256(data), "bytes": str(len(data)), "games": str(counts.games),
        "positions": str(counts.positions), "distinct": str(counts.distinct), "command": args.command,
        "binary": args.binary, "net": args.net, "date": args.date, "machine": args.machine,
        "notes": args.notes, "commit": "",
    }
    if not FORMS["date"].fullmatch(args.date):
        raise Fatal(f"--date {args.date!r} is not YYYY-MM-DD")
    stem = name[:-4]
    subject = args.subject or f"Data: {stem}, {counts.distinct:,} self-play positions ({counts.games:,} games)"
    body = (f"{name}: {counts.games:,} games, {counts.positions:,} positions ({counts.distinct:,} distinct), "
            f"{len(data):,} bytes, sha256 {row['sha256']}.\n\nCommand: {args.command}\nBinary: {args.binary}\n"
            f"Net: {args.net}\nMachine: {args.machine}\n"
            + (f"Notes: {args.notes}\n" if args.notes else "")
            + "\nThe record lands in the history only: the next commit takes it out of the tree and writes "
            "its manifest row naming this commit (python3 -m tools.records land).")
    subject2 = f"Data: {stem} into the manifest, out of the tree"
    body2 = (f"The manifest's row for {name} names the commit that holds it; "
             "`make data` restores it (python3 -m tools.records restore).")
    format_row({**row, "commit": "0" * 40})  # Refuses a tab or line break before anything is done.
    dest = Path(args.dest) if args.dest else root / RESTORED
    if args.dry_run:
        print("\t".join(COLUMNS))
        print(format_row({**row, "commit": "<the first commit>"}), end="")
        for step in (f"cp {src} {rel}", f"git add -- {rel}", f"git commit -m {subject!r} -- {rel}",
                     f"cp {src} {dest / name}", f"(the row appended to {MANIFEST})", f"git rm -- {rel}",
                     f"git commit -m {subject2!r} -- {rel} {MANIFEST}"):
            print(f"would: {step}")
        return 0
    if not in_tree.exists():
        shutil.copyfile(src, in_tree)
    git(root, "add", "--", rel)
    git(root, "commit", "-q", "-m", subject, "-m", body, "--", rel)
    commit = git_text(root, "rev-parse", "HEAD")
    row["commit"] = commit
    with History(root) as history:
        history.blob_of(row)
    dest.mkdir(parents=True, exist_ok=True)
    if not (dest / name).exists() or file_sha256(dest / name) != row["sha256"]:
        write_atomically(dest / name, data)
    with (root / MANIFEST).open("a", encoding="utf-8") as f:
        f.write(format_row(row))
    git(root, "rm", "-q", "--", rel)
    git(root, "add", "--", MANIFEST)
    git(root, "commit", "-q", "-m", subject2, "-m", body2, "--", rel, MANIFEST)
    print(f"{name}: {counts.games:,} games, {counts.positions:,} positions ({counts.distinct:,} distinct), "
          f"held by {commit[:12]}, out of the tree in {git_text(root, 'rev-parse', '--short=12', 'HEAD')}; "
          f"a copy in {dest}")
    return 0


def parser() -> argparse.ArgumentParser:
    p, sub = command_parser("records", __doc__, ROOT)

    r = sub.add_parser("restore", help="restore records from the history into an ignored folder")
    r.add_argument("patterns", nargs="*", metavar="PATTERN", help="shell-style name patterns (default: all)")
    r.add_argument("--dest", help=f"folder (default: {RESTORED})")
    r.set_defaults(run=cmd_restore)

    t = sub.add_parser("totals", help="the manifest's totals, by generation and in all")
    t.set_defaults(run=cmd_totals)

    c = sub.add_parser("check", help="the manifest well-formed and every record in its commit")
    c.set_defaults(run=cmd_check)

    land = sub.add_parser("land", help="a new record into the history and the manifest, out of the tree")
    land.add_argument("file", help="the .hgr file")
    land.add_argument("--name", help="its name in data/selfplay (default: the file's own)")
    land.add_argument("--command", required=True, help="the gensfen command that made it")
    land.add_argument("--binary", required=True, help="the binary: commit, Bench, build")
    land.add_argument("--net", required=True, help="the net it played with")
    land.add_argument("--machine", required=True, help="where and how long it ran")
    land.add_argument("--notes", default="", help="anything else worth keeping")
    land.add_argument("--date", default=datetime.datetime.now(datetime.UTC).date().isoformat(),
                      help="the run's date (default: today, UTC)")
    land.add_argument("--engine", help=f"the engine that counts it (default: {ENGINE})")
    land.add_argument("--games", type=int)
    land.add_argument("--positions", type=int)
    land.add_argument("--distinct", type=int)
    land.add_argument("--subject", help="the first commit's subject (default: Data: NAME, N self-play positions)")
    land.add_argument("--dest", help=f"where its restored copy goes (default: {RESTORED})")
    land.add_argument("--dry-run", action="store_true", help="print the row and the steps, change nothing")
    land.set_defaults(run=cmd_land)
    return p


def main(args: argparse.Namespace) -> int:
    args.repo = args.repo.resolve()
    return args.run(args)


if __name__ == "__main__":
    sys.exit(run_cli("records", parser(), main, None))
