"""The features of every feature set exactly as Hayate computes them (src/eval/nnue/features.rs,
bona.rs), vectorised.

Squares: `sq = (file - 1) * 9 + (rank - 1)`. Pieces: `color * 16 + type` with Hayate's (and
YaneuraOu's) type numbers: 1 pawn, 2 lance, 3 knight, 4 silver, 5 bishop, 6 rook, 7 gold, 8 king,
9..12 promoted pawn/lance/knight/silver, 13 horse, 14 dragon; color 0 black, 1 white.
A position batch is `board` (N, 81) piece codes, `hands` (N, 2, 8) counts indexed
`[color][type]` (types 1..7), `stm` (N,) 0/1.

Every position is reduced to its 38 BonaPieces as black sees them (`bp`, (N, 38) uint16, padded
with BonaPiece 0 for pieces missing in handicap positions) and the two king squares. White's
BonaPieces are `FLIP[bp]` and white's king square is `80 - sq`, so one array serves both views.
A perspective whose feature set lists the kings adds its own king `1548 + k` and the enemy king
`1629 + sq` (both oriented), and `ROW[k, bp]` (`row_table`) is the row of BonaPiece `bp` with the
own king on `k` (mirroring and folding included, `nnbin.FeatureSet`).
"""

import functools

import numpy as np

from .nnbin import CLASSIC, E_KING, FE_END, FE_END2

PIECES = 38
KING = 8
BOARD_BASE = [0, 90, 252, 414, 576, 900, 1224, 738, 0, 738, 738, 738, 738, 1062, 1386]
HAND_START = [(0, 0), (1, 20), (39, 44), (49, 54), (59, 64), (79, 82), (85, 88), (69, 74)]
HAND_MAX = [0, 18, 4, 4, 4, 2, 2, 4]  # pieces of each hand kind in a game


def _board_table():
    """BOARD_BP[piece, sq]: black's BonaPiece of `piece` on `sq`, -1 for empty and kings."""
    t = np.full((32, 81), -1, dtype=np.int16)
    for color in (0, 1):
        for pt in range(1, 15):
            if pt == KING:
                continue
            for sq in range(81):
                t[color * 16 + pt, sq] = BOARD_BASE[pt] + (81 if color else 0) + sq
    return t


def _hand_table():
    """HAND_BP[slot]: black's BonaPiece of hand slot (color, type, k) in `HAND_SLOTS` order."""
    slots, bps = [], []
    for color in (0, 1):
        for pt in range(1, 8):
            for k in range(1, HAND_MAX[pt] + 1):
                slots.append((color, pt, k))
                bps.append(HAND_START[pt][color] + k - 1)
    return slots, np.array(bps, dtype=np.int16)


def _flip_table():
    """FLIP[bp]: the BonaPiece white sees for the piece black sees as `bp` (own <-> enemy,
    squares rotated by 180 degrees). Unused hand numbers map to themselves."""
    f = np.arange(FE_END, dtype=np.int64)
    for pt in range(1, 8):
        own, enemy = HAND_START[pt]
        for k in range(HAND_MAX[pt]):
            f[own + k], f[enemy + k] = enemy + k, own + k
    for base in sorted(set(BOARD_BASE[1:]) - {0}):
        for sq in range(81):
            f[base + sq], f[base + 81 + sq] = base + 81 + 80 - sq, base + 80 - sq
    return f


