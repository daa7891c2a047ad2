"""A Layer with several converted methods saved as `m`, `m.NAME`: each method came back as a model
of its own, with its own copies of the Layer's tensors. A buffer `bump` wrote was not what `forward`
read (after `bump`, the loaded `forward` returned `fc(x) + 0` where the Layer gives `fc(x) + 1`),
fine-tuning `loaded.parameters()` left the other methods on the old weights, `loaded.train()` left
them in eval(), and saving the loaded model again dropped them. The methods now share the loaded
model's tensors by state_dict key and follow its mode."""
import numpy as np

import dy2st
import runtime as rt
from dy2st import InputSpec


class TwoMethods(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(3, 2)
        self.head = rt.nn.Linear(2, 2)
        self.register_buffer("steps", rt.zeros([1]))

    @dy2st.to_static(input_spec=[InputSpec([None, 3], "float32")])
    def forward(self, x):
        return self.fc(x) + self.steps

    @dy2st.to_static(input_spec=[InputSpec([None, 3], "float32")])
    def bump(self, x):
        self.steps += 1
        return self.fc(x).sum()

    @dy2st.to_static(input_spec=[InputSpec([None, 3], "float32"), InputSpec([None], "int64")])
    def loss(self, x, y):
        return rt.nn.functional.cross_entropy(self.head(self.fc(x)), y)


def _saved(tmp_path):
    rt.seed(4)
    net = TwoMethods()
    state = {k: v.numpy().copy() for k, v in net.state_dict().items()}
    dy2st.save(net, str(tmp_path / "m"))
    net.set_state_dict(state)
    return net, dy2st.load(str(tmp_path / "m"))


def _data(seed, n):
    rng = np.random.default_rng(seed)
    return rt.to_tensor(rng.normal(size=(n, 3)).astype("float32")), rt.to_tensor(rng.integers(0, 2, n))


def test_a_buffer_one_method_writes_is_read_by_another(tmp_path):
    net, loaded = _saved(tmp_path)
    for n in (1, 4):
        x, _ = _data(n, n)
        net.bump(x)
        loaded.bump(x)
        np.testing.assert_allclose(loaded(x).numpy(), net(x).numpy(), rtol=1e-6)
    np.testing.assert_array_equal(loaded.state_dict()["steps"].numpy(), [2.0])


def test_fine_tuning_through_one_method_moves_the_others(tmp_path):
    net, loaded = _saved(tmp_path)
    assert sorted(loaded.state_dict()) == sorted(net.state_dict())
    net.train()
    loaded.train()
    assert loaded.loss.training
    opts = [rt.optimizer.SGD(0.5, parameters=m.parameters()) for m in (net, loaded)]
    for step in range(2):
        x, y = _data(10 + step, 5)
        for m, opt in zip((net, loaded), opts):
            m.loss(x, y).backward()
            opt.step()
            opt.clear_grad()
    x, _ = _data(20, 3)
    np.testing.assert_allclose(loaded(x).numpy(), net(x).numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(loaded.head.weight.numpy(), net.head.weight.numpy(), rtol=1e-5, atol=1e-6)
    loaded.eval()
    assert not loaded.loss.training


def test_saving_a_loaded_model_keeps_its_methods(tmp_path):
    net, loaded = _saved(tmp_path)
    x, y = _data(3, 4)
    dy2st.save(loaded, str(tmp_path / "again"))
    again = dy2st.load(str(tmp_path / "again"))
    np.testing.assert_allclose(again.loss(x, y).numpy(), net.loss(x, y).numpy(), rtol=1e-6)
