"""The generated cache-hit call (``fast_call.py``) gives what the general call path gives.

Every test calls a converted function or Layer several times, so later calls take the generated
path, and compares with eager and with the general path (the generated call switched off by
clearing it before each call).  Each also changes one thing the generated call must notice: a
guarded value, a mode, ``enable_to_static``, an input shape, gradients on or off.
"""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from dy2st.frontend.fast_call import MISS
from dy2st.deploy.output_spec import select_outputs
from runtime import nn


def t(a, stop_gradient=True):
    return rt.to_tensor(np.asarray(a, dtype="float32"), stop_gradient=stop_gradient)


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype("float32")


def general(sf):
    """Switch the generated call off for the next call of ``sf`` (the general path serves it)."""
    sf._hit = None
    sf._fast_cache.clear()


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.scale = 2.0
        self.register_buffer("calls", rt.zeros([1], "float32"))

    def forward(self, x):
        self.calls = self.calls + 1
        h = F.relu(self.fc(x))
        if h.mean() > 0:
            h = h * self.scale
        return h, x


def test_generated_call_serves_later_calls_and_equals_the_general_path():
    net = dy2st.to_static(Net())
    ref = Net()
    ref.set_state_dict(net.state_dict())
    for seed in range(4):
        x = t(rand(2, 4, seed=seed))
        got, same = net(x)
        want, _ = type(ref).forward(ref, x)
        assert same is x  # eager `return x` hands back the caller's own Tensor
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    assert net.forward._hit is not None
    assert net.forward._hit((x,)) is not MISS
    general(net.forward)
    slow, _ = net(x)
    np.testing.assert_allclose(slow.numpy(), net(x)[0].numpy())
    # the buffer write advanced on every call, generated or general
    np.testing.assert_allclose(net.calls.numpy(), ref.calls.numpy() + 3)
    assert len(net.forward.program_cache) == 1


def test_a_changed_guard_retraces_after_generated_hits():
    net = dy2st.to_static(Net())
    x = t(rand(2, 4))
    for _ in range(3):
        before, _ = net(x)
    net.scale = 5.0  # a guarded Python attribute
    after, _ = net(x)
    np.testing.assert_allclose(after.numpy(), before.numpy() / 2.0 * 5.0, rtol=1e-6)
    net.fc = nn.Linear(4, 3)  # a guarded sub-layer
    replaced, _ = net(x)
    want, _ = Net.forward(net, x)
    np.testing.assert_allclose(replaced.numpy(), want.numpy(), rtol=1e-6)
    assert net.forward.get_traced_count() == 3


def test_mode_switches_and_enable_to_static_after_generated_hits():
    net = dy2st.to_static(nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5)))
    x = t(rand(8, 4))
    net.eval()
    a = [net(x).numpy() for _ in range(3)]
    net.train()
    rt.seed(1)
    b = net(x).numpy()
    assert not np.allclose(a[0], b)  # dropout is on again
    net.eval()
    np.testing.assert_allclose(net(x).numpy(), a[0])
    dy2st.enable_to_static(False)
    try:
        calls = net.forward.get_traced_count()
        np.testing.assert_allclose(net(x).numpy(), a[0])
        assert net.forward.get_traced_count() == calls
    finally:
        dy2st.enable_to_static(True)


def test_new_shapes_and_dtypes_take_their_own_program():
    @dy2st.to_static
    def f(x):
        return x * 2 + x.shape[0]

    for shape in [(2, 3), (4, 3), (2, 3), (4, 3)]:
        x = t(np.ones(shape))
        np.testing.assert_allclose(f(x).numpy(), np.ones(shape) * 2 + shape[0])
    xi = rt.to_tensor(np.ones((2, 3), "int64"))
    assert f(xi).numpy().dtype == np.int64
    assert len(f.program_cache) == 3


def test_gradients_through_generated_calls_equal_the_general_path():
    net = dy2st.to_static(nn.Linear(4, 2))
    x = t(rand(3, 4), stop_gradient=False)
    grads = []
    for use_general in (False, False, True):
        if use_general:
            general(net.forward)
        net.clear_gradients()
        x.grad = None
        net(x).sum().backward()
        grads.append((net.weight.grad.numpy().copy(), x.grad.numpy().copy()))
    for w, g in grads[1:]:
        np.testing.assert_allclose(w, grads[0][0])
        np.testing.assert_allclose(g, grads[0][1])
    with rt.no_grad():
        out = net(x)
    assert out.stop_gradient


def test_outputs_of_generated_calls_are_found_by_output_spec():
    net = dy2st.to_static(nn.Linear(4, 2))
    x = t(rand(3, 4))
    for _ in range(3):
        out = net(x)
    concrete = net.forward.concrete_program
    chosen, _ = select_outputs([out], concrete.outputs, concrete.out_skeleton, net.forward, concrete)
    assert [v.name for v in chosen] == [concrete.outputs[0].name]


def test_errors_of_generated_calls_point_at_the_user_line():
    @dy2st.to_static
    def g(x):
        assert x.mean() > 0, "mean must be positive"
        return x + 1

    g(t(np.ones(3)))
    g(t(np.ones(3)))
    with pytest.raises(AssertionError, match="mean must be positive") as info:
        g(t(-np.ones(3)))
    assert "test_fast_call.py" in "".join(getattr(info.value, "__notes__", [])) + str(info.value)


def test_onnxruntime_backend_generated_calls_follow_weight_updates():
    pytest.importorskip("onnxruntime")
    net = dy2st.to_static(nn.Linear(4, 2), backend="onnxruntime")
    net.eval()
    x = t(rand(3, 4))
    with rt.no_grad():
        for _ in range(3):
            first = net(x).numpy()
        net.weight.set_value(net.weight.numpy() * 2)
        again = net(x).numpy()
    want = x.numpy() @ net.weight.numpy() + net.bias.numpy()
    np.testing.assert_allclose(again, want, rtol=1e-5, atol=1e-6)
    assert not np.allclose(first, again)


def _converted_and_called():
    def double(x):
        return x * 2

    sf = dy2st.to_static(double)
    for _ in range(3):
        sf(t(np.ones(3)))
    assert sf._hit is not None
    return sf


def test_generated_calls_make_no_reference_cycle():
    import gc
    import weakref

    gc.disable()  # freed by reference counting alone, as without the generated calls
    try:
        ref = weakref.ref(_converted_and_called())
        assert ref() is None
    finally:
        gc.enable()


def test_cache_hit_rebuilds_nested_output_structures_like_eager():
    """Tuples, lists, constants and a tensor returned twice come back in eager's structure on a cache
    hit (the generated call builds them inline) as on the first call."""
    def f(x):
        y = x * 2.0
        return (y, [x + 1.0, 3, "tag"], y)

    sf = dy2st.to_static(f)
    for k in (1.0, -2.0, 0.5):
        x = rt.to_tensor(np.full((2, 3), k, "float32"))
        want, got = f(x), sf(x)
        assert type(got) is tuple and type(got[1]) is list and got[1][1:] == [3, "tag"]
        assert got[0] is got[2]
        np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())
        np.testing.assert_array_equal(got[1][0].numpy(), want[1][0].numpy())
