"""Errors of the entry points at the user's line: ``dy2st.save``, ``dy2st.load``,
``dy2st.onnx.export``/``export_onnx`` in-process, and the ``dy2st`` CLI (``convert --program``,
``convert --explain``, ``inspect``, ``export``) through real subprocesses: one line on stderr,
exit status 2, no traceback unless ``DY2ST_SHOW_INTERNALS=1``."""
import os
import subprocess
import sys
import textwrap
import traceback

import numpy as np
import pytest

import dy2st
import runtime as rt
from dy2st import InputSpec
from error_helpers import notes
from tests.e2e.cli_runner import cli_in_process

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.basename(__file__)
SPEC = [InputSpec([None, 3], "float32", "x")]


class Mismatch(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(3, 2)

    def forward(self, x):
        h = self.fc(x)
        return rt.matmul(h, rt.ones([5, 5]))  # 2 columns against 5 rows


def _internal_frames(exc):
    frames = traceback.extract_tb(exc.__traceback__)
    return [f.filename for f in frames if f.filename.startswith((os.path.join(ROOT, "runtime"),
                                                                os.path.join(ROOT, "dy2st")))]


@pytest.mark.parametrize("entry", ["save", "onnx.export", "export_onnx"])
def test_failing_forward_is_reported_at_its_line(tmp_path, entry):
    if entry != "save":
        pytest.importorskip("onnx")
    fn = {"save": dy2st.save, "onnx.export": dy2st.onnx.export, "export_onnx": dy2st.export_onnx}[entry]
    with pytest.raises(ValueError) as info:
        fn(Mismatch(), str(tmp_path / "m"), input_spec=SPEC)
    msg, note = str(info.value), notes(info.value)
    assert msg.startswith("matmul: the last dim of x") and HERE not in msg
    what = "dy2st.save" if entry == "save" else "dy2st.onnx.export"
    assert f"In user code, in {what}:" in note and HERE in note
    assert "> " in note and "return rt.matmul(h, rt.ones([5, 5]))" in note
    assert len(_internal_frames(info.value)) <= 1  # at most the entry point's own re-raise
    assert not os.listdir(tmp_path)


def test_an_op_onnx_cannot_express_is_reported_at_the_line_that_made_it(tmp_path):
    pytest.importorskip("onnx")

    @dy2st.to_static(input_spec=SPEC)
    def noisy(x):
        y = x * 2.0
        return y + rt.rand([3])
    with pytest.raises(NotImplementedError) as info:
        dy2st.onnx.export(noisy, str(tmp_path / "noisy"), opset_version=11)
    msg, note = str(info.value), notes(info.value)
    assert "'uniform_random' has no ONNX mapping" in msg
    assert "In user code, in dy2st.onnx.export, while running op 'uniform_random'" in note
    assert "> " in note and "return y + rt.rand([3])" in note and HERE in note
    assert not os.listdir(tmp_path)


def test_bad_arguments_are_reported_at_the_call(tmp_path):
    pytest.importorskip("onnx")
    calls = [
        (TypeError, "input_spec entries must be InputSpec or Tensor", "dy2st.save",
         lambda: dy2st.save(Mismatch(), str(tmp_path / "m"), input_spec=[{3}])),
        (TypeError, "unexpected keyword argument", "dy2st.save",
         lambda: dy2st.save(Mismatch(), str(tmp_path / "m"), input_spec=SPEC, combine=True)),
        (ValueError, "opset 11 and later", "dy2st.onnx.export",
         lambda: dy2st.onnx.export(Mismatch(), str(tmp_path / "m"), input_spec=SPEC, opset_version=7)),
        (OSError, "does not exist", "dy2st.load", lambda: dy2st.load(str(tmp_path / "missing"))),
        (OSError, "does not exist", "dy2st.onnx.export", lambda: dy2st.export_onnx(str(tmp_path / "missing"),
                                                                                    str(tmp_path / "o.onnx"))),
    ]
    for exc_type, text, what, call in calls:
        with pytest.raises(exc_type) as info:
            call()
        msg, note = str(info.value), notes(info.value)
        assert text in msg, msg
        assert f"In user code, calling {what}:" in note and HERE in note, note
        assert "lambda: dy2st." in note, note  # the calling source line
        assert len(_internal_frames(info.value)) <= 1


def test_show_internals_keeps_the_framework_frames(tmp_path, monkeypatch):
    monkeypatch.setenv("DY2ST_SHOW_INTERNALS", "1")
    with pytest.raises(TypeError) as info:
        dy2st.save(Mismatch(), str(tmp_path / "m"), input_spec=[{3}])
    assert any(f.endswith(os.path.join("dy2st", "deploy", "io.py")) for f in _internal_frames(info.value))


# -- the CLI, through real subprocesses ----------------------------------------------------------------
BROKEN = '''
import runtime as rt
import dy2st
from dy2st import InputSpec


@dy2st.to_static(input_spec=[InputSpec([None, 3], "float32", "x")])
def broken(x):
    y = x * 2.0
    return rt.matmul(y, rt.ones([5, 5]))
'''

IMPORT_FAILS = '''
import runtime as rt

table = rt.reshape(rt.ones([2, 3]), [7])
'''


def _cli(*args, cwd, internals=False):
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("DY2ST_SHOW_INTERNALS", None)
    if internals:
        env["DY2ST_SHOW_INTERNALS"] = "1"
    return subprocess.run([sys.executable, "-m", "dy2st", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300)


def _one_line_error(r):
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dy2st: error: "), r.stderr
    assert "Traceback" not in r.stderr
    return lines[0]


def test_cli_errors_are_one_line_at_the_users_line(tmp_path):
    (tmp_path / "broken.py").write_text(textwrap.dedent(BROKEN))
    (tmp_path / "import_fails.py").write_text(textwrap.dedent(IMPORT_FAILS))
    line = _one_line_error(_cli("convert", "--program", "broken.py", cwd=tmp_path))
    assert "ValueError: matmul: the last dim of x" in line
    assert "broken.py:10: return rt.matmul(y, rt.ones([5, 5]))" in line, line
    # the rest in this process (tests.e2e.cli_runner): the exit path above went through a real one
    line = _one_line_error(cli_in_process(["convert", "--program", "import_fails.py"], cwd=tmp_path))
    assert "importing it failed: ValueError: reshape" in line
    assert "import_fails.py:4: table = rt.reshape(rt.ones([2, 3]), [7])" in line, line
    assert "does not exist" in _one_line_error(cli_in_process(["inspect", "nothing_here"], cwd=tmp_path))
    # with internals asked for, the full traceback
    r = _cli("convert", "--program", "broken.py", cwd=tmp_path, internals=True)
    assert r.returncode != 0 and "Traceback" in r.stderr and "_matmul_infer" in r.stderr


def test_cli_errors_in_process(tmp_path, capsys, monkeypatch):
    """The same paths through ``dy2st.tools.cli.main`` (faster than a process each)."""
    from dy2st.tools.cli import main
    monkeypatch.delenv("DY2ST_SHOW_INTERNALS", raising=False)
    (tmp_path / "broken_explain.py").write_text(textwrap.dedent(BROKEN))
    assert main(["convert", "--explain", str(tmp_path / "broken_explain.py")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "broken_explain.py:10: return rt.matmul(y, rt.ones([5, 5]))" in err
    assert main(["export", str(tmp_path / "nothing_here"), str(tmp_path / "o.onnx")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "does not exist" in err


def test_cli_export_opsets(tmp_path, capsys):
    """``dy2st export --opset``: below 11 refused in one line, 11 written and equal to eager (in-process:
    the subprocess paths are covered above)."""
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    from dy2st.tools.cli import main
    rt.seed(0)
    net = rt.nn.Sequential(rt.nn.Linear(3, 4), rt.nn.LayerNorm(4), rt.nn.Softmax(axis=-1))
    prefix, out = str(tmp_path / "m"), str(tmp_path / "m.onnx")
    dy2st.save(net, prefix, input_spec=SPEC)
    assert main(["export", prefix, out, "--opset", "10"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "opset 11 and later" in err and not os.path.exists(out)
    assert main(["export", prefix, out, "--opset", "11"]) == 0
    assert "opset 11" in capsys.readouterr().out
    x = np.random.default_rng(2).standard_normal((3, 3)).astype("float32")
    got, = ort.InferenceSession(out, providers=["CPUExecutionProvider"]).run(None, {"x": x})
    np.testing.assert_allclose(got, net(rt.to_tensor(x)).numpy(), rtol=1e-5, atol=1e-6)
