"""A Layer's forward that updates a buffer: `self.steps = self.steps + 1` (rebinding) and
`self.acc.add_(...)` (in place). The converted call writes both back after each run; the saved model
left the rebound buffer as saved (each call of the loaded model saw the same step count, no error),
and saving a forward that added into a buffer after an `add` read it was refused as a gradient hazard
(an `add`'s gradient reads no input value). The saved Program now assigns rebound buffers itself."""
import warnings

import numpy as np
import pytest

import dy2st
import runtime as rt


class Counter(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.register_buffer("steps", rt.zeros([1]))
        self.register_buffer("acc", rt.zeros([1]))
        self.fc = rt.nn.Linear(4, 4)

    def forward(self, x):
        self.steps = self.steps + 1
        self.acc.add_(x.mean().reshape([1]))
        return self.fc(x) * self.steps + self.acc


@pytest.mark.parametrize("backend", [None, "onnxruntime"])
def test_a_loaded_model_updates_its_buffers_as_eager(tmp_path, backend):
    if backend == "onnxruntime":
        pytest.importorskip("onnxruntime")
    rt.seed(3)
    net = Counter()
    net.eval()
    state = {k: v.numpy().copy() for k, v in net.state_dict().items()}
    path = str(tmp_path / "counter")
    dy2st.save(net, path, input_spec=[dy2st.InputSpec([None, 4], "float32")])
    net.set_state_dict(state)  # (saving traced the forward once: start both from the same state)
    loaded = dy2st.load(path) if backend is None else dy2st.load(path, backend=backend)
    rng = np.random.default_rng(0)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        for batch in (2, 3, 1):
            x = rt.to_tensor(rng.standard_normal((batch, 4)).astype("float32"))
            np.testing.assert_allclose(loaded(x).numpy(), net(x).numpy(), rtol=1e-6, atol=1e-6)
    # onnxruntime cannot write persistable state: the model runs on the numpy executor, saying so
    assert any("writes persistable state" in str(w.message) for w in seen) == (backend is not None)
    got = {k: v.numpy() for k, v in loaded.state_dict().items()}
    np.testing.assert_array_equal(got["steps"], net.steps.numpy())
    np.testing.assert_allclose(got["acc"], net.acc.numpy(), rtol=1e-6)
