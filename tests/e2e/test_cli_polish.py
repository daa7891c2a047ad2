"""A new user's first hour with the command line: version, flags in either place, helpful
listings and errors, ONNX files, drawings. Run through ``cli.main`` in this process (tests.e2e.cli_runner), as ``python -m dy2st``
calls it."""
import shutil

import pytest

import dy2st
import runtime as rt
from tests.e2e.test_cli import _env, model, run_cli, saved_model  # noqa: F401  (fixtures)


def test_version_one_source():
    res = run_cli("--version")
    assert res.returncode == 0
    assert res.stdout.strip() == f"dy2st {dy2st.__version__}"
    assert dy2st.__version__ == rt.__version__
    from importlib import metadata
    try:
        assert metadata.version("dy2st") == dy2st.__version__
    except metadata.PackageNotFoundError:  # running from a source tree that is not installed
        pass


def test_verbose_flag_after_the_subcommand(model):
    before = run_cli("-v", "convert", str(model), "--function", "shrink")
    after = run_cli("convert", "-v", str(model), "--function", "shrink")
    assert before.returncode == after.returncode == 0, after.stderr
    assert before.stdout == after.stdout


def test_passes_lists_the_passes_that_changed_nothing(model):
    res = run_cli("convert", str(model), "--function", "helper", "--passes")
    assert res.returncode == 0, res.stderr
    line = [ln for ln in res.stdout.splitlines() if "changed nothing here" in ln][0]
    n = int(line.split("# ", 1)[1].split(" ", 1)[0])
    assert n == len(line.split(": ", 1)[1].split(", ")) and n >= 3
    assert "# after pass" in res.stdout and "ifelse" in res.stdout


def test_unknown_function_lists_the_functions_the_file_has(model):
    res = run_cli("convert", str(model), "--function", "nope")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "no function named 'nope'" in res.stderr
    for name in ("shrink", "helper", "Net.forward"):
        assert name in res.stderr


def test_inspect_onnx_file_describes_the_model(tmp_path):
    pytest.importorskip("onnx")

    class Net(rt.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = rt.nn.Linear(3, 2)

        def forward(self, x):
            return rt.nn.functional.relu(self.fc(x))
    out = str(tmp_path / "m.onnx")
    dy2st.export_onnx(Net(), out, input_spec=[dy2st.InputSpec([None, 3], "float32", "x")])
    res = run_cli("inspect", out)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith(f"ONNX model: {out}")
    assert "x: float[" in res.stdout and "nodes:" in res.stdout and "Relu x1" in res.stdout
    missing = run_cli("inspect", str(tmp_path / "none.onnx"))
    assert missing.returncode == 2 and "no such file" in missing.stderr and ".pdmodel" not in missing.stderr


def test_inspect_writes_dot_with_real_line_breaks(saved_model, tmp_path):
    dot = tmp_path / "m.dot"
    res = run_cli("inspect", str(saved_model), "--dot", str(dot))
    assert res.returncode == 0, res.stderr
    text = dot.read_text()
    assert text.startswith("digraph Program {")
    assert '\\nfloat32[' in text and '\\\\n' not in text  # DOT's \n escape, not a literal backslash


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot program is not installed")
def test_inspect_svg_png_render(saved_model, tmp_path):
    pytest.importorskip("graphviz")
    svg, png = tmp_path / "m.svg", tmp_path / "m.png"
    res = run_cli("inspect", str(saved_model), "--svg", str(svg), "--png", str(png))
    assert res.returncode == 0, res.stderr
    assert b"<svg" in svg.read_bytes() and png.read_bytes()[:4] == b"\x89PNG"


def test_program_repr_svg_is_text_fallback_or_svg():
    rt.enable_static()
    try:
        prog = rt.static.Program()
        with rt.static.program_guard(prog):
            x = rt.static.data("x", [None, 3], "float32")
            rt.relu(x)
    finally:
        rt.disable_static()
    svg = prog._repr_svg_()
    assert svg is None or "<svg" in svg


@pytest.mark.parametrize("args", [["--epochs", "0"], ["--batch-size", "0"], ["--epochs", "-2"],
                                  ["--lr", "-1"], ["--epochs", "two"]])
def test_demo_bad_numbers_are_usage_errors(args):
    res = run_cli("demo", *args)
    assert res.returncode == 2
    assert "Traceback" not in res.stderr and "expected a positive" in res.stderr


def test_install_hint_names_installable_packages():
    from dy2st.deploy import export
    src = open(export.__file__).read()
    assert "pip install onnx onnxruntime" in src and "dy2st[onnx]" not in src


def test_inspect_of_a_saved_model_marks_no_needs_grad(saved_model):
    res = run_cli("inspect", str(saved_model))
    assert res.returncode == 0, res.stderr
    assert "needs_grad" not in res.stdout
    assert "trainable" in res.stdout or "persistable" in res.stdout
