"""A model using run-time dims in its shapes, saved with ``InputSpec([None, ...])``: ``dy2st.load``
and the ONNX export (onnxruntime) both match eager at two batch sizes."""
import os

import numpy as np
import pytest

import dy2st
import runtime as rt
from dy2st import InputSpec
from static_helpers import building

_rng = np.random.default_rng(11)
SPEC = [InputSpec([None, 3, 4], "float32", "x")]


class ShapeNet(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(12, 6)

    def forward(self, x):
        b, n, m = x.shape
        h = self.fc(rt.reshape(x, [b, -1]))                           # flatten by the batch dim
        h = rt.reshape(h, [b, 2, 3]) + rt.zeros([b, 2, 3])             # reshape / zeros by batch
        h = h + rt.expand(rt.ones([1, 1, 3]), [b, 2, -1]) * rt.full([b, 1, 1], 0.5)
        t = rt.tile(rt.ones([1, 3]), [b, 1])                           # tile by batch
        s = x[: b - 1, :, : m - 1] + x[1:b, :, 1:]                      # slice bounds from dims
        w = rt.reshape(x, rt.shape(x)[::-1])                           # shape= a Tensor
        r = rt.reshape(x, [n * b, m])[::2]                             # arithmetic on dims
        return h, t, s, w, r


def _inputs(b):
    return rt.to_tensor(_rng.standard_normal((b, 3, 4)).astype(np.float32))


def test_save_load_serves_every_batch_size(tmp_path):
    net = ShapeNet()
    prefix = str(tmp_path / "shape_net")
    dy2st.save(net, prefix, input_spec=SPEC)
    loaded = dy2st.load(prefix)
    for b in (2, 5):
        x = _inputs(b)
        for got, want in zip(loaded(x), net(x)):
            assert got.shape == want.shape
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_onnx_export_serves_every_batch_size(tmp_path):
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    net = ShapeNet()
    path = str(tmp_path / "shape_net.onnx")
    model = dy2st.export_onnx(net, path, input_spec=SPEC)
    types = {n.op_type for n in model.graph.node}
    # shapes computed in the graph: Shape/Gather values concatenated and fed to the shape inputs
    assert {"Shape", "Gather", "Concat", "Reshape", "ConstantOfShape", "Expand", "Tile", "Slice"} <= types
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    for b in (2, 5):
        x = _inputs(b)
        outs = sess.run(None, {sess.get_inputs()[0].name: x.numpy()})
        for got, want in zip(outs, net(x)):
            np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-6)


def test_onnx_slices_with_tensor_bounds_and_steps(tmp_path):
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    from runtime.static.onnx.export import export_onnx

    main = rt.static.Program()
    with building(main):
        x = rt.static.data("x", [-1, 6], "float32")
        k = rt.static.data("k", [], "int64")
        b = rt.shape(x)[0]
        outs = [x[::k], x[:, ::-k], x[b - 1:0:-1, k:], x[-b:, :k], x[..., 1:k + 2:k]]
    path = str(tmp_path / "slices.onnx")
    export_onnx(main, ["x", "k"], [o.name for o in outs], path=path)
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    for bsz, kv in ((3, 1), (5, 2)):
        feed = {"x": _rng.standard_normal((bsz, 6)).astype(np.float32), "k": np.array(kv, np.int64)}
        want = rt.static.Executor().run(main, feed=feed, fetch_list=outs)
        got = sess.run(None, feed)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    assert os.path.getsize(path) > 0


class LoopNet(rt.nn.Layer):
    """Run-time dims read inside a tensor ``while`` and both branches of a tensor ``if``."""

    def __init__(self, noise=True):
        super().__init__()
        self.noise = noise

    def forward(self, x, n):
        h = rt.zeros([x.shape[0], 4])
        i = 0
        while i < n:
            h = h + rt.reshape(x, [x.shape[0], -1])[:, : x.shape[1] * 2] + rt.ones([x.shape[0], 4])
            i += 1
        if h.mean() > 2:
            out = rt.reshape(h, [x.shape[0], 2, -1])
        else:
            out = rt.reshape(h * 2, [x.shape[0], 2, 2])[:, :, : x.shape[0] - 1]
        # (Random ops have no ONNX lowering: no ONNX random op reproduces runtime's values.)
        return out, rt.randn([x.shape[0], 3]) if self.noise else rt.zeros([x.shape[0], 3])


LOOP_SPEC = [InputSpec([None, 2, 3], "float32", "x"), InputSpec([], "int64", "n")]
LOOP_CASES = ((2, 1), (4, 3), (3, 0))


def _loop_case(b, n):
    return _rng.random((b, 2, 3)).astype(np.float32), np.array(n, np.int64)


def test_control_flow_with_run_time_dims_loads_and_exports(tmp_path):
    net = LoopNet()
    sf = dy2st.to_static(LoopNet(), input_spec=LOOP_SPEC)
    prefix = str(tmp_path / "loop_net")
    dy2st.save(net, prefix, input_spec=LOOP_SPEC)
    loaded = dy2st.load(prefix)
    for b, n in LOOP_CASES:
        x, k = _loop_case(b, n)
        want = net(rt.to_tensor(x), rt.to_tensor(k))
        for got in (sf(rt.to_tensor(x), rt.to_tensor(k)), loaded(rt.to_tensor(x), rt.to_tensor(k))):
            np.testing.assert_allclose(got[0].numpy(), want[0].numpy(), rtol=1e-6)
            assert got[1].shape == [b, 3]
    assert len(sf.forward.program_cache) == 1
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    path = str(tmp_path / "loop_net.onnx")
    net = LoopNet(noise=False)
    dy2st.export_onnx(net, path, input_spec=LOOP_SPEC)
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    for b, n in LOOP_CASES:
        x, k = _loop_case(b, n)
        out, noise = sess.run(None, {"x": x, "n": k})
        np.testing.assert_allclose(out, net(rt.to_tensor(x), rt.to_tensor(k))[0].numpy(), rtol=1e-5)
        assert noise.shape == (b, 3)


def test_trained_with_concrete_sizes_then_saved_for_every_size(tmp_path):
    """The issue's case: training traces concrete batch sizes, then save traces InputSpec([None, ...])."""
    net = ShapeNet()
    sf = dy2st.to_static(net)
    opt = rt.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
    for b in (4, 4):
        h = sf(_inputs(b))[0]
        h.mean().backward()
        opt.step()
        opt.clear_grad()
    prefix = str(tmp_path / "trained")
    dy2st.save(net, prefix, input_spec=SPEC)
    loaded = dy2st.load(prefix)
    for b in (1, 6):
        x = _inputs(b)
        np.testing.assert_allclose(loaded(x)[0].numpy(), net(x)[0].numpy(), rtol=1e-6)
