"""Execution backends: the onnxruntime backend against the numpy executor (the reference).

Several models (MLP, a transformer block, cond, tensor while, a CNN with batch-norm)
at two batch sizes, through ``to_static(..., backend=)`` and ``dy2st.load(..., backend=)``;
what cannot be lowered falls back to numpy with one message naming it; training calls run
on numpy; parameters changed by an optimizer or ``set_state_dict`` are seen by the session.
"""
import sys
import warnings

import numpy as np
import pytest

ort = pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

import dy2st  # noqa: E402
import runtime as rt  # noqa: E402
from dy2st import InputSpec  # noqa: E402
from runtime import nn  # noqa: E402
from runtime.nn import functional as F  # noqa: E402
from runtime.static import backends  # noqa: E402

TOL = dict(rtol=2e-5, atol=2e-5)


class MLP(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fcs = nn.LayerList([nn.Linear(12, 12) for _ in range(3)])
        self.out = nn.Linear(12, 4)

    def forward(self, x):
        for fc in self.fcs:
            x = F.relu(fc(x))
        return F.softmax(self.out(x), axis=-1)


class Block(nn.Layer):
    """One post-norm transformer encoder block (attention, gelu MLP, layer norms)."""

    def __init__(self, h=16, heads=2):
        super().__init__()
        self.h, self.heads = h, heads
        self.qkv = nn.Linear(h, 3 * h)
        self.proj = nn.Linear(h, h)
        self.ln1, self.ln2 = nn.LayerNorm(h), nn.LayerNorm(h)
        self.fc1, self.fc2 = nn.Linear(h, 2 * h), nn.Linear(2 * h, h)

    def forward(self, x):
        s, d = x.shape[1], self.h // self.heads
        qkv = self.qkv(x).reshape([-1, s, 3, self.heads, d]).transpose([2, 0, 3, 1, 4])
        q, k, v = qkv[0], qkv[1], qkv[2]
        att = F.softmax(rt.matmul(q, k, transpose_y=True) * (d ** -0.5), axis=-1)
        ctx = rt.matmul(att, v).transpose([0, 2, 1, 3]).reshape([-1, s, self.h])
        x = self.ln1(x + self.proj(ctx))
        return self.ln2(x + self.fc2(F.gelu(self.fc1(x))))


class Branchy(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)

    def forward(self, x):
        h = self.fc(x)
        if h.mean() > 0:
            h = F.relu(h) * 2.0
        else:
            h = rt.tanh(h) - 1.0
        return h


class Looper(nn.Layer):
    """A tensor ``while`` whose trip count depends on the data."""

    def __init__(self):
        super().__init__()
        self.cell = nn.Linear(6, 6)

    def forward(self, x, n):
        i = rt.zeros([1], "int64")
        h = x
        while i < n:
            h = rt.tanh(self.cell(h) + x)
            i = i + 1
        return h, i


class CNN(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(1, 3, 3, padding=1)
        self.bn = nn.BatchNorm2D(3)
        self.fc = nn.Linear(3 * 4 * 4, 2)

    def forward(self, x):
        h = F.max_pool2d(F.relu(self.bn(self.conv(x))), 2)
        return self.fc(rt.flatten(h, 1))


def _pair(cls):
    rt.seed(7)
    ref = cls()
    ref.eval()
    other = cls()
    other.set_state_dict(ref.state_dict())
    other.eval()
    return dy2st.to_static(ref, backend="numpy"), dy2st.to_static(other, backend="onnxruntime")


def _backend_of(layer):
    return layer.forward.concrete_program.partial_program.runner.backend


def _run(layer, *args):
    with rt.no_grad():
        out = layer(*[rt.to_tensor(a) for a in args])
    return [o.numpy() for o in (out if isinstance(out, (list, tuple)) else [out])]


def _agree(a, b, *args):
    got, want = _run(b, *args), _run(a, *args)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, **TOL)


@pytest.mark.parametrize("cls,shape", [(MLP, (12,)), (Block, (5, 16)), (Branchy, (6,)), (CNN, (1, 8, 8))])
@pytest.mark.parametrize("batch", [1, 4])
def test_onnxruntime_matches_numpy(cls, shape, batch):
    a, b = _pair(cls)
    rng = np.random.RandomState(batch)
    for scale in (1.0, -1.0):  # Branchy takes both branches
        x = (scale * rng.rand(batch, *shape) + (0.3 if scale > 0 else -0.3)).astype("float32")
        _agree(a, b, x)
    assert _backend_of(b) == "onnxruntime"
    assert _backend_of(a) == "numpy"


@pytest.mark.parametrize("batch", [1, 3])
def test_onnxruntime_while_trip_counts(batch):
    a, b = _pair(Looper)
    x = np.random.RandomState(0).rand(batch, 6).astype("float32")
    for n in (0, 1, 5):
        _agree(a, b, x, np.array([n], "int64"))
    assert _backend_of(b) == "onnxruntime"
    assert len(b.forward.program_cache) == 1  # one Program serves every trip count


def test_load_with_backend(tmp_path):
    rt.seed(3)
    layer = Block()
    layer.eval()
    path = str(tmp_path / "block")
    dy2st.save(layer, path, input_spec=[InputSpec([None, 5, 16], "float32", "x")])
    ref, fast = dy2st.load(path), dy2st.load(path, backend="onnxruntime")
    ref.eval()
    fast.eval()
    for batch in (1, 3):
        x = np.random.RandomState(batch).rand(batch, 5, 16).astype("float32")
        np.testing.assert_allclose(fast(rt.to_tensor(x)).numpy(), ref(rt.to_tensor(x)).numpy(), **TOL)
    assert fast._partial.runner.backend == "onnxruntime"


def test_unknown_backend_is_an_error():
    with pytest.raises(ValueError, match="unknown backend 'tensorrt'.*'numpy'"):
        dy2st.to_static(lambda x: x, backend="tensorrt")
    with pytest.raises(ValueError, match="unknown backend"):
        dy2st.load("nowhere", backend="tvm")


def test_unlowerable_program_falls_back_once_naming_the_op():
    @dy2st.to_static(backend="onnxruntime")
    def noisy(x):
        return x + rt.rand([2, 3])

    x = rt.to_tensor(np.ones((2, 3), "float32"))
    with pytest.warns(RuntimeWarning, match=r"cannot run .*noisy.*'uniform_random'.*random.*numpy executor"):
        noisy(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rt.seed(1)
        first = noisy(x).numpy()
        rt.seed(1)
        np.testing.assert_array_equal(noisy(x).numpy(), first)  # numpy's seeded generator
    assert noisy.concrete_program.partial_program.runner.backend == "numpy"


def test_training_call_runs_on_numpy_with_one_message():
    rt.seed(5)
    layer = dy2st.to_static(MLP(), backend="onnxruntime")
    x = rt.to_tensor(np.random.RandomState(0).rand(2, 12).astype("float32"))
    with pytest.warns(RuntimeWarning, match="inference only.*needs gradients.*numpy executor"):
        layer(x).sum().backward()
    assert layer.out.weight.grad is not None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        layer(x).sum().backward()


@pytest.mark.filterwarnings("ignore:dy2st. backend='onnxruntime' runs inference only")
def test_session_sees_new_parameter_values():
    a, b = _pair(MLP)
    x = np.random.RandomState(1).rand(3, 12).astype("float32")
    _agree(a, b, x)
    # In place, as the optimizers write: both layers take the same SGD step.
    for layer in (a, b):
        layer.train()
        opt = rt.optimizer.SGD(0.5, parameters=layer.parameters())
        F.cross_entropy(layer(rt.to_tensor(x)), rt.to_tensor(np.array([0, 1, 2]))).backward()
        opt.step()
        layer.eval()
    _agree(a, b, x)
    # Replaced values (set_state_dict builds new arrays).
    rt.seed(11)
    fresh = MLP().state_dict()
    a.set_state_dict(fresh)
    b.set_state_dict(fresh)
    _agree(a, b, x)


def test_missing_onnxruntime_names_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    monkeypatch.delitem(sys.modules, "runtime.static.backends.onnxruntime", raising=False)
    with pytest.raises(ImportError, match="pip install onnxruntime"):
        backends.make_runner("onnxruntime", rt.static.Program(), ["x"], ["y"])


def test_onnxruntime_options():
    try:
        assert backends.onnxruntime_options(intra_op_num_threads=1)["intra_op_num_threads"] == 1
        with pytest.raises(TypeError, match="unexpected option 'threads'"):
            backends.onnxruntime_options(threads=2)
    finally:
        backends.onnxruntime_options(intra_op_num_threads=None)
