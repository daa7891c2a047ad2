"""A converted function's run-time checks outside its branches and loops (`assert` on tensors, the
value checks eager functions make) raised when it ran, but `dy2st.save` pruned the saved Program to
the ops its outputs need and dropped them: the loaded model computed a value (`-x * 2` for
`assert (x > 0).all()`) where the converted function raised. The saved Program keeps them now, with
their messages; a check reading an input the saved model is not fed is left out, and the ONNX
export, which has no operator that raises, leaves them out with a warning naming them."""
import warnings

import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from dy2st import InputSpec


@dy2st.to_static(input_spec=[InputSpec([None, 3], "float32", "x")])
def _checked(x):
    assert x.shape[0] > 1, "need two rows"
    assert (x > 0).all(), "must be positive"
    return x * 2


class _Net(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(3, 1)

    def forward(self, x, label):
        assert label.shape[0] == x.shape[0], "one label per row"
        p = F.sigmoid(self.fc(x)) * 2  # above 1 for some inputs: binary_cross_entropy's check raises
        return p, F.binary_cross_entropy(p, label, reduction="none")


def _raises(fn, x):
    with pytest.raises(Exception) as info:
        fn(rt.to_tensor(x))
    return type(info.value), str(info.value).splitlines()[0]


def test_a_loaded_model_raises_where_the_converted_function_does(tmp_path):
    path = str(tmp_path / "checked")
    dy2st.save(_checked, path)
    loaded = dy2st.load(path)
    rng = np.random.default_rng(0)
    for rows in (2, 5):
        x = rng.uniform(0.1, 2.0, (rows, 3)).astype("float32")
        np.testing.assert_array_equal(loaded(rt.to_tensor(x)).numpy(), _checked(rt.to_tensor(x)).numpy())
    for bad, message in ((-np.ones((2, 3), "float32"), "must be positive"),
                         (np.ones((1, 3), "float32"), "need two rows")):
        want = _raises(_checked, bad)
        assert want[0] is AssertionError and want[1].startswith(message)
        assert _raises(loaded, bad) == want
        assert _raises(dy2st.load(path, backend="numpy"), bad) == want


def test_library_value_checks_stay_and_unfed_inputs_checks_go(tmp_path):
    rt.seed(0)
    net = _Net()
    x = rt.to_tensor(np.array([[4.0, 4.0, 4.0], [-4.0, -4.0, -4.0]], "float32"))
    label = rt.to_tensor(np.ones((2, 1), "float32"))
    with rt.no_grad():
        net.fc.weight.set_value(np.ones((3, 1), "float32"))
    with pytest.raises(ValueError, match="binary_cross_entropy"):
        F.binary_cross_entropy(F.sigmoid(net.fc(x)) * 2, label)  # eager refuses it too
    path = str(tmp_path / "net")
    dy2st.save(net, path, input_spec=[InputSpec([None, 3], "float32", "x"), InputSpec([None, 1], "float32", "y")])
    loaded = dy2st.load(path)
    with pytest.raises(ValueError, match="binary_cross_entropy"):
        loaded(x, label)
    with pytest.raises(AssertionError, match="one label per row"):
        loaded(x, rt.ones([3, 1]))
    small = rt.to_tensor(np.full((2, 3), -0.5, "float32"))
    for a, b in zip(loaded(small, label), net(small, label)):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    # fed the image alone, the model cannot check the labels: that check is left out, the others stay
    pruned = str(tmp_path / "pruned")
    dy2st.save(net, pruned, input_spec=[InputSpec([None, 3], "float32", "x"), InputSpec([None, 1], "float32", "y")],
               input_names_after_prune=["x"], output_spec=[0])
    served = dy2st.load(pruned)
    assert "one label per row" not in str(served.program)
    np.testing.assert_array_equal(served(small).numpy(), net(small, label)[0].numpy())
    with pytest.raises(ValueError, match="binary_cross_entropy"):
        served(x)


def test_the_onnx_export_warns_that_it_leaves_the_checks_out(tmp_path):
    pytest.importorskip("onnx")
    with pytest.warns(UserWarning, match=r"no operator that raises.*need two rows.*must be positive") as info:
        dy2st.onnx.export(_checked, str(tmp_path / "checked"))
    assert any(w.filename == __file__ for w in info)  # at the user's call
    path = str(tmp_path / "saved")
    dy2st.save(_checked, path)
    with pytest.warns(UserWarning, match="must be positive"):
        dy2st.onnx.export(path, str(tmp_path / "from_saved"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dy2st.onnx.export(dy2st.to_static(lambda x: x * 2), str(tmp_path / "plain"),
                          input_spec=[InputSpec([None, 3], "float32", "x")])
