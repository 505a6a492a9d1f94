"""Training data: PackedSfenValue `.bin` files -> compact position arrays (numpy only).

A position is kept as its 38 BonaPieces from black's view (uint16), the two king squares, the
side to move, the search score and the game result (84 bytes); `features` turns that into both
perspectives' feature rows of the net's feature set per batch. Decoding runs once at start-up, vectorised over a
million records at a time.
"""

import glob
import os
import sys
import time
from dataclasses import dataclass

import numpy as np

from . import features, psv


@dataclass
class Positions:
    bp: np.ndarray  # (N, 38) uint16, black's view
    kings: np.ndarray  # (N, 2) uint8, black's and white's king squares
    stm: np.ndarray  # (N,) uint8, 0 black to move
    score: np.ndarray  # (N,) int16, side to move's view
    result: np.ndarray  # (N,) int8, +1 win / 0 draw / -1 loss for the side to move

    def __len__(self):
        return len(self.stm)

    def take(self, idx):
        return Positions(self.bp[idx], self.kings[idx], self.stm[idx], self.score[idx], self.result[idx])

    def mirrored(self):
        """The same positions reflected left-right (`features.mirror`)."""
        bp, kings = features.mirror(self.bp, self.kings)
        return Positions(bp, kings, self.stm, self.score, self.result)

    @staticmethod
    def concat(parts):
        return Positions(*(np.concatenate([getattr(p, f) for p in parts]) for f in Positions.FIELDS))


Positions.FIELDS = ("bp", "kings", "stm", "score", "result")


def list_files(specs):
    """The `.bin` files named by `specs` (files, directories searched recursively, globs), sorted
    within each spec. Raises FileNotFoundError when a spec names nothing."""
    out = []
    for spec in specs:
        if os.path.isdir(spec):
            found = sorted(glob.glob(os.path.join(spec, "**", "*.bin"), recursive=True))
        elif os.path.isfile(spec):
            found = [spec]
        else:
            found = sorted(glob.glob(spec))
        if not found:
            raise FileNotFoundError(f"no .bin data at {spec}")
        out += found
    return out


def decode_records(records, max_score=None):
    """(Positions of the usable records, number dropped): a record is dropped when its PackedSfen
    is not a valid position with both kings, or when |score| > max_score."""
    board, hands, stm, ok = psv.decode(records["sfen"])
    score = np.asarray(records["score"], np.int16)
    if max_score is not None:
        ok &= np.abs(score.astype(np.int32)) <= max_score
    result = np.asarray(records["game_result"], np.int8)
    ok &= np.abs(result) <= 1
    keep = np.nonzero(ok)[0]
    pos = Positions(
        bp=features.black_bona_pieces(board[keep], hands[keep]),
        kings=features.king_squares(board[keep]),
        stm=stm[keep],
        score=score[keep],
        result=result[keep],
    )
    return pos, len(ok) - len(keep)


def load(specs, max_score=None, limit=None, chunk=1 << 20, log=sys.stderr):
    """Every usable position of the files `specs` name (at most `limit`)."""
    parts, dropped, seen = [], 0, 0
    t0 = time.time()
    for path in list_files(specs):
        records = psv.read(path)
        for lo in range(0, len(records), chunk):
            if limit is not None and seen >= limit:
                break
            hi = min(lo + chunk, len(records))
            if limit is not None:
                hi = min(hi, lo + limit - seen)
            pos, bad = decode_records(records[lo:hi], max_score)
            parts.append(pos)
            dropped += bad
            seen += hi - lo
    if not parts:
        raise ValueError(f"no records in {specs}")
    out = Positions.concat(parts)
    if log:
        dt = time.time() - t0
        print(
            f"data: {len(out)} positions from {seen} records ({dropped} dropped) in {dt:.1f} s",
            file=log,
        )
    return out


def split(pos: Positions, val_fraction, block=1000, seed=0):
    """(train, validation): whole blocks of `block` consecutive records go to validation, so
    that positions of one game rarely sit on both sides."""
    if val_fraction <= 0:
        return pos, pos.take(np.arange(0))
    block = max(1, min(block, len(pos) // 50))
    nblocks = (len(pos) + block - 1) // block
    rng = np.random.default_rng(seed)
    val_blocks = rng.random(nblocks) < val_fraction
    if nblocks > 1 and not val_blocks.any():
        val_blocks[rng.integers(nblocks)] = True
    in_val = np.repeat(val_blocks, block)[: len(pos)]
    return pos.take(np.nonzero(~in_val)[0]), pos.take(np.nonzero(in_val)[0])
