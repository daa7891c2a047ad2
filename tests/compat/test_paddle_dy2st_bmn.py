"""Paddle's test_bmn (Boundary-Matching Network), rewritten and shrunk (8 time steps, narrow layers):
1-D convolutions as `Conv2D` over an unsqueezed axis with groups, a boundary-matching layer that
multiplies by a constant sample mask held on the Layer and reshapes with Paddle's `0` (copy this
dim), `Conv3D`, and the BMN losses computed eagerly after the converted forward (a mask made with
`rt.static.create_global_var` + `rt.assign`, ratios from `rt.shape` cast to float, masks from
`logical_and`, `square_error_cost`) under Adam with a `PiecewiseDecay` rate and L2 decay.
Converted training equals eager bitwise, and the saved model predicts the same maps."""
import math
import os

import numpy as np

import dy2st
import runtime as rt
from runtime import nn

T, D, FEAT, NUM_SAMPLE, PER_BIN, RATIO = 8, 8, 16, 2, 2, 0.5
H1, H2, H3 = 16, 8, 16


def _bin_mask(xmin, xmax):
    step = float(xmax - xmin) / (NUM_SAMPLE * PER_BIN - 1.0)
    samples = [xmin + step * k for k in range(NUM_SAMPLE * PER_BIN)]
    bins = []
    for b in range(NUM_SAMPLE):
        vec = np.zeros([T])
        for s in samples[b * PER_BIN:(b + 1) * PER_BIN]:
            frac, down = math.modf(s)
            if 0 <= int(down) <= T - 1:
                vec[int(down)] += 1 - frac
            if 0 <= int(math.ceil(s)) <= T - 1:
                vec[int(math.ceil(s))] += frac
        bins.append(vec / PER_BIN)
    return np.stack(bins, axis=1)


def sample_mask():
    rows = []
    for start in range(T):
        cols = []
        for length in range(D):
            if start + length < T:
                span = float(length) + 1
                cols.append(_bin_mask(start - span * RATIO, start + length + span * RATIO))
            else:
                cols.append(np.zeros([T, NUM_SAMPLE]))
        rows.append(np.stack(cols, axis=2))
    return np.reshape(np.stack(rows, axis=3).astype("float32"), [T, -1])


class Conv1D(nn.Layer):
    def __init__(self, prefix, channels, filters, size=3, padding=1, groups=1):
        super().__init__()
        k = 1.0 / math.sqrt(channels * size)
        init = nn.initializer.Uniform(low=-k, high=k)
        self._conv2d = nn.Conv2D(channels, filters, (1, size), stride=1, padding=(0, padding), groups=groups,
                                 weight_attr=rt.ParamAttr(name=prefix + "_w", initializer=init),
                                 bias_attr=rt.ParamAttr(name=prefix + "_b", initializer=init))

    def forward(self, x):
        return rt.squeeze(self._conv2d(rt.unsqueeze(x, axis=[2])), axis=[2])


class BMN(nn.Layer):
    def __init__(self):
        super().__init__()
        relu = nn.functional.relu
        self.relu = relu
        self.b_conv1 = Conv1D("Base_1", FEAT, H1, groups=4)
        self.b_conv2 = Conv1D("Base_2", H1, H1, groups=4)
        self.ts_conv1 = Conv1D("TEM_s1", H1, H1, groups=4)
        self.ts_conv2 = Conv1D("TEM_s2", H1, 1, size=1, padding=0)
        self.te_conv1 = Conv1D("TEM_e1", H1, H1, groups=4)
        self.te_conv2 = Conv1D("TEM_e2", H1, 1, size=1, padding=0)
        self.p_conv1 = Conv1D("PEM_1d", H1, H2)
        self.sample_mask = rt.to_tensor(sample_mask())
        self.sample_mask.stop_gradient = True
        self.p_conv3d1 = nn.Conv3D(H2, H3, (NUM_SAMPLE, 1, 1), stride=(NUM_SAMPLE, 1, 1), padding=0)
        self.p_conv2d1 = nn.Conv2D(H3, H2, 1)
        self.p_conv2d2 = nn.Conv2D(H2, H2, 3, padding=1)
        self.p_conv2d3 = nn.Conv2D(H2, H2, 3, padding=1)
        self.p_conv2d4 = nn.Conv2D(H2, 2, 1)

    def forward(self, x):
        relu = self.relu
        x = relu(self.b_conv2(relu(self.b_conv1(x))))
        xs = rt.squeeze(relu(self.ts_conv2(relu(self.ts_conv1(x)))), axis=[1])
        xe = rt.squeeze(relu(self.te_conv2(relu(self.te_conv1(x)))), axis=[1])
        xp = rt.matmul(relu(self.p_conv1(x)), self.sample_mask)
        xp = rt.reshape(xp, shape=[0, 0, -1, D, T])
        xp = rt.squeeze(rt.tanh(self.p_conv3d1(xp)), axis=[2])
        xp = relu(self.p_conv2d3(relu(self.p_conv2d2(relu(self.p_conv2d1(xp))))))
        return nn.functional.sigmoid(self.p_conv2d4(xp)), xs, xe


def _bm_mask():
    rows = np.array([[1] * (T - k) + [0] * k for k in range(D)], dtype="float32")
    mask = rt.static.create_global_var(shape=[D, T], value=0, dtype="float32", persistable=True)
    rt.assign(rows, mask)
    mask.stop_gradient = True
    return mask


