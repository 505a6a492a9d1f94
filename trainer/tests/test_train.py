"""End to end with torch (`make test-trainer`, seconds): a few hundred positions -> train ->
nn.bin; the torch forward pass equals the numpy float pass, and with quantisation-aware
training the integer pass; the sparse gradient equals autograd's
dense one; resuming continues the run; the exported net loads and its integer pass stays close
to the float net. The same in halfkahm2_256x2-32-32 (`--arch`), whose net the engine loads as
that shape and evaluates as the trainer does (the engine: $HAYATE_BIN, else target/debug/hayate),
and the torch forward pass of every feature set equals the numpy one."""

import csv
import os
import tempfile
import unittest

import numpy as np
import torch

from trainer import compact, data, engine, nnbin, psv, quant, sfen, train
from trainer.model import FactorisedRows, Net
from trainer.tests.test_export import engine_binary, test_sfens


def make_data(path, n=600, seed=2):
    """PackedSfenValue records of tests/data positions with made-up scores that depend on the
    material balance (so that there is something to learn), and results drawn from them."""
    rng = np.random.default_rng(seed)
    sfens = test_sfens()
    values = {1: 90, 2: 300, 3: 300, 4: 450, 5: 600, 6: 700, 7: 500}
    recs = np.zeros(n, psv.DTYPE)
    for i in range(n):
        s = sfens[i % len(sfens)]
        board, hands, stm = sfen.parse(s)
        mat = sum(values.get(int(pc) & 15 if int(pc) & 15 < 8 else 7, 0) * (1 if pc < 16 else -1)
                  for pc in board if pc and int(pc) & 15 != 8)
        mat += sum(values[t] * (hands[0][t] - hands[1][t]) for t in range(1, 8))
        score = int(np.clip(mat * (1 if stm == 0 else -1) + rng.normal(0, 50), -3000, 3000))
        recs[i]["sfen"] = psv.encode(board, hands, stm)
        recs[i]["score"] = score
        recs[i]["game_result"] = 1 if rng.random() < 1 / (1 + np.exp(-score / 600)) else -1
    recs.tofile(path)


def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


