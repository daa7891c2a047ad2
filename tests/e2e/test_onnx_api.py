"""``dy2st.onnx.export`` (Paddle 2.x's ``paddle.onnx.export``): the ported example models at opsets 11
and 17 in onnxruntime against eager at two batch sizes, the path/opset/keyword contract, and
``import dy2st`` not importing onnx."""
import os
import subprocess
import sys

import numpy as np
import pytest

import dy2st
import runtime as rt
from dy2st import InputSpec

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _session(path):
    ort = pytest.importorskip("onnxruntime")
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    return ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])


def _inputs(name, mod, rng, b, n):
    if name == "bert_port":
        return mod._batch(rng, b, n)
    if name == "rnn_port":
        return [rng.integers(0, 50, (b, n))]
    return [rng.standard_normal((b, 1, 8, 8)).astype("float32")]


@pytest.mark.parametrize("opset", [11, 17])
@pytest.mark.parametrize("name, model", [("cnn_port", "LeNet"), ("rnn_port", "SentimentRNN"),
                                         ("bert_port", "TinyBert")])
def test_example_models_at_opset(examples, tmp_path, name, model, opset):
    pytest.importorskip("onnx")
    mod = examples[name]
    rt.seed(0)
    net = getattr(mod, model)()
    net.eval()
    prefix = str(tmp_path / model)
    proto = dy2st.onnx.export(net, prefix, input_spec=mod.INPUT_SPEC, opset_version=opset)
    assert os.path.exists(prefix + ".onnx") and not os.path.exists(prefix)
    assert [o.version for o in proto.opset_import if o.domain in ("", "ai.onnx")] == [opset]
    types = set()

    def walk(graph):
        for node in graph.node:
            types.add(node.op_type)
            for a in node.attribute:
                if a.g.node:
                    walk(a.g)
    walk(proto.graph)
    if name == "bert_port":  # the decomposition before 17, the op itself from 17
        assert ("LayerNormalization" in types) == (opset >= 17)
    sess = _session(prefix + ".onnx")
    rng = np.random.default_rng(4)
    for b, n in ((2, 3), (5, 6)):
        args = _inputs(name, mod, rng, b, n)
        got, = sess.run(None, {i.name: a for i, a in zip(sess.get_inputs(), args)})
        want = net(*[rt.to_tensor(a) for a in args]).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=f"{model} batch {b} opset {opset}")


class Two(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(3, 2)
        self.norm = rt.nn.LayerNorm(2)

    def forward(self, x):
        h = self.norm(self.fc(x))
        return rt.nn.functional.softmax(h, axis=0), rt.mean(h, axis=1)


SPEC = [InputSpec([None, 3], "float32", "x")]


def test_export_is_export_onnx_and_keeps_its_old_spelling(tmp_path):
    pytest.importorskip("onnx")
    assert dy2st.onnx.export is dy2st.export_onnx
    net = Two()
    m = dy2st.export_onnx(net, str(tmp_path / "old.onnx"), input_spec=SPEC, opset=13)  # the old signature
    assert (tmp_path / "old.onnx").exists() and m.opset_import[0].version == 13
    dy2st.export_onnx(net, str(tmp_path / "pos"), SPEC, 11)  # positional opset_version, prefix path
    assert (tmp_path / "pos.onnx").exists()
    x = np.random.default_rng(0).standard_normal((4, 3)).astype("float32")
    want = [t.numpy() for t in net(rt.to_tensor(x))]
    for path in ("old.onnx", "pos.onnx"):
        got = _session(str(tmp_path / path)).run(None, {"x": x})
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_export_arguments_are_checked(tmp_path):
    pytest.importorskip("onnx")
    with pytest.raises(ValueError, match="opset 11 and later, got opset_version=9"):
        dy2st.onnx.export(Two(), str(tmp_path / "m"), input_spec=SPEC, opset_version=9)
    with pytest.raises(TypeError, match="unexpected keyword argument.*'enable_onnx_checkr'"):
        dy2st.onnx.export(Two(), str(tmp_path / "m"), input_spec=SPEC, enable_onnx_checkr=True)
    with pytest.raises(TypeError, match="opset_version must be an int"):
        dy2st.onnx.export(Two(), str(tmp_path / "m"), input_spec=SPEC, opset_version="13")
    assert not os.listdir(tmp_path)


def test_output_spec_exports_the_chosen_output(tmp_path):
    pytest.importorskip("onnx")
    net = Two()
    proto = dy2st.onnx.export(net, str(tmp_path / "m"), input_spec=SPEC, opset_version=11, output_spec=[1])
    assert len(proto.graph.output) == 1
    x = np.random.default_rng(1).standard_normal((3, 3)).astype("float32")
    got, = _session(str(tmp_path / "m.onnx")).run(None, {"x": x})
    np.testing.assert_allclose(got, net(rt.to_tensor(x))[1].numpy(), rtol=1e-5, atol=1e-6)


def test_default_opset_is_the_exporters():
    pytest.importorskip("onnx")
    from runtime.static.onnx.export import DEFAULT_OPSET
    assert dy2st.onnx.DEFAULT_OPSET == DEFAULT_OPSET


def test_import_dy2st_does_not_import_onnx():
    """Importing dy2st and runtime (and reaching dy2st.onnx.export) imports neither onnx, onnxruntime
    nor the exporter.  (The one fresh interpreter for this; test_onnx.py had a second.)"""
    code = ("import sys, dy2st, runtime; f = dy2st.onnx.export; "
            "assert 'onnx' not in sys.modules and 'onnxruntime' not in sys.modules "
            "and 'runtime.static.onnx.export' not in sys.modules, "
            "sorted(m for m in sys.modules if 'onnx' in m); print('ok')")
    env = dict(os.environ, PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
