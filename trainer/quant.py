"""Float parameters -> the quantised integer net, and both forward passes (numpy only).

Float network (what `model.Net` computes) of a shape (`nnbin.Shape`: feature set, FT, H1, H2),
per perspective p:
    acc_p = ft_bias + sum over its active rows r of (ft_p[r % plane] + ft_w[r])
    x  = clamp(acc_stm, 0, 1) ++ clamp(acc_other, 0, 1)
    h1 = clamp(l1_w @ x + l1_b, 0, 1);  h2 = clamp(l2_w @ h1 + l2_b, 0, 1)
    eval_cp = OUT_SCALE * (out_w @ h2 + out_b)
`ft_w` is the king-specific part (one row per feature row), `ft_p` the king-independent factor,
one row per within-plane index `r % plane` (`nnbin.FeatureSet`: in halfkp the BonaPiece, in
halfkahm2 the mirrored and folded BonaPiece, in kp the row itself).

Quantisation (the engine's arithmetic, docs/nnue-format.md): an activation of 1.0 is 127; hidden
weights are scaled by 64 (the engine shifts sums right by 6); the output is `out / FV_SCALE`, so
the output layer is scaled by `FV_SCALE * OUT_SCALE / 127`:
    ft_weight = round(127 ft_p[r % plane]) + round(127 ft_w[r])
                                                       (i16; the two parts are rounded separately
                                                       so that a zero king-specific weight stays
                                                       exactly the factor's value)
    ft_bias = round(127 b)                             (i16)
    w1, w2 = round(64 w)                               (i8: |w| <= 127/64 in float)
    b1, b2 = round(127 * 64 b) + 32                    (i32; +32 turns the engine's floor shift
                                                       into rounding to nearest)
    w3 = round(FV_SCALE * OUT_SCALE / 127 * w)         (i8)
    b3 = round(FV_SCALE * OUT_SCALE * b)               (i32)
`model.Net.clip_` keeps the float weights inside what i8 can represent while training.
"""

import numpy as np

from .features import feature_indices
from .nnbin import CLASSIC, DEFAULT_FV_SCALE, FEATURE_SETS, MAX_EVAL, QuantNet, Shape

OUT_SCALE = 600.0  # centipawns per unit of the float output ("nnue2score" in nnue-pytorch)
ACT_ONE = 127  # an activation of 1.0
HIDDEN_SCALE = 64  # 2 ** WEIGHT_SHIFT



def param_shapes(shape=CLASSIC):
    """The float parameters of a net of `shape`: name -> array shape."""
    ft, h1, h2 = shape.ft, shape.h1, shape.h2
    return {
        "ft_bias": (ft,),
        "ft_p": (shape.plane, ft),
        "ft_w": (shape.inputs, ft),
        "l1_w": (h1, 2 * ft),
        "l1_b": (h1,),
        "l2_w": (h2, h1),
        "l2_b": (h2,),
        "out_w": (1, h2),
        "out_b": (1,),
    }


PARAM_SHAPES = param_shapes(CLASSIC)


def params_shape(params):
    """The shape of a float parameter dict: the feature set from the rows of `ft_w` (each set
    has a different number), the widths from the biases."""
    rows = np.shape(params["ft_w"])[0]
    fs = [f for f in FEATURE_SETS.values() if f.inputs == rows]
    if not fs:
        raise ValueError(f"ft_w has {rows} rows: no feature set has that many")
    return Shape(fs[0], len(params["ft_bias"]), len(params["l1_b"]), len(params["l2_b"]))


def hidden_limit():
    """Largest |weight| of a hidden layer an i8 can hold (float units)."""
    return 127 / HIDDEN_SCALE


def out_weight_scale(fv_scale=DEFAULT_FV_SCALE):
    return fv_scale * OUT_SCALE / ACT_ONE


def out_limit(fv_scale=DEFAULT_FV_SCALE):
    """Largest |weight| of the output layer an i8 can hold (float units)."""
    return 127 / out_weight_scale(fv_scale)


def _round(a, lo, hi, dtype):
    return np.clip(np.rint(np.asarray(a, np.float64)), lo, hi).astype(dtype)


