"""The PyTorch network of a shape (`nnbin.Shape`, default halfkp_256x2-32-32: 2x256 -> 32 -> 32
-> 1) with a factorised feature transformer.

The transformer of each perspective sums, over its active feature rows r (38, or 40 in the sets
that list the kings), the king-specific row `ft_w[r]` and the king-independent row
`ft_p[r % plane]` (the "P" factor, one row per within-plane index: in halfkp `r = 1548 k + bp`
and the factor is the piece-square table `P[bp]`; in halfkahm2 `r = 1629 k' + f(m(bp))` and the
factor is indexed by the mirrored, folded BonaPiece; in kp every row is its own). Both are
learned; the export adds them (see `quant`). The king-specific rows start at zero, so every king
square starts from the same piece-square values and rows of king squares the data never shows
stay exactly zero.

The king-specific table is 125388 x 256 floats in halfkp_256 (128 MB). Autograd would allocate a
dense gradient of that size for every batch, which costs more than the rest of the step on a small
CPU, so `FactorisedRows` writes its gradients into persistent buffers instead: it sums the
output gradients of the batch per distinct feature (an `embedding_bag` over the samples that
hold each feature), adds the sums to the touched rows, and adds them per within-plane index to
the P factor's gradient. A fused Adam then updates both tables.
"""

import torch
import torch.nn.functional as F

from . import quant
from .nnbin import CLASSIC


class FactorisedRows(torch.autograd.Function):
    """`embedding_bag(idx, w) + embedding_bag(idx % plane, p)` (sums over each row of `idx`; `bp`
    is `idx % plane`, with `plane` the rows of `p`) whose gradients are added to `w_grad` and
    `p_grad`: the output gradients are summed once per distinct feature, and the P factor's
    gradient is the sum of those rows per within-plane index."""

    @staticmethod
    def forward(ctx, idx, bp, w, p, w_grad, p_grad, touched):
        ctx.save_for_backward(idx)
        ctx.grads = (w_grad, p_grad)
        ctx.touched = touched
        return F.embedding_bag(idx, w, mode="sum") + F.embedding_bag(bp, p, mode="sum")

    @staticmethod
    def backward(ctx, grad_out):
        (idx,) = ctx.saved_tensors
        w_grad, p_grad = ctx.grads
        per_bag = idx.shape[1]
        sorted_idx, order = torch.sort(idx.reshape(-1).int())
        features, counts = torch.unique_consecutive(sorted_idx, return_counts=True)
        samples = torch.div(order, per_bag, rounding_mode="floor")
        offsets = torch.cumsum(counts, 0) - counts
        rows = F.embedding_bag(samples, grad_out.contiguous(), offsets, mode="sum")
        features = features.long()
        ctx.touched.append(features)
        w_grad.index_add_(0, features, rows)
        p_grad.index_add_(0, features % p_grad.shape[0], rows)
        return None, None, None, None, None, None, None


def fake_round(x, scale, half_up=False):
    """`x` rounded to a multiple of 1 / `scale` in the forward pass, with the gradient of the
    identity (a straight-through estimator): training sees the engine's rounding. Halves go to
    even as the export rounds weights (`numpy.rint`), or up as the engine's `(sum + 32) >> 6`
    rounds a hidden activation (`half_up`; there halves are common)."""
    r = torch.floor(x * scale + 0.5) if half_up else torch.round(x * scale)
    return x + (r / scale - x).detach()


