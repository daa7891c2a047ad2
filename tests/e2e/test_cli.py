"""The `dy2st` command line: most commands through ``cli.main`` in this process (``run_cli``, what
``python -m dy2st`` calls), and the paths only a real process shows through ``python -m dy2st`` in a
subprocess (``run_cli_process``): --help, exit status, broken pipes, colour on a tty, and the
installed `dy2st` console script when it is on PATH."""
import ast
import importlib.util
import os
import pty
import shutil
import subprocess
import sys
import textwrap

import pytest

import dy2st
import runtime as rt
from tests.e2e.cli_runner import cli_in_process

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

MODEL = textwrap.dedent('''
    import runtime as rt
    import dy2st
    from runtime import nn


    @dy2st.to_static(input_spec=[dy2st.InputSpec([None, 3], "float32", "x")])
    def shrink(x):
        s = x.sum()
        while s > 1.0:
            s = s * 0.5
        if x.mean() > 0:
            y = x * s
        else:
            y = x - s
        return y


    def helper(x):
        if x.mean() > 0:
            x = x + 1
        return x


    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 2)

        @dy2st.to_static
        def forward(self, x):
            h = self.fc(x)
            if h.sum() > 0:
                h = h * 2
            return h


    print("THIS FILE WAS IMPORTED")
''')

ANSI = "\x1b["


def run_cli(*args, cwd=None, env=None):
    """``dy2st *args`` run in this process (``cli.main``, as ``python -m dy2st`` calls it), its output
    captured: what the subprocess runs below check through a real process, the rest checks here, at a
    fraction of the cost of starting an interpreter and importing the library per test."""
    return cli_in_process(list(args), cwd=cwd, env=_env(env))


def run_cli_process(*args, cwd=None, env=None):
    """``python -m dy2st *args`` in a real subprocess."""
    return subprocess.run([sys.executable, "-m", "dy2st", *args], capture_output=True, text=True, cwd=cwd,
                          env=_env(env), timeout=120)