class EndToEnd(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.set_num_threads(2)
        cls.tmp = tempfile.TemporaryDirectory()
        cls.data = os.path.join(cls.tmp.name, "train.bin")
        make_data(cls.data)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_train(self, *extra):
        out = os.path.join(self.tmp.name, "nn.bin")
        args = ["--data", self.data, "--out", out, "--batch-size", "64", "--lr", "3e-3",
                "--compact", os.path.join(self.tmp.name, "nn.hnnc"), "--val-fraction", "0.1",
                "--scale", "600", "--ft-l1", "0.01", *extra]
        train.main(args)
        return out

    def test_train_resume_export(self):
        out = self.run_train("--epochs", "3", "--select", "last")
        rows = read_csv(out[:-4] + ".csv")
        self.assertEqual([r["epoch"] for r in rows], ["1", "2", "3"])
        self.assertLess(float(rows[-1]["train_loss"]), float(rows[0]["train_loss"]))
        out = self.run_train("--epochs", "5", "--resume", "--select", "last")
        rows = read_csv(out[:-4] + ".csv")
        self.assertEqual([r["epoch"] for r in rows], ["1", "2", "3", "4", "5"])
        net = nnbin.read(out)
        with open(os.path.join(self.tmp.name, "nn.hnnc"), "rb") as f:
            rebuilt = compact.decode(f.read())
        with open(out, "rb") as f:
            self.assertEqual(rebuilt, f.read())
        # The exported net follows the checkpoint's float weights.
        model = Net()
        ck = torch.load(out[:-4] + ".ckpt", weights_only=True)
        model.load_state_dict(ck["model"])
        params = model.float_params()
        pos = data.load([self.data], log=None)
        q = quant.quant_eval(net, pos.bp, pos.kings, pos.stm)
        f = quant.float_eval(params, pos.bp, pos.kings, pos.stm)
        self.assertLess(np.abs(q - f).mean(), max(10.0, 0.1 * np.abs(f).mean()))
        self.assertGreater(np.corrcoef(q, f)[0, 1], 0.95)

    def test_best_epoch_is_exported_and_patience_stops(self):
        out = self.run_train("--epochs", "12", "--lr", "2e-2", "--patience", "2", "--csv",
                             os.path.join(self.tmp.name, "best.csv"))
        rows = read_csv(os.path.join(self.tmp.name, "best.csv"))
        best, stale, stop = float("inf"), 0, 12
        for i, r in enumerate(rows):
            v = float(r["val_loss"])
            self.assertEqual(r["exported"], "1" if v < best else "0", rows)
            self.assertEqual(r["float_quant_cp"] != "", v < best)
            best, stale = (v, 0) if v < best else (best, stale + 1)
            if stale == 2:
                stop = i + 1
                break
        self.assertEqual(len(rows), stop, rows)
        self.assertTrue(os.path.exists(out))

    def test_torch_forward_equals_numpy_float_pass(self):
        pos = data.load([self.data], log=None)
        for name in ("halfkp_256x2-32-32", "halfkahm2_256x2-32-32", "halfkp_512x2-8-64", "kp_32x2-8-8",
                     "halfkpvm_32x2-8-8", "halfka1_32x2-8-8", "halfkahm1_32x2-8-8", "halfka2_32x2-8-8"):
            shape = nnbin.Shape.from_name(name)
            model = Net(seed=3, shape=shape)
            with torch.no_grad():
                model.ft_w.normal_(0, 0.02)
            b = train.Batches(pos, torch.device("cpu"), shape)
            with torch.no_grad():
                z = model(*b.get(torch.arange(len(pos)))[:4]).numpy() * quant.OUT_SCALE
            f = quant.float_eval(model.float_params(), pos.bp, pos.kings, pos.stm)
            np.testing.assert_allclose(z, f, atol=1e-2, err_msg=name)
            self.assertGreater(np.std(f), 1.0, name)

    def test_halfkahm2_train_export_load(self):
        shape = "halfkahm2_256x2-32-32"
        out = os.path.join(self.tmp.name, "hm2", "nn.bin")
        hnnc = os.path.join(self.tmp.name, "hm2", "nn.hnnc")
        args = ["--data", self.data, "--out", out, "--batch-size", "64", "--lr", "3e-3", "--compact", hnnc,
                "--val-fraction", "0.1", "--scale", "600", "--ft-l1", "0.01", "--select", "last", "--arch", shape]
        train.main([*args, "--epochs", "2"])
        train.main([*args, "--epochs", "3", "--resume"])
        rows = read_csv(out[:-4] + ".csv")
        self.assertEqual([r["epoch"] for r in rows], ["1", "2", "3"])
        self.assertLess(float(rows[-1]["train_loss"]), float(rows[0]["train_loss"]))
        with self.assertRaises(SystemExit):  # a checkpoint of another shape is not resumed
            train.main([*args[:-1], "halfkp_256x2-32-32", "--epochs", "4", "--resume"])
        net = nnbin.read(out)
        self.assertEqual(str(net.shape), shape)
        self.assertEqual(os.path.getsize(out), net.shape.file_bytes())
        with open(hnnc, "rb") as f:
            blob = f.read()
        self.assertEqual(blob[4:8], (2).to_bytes(4, "little"))
        with open(out, "rb") as f:
            self.assertEqual(compact.decode(blob), f.read())
        # The engine loads it as this shape and evaluates every position as the trainer does.
        sfens = test_sfens()
        theirs = engine.engine_evals(engine_binary(self), out, sfens, shape=net.shape)
        np.testing.assert_array_equal(engine.trainer_evals(net, sfens), theirs)
        self.assertGreater(len(set(theirs.tolist())), 10)
        # The exported net follows the checkpoint's float weights.
        model = Net(shape=net.shape)
        model.load_state_dict(torch.load(out[:-4] + ".ckpt", weights_only=True)["model"])
        pos = data.load([self.data], log=None)
        q = quant.quant_eval(net, pos.bp, pos.kings, pos.stm)
        f = quant.float_eval(model.float_params(), pos.bp, pos.kings, pos.stm)
        self.assertLess(np.abs(q - f).mean(), max(10.0, 0.1 * np.abs(f).mean()))

    def test_wide_first_layer_learns(self):
        # halfkp_512x2-8-64: 1024 transformer outputs into 8 hidden units (its first layer's
        # learning rate scaled down, train.param_groups) still learn on the tiny data.
        out = os.path.join(self.tmp.name, "w", "nn.bin")
        train.main(["--data", self.data, "--out", out, "--batch-size", "64", "--lr", "3e-3", "--val-fraction", "0.1",
                    "--scale", "600", "--select", "last", "--arch", "halfkp_512x2-8-64", "--epochs", "3"])
        rows = read_csv(out[:-4] + ".csv")
        self.assertLess(float(rows[-1]["train_loss"]), 0.97 * float(rows[0]["train_loss"]), rows)
        self.assertEqual(str(nnbin.read(out).shape), "halfkp_512x2-8-64")

    def test_quantisation_aware_forward_equals_the_integer_net(self):
        # With transformer weights and biases on the export's grid, the QAT forward pass rounds
        # everything else as the engine does: on average it gives the integer net's evaluations
        # to within a cp (an activation exactly halfway between two steps may still round the
        # other way in float32, so single positions can differ by a few cp), where the float
        # pass is off by about 20 cp.
        fv = nnbin.DEFAULT_FV_SCALE
        model = Net(seed=3, qat_fv_scale=fv)
        with torch.no_grad():
            model.ft_w.normal_(0, 0.02)
            for t, step in ((model.ft_w, 127), (model.ft_p, 127), (model.ft_bias, 127),
                            (model.l1.bias, 127 * 64), (model.l2.bias, 127 * 64),
                            (model.out.bias, fv * quant.OUT_SCALE)):
                t.copy_(torch.round(t * step) / step)
            model.out.weight.mul_(4.0)  # output weights large enough for their rounding to matter
            model.clip_(fv)
        pos = data.load([self.data], log=None)
        b = train.Batches(pos, torch.device("cpu"))
        with torch.no_grad():
            z = model(*b.get(torch.arange(len(pos)))[:4]).numpy() * quant.OUT_SCALE
        params = model.float_params()
        q = quant.quant_eval(quant.quantise(params, fv), pos.bp, pos.kings, pos.stm, fv)
        f = quant.float_eval(params, pos.bp, pos.kings, pos.stm)
        self.assertLess(np.abs(z - q).mean(), 1.5)
        self.assertGreater(np.abs(f - q).mean(), 5 * np.abs(z - q).mean())

    def test_sparse_gradients_equal_autograd(self):
        for plane in (1548, 1629):
            torch.manual_seed(0)
            w = torch.randn(3 * plane, 8, requires_grad=True)
            p = torch.randn(plane, 8, requires_grad=True)
            w_buf, p_buf = torch.zeros(3 * plane, 8), torch.zeros(plane, 8)
            idx = torch.randint(0, 3 * plane, (7, 5))
            idx[0, 1] = idx[0, 0]  # a feature twice in one bag
            g = torch.randn(7, 8)
            (FactorisedRows.apply(idx, idx % plane, w, p, w_buf, p_buf, []) * g).sum().backward()
            self.assertIsNone(w.grad)
            w2 = w.detach().clone().requires_grad_(True)
            p2 = p.detach().clone().requires_grad_(True)
            emb = torch.nn.functional.embedding_bag
            ((emb(idx, w2, mode="sum") + emb(idx % plane, p2, mode="sum")) * g).sum().backward()
            torch.testing.assert_close(w_buf, w2.grad)
            torch.testing.assert_close(p_buf, p2.grad)


if __name__ == "__main__":
    unittest.main()
