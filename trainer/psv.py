"""YaneuraOu's PackedSfenValue records (40 bytes) and a vectorised PackedSfen codec.

Record: `u8 sfen[32] | i16 score | u16 move | u16 gamePly | i8 game_result | u8 pad`; score and
result (+1 win, 0 draw, -1 loss) are from the side to move's point of view.

PackedSfen is a 256-bit stream, least significant bit of each byte first: side to move (1 bit),
black's and white's king squares (7 bits each, 81 = no king), then every other square from
sq 0 (1a) to sq 80 (9i) as a Huffman code, then hand pieces until bit 256:

    board   empty 0 | pawn 01 | lance 0011 | knight 1011 | silver 0111 | gold 01111
            bishop 011111 | rook 111111          (codes written low bit first, as the table's
                                                   values 0x00 0x01 0x03 0x0b 0x07 0x0f 0x1f 0x3f)
            then a promotion bit (not for gold) and a color bit (1 = white)
    hand    the board code without its lowest bit, promotion bit 0 (not for gold), color bit
    box     (pieces in no one's hand, handicap games) a hand code with promotion bit 1; the box
            gold is written as a white "promoted silver"

The decoder reads every record at once: per slot it peeks 8 bits at each record's own cursor and
looks the code up in a 256-entry table, so a million records take a few seconds.
"""

import os

import numpy as np

DTYPE = np.dtype(
    [
        ("sfen", "u1", (32,)),
        ("score", "<i2"),
        ("move", "<u2"),
        ("gamePly", "<u2"),
        ("game_result", "i1"),
        ("padding", "u1"),
    ]
)
assert DTYPE.itemsize == 40

# (code, bits) by piece type: none, pawn, lance, knight, silver, bishop, rook, gold.
HUFFMAN = [(0x00, 1), (0x01, 2), (0x03, 4), (0x0B, 4), (0x07, 4), (0x1F, 6), (0x3F, 6), (0x0F, 5)]
GOLD = 7
BOX = [(0, 0), (0x02, 2), (0x09, 4), (0x0D, 4), (0x0B, 4), (0x2F, 6), (0x3F, 6), (0x1B, 5)]
# Hand pieces in the order the packers write them: pawn, lance, knight, silver, gold, bishop, rook.
HAND_WRITE_ORDER = [1, 2, 3, 4, 7, 5, 6]
PIECE_COUNTS = [0, 18, 4, 4, 4, 2, 2, 4]
# Unpromoted type of each piece type (king and empty: 0).
_RAW = np.array([0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 0], np.uint8)


def _tables():
    """For every 8-bit peek value: (length, piece code) of a board slot and (length, color * 8 +
    type, box flag) of a hand slot. A length of 0 marks a value no code starts with."""
    b_len = np.zeros(256, np.int64)
    b_pc = np.zeros(256, np.uint8)
    h_len = np.zeros(256, np.int64)
    h_ct = np.zeros(256, np.int64)
    h_box = np.zeros(256, bool)
    for v in range(256):
        for pt, (code, bits) in enumerate(HUFFMAN):
            if v & ((1 << bits) - 1) != code:
                continue
            if pt == 0:
                b_len[v], b_pc[v] = 1, 0
                break
            pos, promote = bits, 0
            if pt != GOLD:
                promote, pos = (v >> pos) & 1, pos + 1
            color = (v >> pos) & 1
            b_len[v] = pos + 1
            b_pc[v] = color * 16 + pt + 8 * promote
            break
        for pt, (code, bits) in enumerate(HUFFMAN[1:], start=1):
            hcode, hbits = code >> 1, bits - 1
            if v & ((1 << hbits) - 1) != hcode:
                continue
            pos, promote = hbits, 0
            if pt != GOLD:
                promote, pos = (v >> pos) & 1, pos + 1
            color = (v >> pos) & 1
            h_len[v], h_ct[v], h_box[v] = pos + 1, color * 8 + pt, bool(promote)
            break
    return b_len, b_pc, h_len, h_ct, h_box


_B_LEN, _B_PC, _H_LEN, _H_CT, _H_BOX = _tables()


def _peek(flat, base, cursor, width):
    """`width` (<= 9) bits at each record's bit `cursor` (low bit first)."""
    idx = base + (cursor >> 3)
    v = flat[idx].astype(np.int64) | (flat[idx + 1].astype(np.int64) << 8)
    return (v >> (cursor & 7)) & ((1 << width) - 1)


