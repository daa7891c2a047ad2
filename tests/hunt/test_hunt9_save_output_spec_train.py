"""A Layer saved with `output_spec` whose forward differs in train mode (batch norm): the eval-mode
model returned the chosen outputs, but the stored train-mode Program returned every output, so the
loaded model in `train()` gave `(mean, h)` where `output_spec=[1]` asked for `h` (and
`loaded(x)[0]` was silently the other output). The train-mode Program now returns the same chosen
outputs, and fine-tuning matches the original Layer's."""
import numpy as np

import dy2st
import runtime as rt
from dy2st import InputSpec


class Normed(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(3, 3)
        self.bn = rt.nn.BatchNorm1D(3)

    def forward(self, x):
        h = self.bn(self.fc(x))
        return h.mean(1), h, x


def test_train_mode_keeps_the_chosen_outputs(tmp_path):
    rt.seed(5)
    net = Normed()
    state = {k: v.numpy().copy() for k, v in net.state_dict().items()}
    path = str(tmp_path / "m")
    dy2st.save(net, path, input_spec=[InputSpec([None, 3], "float32")], output_spec=[1, 0])
    net.set_state_dict(state)
    loaded = dy2st.load(path)
    loaded.train()
    net.train()
    opts = [rt.optimizer.SGD(0.1, parameters=m.parameters()) for m in (net, loaded)]
    rng = np.random.default_rng(0)
    for n in (4, 2):
        x = rt.to_tensor(rng.normal(size=(n, 3)).astype("float32"))
        h, mean = loaded(x)
        want_mean, want_h, _ = net(x)
        np.testing.assert_allclose(h.numpy(), want_h.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(mean.numpy(), want_mean.numpy(), rtol=1e-5, atol=1e-6)
        for loss, opt in zip(((want_h * want_h).sum(), (h * h).sum()), opts):
            loss.backward()
            opt.step()
            opt.clear_grad()
    for key, value in net.state_dict().items():
        np.testing.assert_allclose(loaded.state_dict()[key].numpy(), value.numpy(), rtol=1e-5, atol=1e-6)
