"""Tab-separated tables with a header line of column names, one row per line, each line ended by a
newline: the form of the results ledger (`tools.ledger`) and the self-play manifest
(`tools.records`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tools.cli import Fatal


def split_rows(text: str, columns: list[str]) -> tuple[list[tuple[int, dict[str, str]]], list[str]]:
    """The rows of `text` with their line numbers (1-based), and the problems of its layout: the
    last newline, the header, the number of fields of each line (such a line gives no row)."""
    problems = []
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    else:
        problems.append("the file does not end with a newline")
    if not lines or lines[0] != "\t".join(columns):
        problems.append("line 1: the header is not " + " TAB ".join(columns))
    rows = []
    for n, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != len(columns):
            problems.append(f"line {n}: {len(fields)} fields, not {len(columns)}")
            continue
        rows.append((n, dict(zip(columns, fields, strict=True))))
    return rows, problems


def format_row(row: dict[str, str], columns: list[str], table: str) -> str:
    """The line of `row`; a value holding a tab or line break is refused (`table` names it)."""
    for col in columns:
        if any(c in row[col] for c in "\t\n\r"):
            raise Fatal(f"the {col} of a {table} row may hold no tab or line break: {row[col]!r}")
    return "\t".join(row[c] for c in columns) + "\n"


def read_rows(
    path: Path,
    parse: Callable[[str], tuple[list[dict[str, str]], list[str]]],
    check_command: str,
) -> list[dict[str, str]]:
    """The rows of the table at `path` as `parse` reads them; a problem ends the program with the
    list, pointing at `check_command`."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise Fatal(f"{path}: {e.strerror}") from None
    rows, problems = parse(text)
    if problems:
        raise Fatal(f"{path.name} is malformed ({len(problems)} problems; `{check_command}`):\n  "
                    + "\n  ".join(problems))
    return rows
