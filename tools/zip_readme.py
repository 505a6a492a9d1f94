"""The README a release zip carries: the repository's README.md with every link to a file the
zip does not hold turned into its text (a link to a folder's document in a zip of two executables
only leads nowhere), and the links to the files it holds, web addresses and anchors kept.

    python3 -m tools.zip_readme README.md OUT.md --holds docs/options.md [--holds ...]
"""

from __future__ import annotations

import argparse
import re
import sys

from tools.cli import Fatal, run_cli

# `[text](target)`, the target without spaces or parentheses; images (`![`) are left alone.
LINK = re.compile(r"(?<!!)\[([^\]]+)\]\(([^)\s]+)\)")


def local_file(target: str) -> str | None:
    """The repository path a link target names, or None for web addresses and bare anchors."""
    if re.match(r"[a-z][a-z0-9+.-]*:", target, re.IGNORECASE) or target.startswith("#"):
        return None
    return target.split("#", 1)[0]


def unlink_absent(text: str, holds: set[str]) -> tuple[str, list[str]]:
    """`text` with the links to files not in `holds` replaced by their text, and those targets."""
    dropped = []

    def keep_or_drop(m: re.Match[str]) -> str:
        path = local_file(m.group(2))
        if path is None or path in holds:
            return m.group(0)
        dropped.append(m.group(2))
        return m.group(1)

    return LINK.sub(keep_or_drop, text), dropped


def main(args: argparse.Namespace) -> int:
    try:
        with open(args.readme, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise Fatal(f"{args.readme}: {e.strerror}") from None
    out, dropped = unlink_absent(text, set(args.holds))
    try:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(out)
    except OSError as e:
        raise Fatal(f"{args.out}: {e.strerror}") from None
    print(f"zip_readme: {args.out}: {len(dropped)} links to files outside the zip turned into text", file=sys.stderr)
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python3 -m tools.zip_readme", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("readme", help="the README to read")
    p.add_argument("out", help="where the zip's README goes")
    p.add_argument("--holds", action="append", default=[], metavar="PATH",
                   help="a file the zip holds, as the README links to it (repeatable)")
    return p


if __name__ == "__main__":
    sys.exit(run_cli("zip_readme", parser(), main, None))
