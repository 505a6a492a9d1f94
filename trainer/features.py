"""HalfKP features exactly as Hayate computes them (src/eval/nnue/features.rs), vectorised.

Squares: `sq = (file - 1) * 9 + (rank - 1)`. Pieces: `color * 16 + type` with Hayate's (and
YaneuraOu's) type numbers: 1 pawn, 2 lance, 3 knight, 4 silver, 5 bishop, 6 rook, 7 gold, 8 king,
9..12 promoted pawn/lance/knight/silver, 13 horse, 14 dragon; color 0 black, 1 white.
A position batch is `board` (N, 81) piece codes, `hands` (N, 2, 8) counts indexed
`[color][type]` (types 1..7), `stm` (N,) 0/1.

Every position is reduced to its 38 BonaPieces as black sees them (`bp`, (N, 38) uint16, padded
with BonaPiece 0 for pieces missing in handicap positions) and the two king squares. White's
BonaPieces are `FLIP[bp]` and white's king square is `80 - sq`, so one array serves both views.
"""

import numpy as np

from .nnbin import FE_END

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


BOARD_BP = _board_table()
HAND_SLOTS, HAND_BP = _hand_table()
FLIP = _flip_table()
MIRROR_SQ = _mirror_squares()
MIRROR = _mirror_table()
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


def feature_indices(bp, kings, perspective):
    """(N, 38) int64 HalfKP feature indices of one perspective (0 black, 1 white)."""
    bp = bp.astype(np.int64)
    if perspective == 0:
        return kings[:, 0].astype(np.int64)[:, None] * FE_END + bp
    return (80 - kings[:, 1].astype(np.int64))[:, None] * FE_END + FLIP[bp]