def quantise_p(ft_p):
    """The rounded king-independent factor (plane, FT) int32: every feature row `r` of the
    exported transformer is row `r % plane` of this plus the rounded king-specific weights."""
    return _round(np.asarray(ft_p) * ACT_ONE, -32767, 32767, np.int32)


def quantise(params, fv_scale=DEFAULT_FV_SCALE, chunk=8192):
    """The `QuantNet` of a float parameter dict (see `param_shapes`; the shape follows from
    the arrays, `params_shape`)."""
    shape = params_shape(params)
    for k, want in param_shapes(shape).items():
        if tuple(np.shape(params[k])) != want:
            raise ValueError(f"{k}: shape {np.shape(params[k])}, expected {want} ({shape})")
    qp = quantise_p(params["ft_p"])
    rows = shape.inputs
    ft_weight = np.empty((rows, shape.ft), np.int16)
    ft_w = params["ft_w"]
    for lo in range(0, rows, chunk):
        hi = min(lo + chunk, rows)
        qw = _round(np.asarray(ft_w[lo:hi]) * ACT_ONE, -65534, 65534, np.int32)
        ft_weight[lo:hi] = np.clip(qp[np.arange(lo, hi) % shape.plane] + qw, -32767, 32767)
    i32 = (-(2**31), 2**31 - 1)
    w3s = out_weight_scale(fv_scale)
    return QuantNet(
        ft_bias=_round(np.asarray(params["ft_bias"]) * ACT_ONE, -32767, 32767, np.int16),
        ft_weight=ft_weight,
        b1=_round(np.asarray(params["l1_b"]) * ACT_ONE * HIDDEN_SCALE + 32, *i32, np.int32),
        w1=_round(np.asarray(params["l1_w"]) * HIDDEN_SCALE, -128, 127, np.int8),
        b2=_round(np.asarray(params["l2_b"]) * ACT_ONE * HIDDEN_SCALE + 32, *i32, np.int32),
        w2=_round(np.asarray(params["l2_w"]) * HIDDEN_SCALE, -128, 127, np.int8),
        b3=_round(np.asarray(params["out_b"]) * fv_scale * OUT_SCALE, *i32, np.int32),
        w3=_round(np.asarray(params["out_w"]) * w3s, -128, 127, np.int8),
        shape=shape,
    )


def _perspectives(bp, kings, stm, shape=CLASSIC):
    """Feature rows (N, 38 or 40) of the side to move and of the other side."""
    black = feature_indices(bp, kings, 0, shape)
    white = feature_indices(bp, kings, 1, shape)
    s = (np.asarray(stm) != 0)[:, None]
    return np.where(s, white, black), np.where(s, black, white)


def _wrap16(a):
    return ((a.astype(np.int64) + 32768) & 0xFFFF) - 32768


def quant_eval(net: QuantNet, bp, kings, stm, fv_scale=DEFAULT_FV_SCALE, chunk=2048):
    """Integer evaluations (side to move's view, after `/ fv_scale`), exactly as the engine."""
    n = len(stm)
    out = np.empty(n, np.int64)
    w1 = net.w1.astype(np.int64)
    w2 = net.w2.astype(np.int64)
    w3 = net.w3.astype(np.int64)
    for lo in range(0, n, chunk):
        hi = min(lo + chunk, n)
        us, them = _perspectives(bp[lo:hi], kings[lo:hi], stm[lo:hi], net.shape)
        xs = []
        for idx in (us, them):
            acc = net.ft_bias.astype(np.int64) + net.ft_weight[idx].astype(np.int64).sum(axis=1)
            xs.append(np.clip(_wrap16(acc), 0, 127))
        x = np.concatenate(xs, axis=1)
        h1 = np.clip((net.b1.astype(np.int64) + x @ w1.T) >> 6, 0, 127)
        h2 = np.clip((net.b2.astype(np.int64) + h1 @ w2.T) >> 6, 0, 127)
        raw = net.b3.astype(np.int64)[0] + (h2 @ w3.T)[:, 0]
        v = np.abs(raw) // max(fv_scale, 1) * np.sign(raw)  # C division: toward zero
        out[lo:hi] = np.clip(v, -MAX_EVAL, MAX_EVAL)
    return out


