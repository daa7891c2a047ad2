"""The ported Paddle 2.x models of ``examples/`` (CNN, RNN, tiny BERT): each trains under
``@to_static`` with losses equal to eager, saves with ``InputSpec([None, ...])``, loads in a fresh
process and matches eager at two input sizes (the checks live in ``examples/port_check.py``);
the RNN and BERT also export to ONNX and match in onnxruntime at two input sizes."""

import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime.static.formats.io import read_inference_model



def _reads_run_time_dims(op):
    return bool(op.inputs.get("ShapeTensor")) and None in op.attrs["shape"]


# what each saved Program must show: CNN flattens by the batch dim (reshape's 0: copy it), the RNN
# loops over the run-time length (a while op), BERT reshapes by run-time dims (shape tensors)
CHECKS = {
    "cnn_port": ("lenet", lambda ops: any(op.type == "reshape" and op.attrs["shape"] == [0, -1] for op in ops)),
    "rnn_port": ("sentiment_rnn", lambda ops: any(op.type == "while" for op in ops)),
    "bert_port": ("tiny_bert", lambda ops: any(op.type == "reshape" and _reads_run_time_dims(op) for op in ops)),
}


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_port_trains_saves_and_loads_in_a_fresh_process(examples, tmp_path, capsys, name):
    examples[name].main(str(tmp_path))
    out = capsys.readouterr().out
    assert "losses (eager == to_static)" in out and "loaded in a fresh process, equal to eager" in out
    model, check = CHECKS[name]
    saved = read_inference_model(str(tmp_path / model))
    assert check([op for block in saved.program.blocks for op in block.ops])
    # one Program for every size: no batch dim baked into a feed
    assert all(saved.program.global_block().var(v).shape[0] == -1 for v in saved.feed_names)


@pytest.mark.parametrize("name, model", [("rnn_port", "SentimentRNN"), ("bert_port", "TinyBert")])
def test_port_exports_to_onnx_for_every_size(examples, tmp_path, name, model):
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    mod = examples[name]
    net = getattr(mod, model)()
    net.eval()
    path = str(tmp_path / "model.onnx")
    dy2st.export_onnx(net, path, input_spec=mod.INPUT_SPEC)
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(4)
    for b, n in ((2, 3), (5, 6)):
        args = mod._batch(rng, b, n) if name == "bert_port" else [rng.integers(0, 50, (b, n))]
        got, = sess.run(None, {i.name: a for i, a in zip(sess.get_inputs(), args)})
        np.testing.assert_allclose(got, net(*[rt.to_tensor(a) for a in args]).numpy(), rtol=1e-5, atol=1e-6)
