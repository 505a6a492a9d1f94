"""The openings of a book that a node-limited `match` run has not reached: a file for the run that
carries its SPRT on without replaying a game.

    python3 -m tools.unplayed_openings BOOK SEED GAMES [--concurrency C] > rest.txt

A node-limited game with one thread is fixed by its opening and colours, so a second run over the
same openings replays the first run's games (docs/strength.md, "How the matches are run").
`match` (../shared/tools/match) takes the book's lines that are neither blank nor `#` comments,
shuffles them with Python's `random.Random(SEED)`, and plays game pair i on line i of that order,
colours swapped. A run stopped after GAMES games has started at most GAMES / 2 + C pairs (C games
at once, finished out of order), so this writes the shuffled lines from there on, after a comment
naming what it left out. Pass the result with `--openings` and any seed.
"""
import argparse
import random
import sys


def main() -> int:
    p = argparse.ArgumentParser(prog="python3 -m tools.unplayed_openings", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("book", help="the openings file the run used")
    p.add_argument("seed", type=int, help="the run's --seed")
    p.add_argument("games", type=int, help="games the run finished (its last `game N:` line)")
    p.add_argument("--concurrency", type=int, default=2, help="the run's --concurrency (default 2)")
    args = p.parse_args()
    if args.games < 0 or args.concurrency < 1:
        p.error("games must be >= 0 and concurrency >= 1")
    try:
        with open(args.book, encoding="utf-8") as f:
            lines = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    except OSError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    random.Random(args.seed).shuffle(lines)
    used = args.games // 2 + args.concurrency
    if used >= len(lines):
        print(f"error: the run may have reached all {len(lines)} openings of {args.book}", file=sys.stderr)
        return 1
    try:
        print(f"# {args.book} less the first {used} openings of --seed {args.seed} (a run of {args.games} games)")
        for line in lines[used:]:
            print(line)
        sys.stdout.flush()
    except BrokenPipeError:
        # A reader that stops early (`| head`) is not an error.
        sys.stdout = None
    return 0


if __name__ == "__main__":
    sys.exit(main())
