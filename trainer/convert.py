"""`hayate tune gen` data (`sfen<TAB>score<TAB>result` lines; result 1 / 0.5 / 0 for the side
to move) -> PackedSfenValue `.bin` records (move 0: those files keep no best move).

    python -m trainer.convert IN.tsv [IN2.tsv ...] --out OUT.bin
"""

import argparse
import sys

import numpy as np

from . import psv, sfen


def convert_lines(lines):
    """(records, number of lines skipped as malformed)."""
    recs = np.zeros(len(lines), psv.DTYPE)
    n = skipped = 0
    for line in lines:
        fields = line.rstrip("\n").split("\t")
        try:
            if len(fields) != 3:
                raise ValueError("expected 3 fields")
            board, hands, stm = sfen.parse(fields[0])
            score = int(fields[1])
            result = float(fields[2])
            if result not in (0.0, 0.5, 1.0):
                raise ValueError(f"result {result}")
            recs[n]["sfen"] = psv.encode(board, hands, stm)
        except ValueError as e:
            print(f"skipped: {e}: {line.strip()[:100]}", file=sys.stderr)
            skipped += 1
            continue
        parts = fields[0].split()
        recs[n]["score"] = max(-32767, min(32767, score))
        recs[n]["gamePly"] = int(parts[3]) if len(parts) > 3 and parts[3].isdigit() else 0
        recs[n]["game_result"] = round(result * 2) - 1
        n += 1
    return recs[:n], skipped


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m trainer.convert", description=__doc__.split("\n")[0])
    p.add_argument("inputs", nargs="+")
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    total = 0
    with open(args.out, "wb") as f:
        for path in args.inputs:
            with open(path) as inp:
                lines = [l for l in inp if l.strip()]
            recs, _skipped = convert_lines(lines)
            f.write(recs.tobytes())
            total += len(recs)
    print(f"wrote {total} records to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