def _acc_float(params, shape, idx):
    """The float accumulators (N, FT) of the rows `idx` (N, F)."""
    acc = np.asarray(params["ft_bias"], np.float64) + np.asarray(
        params["ft_w"][idx.ravel()], np.float64).reshape(idx.shape + (shape.ft,)).sum(axis=1)
    return acc + np.asarray(params["ft_p"], np.float64)[idx % shape.plane].sum(axis=1)


def float_eval(params, bp, kings, stm, chunk=2048):
    """The float network's evaluations in centipawns (side to move's view)."""
    shape = params_shape(params)
    n = len(stm)
    out = np.empty(n, np.float64)
    for lo in range(0, n, chunk):
        hi = min(lo + chunk, n)
        us, them = _perspectives(bp[lo:hi], kings[lo:hi], stm[lo:hi], shape)
        xs = []
        for idx in (us, them):
            acc = _acc_float(params, shape, idx)
            xs.append(np.clip(acc, 0, 1))
        x = np.concatenate(xs, axis=1)
        h1 = np.clip(x @ np.asarray(params["l1_w"], np.float64).T + params["l1_b"], 0, 1)
        h2 = np.clip(h1 @ np.asarray(params["l2_w"], np.float64).T + params["l2_b"], 0, 1)
        out[lo:hi] = OUT_SCALE * ((h2 @ np.asarray(params["out_w"], np.float64).T)[:, 0] + params["out_b"][0])
    return out


def correct_biases(net: QuantNet, params, bp, kings, stm, fv_scale=DEFAULT_FV_SCALE):
    """Bias correction after rounding: a `QuantNet` like `net` whose biases (ft_bias, b1, b2, b3)
    are shifted, layer by layer, by the mean difference between the float network's and the
    integer network's pre-activations on the sample positions (`bp`, `kings`, `stm`; a few
    thousand training positions). Rounding small weights leaves systematic errors (the same
    features are active in most positions, so their rounding errors add up alike everywhere),
    which grow through the layers into an evaluation offset of the order of 100 cp for nets with
    small weights; the correction removes the mean part of it."""
    net = net.copy()
    us, them = _perspectives(bp, kings, stm, net.shape)

    def acc_float(idx):
        return _acc_float(params, net.shape, idx)

    def acc_int(idx):
        return net.ft_bias.astype(np.int64) + net.ft_weight[idx].astype(np.int64).sum(axis=1)

    accf = [acc_float(us), acc_float(them)]
    delta = np.mean(np.concatenate([a * ACT_ONE - acc_int(i) for a, i in zip(accf, (us, them))]), axis=0)
    net.ft_bias = np.clip(net.ft_bias.astype(np.int64) + np.rint(delta), -32767, 32767).astype(np.int16)
    xf = np.concatenate([np.clip(a, 0, 1) for a in accf], axis=1)
    xi = np.concatenate([np.clip(_wrap16(acc_int(i)), 0, 127) for i in (us, them)], axis=1)

    def hidden(xf, xi, w_f, b_f, w_i, b_name):
        pre_f = (xf @ np.asarray(w_f, np.float64).T + b_f) * ACT_ONE * HIDDEN_SCALE + 32
        pre_i = getattr(net, b_name).astype(np.int64) + xi @ w_i.astype(np.int64).T
        b = getattr(net, b_name).astype(np.int64) + np.rint(np.mean(pre_f - pre_i, axis=0)).astype(np.int64)
        setattr(net, b_name, np.clip(b, -(2**31), 2**31 - 1).astype(np.int32))
        hf = np.clip(xf @ np.asarray(w_f, np.float64).T + b_f, 0, 1)
        hi = np.clip((b + xi @ w_i.astype(np.int64).T) >> 6, 0, 127)
        return hf, hi

    h1f, h1i = hidden(xf, xi, params["l1_w"], params["l1_b"], net.w1, "b1")
    h2f, h2i = hidden(h1f, h1i, params["l2_w"], params["l2_b"], net.w2, "b2")
    raw_f = fv_scale * OUT_SCALE * ((h2f @ np.asarray(params["out_w"], np.float64).T)[:, 0] + params["out_b"][0])
    raw_i = net.b3.astype(np.int64)[0] + (h2i @ net.w3.astype(np.int64).T)[:, 0]
    net.b3 = np.clip(net.b3.astype(np.int64) + np.rint(np.mean(raw_f - raw_i)), -(2**31), 2**31 - 1).astype(np.int32)
    return net