def _env(extra=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("NO_COLOR", None)
    env.update(extra or {})
    return env


@pytest.fixture
def model(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(MODEL)
    return path


def sections(out):
    return [line for line in out.splitlines() if line.startswith("# ---- ")]


def test_convert_prints_every_to_static_function_without_running_the_file(model):
    res = run_cli("convert", str(model))
    assert res.returncode == 0, res.stderr
    heads = sections(res.stdout)
    assert len(heads) == 2
    assert "shrink" in heads[0] and "Net.forward" in heads[1]
    assert "def helper" not in res.stdout
    assert "THIS FILE WAS IMPORTED" not in res.stdout
    assert "_jst.While" in res.stdout and "_jst.IfElse" in res.stdout
    assert ANSI not in res.stdout  # piped: no colour


def test_convert_output_is_valid_python(model):
    res = run_cli("convert", str(model), "--function", "shrink")
    assert res.returncode == 0, res.stderr
    tree = ast.parse(res.stdout)
    (fn,) = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert fn.name == "shrink"
    # the same code the library shows
    sys.path.insert(0, str(model.parent))
    try:
        import importlib
        mod = importlib.import_module("model")
        assert dy2st.to_code(mod.shrink).strip() in res.stdout
    finally:
        sys.path.pop(0)
        sys.modules.pop("model", None)


def test_convert_function_by_method_name(model):
    res = run_cli("convert", str(model), "--function", "Net.forward")
    assert res.returncode == 0, res.stderr
    assert len(sections(res.stdout)) == 1 and "def forward(self, x)" in res.stdout
    ast.parse(res.stdout)


def test_convert_all_includes_undecorated_functions(model):
    res = run_cli("convert", str(model), "--all")
    assert res.returncode == 0, res.stderr
    names = " ".join(sections(res.stdout))
    for name in ("shrink", "helper", "Net.__init__", "Net.forward"):
        assert name in names
    ast.parse(res.stdout)


def test_convert_unknown_function_is_a_one_line_error(model):
    res = run_cli("convert", str(model), "--function", "nope")
    assert res.returncode == 2
    assert "nope" in res.stderr and "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_convert_passes_in_pipeline_order(model):
    from dy2st.conversion.transform import transform_function

    res = run_cli("convert", str(model), "--function", "shrink", "--passes")
    assert res.returncode == 0, res.stderr
    shown = [line.split(": ", 1)[1] for line in res.stdout.splitlines() if line.startswith("# after pass")]
    unchanged = res.stdout.split("changed nothing here: ", 1)[1].strip().split(", ")
    expected = [name for name, _ in transform_function(helper_for_passes).passes][1:]
    # every pass is accounted for, in pipeline order: shown when it changed the code, else listed
    assert sorted(shown + unchanged, key=expected.index) == expected
    assert shown == [n for n in expected if n in shown] and len(shown) >= 2
    assert res.stdout.startswith("# ---- shrink") and "\n# original\n" in res.stdout
    # the last section is the final code
    last = res.stdout.split(f": {shown[-1]}\n", 1)[1].split("\n# ", 1)[0]
    ast.parse(last)
    assert "_jst.While" in last


def helper_for_passes(x):
    return x


def test_convert_diff(model):
    res = run_cli("convert", str(model), "--function", "shrink", "--diff")
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0].startswith("--- ") and lines[1].startswith("+++ ")
    assert any(line.startswith("@@ ") for line in lines)
    assert any(line.startswith("-    while s > 1.0:") for line in lines)
    assert any(line.startswith("+") and "_jst.While" in line for line in lines)


def test_convert_program_prints_cond_and_while(model):
    res = run_cli("convert", str(model), "--program", "--function", "shrink")
    assert res.returncode == 0, res.stderr
    assert "Program of shrink" in res.stdout
    assert " = while(" in res.stdout or "while" in res.stdout.split("Program of shrink", 1)[1]
    program_text = res.stdout.split("Program of shrink", 1)[1]
    assert "cond" in program_text and "while" in program_text
    assert "float32[-1, 3]" in program_text
    assert ANSI not in res.stdout


def test_convert_program_without_input_spec_explains(model):
    res = run_cli("convert", str(model), "--program", "--function", "Net.forward")
    assert "input_spec" in res.stdout + res.stderr
    assert "Traceback" not in res.stderr


def test_convert_explain(model):
    res = run_cli("convert", str(model), "--explain", "--function", "shrink")
    assert res.returncode == 0, res.stderr
    assert "staging report for shrink" in res.stdout
    assert "->" in res.stdout and ("while op" in res.stdout or "cond op" in res.stdout)


def test_missing_file_one_line_exit_2(tmp_path):
    res = run_cli_process("convert", str(tmp_path / "missing.py"))
    assert res.returncode == 2
    assert "Traceback" not in res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "missing.py" in lines[0]
    assert res.stdout == ""


def test_syntax_error_file_one_line_exit_2(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import dy2st\n\n@dy2st.to_static\ndef f(x:\n    return x\n")
    res = run_cli("convert", str(bad))
    assert res.returncode == 2
    assert "Traceback" not in res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "bad.py" in lines[0] and "syntax" in lines[0].lower()


def test_convert_function_with_default_arguments(tmp_path):
    src = tmp_path / "defaults.py"
    src.write_text("import dy2st\n\n@dy2st.to_static\ndef g(x, n=3, *, scale=2.0):\n"
                   "    if x.sum() > 0:\n        x = x * scale\n    return x + n\n")
    res = run_cli("convert", str(src))
    assert res.returncode == 0, res.stderr
    assert "cannot convert" not in res.stdout and "def g(x, n=3, *, scale=2.0):" in res.stdout
    assert "_jst.IfElse(" in res.stdout
    ast.parse(res.stdout)


def test_unconvertible_function_is_reported_not_a_traceback(tmp_path):
    src = tmp_path / "gen.py"
    src.write_text("import dy2st\n\n@dy2st.to_static\ndef g(x):\n    yield x\n")
    res = run_cli("convert", str(src))
    assert "Traceback" not in res.stderr
    assert "cannot convert" in res.stdout and "yield" in res.stdout


def test_broken_pipe_exits_quietly(model):
    proc = subprocess.Popen([sys.executable, "-m", "dy2st", "convert", str(model), "--all", "--passes"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
    proc.stdout.close()  # the reader is gone before anything is written, like `| head -0`
    err = proc.stderr.read().decode()
    proc.wait(timeout=120)
    proc.stderr.close()
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


def test_broken_pipe_through_head(model):
    if shutil.which("head") is None:
        pytest.skip("no head")
    res = subprocess.run(f"'{sys.executable}' -m dy2st convert '{model}' --all --passes | head -n 2",
                         shell=True, capture_output=True, text=True, env=_env(), timeout=120)
    assert len(res.stdout.splitlines()) == 2
    assert "Traceback" not in res.stderr


def test_colour_only_on_a_tty(model):
    pytest.importorskip("pygments")
    out = _run_in_pty([sys.executable, "-m", "dy2st", "convert", str(model), "--function", "shrink"])
    assert ANSI in out
    assert ANSI not in run_cli("convert", str(model), "--function", "shrink").stdout
    no_colour = _run_in_pty([sys.executable, "-m", "dy2st", "convert", str(model), "--function", "shrink"],
                            {"NO_COLOR": "1"})
    assert ANSI not in no_colour


def _run_in_pty(argv, extra_env=None):
    master, slave = pty.openpty()
    proc = subprocess.Popen(argv, stdout=slave, stderr=subprocess.PIPE, env=_env(extra_env))
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=120)
    proc.stderr.close()
    os.close(master)
    return b"".join(chunks).decode(errors="replace")


# -- inspect ---------------------------------------------------------------------------------

@pytest.fixture
def saved_model(tmp_path, model):
    """The model file's Net saved by dy2st.save; its module is dropped again, so what reads the
    files sees no user class (as a fresh process would)."""
    spec = importlib.util.spec_from_file_location("saved_model_src", model)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rt.seed(0)
    dy2st.save(mod.Net(), str(tmp_path / "net"), input_spec=[dy2st.InputSpec([None, 3], "float32", "image")])
    return tmp_path / "net"


def test_inspect_prints_inputs_outputs_parameters_and_program(saved_model):
    res = run_cli("inspect", str(saved_model))
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "image: float32[-1, 3]" in out and "[None" not in out
    assert "outputs:" in out
    assert "parameters: 2 tensors, 8 elements" in out  # Linear(3, 2): 6 weights + 2 biases
    assert "cond(" in out or " cond" in out
    assert "// block 0" in out or "block 0" in out
    assert ANSI not in out
    also = run_cli("inspect", str(saved_model) + ".pdmodel")
    assert also.returncode == 0 and also.stdout == out


def test_inspect_missing_model_exit_2(tmp_path):
    res = run_cli("inspect", str(tmp_path / "nothing"))
    assert res.returncode == 2
    assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1


# -- help and the console script -------------------------------------------------------------

def test_help_lists_commands():
    res = run_cli_process("--help")
    assert res.returncode == 0
    for word in ("convert", "inspect", "demo"):
        assert word in res.stdout
    conv = run_cli("convert", "--help")
    for opt in ("--function", "--all", "--passes", "--diff", "--program"):
        assert opt in conv.stdout


@pytest.mark.skipif(shutil.which("dy2st") is None, reason="the dy2st console script is not on PATH")
def test_console_script(model):
    res = subprocess.run(["dy2st", "convert", str(model), "--function", "shrink"], capture_output=True,
                         text=True, env=_env(), timeout=120)
    assert res.returncode == 0, res.stderr
    ast.parse(res.stdout)
    assert "_jst.While" in res.stdout
    missing = subprocess.run(["dy2st", "convert", str(model.parent / "no.py")], capture_output=True, text=True,
                             env=_env(), timeout=120)
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
