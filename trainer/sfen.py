"""A small SFEN reader and writer for the position arrays of `features` (tests and tools; the
training data is PackedSfen, see `psv`)."""

import numpy as np

LETTERS = {"P": 1, "L": 2, "N": 3, "S": 4, "B": 5, "R": 6, "G": 7, "K": 8}
PROMOTED = {1: 9, 2: 10, 3: 11, 4: 12, 5: 13, 6: 14}
TYPE_LETTER = {v: k for k, v in LETTERS.items()}
TYPE_LETTER.update({v: "+" + TYPE_LETTER[k] for k, v in PROMOTED.items()})
HAND_ORDER = [6, 5, 7, 4, 3, 2, 1]  # R B G S N L P, as canonical SFENs write hands


def parse(sfen):
    """(board (81,) uint8, hands (2, 8) int16, stm 0/1) of `board side hand [ply]`.

    Raises ValueError on malformed input."""
    parts = sfen.split()
    if parts and parts[0] == "sfen":
        parts = parts[1:]
    if len(parts) < 3:
        raise ValueError(f"SFEN needs board, side and hand: {sfen!r}")
    rows = parts[0].split("/")
    if len(rows) != 9:
        raise ValueError(f"SFEN board needs 9 ranks: {sfen!r}")
    board = np.zeros(81, dtype=np.uint8)
    for rank, row in enumerate(rows):
        file, promote = 9, False
        for ch in row:
            if ch.isdigit():
                file -= int(ch)
            elif ch == "+":
                promote = True
                continue
            elif ch.upper() in LETTERS:
                if file < 1:
                    raise ValueError(f"SFEN rank {rank + 1} too long: {sfen!r}")
                pt = LETTERS[ch.upper()]
                if promote:
                    if pt not in PROMOTED:
                        raise ValueError(f"+{ch} cannot promote: {sfen!r}")
                    pt = PROMOTED[pt]
                board[(file - 1) * 9 + rank] = (0 if ch.isupper() else 16) + pt
                file -= 1
            else:
                raise ValueError(f"bad SFEN character {ch!r}: {sfen!r}")
            promote = False
        if file != 0:
            raise ValueError(f"SFEN rank {rank + 1} has the wrong length: {sfen!r}")
    if parts[1] not in ("b", "w"):
        raise ValueError(f"SFEN side must be b or w: {sfen!r}")
    stm = 0 if parts[1] == "b" else 1
    hands = np.zeros((2, 8), dtype=np.int16)
    if parts[2] != "-":
        count = ""
        for ch in parts[2]:
            if ch.isdigit():
                count += ch
                continue
            pt = LETTERS.get(ch.upper())
            if pt is None or pt == 8:
                raise ValueError(f"bad SFEN hand {parts[2]!r}")
            hands[0 if ch.isupper() else 1, pt] += int(count) if count else 1
            count = ""
    return board, hands, stm


def write(board, hands, stm, ply=1):
    """The canonical SFEN of one position's arrays."""
    ranks = []
    for rank in range(9):
        row, empty = "", 0
        for file in range(9, 0, -1):
            pc = int(board[(file - 1) * 9 + rank])
            if pc == 0:
                empty += 1
                continue
            if empty:
                row, empty = row + str(empty), 0
            letter = TYPE_LETTER[pc & 15]
            row += letter if pc < 16 else letter.lower()
        ranks.append(row + (str(empty) if empty else ""))
    hand = ""
    for color in (0, 1):
        for pt in HAND_ORDER:
            n = int(hands[color][pt])
            if n:
                letter = TYPE_LETTER[pt] if color == 0 else TYPE_LETTER[pt].lower()
                hand += (str(n) if n > 1 else "") + letter
    return f"{'/'.join(ranks)} {'bw'[stm]} {hand or '-'} {ply}"


def parse_many(sfens):
    """Batch arrays (board (N, 81), hands (N, 2, 8), stm (N,)) of a list of SFENs."""
    parsed = [parse(s) for s in sfens]
    board = np.stack([p[0] for p in parsed])
    hands = np.stack([p[1] for p in parsed])
    stm = np.array([p[2] for p in parsed], dtype=np.uint8)
    return board, hands, stm
