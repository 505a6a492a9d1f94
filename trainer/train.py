"""Train a net (default halfkp_256x2-32-32; `--arch SHAPE`) from PackedSfenValue data and export
it as `nn.bin`.

    python -m trainer.train --data DIR_OR_FILES... --out nn.bin [--epochs 10] [--lambda 0.5]
        [--arch halfkahm2_256x2-32-32]

Loss: mean squared difference between the net's win probability `sigmoid(eval / K)` and the
target `lambda * sigmoid(score / K) + (1 - lambda) * (result + 1) / 2`. K (`--scale`) is by
default fitted to the data (the K for which `sigmoid(score / K)` best predicts the results, as
`hayate tune fit` does): then the score term and the result term agree on what a score means, and
the net keeps the search's units. The field's fixed 600 assumes YaneuraOu-like scores from deep
searches; low-node self-play scores predict results less sharply (K ~ 1200 on Hayate's
`tune gen` data), and a K of 600 would pull the net's evaluations towards zero. Each epoch prints the train and
validation loss to stderr and appends them to a CSV; the checkpoint (model and optimizer) is
rewritten after every epoch and `--resume` continues from it. The net is exported after every
epoch whose validation loss is the lowest so far (`--select best`, the default: with data of a
million positions the net overfits after a handful of epochs, and the last epoch is not the best),
or after every epoch (`--select last`); either way the `nn.bin` on disk is always usable.
`--patience N` stops after N epochs without a new lowest validation loss.
"""

import argparse
import csv
import math
import os
import sys
import time

import numpy as np
import torch