class Net(torch.nn.Module):
    def __init__(self, seed=1, qat_fv_scale=None, shape=CLASSIC):
        """`shape`: the net's `nnbin.Shape`. `qat_fv_scale`: when set, the forward pass rounds
        what the engine's integer arithmetic rounds (quantisation-aware training, for an export
        with this FV_SCALE): the transformer outputs and hidden activations to 1/127, the hidden
        weights to 1/64 and the output weights to the export's step (`quant.out_weight_scale`).
        The transformer's own weights are left in float (rounding the 125,388-row table every
        step would cost more than the step); the export's bias correction takes care of the
        mean of their rounding."""
        super().__init__()
        self.shape = shape
        self.qat_fv_scale = qat_fv_scale
        g = torch.Generator().manual_seed(seed)
        ft, rows, plane = shape.ft, shape.inputs, shape.plane
        self.ft_w = torch.nn.Parameter(torch.zeros(rows, ft))
        self.ft_p = torch.nn.Parameter(torch.randn(plane, ft, generator=g) * 0.01)
        self.ft_bias = torch.nn.Parameter(torch.full((ft,), 0.5))
        self.l1 = torch.nn.Linear(2 * ft, shape.h1)
        self.l2 = torch.nn.Linear(shape.h1, shape.h2)
        self.out = torch.nn.Linear(shape.h2, 1)
        for layer in (self.l1, self.l2, self.out):
            bound = 1 / layer.in_features**0.5
            with torch.no_grad():
                layer.weight.copy_((torch.rand(layer.weight.shape, generator=g) * 2 - 1) * bound)
                layer.bias.copy_((torch.rand(layer.bias.shape, generator=g) * 2 - 1) * bound)
        with torch.no_grad():
            self.l1.bias.add_(0.3)  # start with most hidden units in the linear range
            self.l2.bias.add_(0.3)
        # Gradients of ft_w and ft_p, accumulated by FactorisedRows (buffers move with .to()).
        self.register_buffer("ft_w_grad", torch.zeros(rows, ft), persistent=False)
        self.register_buffer("ft_p_grad", torch.zeros(plane, ft), persistent=False)
        self.touched = []  # king-specific rows the last backward reached

    def forward(self, us, them, us_bp, them_bp):
        """Evaluations in units of `quant.OUT_SCALE` centipawns for row batches (B, 38 or 40) of
        the side to move (`us`) and of the other side, with their factor rows (`us_bp`,
        `them_bp`: the rows modulo the plane)."""
        n = us.shape[0]
        idx = torch.cat([us, them])
        bp = torch.cat([us_bp, them_bp])
        acc = FactorisedRows.apply(idx, bp, self.ft_w, self.ft_p, self.ft_w_grad, self.ft_p_grad, self.touched)
        acc = acc + self.ft_bias
        acc = acc.clamp(0.0, 1.0)
        x = torch.cat([acc[:n], acc[n:]], dim=1)
        if self.qat_fv_scale is None:
            h1 = self.l1(x).clamp(0.0, 1.0)
            h2 = self.l2(h1).clamp(0.0, 1.0)
            return self.out(h2)[:, 0]
        one, hid = quant.ACT_ONE, quant.HIDDEN_SCALE
        x = fake_round(x, one)
        h1 = F.linear(x, fake_round(self.l1.weight, hid), self.l1.bias).clamp(0.0, 1.0)
        h1 = fake_round(h1, one, half_up=True)
        h2 = F.linear(h1, fake_round(self.l2.weight, hid), self.l2.bias).clamp(0.0, 1.0)
        h2 = fake_round(h2, one, half_up=True)
        w3 = fake_round(self.out.weight, quant.out_weight_scale(self.qat_fv_scale))
        return F.linear(h2, w3, self.out.bias)[:, 0]

    def attach_sparse_grad(self):
        """Makes the accumulated buffers the gradients of ft_w and ft_p (before the optimizer
        step)."""
        self.ft_w.grad = self.ft_w_grad
        self.ft_p.grad = self.ft_p_grad

    def clear_sparse_grad(self):
        self.ft_w_grad.zero_()
        self.ft_p_grad.zero_()
        self.touched.clear()

    @torch.no_grad()
    def shrink_(self, amount):
        """L1 proximal step on the king-specific rows of the last batch: moves every weight
        `amount` towards zero, stopping at zero (exact zeros keep the compact form small and
        leave to the P factor what no king square needs)."""
        for rows in self.touched:
            self.ft_w[rows] = F.softshrink(self.ft_w[rows], amount)

    @torch.no_grad()
    def clip_(self, fv_scale):
        """Keeps the layer weights inside what the engine's i8 weights can represent."""
        h = quant.hidden_limit()
        lo = -128 / quant.HIDDEN_SCALE
        self.l1.weight.clamp_(lo, h)
        self.l2.weight.clamp_(lo, h)
        o = quant.out_limit(fv_scale)
        self.out.weight.clamp_(-128 / 127 * o, o)

    def float_params(self):
        """The parameters as numpy arrays under `quant.param_shapes` names."""

        def a(t):
            return t.detach().float().cpu().numpy()

        return {
            "ft_bias": a(self.ft_bias),
            "ft_p": a(self.ft_p),
            "ft_w": a(self.ft_w),
            "l1_w": a(self.l1.weight),
            "l1_b": a(self.l1.bias),
            "l2_w": a(self.l2.weight),
            "l2_b": a(self.l2.bias),
            "out_w": a(self.out.weight),
            "out_b": a(self.out.bias),
        }
