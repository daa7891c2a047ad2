"""Paddle's HuberLoss, HingeEmbeddingLoss, CosineEmbeddingLoss, TripletMarginLoss, SoftMarginLoss,
MultiLabelSoftMarginLoss, PoissonNLLLoss, GaussianNLLLoss and F.dice_loss: Paddle 3.3's values
(hard-coded), and a model trained through them converted against eager with gradients."""
import numpy as np

import dy2st
import runtime as rt
import runtime.nn.functional as F
from runtime import nn

_X = np.sin(np.arange(12)).reshape(3, 4).astype("float32")
_Y = np.cos(np.arange(12) * 0.7).reshape(3, 4).astype("float32")
_PM = np.where(np.arange(12).reshape(3, 4) % 3 == 0, 1.0, -1.0).astype("float32")


def test_losses_match_paddle():
    t = rt.to_tensor
    got = [F.hinge_embedding_loss(t(_X), t(_PM), margin=0.5),
           F.cosine_embedding_loss(t(_X), t(_Y), t(np.array([1, -1, 1])), margin=0.1),
           F.triplet_margin_loss(t(_X), t(_Y), t(_Y * 2 - _X), swap=True), F.soft_margin_loss(t(_X), t(_PM)),
           F.multi_label_soft_margin_loss(t(_X), t((_PM > 0).astype("float32"))),
           F.poisson_nll_loss(t(_X), t(np.abs(_Y) * 2), full=True),
           F.gaussian_nll_loss(t(_X), t(_Y), t(np.abs(_Y) + 0.1), full=True),
           F.dice_loss(t(np.abs(_X)), t(np.array([[1], [3], [0]]))), nn.HuberLoss(delta=0.3)(t(_X), t(_Y))]
    want = [0.4611300528049469, 0.7110750675201416, 1.0, 0.7480754852294922, 0.7480754852294922, 1.5819439888000488,
            1.2093725204467773, 0.5189183354377747, 0.12657496333122253]
    np.testing.assert_allclose([float(v) for v in got], want, rtol=2e-6)


def test_gaussian_nll_gives_variance_no_gradient_as_paddle():
    v = rt.to_tensor(np.abs(_Y) + 0.1, stop_gradient=False)
    x = rt.to_tensor(_X, stop_gradient=False)
    F.gaussian_nll_loss(x, rt.to_tensor(_Y), v).backward()
    assert v.grad is None and x.grad is not None


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.losses = [nn.HingeEmbeddingLoss(0.5), nn.SoftMarginLoss(), nn.MultiLabelSoftMarginLoss(),
                       nn.PoissonNLLLoss(), nn.HuberLoss(delta=0.3)]
        self.cos, self.trip, self.gauss = nn.CosineEmbeddingLoss(0.1), nn.TripletMarginLoss(swap=True), \
            nn.GaussianNLLLoss()

    def forward(self, x, pm, y):
        h = self.fc(x)
        total = self.cos(h, y, (pm[:, 0] > 0).astype("int64") * 2 - 1) + self.trip(h, y, x) + self.gauss(h, y, y.abs())
        for i, loss in enumerate(self.losses):
            total = total + loss(h, (pm > 0).astype("float32") if i == 2 else pm if i < 2 else y.abs())
        return total


def test_losses_convert_with_gradients():
    rt.seed(7)
    eager, conv = Net(), Net()
    conv.set_state_dict(eager.state_dict())
    conv = dy2st.to_static(conv)
    args = [rt.to_tensor(a) for a in (_X, _PM, _Y)]
    for model in (eager, conv):
        model(*args).backward()
    np.testing.assert_allclose(float(conv(*args)), float(eager(*args)), rtol=1e-6)
    np.testing.assert_allclose(conv.fc.weight.grad.numpy(), eager.fc.weight.grad.numpy(), rtol=1e-5, atol=1e-7)