from . import compact, data, features, nnbin, quant
from .model import Net


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="python -m trainer.train", description=__doc__.split("\n")[0])
    p.add_argument("--data", nargs="+", required=True, help=".bin files, directories or globs")
    p.add_argument("--val-data", nargs="+", help="validation data (default: --val-fraction of --data)")
    p.add_argument("--val-fraction", type=float, default=0.05)
    p.add_argument("--out", default="nn.bin", help="exported net (see --select)")
    p.add_argument("--arch", default=str(nnbin.CLASSIC),
                   help="the net's shape, FEATURES_FTx2-H1-H2 (features: " + ", ".join(nnbin.FEATURE_SETS) + ")")
    p.add_argument("--compact", help="also write the compact form of the net here (see trainer.compact)")
    p.add_argument("--checkpoint", help="checkpoint file (default: OUT with .ckpt)")
    p.add_argument("--resume", action="store_true", help="continue from the checkpoint")
    p.add_argument("--csv", help="loss curve (default: OUT with .csv)")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--select", choices=("best", "last"), default="best",
                   help="export the epoch with the lowest validation loss so far, or every epoch")
    p.add_argument("--patience", type=int, default=0,
                   help="stop after this many epochs without a lower validation loss (0: never)")
    p.add_argument("--batch-size", type=int, default=8192)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--gamma", type=float, default=0.9, help="learning-rate factor per epoch")
    p.add_argument("--lambda", dest="lam", type=float, default=0.5, help="weight of the search score (1 - lambda: game result)")
    p.add_argument("--scale", default="auto",
                   help="K of the win probability sigmoid(cp / K): a number (600 is the field's "
                        "constant for shogi), or auto: the K that best predicts the data's results")
    p.add_argument("--ft-l1", type=float, default=0.0,
                   help="L1 penalty on the king-specific transformer weights (proximal; per "
                        "step each touched weight moves lr * this towards zero)")
    p.add_argument("--mirror", action="store_true",
                   help="add every training position's left-right mirror image (validation unchanged)")
    p.add_argument("--qat", action="store_true",
                   help="quantisation-aware training: the forward pass rounds activations and layer "
                        "weights as the engine does (see model.Net)")
    p.add_argument("--max-score", type=int, default=10000, help="drop positions with a larger |score|")
    p.add_argument("--limit", type=int, help="use at most this many records")
    p.add_argument("--fv-scale", type=int, default=nnbin.DEFAULT_FV_SCALE, help="the engine's FV_SCALE for the export")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", type=int, default=0, help="CPU threads (0: torch's default)")
    p.add_argument("--device", default="auto", help="auto, cpu or cuda")
    args = p.parse_args(argv)
    try:
        args.shape = nnbin.Shape.from_name(args.arch)
    except ValueError as e:
        p.error(f"--arch: {e}")
    args.arch = str(args.shape)
    stem = os.path.splitext(args.out)[0]
    args.checkpoint = args.checkpoint or stem + ".ckpt"
    args.csv = args.csv or stem + ".csv"
    if not 0 <= args.lam <= 1:
        p.error("--lambda must be within 0..1")
    if args.scale != "auto":
        try:
            args.scale = float(args.scale)
        except ValueError:
            p.error("--scale must be a number or auto")
        if args.scale <= 0:
            p.error("--scale must be positive")
    if args.batch_size < 1 or args.epochs < 0 or args.patience < 0:
        p.error("--batch-size, --epochs and --patience must be positive")
    return args


class Batches:
    """The position arrays as tensors on the training device, cut into batches of feature rows
    of `shape`'s feature set (`features.row_table`)."""

    def __init__(self, pos: data.Positions, device, shape=nnbin.CLASSIC):
        self.device = device
        self.fs = shape.features
        self.rows = torch.from_numpy(features.row_table(self.fs)).to(device)
        self.bp = torch.from_numpy(pos.bp.astype(np.int16)).to(device)
        self.kings = torch.from_numpy(pos.kings.astype(np.int16)).to(device)
        self.stm = torch.from_numpy(pos.stm.astype(bool)).to(device)
        self.score = torch.from_numpy(pos.score.astype(np.float32)).to(device)
        self.result = torch.from_numpy(pos.result.astype(np.float32)).to(device)
        self.flip = torch.from_numpy(features.FLIP).to(device)

    def __len__(self):
        return len(self.stm)

    def get(self, idx):
        """(us, them, us_p, them_p, score, result) of the positions `idx`: the feature rows of
        the side to move and of the other side, and their factor rows (rows modulo the plane)."""
        bp = self.bp[idx].long()
        k = self.kings[idx].long()
        wbp = self.flip[bp]
        kb, kw = k[:, :1], 80 - k[:, 1:]  # each side's own king, as it sees it
        if self.fs.kings:
            bp = torch.cat([bp, nnbin.FE_END + kb, nnbin.E_KING + 80 - kw], dim=1)
            wbp = torch.cat([wbp, nnbin.FE_END + kw, nnbin.E_KING + 80 - kb], dim=1)
        black = self.rows[kb, bp]
        white = self.rows[kw, wbp]
        s = self.stm[idx][:, None]
        us = torch.where(s, white, black)
        them = torch.where(s, black, white)
        plane = self.fs.plane
        return us, them, us % plane, them % plane, self.score[idx], self.result[idx]


def param_groups(model):
    """The optimizer's parameter groups. Adam moves every weight by about the learning rate
    whatever its gradient, and all the transformer outputs are positive, so one step moves a
    first-layer pre-activation by about `lr * 2FT * mean(x)`: the first hidden layer's learning
    rate is scaled by 512 / 2FT (1 in the classic shape, which keeps a single group), so that
    wide transformers do not saturate every hidden unit in the first steps."""
    scale = 512 / model.shape.l1_in
    if scale == 1:
        return [{"params": list(model.parameters())}]
    l1 = {id(p) for p in model.l1.parameters()}
    return [{"params": [p for p in model.parameters() if id(p) not in l1]},
            {"params": list(model.l1.parameters()), "lr_scale": scale}]


def target(score, result, lam, scale):
    return lam * torch.sigmoid(score / scale) + (1 - lam) * (result + 1) / 2


def loss_fn(model, batch, lam, scale):
    us, them, us_bp, them_bp, score, result = batch
    cp = model(us, them, us_bp, them_bp) * quant.OUT_SCALE
    return torch.mean((torch.sigmoid(cp / scale) - target(score, result, lam, scale)) ** 2)


@torch.no_grad()
def evaluate_loss(model, batches, lam, scale, batch_size):
    if len(batches) == 0:
        return float("nan")
    total = 0.0
    for lo in range(0, len(batches), batch_size):
        idx = torch.arange(lo, min(lo + batch_size, len(batches)), device=batches.device)
        total += loss_fn(model, batches.get(idx), lam, scale).item() * len(idx)
    return total / len(batches)


def fitted_scale(pos: data.Positions):
    """The K for which sigmoid(score / K) best predicts the game results (a diagnostic: how
    the data's scores relate to winning chances)."""
    s = pos.score.astype(np.float64)
    r = (pos.result.astype(np.float64) + 1) / 2
    best = None
    for k in np.arange(100, 2001, 25):
        e = np.mean((1 / (1 + np.exp(-s / k)) - r) ** 2)
        if best is None or e < best[1]:
            best = (k, e)
    return best[0]


def export(model, args, val: data.Positions, calib: data.Positions, log=sys.stderr):
    """Writes the net (and its compact form), its biases corrected for rounding on the
    calibration positions `calib` (`quant.correct_biases`); returns the mean |float -
    quantised| eval in cp on up to 4096 validation positions."""
    params = model.float_params()
    qnet = quant.quantise(params, args.fv_scale)
    assert qnet.shape == args.shape
    if len(calib) > 0:
        qnet = quant.correct_biases(qnet, params, calib.bp, calib.kings, calib.stm, args.fv_scale)
    tmp = args.out + ".tmp"
    nnbin.write(tmp, qnet)
    os.replace(tmp, args.out)
    if args.compact:
        compact.write(args.compact, qnet, quant.quantise_p(params["ft_p"]))
    if len(val) == 0:
        return float("nan")
    sub = val.take(np.arange(min(len(val), 4096)))
    q = quant.quant_eval(qnet, sub.bp, sub.kings, sub.stm, args.fv_scale)
    f = quant.float_eval(params, sub.bp, sub.kings, sub.stm)
    return float(np.mean(np.abs(q - f)))


def main(argv=None):
    args = parse_args(argv)
    for path in (args.out, args.compact, args.checkpoint, args.csv):
        if path and os.path.dirname(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    device = torch.device("cuda" if args.device == "auto" and torch.cuda.is_available() else
                          ("cpu" if args.device == "auto" else args.device))
    torch.manual_seed(args.seed)
    log = sys.stderr

    pos = data.load(args.data, args.max_score, args.limit, log=log)
    if args.val_data:
        train_pos, val_pos = pos, data.load(args.val_data, args.max_score, log=log)
    else:
        train_pos, val_pos = data.split(pos, args.val_fraction, seed=args.seed)
    if args.mirror:
        train_pos = data.Positions.concat([train_pos, train_pos.mirrored()])
    fitted = fitted_scale(train_pos)
    if args.scale == "auto":
        args.scale = float(fitted)
    print(
        f"{args.arch}: train {len(train_pos)}, validation {len(val_pos)} positions; device {device}, "
        f"{torch.get_num_threads()} threads; lambda {args.lam}, K {args.scale:g} "
        f"(the K that best predicts the training results: {fitted:g})",
        file=log,
    )
    # Positions for the bias correction at export (the first 8192 training positions).
    calib = train_pos.take(np.arange(min(len(train_pos), 8192)))
    train_b = Batches(train_pos, device, args.shape)
    val_b = Batches(val_pos, device, args.shape)

    model = Net(seed=args.seed, qat_fv_scale=args.fv_scale if args.qat else None, shape=args.shape).to(device)
    opt_kw = {"fused": True} if device.type in ("cpu", "cuda") else {}
    opt = torch.optim.Adam(param_groups(model), lr=args.lr, **opt_kw)
    start = 0
    best, stale = math.inf, 0  # the lowest validation loss so far, epochs since it
    if args.resume:
        if not os.path.exists(args.checkpoint):
            sys.exit(f"--resume: no checkpoint at {args.checkpoint}")
        ck = torch.load(args.checkpoint, map_location=device, weights_only=True)
        was = ck.get("args", {}).get("arch", str(nnbin.CLASSIC))
        if was != args.arch:
            sys.exit(f"--resume: {args.checkpoint} holds a {was} net, not {args.arch} (--arch)")
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["optimizer"])
        start = int(ck["epoch"])
        best, stale = float(ck.get("best_val", math.inf)), int(ck.get("stale", 0))
        print(f"resumed from {args.checkpoint} after epoch {start}", file=log)
    elif os.path.exists(args.csv):
        os.remove(args.csv)

    if start == 0:
        v = evaluate_loss(model, val_b, args.lam, args.scale, args.batch_size)
        print(f"epoch 0: validation loss {v:.6f}", file=log)
    for epoch in range(start, args.epochs):
        lr = args.lr * args.gamma**epoch
        for group in opt.param_groups:
            group["lr"] = lr * group.get("lr_scale", 1.0)
        gen = torch.Generator().manual_seed(args.seed * 1000003 + epoch)
        perm = torch.randperm(len(train_b), generator=gen).to(device)
        model.train()
        t0 = last = time.time()
        total, seen = 0.0, 0
        for lo in range(0, len(perm), args.batch_size):
            idx = perm[lo : lo + args.batch_size]
            loss = loss_fn(model, train_b.get(idx), args.lam, args.scale)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            model.attach_sparse_grad()
            opt.step()
            if args.ft_l1 > 0:
                model.shrink_(lr * args.ft_l1)
            model.clear_sparse_grad()
            model.clip_(args.fv_scale)
            total += loss.item() * len(idx)
            seen += len(idx)
            if time.time() - last > 30:
                last = time.time()
                rate = seen / (last - t0)
                print(f"  epoch {epoch + 1}: {seen}/{len(perm)} positions, {rate:.0f} pos/s, "
                      f"loss {total / seen:.6f}", file=log)
        dt = time.time() - t0
        model.eval()
        train_loss = total / max(seen, 1)
        val_loss = evaluate_loss(model, val_b, args.lam, args.scale, args.batch_size)
        # Without validation data (a NaN loss) every epoch is exported and none is stale.
        no_val = math.isnan(val_loss)
        improved = not no_val and val_loss < best
        if improved:
            best, stale = val_loss, 0
        elif not no_val:
            stale += 1
        exported = args.select == "last" or no_val or improved
        diff = export(model, args, val_pos, calib) if exported else math.nan
        torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": epoch + 1,
                    "best_val": best, "stale": stale,
                    "args": {k: v for k, v in vars(args).items() if k != "shape"}}, args.checkpoint + ".tmp")
        os.replace(args.checkpoint + ".tmp", args.checkpoint)
        rate = seen / dt if dt > 0 else math.nan
        wrote = f"|float - quantised| {diff:.1f} cp, wrote {args.out}" if exported else \
            f"not exported (lowest validation loss {best:.6f}, {stale} epochs ago)"
        print(f"epoch {epoch + 1}: train loss {train_loss:.6f}, validation loss {val_loss:.6f}, "
              f"lr {lr:.2e}, {dt:.1f} s ({rate:.0f} pos/s), {wrote}", file=log)
        new = not os.path.exists(args.csv)
        with open(args.csv, "a", newline="") as f:
            w = csv.writer(f)
            if new:
                w.writerow(["epoch", "train_loss", "val_loss", "lr", "positions", "seconds", "float_quant_cp",
                            "exported"])
            w.writerow([epoch + 1, f"{train_loss:.6f}", f"{val_loss:.6f}", f"{lr:.3e}", seen, f"{dt:.1f}",
                        f"{diff:.2f}" if exported else "", int(exported)])
        if args.patience and stale >= args.patience:
            print(f"stopping: {stale} epochs without a lower validation loss", file=log)
            break
    if start >= args.epochs:
        print(f"checkpoint is already at epoch {start}; nothing to do (raise --epochs)", file=log)


if __name__ == "__main__":
    main()
