"""Asking the Hayate binary for its evaluations, and checking a net against them.

    python -m trainer.engine --engine target/release/hayate --net nn.bin --data FILE.bin [--count 500]

decodes positions from PackedSfenValue data, evaluates them with the trainer's integer forward
pass and with the engine (`setoption name EvalFile`, `position sfen`, `eval`), and reports
whether every value is equal.
"""

import argparse
import re
import subprocess
import sys

import numpy as np

from . import features, nnbin, psv, quant, sfen


def engine_evals(binary, net_path, sfens, fv_scale=nnbin.DEFAULT_FV_SCALE, timeout=600, shape=None):
    """The engine's `eval` of every SFEN with the net at `net_path`. Raises RuntimeError when the
    engine does not load the net (as a net of `shape`, when given) or answers a different
    number of lines."""
    lines = [
        f"setoption name EvalFile value {net_path}",
        f"setoption name FV_SCALE value {fv_scale}",
        "isready",
    ]
    for s in sfens:
        lines += [f"position sfen {s}", "eval"]
    lines.append("quit")
    out = subprocess.run(
        [binary], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=timeout, check=False
    ).stdout
    if "NNUE loaded" not in out:
        info = [l for l in out.splitlines() if l.startswith("info string")]
        raise RuntimeError(f"engine did not load {net_path}: {info}")
    loaded = [l for l in out.splitlines() if "NNUE loaded" in l]
    if shape is not None and not any(re.search(rf": {re.escape(str(shape))}(\s|$)", l) for l in loaded):
        raise RuntimeError(f"engine did not load {net_path} as {shape}: {loaded}")
    evals = [int(l.split("=", 1)[1]) for l in out.splitlines() if l.startswith("eval =")]
    if len(evals) != len(sfens):
        raise RuntimeError(f"engine answered {len(evals)} evals for {len(sfens)} positions")
    return np.array(evals, np.int64)


def trainer_evals(net, sfens, fv_scale=nnbin.DEFAULT_FV_SCALE):
    """The trainer's integer evaluations of the SFENs, through the PackedSfen codec (each
    position is packed and decoded first, as training data is)."""
    board, hands, stm = sfen.parse_many(sfens)
    packed = np.stack([psv.encode(b, h, s) for b, h, s in zip(board, hands, stm)])
    board2, hands2, stm2, ok = psv.decode(packed)
    if not ok.all():
        raise ValueError("a position did not survive PackedSfen")
    return quant.quant_eval(
        net, features.black_bona_pieces(board2, hands2), features.king_squares(board2), stm2, fv_scale
    )


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m trainer.engine", description=__doc__.split("\n")[0])
    p.add_argument("--engine", required=True)
    p.add_argument("--net", required=True)
    p.add_argument("--data", required=True, help="a PackedSfenValue .bin file")
    p.add_argument("--count", type=int, default=500)
    p.add_argument("--fv-scale", type=int, default=nnbin.DEFAULT_FV_SCALE)
    args = p.parse_args(argv)
    recs = psv.read(args.data)[: args.count]
    board, hands, stm, ok = psv.decode(recs["sfen"])
    sfens = [sfen.write(b, h, s) for b, h, s, k in zip(board, hands, stm, ok) if k]
    net = nnbin.read(args.net)
    mine = trainer_evals(net, sfens, args.fv_scale)
    theirs = engine_evals(args.engine, args.net, sfens, args.fv_scale, shape=net.shape)
    bad = np.nonzero(mine != theirs)[0]
    for i in bad[:10]:
        print(f"differs: {sfens[i]}: trainer {mine[i]}, engine {theirs[i]}", file=sys.stderr)
    print(f"{net.shape}: {len(sfens) - len(bad)} of {len(sfens)} evaluations equal")
    sys.exit(1 if len(bad) else 0)


if __name__ == "__main__":
    main()
