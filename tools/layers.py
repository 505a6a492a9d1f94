"""The import rules of `src/`, checked (`make layers-check`, part of `make check`):

1. Layers: a top-level module uses only modules of the layers below its own (the map of
   `src/lib.rs`; the table `LAYERS` below is that map), never one of its own layer or above.
2. No circles: within a module, the files that use each other (`super::x`, `crate::m::x`) form
   no circle, so that each file can be read knowing only those below it.

Uses are `super::` and `crate::` paths (and `hayate::` in `src/main.rs`) outside comments and
`#[cfg(test)] mod tests`; the module a path names is its first one or two components.

    python3 -m tools.layers check [--src DIR]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from tools.cli import Fatal, command_parser, run_cli

ROOT = Path(__file__).resolve().parent.parent

# Top to bottom, as src/lib.rs draws them (its front ends in their order of use: the command
# line, src/main.rs, over all; the web front end over usi); `main` is src/main.rs.
LAYERS: list[list[str]] = [
    ["main"],
    ["web"],
    ["usi", "csa"],
    ["tools"],
    ["engine"],
    ["search", "mate"],
    ["eval"],
    ["position"],
    ["attacks", "zobrist"],
    ["bitboard"],
    ["types"],
    ["sys", "splitmix"],
]

COMMENT = re.compile(r"//[^\n]*")
TESTS = re.compile(r"#\[cfg\(test\)\]\s*mod tests\b")


def module_of(path: Path, src: Path) -> tuple[str, ...]:
    """The module path of a source file: src/search/tt.rs is (search, tt), src/eval/mod.rs (eval,)."""
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "mod":
        parts.pop()
    return tuple(parts)


def uses(path: Path, src: Path) -> set[tuple[str, ...]]:
    """The modules `path` uses, each as the module path of the item's file or folder."""
    text = COMMENT.sub("", path.read_text(encoding="utf-8"))
    m = TESTS.search(text)
    if m:
        text = text[: m.start()]
    me = module_of(path, src)
    # `super` is the parent of a file's module; a mod.rs is its folder's module itself.
    parent = me[:-1]
    found = set()
    for m in re.finditer(r"\bsuper::(\w+)", text):
        found.add((*parent, m.group(1)))
    root = "hayate" if me == ("main",) else "crate"
    for m in re.finditer(rf"\b{root}::(\w+)(?:::(\w+))?", text):
        found.add(tuple(g for g in m.groups() if g))
    found.discard(me)
    return found


def graph(src: Path) -> dict[tuple[str, ...], set[tuple[str, ...]]]:
    files = sorted(p for p in src.rglob("*.rs") if p.name != "lib.rs")
    if not files:
        raise Fatal(f"{src}: no Rust files")
    out: dict[tuple[str, ...], set[tuple[str, ...]]] = {}
    for p in files:
        out.setdefault(module_of(p, src), set()).update(uses(p, src))
    return out


def layer_problems(g: dict[tuple[str, ...], set[tuple[str, ...]]]) -> list[str]:
    level = {name: i for i, row in enumerate(LAYERS) for name in row}
    problems = []
    for mod in sorted(g):
        top = mod[0]
        if top not in level:
            problems.append(f"{'/'.join(mod)}: the module {top} is in no layer of tools/layers.py")
            continue
        for other in sorted({used[0] for used in g[mod]}):
            if other == top or other not in level:
                continue
            if level[other] <= level[top]:
                where = "its own layer" if level[other] == level[top] else "a layer above"
                problems.append(f"{'/'.join(mod)} uses {other}, of {where}")
    return problems


def circles(g: dict[tuple[str, ...], set[tuple[str, ...]]]) -> list[list[tuple[str, ...]]]:
    """The circles among the files of each module: strongly connected groups of two or more."""
    siblings = {m: {u for u in used if len(u) == len(m) and u[:-1] == m[:-1] and u in g} for m, used in g.items()}
    index: dict[tuple[str, ...], int] = {}
    low: dict[tuple[str, ...], int] = {}
    stack: list[tuple[str, ...]] = []
    found = []

    def visit(v: tuple[str, ...]) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(siblings[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(siblings):
        if v not in index:
            visit(v)
    return found


def main(args: argparse.Namespace) -> int:
    g = graph(args.src)
    problems = layer_problems(g)
    problems += ["a circle: " + " <-> ".join("/".join(m) for m in c) for c in circles(g)]
    if problems:
        print(f"layers check: {len(problems)} problems:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 1
    edges = sum(len(v) for v in g.values())
    print(f"layers check: {len(g)} files, {edges} uses; every use goes to a layer below or within its module, "
          "and no files use each other in a circle")
    return 0


def parser() -> argparse.ArgumentParser:
    p, sub = command_parser("layers", __doc__)
    c = sub.add_parser("check", help="the layers and the circles of src/")
    c.add_argument("--src", type=Path, default=ROOT / "src", help="the source folder (default: this repository's src)")
    return p


if __name__ == "__main__":
    sys.exit(run_cli("layers", parser(), main, None))
