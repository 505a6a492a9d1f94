"""Writes tests/data/psv_golden.{bin,tsv} with cshogi, as an independent reference for Hayate's
PackedSfenValue writer and reader (tests/psv_golden.rs). Not run by `make test`; run it again only
to change the golden data:

    make tools-venv   # .venv/tools: numpy and cshogi 1.1.0, the version the data was made with
    .venv/tools/bin/python -m tools.psv_golden

Records: positions from seeded random games (drops, promotions, full hands) and a few composed
positions with pieces out of the game; each with the move cshogi's random player chose in
YaneuraOu's 16-bit encoding, a made-up score, the move number and a made-up result. The .tsv holds
the same records as text (sfen, USI move, score, ply, result), one a line, in the .bin's order.
"""
import random
import sys
from pathlib import Path

import cshogi
import numpy as np

COMPOSED = [
    "3lkl3/9/4G4/9/9/9/9/9/4K4 b P 1",
    "4k4/9/9/9/9/9/9/9/4K4 b 2R2B4G4S4N4L18P 1",
    "4k4/9/9/9/9/9/9/9/4K4 w 2r2b4g4s4n4l18p 30",
    "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
    "k8/9/9/9/9/9/9/9/8K b - 1",
]


def main() -> None:
    out = Path(__file__).resolve().parent.parent / "tests" / "data"
    rng = random.Random(20240514)
    boards = []
    for sfen in COMPOSED:
        boards.append(cshogi.Board(sfen))
    for _game in range(12):
        board = cshogi.Board()
        for _ply in range(rng.randrange(60, 220)):
            moves = list(board.legal_moves)
            if not moves or board.is_game_over():
                break
            board.push(rng.choice(moves))
            if rng.random() < 0.12:
                boards.append(board.copy())
    records = np.zeros(len(boards), dtype=cshogi.PackedSfenValue)
    lines = []
    for i, board in enumerate(boards):
        moves = list(board.legal_moves)
        if not moves:
            print("a position without legal moves:", board.sfen(), file=sys.stderr)
            sys.exit(1)
        move = rng.choice(moves)
        score = rng.randrange(-32000, 32001)
        result = rng.choice([-1, 0, 1])
        board.to_psfen(records[i]["sfen"])
        records[i]["score"] = score
        records[i]["move"] = cshogi.move16_to_psv(cshogi.move16(move))
        records[i]["gamePly"] = board.move_number
        records[i]["game_result"] = result
        lines.append(f"{board.sfen()}\t{cshogi.move_to_usi(move)}\t{score}\t{board.move_number}\t{result}\n")
    records.tofile(out / "psv_golden.bin")
    (out / "psv_golden.tsv").write_text("".join(lines))
    print(f"{len(boards)} records", file=sys.stderr)


if __name__ == "__main__":
    main()
