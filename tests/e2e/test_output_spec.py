"""``dy2st.save(layer, path, input_spec, output_spec=[...])``: Paddle's output_spec keeps the chosen
outputs (Tensors a converted call returned, output Variables or their names, or indices), in the
order given; the saved Program is pruned to them and the loaded model returns just them."""
import os

import numpy as np
import pytest

import dy2st
import runtime as rt
from dy2st import InputSpec
from runtime.static.formats.io import read_inference_model
from error_helpers import notes

SPEC = [InputSpec([None, 4], "float32", "x")]


class NetWithLoss(rt.nn.Layer):
    """Paddle's ``LinearNetReturnLoss``: returns the prediction and a loss made from it."""

    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(4, 3)
        self.drop = rt.nn.Dropout(0.5)

    @dy2st.to_static
    def forward(self, x):
        z = self.drop(self.fc(x))
        loss = rt.mean(z * z)
        return z, loss


def _x(b, seed=0):
    return rt.to_tensor(np.random.default_rng(seed).standard_normal((b, 4)).astype("float32"))


def _trained():
    rt.seed(0)
    net = NetWithLoss()
    opt = rt.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
    for step in range(2):
        out, loss = net(_x(3, step))  # train mode: dropout on
        loss.backward()
        opt.step()
        opt.clear_grad()
    return net, out, loss


def _op_types(prefix):
    m = read_inference_model(prefix)
    return [op.type for b in m.program.blocks for op in b.ops], m


def test_output_spec_with_a_tensor_the_call_returned(tmp_path):
    net, out, _ = _trained()
    prefix = str(tmp_path / "pred")
    dy2st.save(net, prefix, input_spec=SPEC, output_spec=[out])
    types, m = _op_types(prefix)
    assert len(m.fetch_names) == 1 and "reduce_mean" not in types, types  # the loss is pruned away
    loaded = dy2st.load(prefix)
    net.eval()
    for b in (2, 5):
        got = loaded(_x(b, 7))
        assert isinstance(got, rt.Tensor)
        np.testing.assert_allclose(got.numpy(), net(_x(b, 7))[0].numpy(), rtol=1e-6, atol=1e-7)


def test_output_spec_order_indices_and_names(tmp_path):
    net, out, loss = _trained()
    net.eval()
    want_z, want_loss = (t.numpy() for t in net(_x(4, 3)))
    cases = {"reordered": [loss, out], "indices": [-1, 0], "names": [1, net.forward.outputs[0].name]}
    for label, spec in cases.items():
        prefix = str(tmp_path / label)
        dy2st.save(net, prefix, input_spec=SPEC, output_spec=spec)
        got = dy2st.load(prefix)(_x(4, 3))
        assert isinstance(got, list) and len(got) == 2, label
        np.testing.assert_allclose(got[0].numpy(), want_loss, rtol=1e-6, err_msg=label)
        np.testing.assert_allclose(got[1].numpy(), want_z, rtol=1e-6, err_msg=label)


def test_output_spec_none_keeps_every_output(tmp_path):
    net, _, _ = _trained()
    net.eval()
    dy2st.save(net, str(tmp_path / "all"), input_spec=SPEC, output_spec=None)
    got = dy2st.load(str(tmp_path / "all"))(_x(2))
    want = net(_x(2))
    assert isinstance(got, tuple) and len(got) == 2
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6)


def test_bad_output_spec_is_an_error_at_the_users_line(tmp_path):
    net, out, _ = _trained()
    stranger = rt.ones([2])
    with pytest.raises(ValueError) as info:
        dy2st.save(net, str(tmp_path / "bad"), input_spec=SPEC, output_spec=[stranger])
    msg, note = str(info.value), notes(info.value)
    assert "not an output of the saved function" in msg and "0: " in msg and "1: " in msg
    assert "In user code, calling dy2st.save" in note and os.path.basename(__file__) in note
    assert "output_spec=[stranger]" in note  # the user's source line is shown
    with pytest.raises(ValueError, match="index 2 is out of range: the function has 2 outputs"):
        dy2st.save(net, str(tmp_path / "bad"), input_spec=SPEC, output_spec=[2])
    with pytest.raises(ValueError, match="names output 0 .* twice"):
        dy2st.save(net, str(tmp_path / "bad"), input_spec=SPEC, output_spec=[out, 0])
    with pytest.raises(TypeError, match="output_spec entries must be"):
        dy2st.save(net, str(tmp_path / "bad"), input_spec=SPEC, output_spec=[1.5])
    with pytest.raises(ValueError, match="output_spec is empty"):
        dy2st.save(net, str(tmp_path / "bad"), input_spec=SPEC, output_spec=[])
    assert not os.listdir(tmp_path)
    dy2st.save(net, str(tmp_path / "ok"), input_spec=SPEC)
    with pytest.raises(ValueError, match="cannot re-select the outputs of a loaded model"):
        dy2st.save(dy2st.load(str(tmp_path / "ok")), str(tmp_path / "again"), output_spec=[0])


def test_a_tensor_of_another_function_is_refused(tmp_path):
    net, out, _ = _trained()

    @dy2st.to_static
    def other(x):
        return x + 1.0, x * 2.0
    _, foreign = other(_x(2))
    with pytest.raises(ValueError, match="output of another converted function"):
        dy2st.save(net, str(tmp_path / "bad"), input_spec=SPEC, output_spec=[foreign])
    assert not os.listdir(tmp_path)


def test_output_spec_with_forward_hooks_and_a_plain_function(tmp_path):
    net, out, loss = _trained()
    net.register_forward_post_hook(lambda layer, inputs, outputs: (outputs[0] * 10.0, outputs[1]))
    net.eval()
    want = net(_x(3, 5))
    dy2st.save(net, str(tmp_path / "hooked"), input_spec=SPEC, output_spec=[out])
    np.testing.assert_allclose(dy2st.load(str(tmp_path / "hooked"))(_x(3, 5)).numpy(), want[0].numpy(), rtol=1e-6)

    @dy2st.to_static
    def pair(x):
        return {"double": x * 2.0, "half": x * 0.5}
    got = pair(_x(2))
    dy2st.save(pair, str(tmp_path / "fn"), input_spec=SPEC, output_spec=[got["half"]])
    np.testing.assert_allclose(dy2st.load(str(tmp_path / "fn"))(_x(4, 1)).numpy(), _x(4, 1).numpy() * 0.5)


def test_output_tensors_keep_no_program_name():
    """Converted calls remember their outputs' Program vars aside: a Tensor's own ``name`` is a
    generated one (Paddle's), so passing it on as an InputSpec cannot give a feed the name of a traced var."""
    _, out, loss = _trained()
    assert out.name.startswith("generated_tensor_") and loss.name.startswith("generated_tensor_")

    @dy2st.to_static
    def g(a):
        return a * 2.0 + 1.0
    spec = InputSpec.from_tensor(out)
    got = g.get_concrete_program(spec)
    assert got.inputs[0].name != got.outputs[0].name