def _binary_loss(score, label):
    score, label = rt.reshape(x=score, shape=[-1]), rt.reshape(x=label, shape=[-1])
    pmask = rt.cast(x=(label > 0.5), dtype="float32")
    entries = rt.cast(rt.shape(pmask), dtype="float32")
    ratio = entries / rt.cast(rt.sum(pmask), dtype="float32")
    pos = 0.5 * ratio * rt.mean(rt.multiply(rt.log(score + 1e-6), pmask))
    neg = 0.5 * ratio / (ratio - 1) * rt.mean(rt.multiply(rt.log(1.0 - score + 1e-6), 1.0 - pmask))
    return -1 * (pos + neg)


def bmn_loss(pred_bm, pred_start, pred_end, gt_iou, gt_start, gt_end, draws):
    reg = rt.squeeze(rt.slice(pred_bm, axes=[1], starts=[0], ends=[1]), axis=[1])
    cls = rt.squeeze(rt.slice(pred_bm, axes=[1], starts=[1], ends=[2]), axis=[1])
    mask = _bm_mask()
    gt = rt.multiply(gt_iou, mask)
    high = rt.cast(x=gt > 0.7, dtype="float32")
    mid = rt.cast(x=rt.logical_and(gt <= 0.7, gt > 0.3), dtype="float32")
    low = rt.multiply(rt.cast(x=rt.logical_and(gt <= 0.3, gt >= 0.0), dtype="float32"), mask)
    n_high = rt.sum(high)
    keep_mid = rt.cast(x=rt.multiply(mid, rt.assign(draws[0])) > (1.0 - n_high / rt.sum(mid)), dtype="float32")
    keep_low = rt.cast(x=rt.multiply(low, rt.assign(draws[1])) > (1.0 - n_high / rt.sum(low)), dtype="float32")
    weights = high + keep_mid + keep_low
    weights.stop_gradient = True
    reg_loss = 0.5 * rt.sum(rt.multiply(nn.functional.square_error_cost(reg, gt), weights)) / rt.sum(weights)
    pmask = rt.cast(x=(gt > 0.9), dtype="float32")
    nmask = rt.multiply(rt.cast(x=(gt <= 0.9), dtype="float32"), mask)
    entries = rt.sum(pmask) + rt.sum(nmask)
    ratio = entries / rt.sum(pmask)
    pos = 0.5 * ratio * rt.sum(rt.multiply(rt.log(cls + 1e-6), pmask))
    neg = 0.5 * ratio / (ratio - 1) * rt.sum(rt.multiply(rt.log(1.0 - cls + 1e-6), nmask))
    cls_loss = -1 * (pos + neg) / entries
    tem_loss = _binary_loss(pred_start, gt_start) + _binary_loss(pred_end, gt_end)
    return tem_loss + 10 * reg_loss + cls_loss


def _batches():
    rng = np.random.RandomState(2000)
    out = []
    for _ in range(2):
        feats = rng.random_sample([2, FEAT, T]).astype("float32")
        gt_iou = rng.random_sample([2, D, T]).astype("float32")
        gt_iou[:, 0, 0], gt_iou[:, 1, 0] = 0.95, 0.5  # every mask has an entry
        gt_start = rng.random_sample([2, T]).astype("float32")
        gt_end = rng.random_sample([2, T]).astype("float32")
        gt_start[:, 0] = gt_end[:, 0] = 0.9
        gt_start[:, 1] = gt_end[:, 1] = 0.1
        draws = [rng.uniform(0.0, 1.0, [D, T]).astype("float32") for _ in range(2)]
        out.append((feats, gt_iou, gt_start, gt_end, draws))
    return out


def _train(convert):
    rt.seed(2000)
    model = BMN()
    run = dy2st.to_static(model) if convert else model
    opt = rt.optimizer.Adam(rt.optimizer.lr.PiecewiseDecay(boundaries=[4200], values=[0.1, 0.01]),
                            parameters=model.parameters(), weight_decay=rt.regularizer.L2Decay(coeff=1e-4))
    losses = []
    for feats, gt_iou, gt_start, gt_end, draws in _batches():
        pred_bm, pred_start, pred_end = run(rt.to_tensor(feats))
        loss = bmn_loss(pred_bm, pred_start, pred_end, rt.to_tensor(gt_iou), rt.to_tensor(gt_start),
                        rt.to_tensor(gt_end), draws)
        loss.backward()
        opt.minimize(loss)
        opt.clear_grad()
        losses.append(float(loss))
    return model, run, losses


def test_training_matches_eager_then_saves(tmp_path):
    eager_model, _, eager_losses = _train(False)
    model, static, losses = _train(True)
    assert losses == eager_losses and all(np.isfinite(losses))
    for (k, a), b in zip(eager_model.state_dict().items(), model.state_dict().values()):
        np.testing.assert_array_equal(b.numpy(), a.numpy(), err_msg=k)
    static.eval()
    x = rt.to_tensor(_batches()[0][0])
    path = os.path.join(tmp_path, "bmn")
    dy2st.save(static, path, input_spec=[rt.static.InputSpec([None, FEAT, T], "float32")])
    for want, got in zip(static(x), dy2st.load(path)(x)):
        np.testing.assert_array_equal(got.numpy(), want.numpy())