def decode(sfen_bytes):
    """Decodes (N, 32) uint8 PackedSfens.

    Returns `(board (N, 81) uint8, hands (N, 2, 8) int16, stm (N,) uint8, ok (N,) bool)`; `ok`
    is False for a record that is not a valid PackedSfen of a position with both kings (bad
    code, a stream that does not end exactly at bit 256, more pieces than a game has)."""
    data = np.asarray(sfen_bytes, dtype=np.uint8).reshape(-1, 32)
    n = data.shape[0]
    padded = np.zeros((n, 34), np.uint8)
    padded[:, :32] = data
    flat = padded.ravel()
    base = np.arange(n, dtype=np.int64) * 34
    cursor = np.zeros(n, np.int64)
    ok = np.ones(n, bool)

    stm = _peek(flat, base, cursor, 1).astype(np.uint8)
    bk = _peek(flat, base, cursor + 1, 7)
    wk = _peek(flat, base, cursor + 8, 7)
    cursor += 15
    ok &= (bk < 81) & (wk < 81) & (bk != wk)

    board = np.zeros((n, 81), np.uint8)
    for sq in range(81):
        free = (bk != sq) & (wk != sq)
        v = _peek(flat, base, cursor, 8)
        ln = _B_LEN[v]
        ok &= ~free | (ln > 0)
        board[:, sq] = np.where(free, _B_PC[v], 0)
        cursor += np.where(free, ln, 0)
        ok &= cursor <= 256
        cursor = np.minimum(cursor, 256)
    rows = np.arange(n)
    board[rows, np.minimum(bk, 80)] = np.where(bk < 81, 8, board[rows, np.minimum(bk, 80)])
    board[rows, np.minimum(wk, 80)] = np.where(wk < 81, 24, board[rows, np.minimum(wk, 80)])

    hands = np.zeros((n, 16), np.int16)
    for _ in range(40):  # at most 38 hand or box pieces
        active = cursor < 256
        if not active.any():
            break
        v = _peek(flat, base, cursor, 8)
        ln = np.where(active, _H_LEN[v], 0)
        ok &= ~active | (ln > 0)
        take = active & (ln > 0) & ~_H_BOX[v]
        np.add.at(hands, (rows[take], _H_CT[v][take]), 1)
        cursor += np.where(active, np.where(ln > 0, ln, 512), 0)  # a bad code ends the record
    ok &= cursor == 256
    hands = hands.reshape(n, 2, 8)

    raw = _RAW[board & 15]
    for pt in range(1, 8):
        total = (raw == pt).sum(axis=1) + hands[:, 0, pt] + hands[:, 1, pt]
        ok &= total <= PIECE_COUNTS[pt]
    return board, hands, stm, ok


class _Writer:
    def __init__(self):
        self.bits = []

    def put(self, value, n):
        self.bits.extend((value >> i) & 1 for i in range(n))


def encode(board, hands, stm):
    """The 32-byte PackedSfen of one position (board (81,) piece codes, hands (2, 8), stm),
    byte-identical to YaneuraOu's and cshogi's packers. Raises ValueError for a position that
    does not fit (a missing king, more pieces of a kind than a game has)."""
    w = _Writer()
    w.put(int(stm), 1)
    kings = []
    for color in (0, 1):
        where = np.nonzero(np.asarray(board) == color * 16 + 8)[0]
        if len(where) != 1:
            raise ValueError("PackedSfen needs exactly one king of each color")
        kings.append(int(where[0]))
        w.put(kings[-1], 7)
    left = list(PIECE_COUNTS)
    for sq in range(81):
        pc = int(board[sq])
        if sq in kings:
            continue
        pt = pc & 15
        raw = int(_RAW[pt])
        code, bits = HUFFMAN[raw]
        w.put(code, bits)
        if pc == 0:
            continue
        if raw != GOLD:
            w.put(1 if pt > 8 else 0, 1)
        w.put(pc >> 4, 1)
        left[raw] -= 1
    for color in (0, 1):
        for pt in HAND_WRITE_ORDER:
            code, bits = HUFFMAN[pt]
            for _ in range(int(hands[color][pt])):
                w.put(code >> 1, bits - 1)
                if pt != GOLD:
                    w.put(0, 1)
                w.put(color, 1)
            left[pt] -= int(hands[color][pt])
    for pt in HAND_WRITE_ORDER:
        if left[pt] < 0:
            raise ValueError("more pieces than a game has")
        code, bits = BOX[pt]
        for _ in range(left[pt]):
            w.put(code, bits)
            if pt != GOLD:
                w.put(0, 1)
    if len(w.bits) != 256:
        raise ValueError(f"PackedSfen came to {len(w.bits)} bits")
    return np.packbits(np.array(w.bits, np.uint8), bitorder="little")


def read(path):
    """The records of a `.bin` file (memory-mapped). Raises ValueError if its size is not a
    multiple of 40 bytes."""
    size = os.path.getsize(path)
    if size % DTYPE.itemsize:
        raise ValueError(f"{path}: {size} bytes is not a whole number of 40-byte records")
    if size == 0:
        return np.zeros(0, DTYPE)
    return np.memmap(path, dtype=DTYPE, mode="r")
