"""sf.explain(): each construct with its line, graph op or Python, and why."""
import importlib.util
import inspect
import os
import re

import numpy as np

import dy2st
import runtime as rt


def _load_example():
    # The README's staging report comes from this example, so the test reads the same function.
    path = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "staging_report.py")
    spec = importlib.util.spec_from_file_location("staging_report_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.model.dygraph_function


model = _load_example()
# The `def` line (co_firstlineno points at the decorator).
FIRST = next(model.__code__.co_firstlineno + i for i, line in enumerate(inspect.getsourcelines(model)[0])
             if line.lstrip().startswith("def "))


def row(report, offset):
    """The report lines about source line FIRST + offset."""
    lineno = FIRST + offset
    return [ln for ln in report.splitlines() if re.match(rf"\s+line\s+{lineno}\s", ln)]


def specs():
    return [dy2st.InputSpec([None, 4], "float32", "x"), dy2st.InputSpec([], "int64", "n")]


def test_report_says_graph_op_or_python_and_why():
    sf = dy2st.to_static(model)
    report = sf.explain(*specs())
    assert report.startswith("staging report for model")
    assert "cond op" in row(report, 1)[0] and "Tensor" in row(report, 1)[0]
    assert "while op" in row(report, 7)[0]
    assert "Python" in row(report, 10)[0] and "unrolled" in row(report, 10)[0]
    flag_rows = row(report, 12)
    assert any("if flag" in r and "Python bool" in r and "trace time" in r for r in flag_rows)
    assert any("flag and" in r and "Python" in r for r in flag_rows)
    assert "assert op" in row(report, 14)[0]
    assert "cond op" in row(report, 15)[0]  # the ternary
    # `if not flag` is decided in Python (False), so its body never runs while tracing.
    assert any("Python" in r for r in row(report, 16))


def test_report_lists_variables_undefined_on_some_path():
    sf = dy2st.to_static(model)
    report = sf.explain(*specs())
    tail = report.split("variables undefined on some path:")[1]
    assert "z:" in tail and f"line {FIRST + 1}" in tail


def test_explain_with_tensors_leaves_the_cache_alone():
    sf = dy2st.to_static(model)
    x = rt.to_tensor(np.ones((2, 4), "float32"))
    n = rt.to_tensor(2)
    report = sf.explain(x, n)
    assert "while op" in report
    assert len(sf.program_cache) == 0
    sf(x, n)
    assert len(sf.program_cache) == 1


def test_construct_not_reached_in_a_python_branch():
    def f(x, flag=False):
        if flag:
            if x.mean() > 0:
                x = x + 1
        return x

    report = dy2st.to_static(f).explain(rt.to_tensor(np.ones(3, "float32")))
    lines = report.splitlines()
    inner = [ln for ln in lines if "if x.mean() > 0" in ln][0]
    assert "not reached" in inner
