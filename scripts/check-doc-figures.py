#!/usr/bin/env python3
"""Checks that no measured figure was lost when the README's records moved into docs/.

The README once held the project's measurement records (net generations, match tables, SPSA
runs, profile-guided build figures) and docs/strength.md held the rest under one heading; both
were rewritten into a short README, manuals beside what they describe, and records by subject.
scripts/doc-figures.txt lists every figure of the two old files (numbers, W-D-L triples and
dates, commit hashes), and this script fails when one of them appears in none of the documents
now: a figure moved by hand is easily dropped, and a record without it cannot be checked again.

    scripts/check-doc-figures.py                 # check (run by `make test`)
    scripts/check-doc-figures.py --write OLD...  # write the list from the old files' text

The list is kept in the repository rather than read from git, so the check runs on a shallow
clone too. A figure is found when it stands as a whole token: 27.8 is not found inside 127.85.
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
LIST = ROOT / "scripts" / "doc-figures.txt"
# Where the records and manuals live now.
DOCS = ["README.md", "docs/*.md", "nets/README.md", "trainer/README.md", "tools/*/README.md"]

# A W-D-L triple or a date; a number with thousands separators or decimals; a commit hash (seven
# hex digits with at least one letter and one digit, so that plain words and numbers are not
# taken for one).
FIGURE = re.compile(
    r"\d+-\d+-\d+"
    r"|\d+(?:,\d{3})*(?:\.\d+)?"
    r"|\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7}\b"
)


def figures(text):
    return set(FIGURE.findall(text))


def tokens_of_docs():
    found = set()
    for pattern in DOCS:
        for path in sorted(ROOT.glob(pattern)):
            found |= figures(path.read_text(encoding="utf-8"))
    return found


def main(argv):
    if argv[:1] == ["--write"]:
        wanted = set()
        for name in argv[1:]:
            wanted |= figures(pathlib.Path(name).read_text(encoding="utf-8"))
        LIST.write_text("".join(f"{f}\n" for f in sorted(wanted)), encoding="utf-8")
        print(f"{len(wanted)} figures written to {LIST.relative_to(ROOT)}")
        return 0
    if argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    wanted = [line for line in LIST.read_text(encoding="utf-8").splitlines() if line]
    # Tokens are compared whole, by the same pattern that made the list, so a figure that stands
    # only inside a longer one is missing.
    present = tokens_of_docs()
    missing = [f for f in wanted if f not in present]
    if missing:
        print(
            f"{len(missing)} of {len(wanted)} figures of the old README and docs/strength.md "
            "are in none of the documents:",
            file=sys.stderr,
        )
        for f in missing:
            print(f"  {f}", file=sys.stderr)
        return 1
    print(f"all {len(wanted)} figures of the old records are in the documents")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
