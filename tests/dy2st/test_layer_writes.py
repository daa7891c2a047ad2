"""What forward writes into its Layer advances like eager on every run of the cached Program;
`dy2st.save` keeps forward hooks; a Layer made inside forward is refused at the user's line."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from error_helpers import notes


class Counter(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.register_buffer("n", rt.to_tensor([1], dtype="int64"))
        self.fc = rt.nn.Linear(2, 2)

    def forward(self, x):
        self.n = self.n + 1
        y = self.fc(x)
        self.last = y * 2
        return y + self.n.astype("float32")


def _pair():
    rt.seed(3)
    eager = Counter()
    static = Counter()
    static.set_state_dict(eager.state_dict())
    return eager, dy2st.to_static(static)


def test_buffer_and_attribute_writes_advance_every_call(tmp_path):
    eager, static = _pair()
    for k in range(4):
        x = rt.to_tensor(np.full([k + 1, 2], k, "float32"))
        np.testing.assert_allclose(static(x).numpy(), eager(x).numpy(), rtol=1e-6)
        assert static.n.numpy().tolist() == eager.n.numpy().tolist() == [k + 2]
        assert type(static.n) is rt.Tensor and type(static.last) is rt.Tensor
        np.testing.assert_allclose(static.last.numpy(), eager.last.numpy(), rtol=1e-6)
    assert len(static.forward.program_cache) == 4  # one per batch size, each advancing n
    dy2st.save(static, str(tmp_path / "m"), input_spec=[dy2st.InputSpec([None, 2], "float32", "x")])
    assert type(static.n) is rt.Tensor
    loaded = dy2st.load(str(tmp_path / "m"))
    x = rt.to_tensor(np.ones([3, 2], "float32"))
    want = static.fc(x) + float(static.n.numpy()[0] + 1)
    np.testing.assert_allclose(loaded(x).numpy(), want.numpy(), rtol=1e-6)


def test_attribute_written_in_forward_keeps_gradients():
    eager, static = _pair()
    x = rt.to_tensor(np.ones([2, 2], "float32"))
    eager(x)
    static(x)
    eager.last.sum().backward()
    static.last.sum().backward()
    np.testing.assert_allclose(static.fc.weight.grad.numpy(), eager.fc.weight.grad.numpy(), rtol=1e-6)


class Hooked(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(2, 3)

    def forward(self, x):
        return self.fc(x)


def test_save_keeps_forward_hooks(tmp_path):
    layer = Hooked()
    layer.register_forward_pre_hook(lambda l, inputs: (inputs[0] * 2,))
    layer.register_forward_post_hook(lambda l, inputs, out: out + 1)
    static = dy2st.to_static(layer)
    dy2st.save(static, str(tmp_path / "h"), input_spec=[dy2st.InputSpec([None, 2], "float32", "x")])
    loaded = dy2st.load(str(tmp_path / "h"))
    for b in (1, 4):
        x = rt.to_tensor(np.arange(2 * b, dtype="float32").reshape(b, 2))
        want = layer.fc(x * 2) + 1
        np.testing.assert_allclose(static(x).numpy(), want.numpy(), rtol=1e-6)
        np.testing.assert_allclose(loaded(x).numpy(), want.numpy(), rtol=1e-6)


class MakesLayer(rt.nn.Layer):
    def forward(self, x):
        fc = rt.nn.Linear(2, 2)
        return fc(x)


def test_layer_created_in_forward_is_refused_at_user_line():
    with pytest.raises(RuntimeError, match="Linear creates a parameter") as info:
        dy2st.to_static(MakesLayer())(rt.to_tensor(np.ones([1, 2], "float32")))
    assert "fc = rt.nn.Linear(2, 2)" in notes(info.value)
    rt.nn.Linear(2, 2)  # outside a trace, creating layers works again


class History(rt.nn.Layer):
    def forward(self, x):
        self.hist = [x * 2, {"m": x.mean(), "k": 3}]
        return x + 1


def test_new_containers_of_tensors_written_in_forward_hold_run_values():
    layer = History()
    static = dy2st.to_static(layer)
    for a in ([1.0, 2.0], [5.0, 7.0]):
        static(rt.to_tensor(a))
        assert type(layer.hist[0]) is rt.Tensor and layer.hist[1]["k"] == 3
        np.testing.assert_allclose(layer.hist[0].numpy(), np.array(a) * 2)
        np.testing.assert_allclose(layer.hist[1]["m"].numpy(), np.mean(a))


class CountsCalls(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return x * 2


def test_python_counter_changed_in_forward_changes_at_every_call():
    # eagerly every call increments it: the trace's change makes the next call retrace, as a
    # global counter does
    layer = CountsCalls()
    static = dy2st.to_static(layer)
    static(rt.to_tensor([1.0]))
    static(rt.to_tensor([2.0]))
    assert layer.calls == 2 and static.forward.get_traced_count() == 2
