"""ONNX export end to end: models exported with dy2st.export_onnx run on onnxruntime at
two batch sizes and agree with the Program (rtol/atol 1e-5); cond takes both branches,
while runs different trip counts; an op with no mapping raises a clear error.
Skipped when the optional extra (pip install 'dy2st[onnx]') is not installed.
"""

import numpy as np
import pytest

ort = pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")

import dy2st  # noqa: E402
import runtime as rt  # noqa: E402
from dy2st import InputSpec  # noqa: E402
from dy2st.tools.cli import main as cli_main  # noqa: E402
from runtime import nn  # noqa: E402
from runtime.nn import functional as F  # noqa: E402
from runtime.static.onnx.export import export_onnx as export_program  # noqa: E402

TOL = dict(rtol=1e-5, atol=1e-5)


class MLP(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.norm = nn.LayerNorm(16)
        self.fc2 = nn.Linear(16, 4)
        self.drop = nn.Dropout(0.3)

    def forward(self, x):
        h = self.drop(F.gelu(self.norm(self.fc1(x))))
        h = F.relu(h) + rt.tanh(h) * rt.sigmoid(h)
        return F.softmax(self.fc2(h), axis=-1)


class SmallCNN(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2D(1, 4, 3, padding=1)
        self.bn = nn.BatchNorm2D(4)
        self.pool = nn.MaxPool2D(2, 2)
        self.conv2 = nn.Conv2D(4, 6, 3, stride=1, padding=0)
        self.avg = nn.AvgPool2D(2, 2)
        self.fc = nn.Linear(6, 3)

    def forward(self, x):
        h = self.pool(F.relu(self.bn(self.conv1(x))))
        h = self.avg(F.relu(self.conv2(h)))
        return self.fc(rt.flatten(h, 1))


@dy2st.to_static(input_spec=[InputSpec([None, 5], "float32", "x")])
def branchy(x):
    if x.mean() > 0:
        y = x * 2.0 + 1.0
    else:
        y = rt.exp(x) - 3.0
    s = rt.zeros([1], "float32")
    n = rt.zeros([], "int64")
    while s.sum() < rt.abs(x).sum():
        s = s + 1.0
        n = n + 1
    return y, s, n


@dy2st.to_static(input_spec=[InputSpec([None, 4, 6], "float32", "x"), InputSpec([None], "int64", "ids")])
def many_ops(x, ids):
    emb = rt.to_tensor(np.arange(24, dtype="float32").reshape(6, 4) / 10.0)
    a = rt.transpose(x, [0, 2, 1])                      # [N, 6, 4]
    b = rt.matmul(a[:, :, :], x, transpose_x=True, transpose_y=True)  # [N, 4, 6] @ [N, 6, 4]
    c = rt.reshape(b, [-1, 16])
    parts = rt.split(c, 4, axis=1)
    d = rt.concat([parts[0], parts[3]], axis=1) - rt.stack(parts[1:3], axis=1).sum(axis=1).max(axis=1, keepdim=True)
    e = rt.where(d > 0, rt.sqrt(rt.abs(d)), rt.pow(d, 2.0))
    f = rt.unsqueeze(e, [0, 2])
    g = rt.squeeze(f, [0, 2]) + rt.log(rt.abs(x).mean(axis=[1, 2], keepdim=False) + 1.0).unsqueeze(-1)
    h = rt.gather(emb, ids) * 2.0                       # [N, 4]
    k = x[:, 1:3, ::2].min(axis=-1) + x[:, -1, 0:4:2]   # int and slice indices
    idx = rt.cast(ids > 2, "float32") + rt.cast(rt.logical_and(ids >= 1, rt.logical_not(ids == 4)), "float32")
    out = rt.concat([g, h, k], axis=1) * idx.unsqueeze(-1)
    return F.log_softmax(out, axis=1), rt.shape(x), rt.numel(x)


def _session(model):
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def _close(ref, got):
    ref = ref if isinstance(ref, (list, tuple)) else [ref]
    assert len(ref) == len(got)
    for r, g in zip(ref, got):
        np.testing.assert_allclose(np.asarray(r.numpy()), g, **TOL)


def test_mlp_layer(tmp_path):
    rt.seed(0)
    net = MLP()
    net.train()  # export traces in eval mode whatever the Layer's mode (dropout off)
    path = tmp_path / "mlp.onnx"
    model = dy2st.export_onnx(net, str(path), input_spec=[InputSpec([None, 8], "float32", "x")])
    assert net.training and path.exists()
    onnx.checker.check_model(onnx.load(str(path)))
    dims = model.graph.input[0].type.tensor_type.shape.dim
    assert dims[0].dim_param and dims[1].dim_value == 8
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    net.eval()
    for n in (1, 7):
        x = np.random.RandomState(n).randn(n, 8).astype("float32")
        _close(net(rt.to_tensor(x)), sess.run(None, {"x": x}))


def test_small_cnn(tmp_path):
    rt.seed(1)
    net = SmallCNN()
    # running statistics different from 0/1 so batch_norm's eval arithmetic is really checked
    net.bn._mean._value = np.linspace(-0.5, 0.5, 4).astype("float32")
    net.bn._variance._value = np.linspace(0.5, 2.0, 4).astype("float32")
    model = dy2st.export_onnx(net, str(tmp_path / "cnn.onnx"),
                              input_spec=[InputSpec([None, 1, 10, 10], "float32", "img")])
    sess = _session(model)
    net.eval()
    for n in (2, 5):
        x = np.random.RandomState(n).randn(n, 1, 10, 10).astype("float32")
        _close(net(rt.to_tensor(x)), sess.run(None, {"img": x}))


def test_cond_and_while_function(tmp_path):
    model = dy2st.export_onnx(branchy, str(tmp_path / "branchy.onnx"))
    types = {n.op_type for n in model.graph.node}
    assert {"If", "Loop"} <= types
    sess = _session(model)
    trips, branches = set(), set()
    for n, scale in ((2, 1.0), (6, -1.0), (3, -4.0), (9, 3.0)):
        x = (np.random.RandomState(n).rand(n, 5).astype("float32") * scale)
        got = sess.run(None, {"x": x})
        _close(branchy(rt.to_tensor(x)), got)
        trips.add(int(got[2]))
        branches.add(bool(x.mean() > 0))
    assert branches == {True, False} and len(trips) >= 3


def test_many_ops(tmp_path):
    model = dy2st.export_onnx(many_ops, str(tmp_path / "ops.onnx"))
    sess = _session(model)
    for n in (1, 4):
        rs = np.random.RandomState(n)
        x = rs.randn(n, 4, 6).astype("float32")
        ids = rs.randint(0, 6, size=n).astype("int64")
        _close(many_ops(rt.to_tensor(x), rt.to_tensor(ids)), sess.run(None, {"x": x, "ids": ids}))


def test_saved_prefix_translated_layer_and_cli(tmp_path, capsys):
    rt.seed(2)
    net = MLP()
    prefix = str(tmp_path / "mlp")
    dy2st.save(net, prefix, input_spec=[InputSpec([None, 8], "float32", "x")])
    x = np.random.RandomState(3).randn(3, 8).astype("float32")
    net.eval()
    ref = net(rt.to_tensor(x))
    m1 = dy2st.export_onnx(prefix, str(tmp_path / "a.onnx"))
    m2 = dy2st.export_onnx(dy2st.load(prefix), str(tmp_path / "b.onnx"))
    for m in (m1, m2):
        _close(ref, _session(m).run(None, {"x": x}))
    assert cli_main(["export", prefix + ".pdmodel", str(tmp_path / "c.onnx")]) == 0
    assert "wrote" in capsys.readouterr().out
    _close(ref, ort.InferenceSession(str(tmp_path / "c.onnx")).run(None, {"x": x}))
    assert cli_main(["export", str(tmp_path / "missing"), str(tmp_path / "d.onnx")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dy2st: error:") and len(err.strip().splitlines()) == 1


def test_unmapped_op_raises_clear_error(tmp_path, capsys):
    @dy2st.to_static(input_spec=[InputSpec([None, 3], "float32", "x")])
    def sorts(x):
        return x + rt.rand([3])

    with pytest.raises(NotImplementedError, match=r"op type 'uniform_random' has no ONNX mapping \(block 0, output"):
        dy2st.export_onnx(sorts, str(tmp_path / "s.onnx"))
    assert not (tmp_path / "s.onnx").exists()
    dy2st.save(sorts, str(tmp_path / "s"))
    assert cli_main(["export", str(tmp_path / "s"), str(tmp_path / "s.onnx")]) == 2
    err = capsys.readouterr().err.strip()
    assert "uniform_random" in err and len(err.splitlines()) == 1


def test_program_api_params_and_missing_param():
    from runtime.framework import Program, program_guard, static_mode_guard
    prog = Program()
    with program_guard(prog), static_mode_guard():
        x = rt.static.data("x", [-1, 3], "float32")
        w = prog.global_block().create_var(name="w", shape=[3, 2], dtype="float32", persistable=True)
        y = rt.matmul(x, w)
    w_val = np.arange(6, dtype="float32").reshape(3, 2)
    model = export_program(prog, ["x"], [y.name], params={"w": w_val})
    xv = np.ones((2, 3), "float32")
    np.testing.assert_allclose(_session(model).run(None, {"x": xv})[0], xv @ w_val)
    with pytest.raises(ValueError, match="no value for parameter 'w'"):
        export_program(prog, ["x"], [y.name])


class EmbedNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4, padding_idx=0)

    def forward(self, ids, x):
        e = self.emb(ids).sum(axis=1)                                   # [N, 4]
        q = rt.floor_divide(x, rt.full_like(x, 0.7)) + rt.remainder(x, rt.full_like(x, 0.7))
        c = rt.cumsum(rt.clip(q, -1.0, 1.0), axis=1)
        v, i = rt.topk(c, 2, axis=1)
        am = rt.cast(rt.argmax(c, axis=1, keepdim=True), "float32")
        t = rt.tile(rt.expand(am, [-1, 2]), [1, 2])                     # [N, 4]
        ok = rt.cast(rt.all(c > -5.0, axis=1, keepdim=True), "float32")
        return (e + t) * ok, v, i


def test_embedding_and_misc_ops(tmp_path):
    rt.seed(4)
    net = EmbedNet()
    specs = [InputSpec([None, 3], "int64", "ids"), InputSpec([None, 4], "float32", "x")]
    sess = _session(dy2st.export_onnx(net, str(tmp_path / "emb.onnx"), input_spec=specs))
    net.eval()
    for n in (1, 5):
        rs = np.random.RandomState(n)
        ids, x = rs.randint(0, 10, size=(n, 3)).astype("int64"), rs.randn(n, 4).astype("float32")
        ids[0, 0] = 0  # the padding row reads as zeros
        _close(net(rt.to_tensor(ids), rt.to_tensor(x)), sess.run(None, {"ids": ids, "x": x}))