def _mirror_squares():
    """MIRROR_SQ[sq]: the square reflected left-right (file f -> 10 - f, same rank)."""
    sq = np.arange(81)
    return (8 - sq // 9) * 9 + sq % 9


def _mirror_table():
    """MIRROR[bp]: the BonaPiece of the same piece on the mirrored square; hand pieces (and
    unused numbers) map to themselves."""
    m = np.arange(FE_END, dtype=np.int64)
    for base in sorted(set(BOARD_BASE[1:]) - {0}):
        for off in (0, 81):
            m[base + off + np.arange(81)] = base + off + MIRROR_SQ
    return m


def _mirror_table2():
    """The file-wise mirror of every BonaPiece up to 1710: board pieces and kings move to the
    mirrored square, pieces in hand stay."""
    m = np.arange(FE_END2, dtype=np.int64)
    p = np.arange(90, FE_END2)
    m[90:] = 90 + (p - 90) // 81 * 81 + MIRROR_SQ[(p - 90) % 81]
    return m


BOARD_BP = _board_table()
HAND_SLOTS, HAND_BP = _hand_table()
FLIP = _flip_table()
MIRROR_SQ = _mirror_squares()
MIRROR = _mirror_table()
MIRROR2 = _mirror_table2()
_SLOT_COLOR = np.array([s[0] for s in HAND_SLOTS])
_SLOT_TYPE = np.array([s[1] for s in HAND_SLOTS])
_SLOT_K = np.array([s[2] for s in HAND_SLOTS])


def black_bona_pieces(board, hands):
    """(N, 38) uint16: the BonaPieces of every non-king piece as black sees them, in no
    particular order; missing pieces (handicap) are BonaPiece 0. Positions with more than 38
    pieces (never from a packed sfen) keep 38 of them."""
    n = board.shape[0]
    on_board = BOARD_BP[board.astype(np.int64), np.arange(81)]  # (N, 81)
    counts = hands[:, _SLOT_COLOR, _SLOT_TYPE]  # (N, 76)
    in_hand = np.where(counts >= _SLOT_K, HAND_BP, -1).astype(np.int16)
    cand = np.concatenate([on_board, in_hand], axis=1)
    valid = cand >= 0
    full = valid.sum(axis=1) == PIECES  # every game position: one boolean gather does it
    out = np.zeros((n, PIECES), np.uint16)
    out[full] = cand[full][valid[full]].reshape(-1, PIECES)
    for i in np.nonzero(~full)[0]:  # handicap (fewer pieces) or over-full composed positions
        v = cand[i][valid[i]][:PIECES]
        out[i, : len(v)] = v
    return out


def mirror(bp, kings):
    """The BonaPieces and king squares of the left-right mirrored positions: shogi's rules and
    so a position's value are the same in the mirror, which doubles the training data."""
    k = np.asarray(kings).astype(np.int64)
    mk = np.where(k < 81, MIRROR_SQ[np.minimum(k, 80)], k).astype(np.uint8)
    return MIRROR[np.asarray(bp).astype(np.int64)].astype(np.uint16), mk


def king_squares(board):
    """(N, 2) uint8: black's and white's king squares (81 where a king is missing)."""
    n = board.shape[0]
    out = np.full((n, 2), 81, dtype=np.uint8)
    for color in (0, 1):
        rows, sqs = np.nonzero(board == color * 16 + KING)
        out[rows, color] = sqs
    return out


@functools.cache
def row_table(fs):
    """ROW (81, 1710) int64: the row of BonaPiece `bp` for a perspective of feature set `fs`
    (an `nnbin.FeatureSet`) whose own king stands on `k` (oriented): `ROW[k, bp]`. Entries of
    BonaPieces the set does not list (kings in halfkp, halfkpvm) are -1."""
    t = np.full((81, FE_END2), -1, np.int64)
    top = FE_END2 if fs.kings else FE_END
    bp = np.arange(top)
    for k in range(81):
        mirrored = fs.mirror and k >= 45
        b = MIRROR2[bp] if mirrored else bp
        if fs.fold:
            b = np.where(b >= E_KING, b - 81, b)
        bucket = 0 if fs.buckets == 1 else (MIRROR_SQ[k] if mirrored else k)
        t[k, :top] = fs.plane * bucket + b
    return t


def perspective_pieces(bp, kings, perspective, fs):
    """(own king squares (N,), BonaPieces (N, 38, or 40 with the kings)) of one perspective (0
    black, 1 white) as it sees the positions, for feature set `fs`."""
    bp = np.asarray(bp).astype(np.int64)
    kings = np.asarray(kings).astype(np.int64)
    if perspective == 0:
        own, enemy, pieces = kings[:, 0], kings[:, 1], bp
    else:
        own, enemy, pieces = 80 - kings[:, 1], 80 - kings[:, 0], FLIP[bp]
    if fs.kings:
        pieces = np.concatenate([pieces, (FE_END + own)[:, None], (E_KING + enemy)[:, None]], axis=1)
    return own, pieces


def feature_indices(bp, kings, perspective, shape=CLASSIC):
    """(N, 38) int64 feature rows of one perspective (0 black, 1 white) in `shape`'s feature set
    (a `nnbin.Shape` or `nnbin.FeatureSet`; (N, 40) for the sets that list the kings)."""
    fs = getattr(shape, "features", shape)
    k, pieces = perspective_pieces(bp, kings, perspective, fs)
    return row_table(fs)[k[:, None], pieces]
