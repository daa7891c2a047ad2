"""Edge cases of exporting and showing converted code: empty branches in ONNX, nested `nonlocal`."""
import textwrap

import numpy as np
import pytest

import dy2st
import runtime as rt
from dy2st.tools import cli
from runtime.static import InputSpec


class ContinueAtEnd(rt.nn.Layer):
    """A tensor `if` whose only statement is a `continue` ending the loop body: a cond with no outputs."""

    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(4, 4)

    def forward(self, x, n):
        y = self.fc(x)
        for i in range(n):
            y = y * 0.5 + i
            if y.sum() > 0:
                continue
        if y.mean() > 0:
            pass
        return y


def test_onnx_export_of_a_cond_whose_branches_produce_nothing(tmp_path):
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    rt.seed(0)
    net = ContinueAtEnd()
    spec = [InputSpec([None, 4], "float32", "x"), InputSpec([1], "int64", "n")]
    # (The traced Program's dead-code pass may already drop such a cond; the export of the saved
    # Program must be valid either way.)
    path = str(tmp_path / "net.onnx")
    dy2st.export_onnx(net, path, input_spec=spec)
    session = ort.InferenceSession(path)
    for seed, n in ((0, 3), (1, 0), (2, 5)):
        x = np.random.default_rng(seed).standard_normal((2, 4)).astype("float32")
        got = session.run(None, {"x": x, "n": np.array([n])})[0]
        want = net(rt.to_tensor(x), rt.to_tensor(np.array([n]))).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


NESTED = textwrap.dedent('''
    import runtime as rt
    import dy2st


    def counter(x):
        total = 0

        def bump(v):
            nonlocal total
            total += 1
            return v * 2

        return bump(x) + total


    def outer(x):
        def reader(v):
            nonlocal x
            if v.sum() > 0:
                v = v * 2.0
            return v
        return reader(x)


    @dy2st.to_static
    def plain(x):
        if x.mean() > 0:
            return x + 1
        return x - 1
''')


def test_convert_all_with_a_nested_nonlocal_reports_that_function_alone(tmp_path, capsys):
    path = tmp_path / "nested.py"
    path.write_text(NESTED)
    assert cli.main(["convert", str(path), "--all"]) == 0
    out = capsys.readouterr().out
    assert "# counter.bump (" in out and "cannot convert: `nonlocal total`" in out
    assert "# ---- outer.reader " in out and "nonlocal x" in out  # compiled inside an enclosing function
    assert "# ---- plain " in out and "_jst.IfElse" in out
