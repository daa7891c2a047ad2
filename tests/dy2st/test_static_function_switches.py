"""The StaticFunction contract, continued: the switches (enable_to_static, not_to_static,
full_graph) and the code and verbosity logging. See test_static_function.py.
"""
import ast
import warnings

import numpy as np
import pytest

import dy2st
from tests.dy2st.static_function_helpers import branchy, op_types, rand, t


# -- switches and logging --------------------------------------------------------------------

def test_enable_to_static_false_runs_eagerly():
    sf = dy2st.to_static(branchy)
    dy2st.enable_to_static(False)
    try:
        got = sf(t(rand(2, 3)), t(3, "int64"))
        assert len(sf.program_cache) == 0
        np.testing.assert_allclose(got.numpy(), branchy(t(rand(2, 3)), t(3, "int64")).numpy())
    finally:
        dy2st.enable_to_static(True)
    sf(t(rand(2, 3)), t(3, "int64"))
    assert len(sf.program_cache) == 1


def test_not_to_static_callee_runs_eagerly_but_caller_converts():
    @dy2st.not_to_static
    def helper(x):
        return x * 3.0

    @dy2st.to_static
    def f(x):
        if x.mean() > 0:
            x = helper(x)
        return x

    x = rand(3) + 2
    np.testing.assert_allclose(f(t(x)).numpy(), x * 3.0, rtol=1e-6)
    assert "cond" in op_types(f.concrete_program.main_program)


def test_set_code_level_prints_code_after_that_pass(capsys):
    def f(x):
        if x.mean() > 0:
            x = x + 1.0
        return x

    try:
        dy2st.set_code_level(100)
        sf = dy2st.to_static(f)
        sf(t(rand(3)))
        out = capsys.readouterr().out
        assert "_jst.IfElse" in out and "def f(x)" in out
        ast.parse(out[out.index("def f"):])
        dy2st.set_code_level(0)  # pass 0: the original code
        dy2st.to_static(f)(t(rand(3)))
        out = capsys.readouterr().out
        assert "def f(x)" in out and "_jst" not in out
    finally:
        dy2st.set_code_level(-1)
    dy2st.to_static(f)(t(rand(3)))
    assert capsys.readouterr().out == ""


def test_set_verbosity_logs_conversion_builds_and_cache(capsys):
    sf = dy2st.to_static(branchy)
    try:
        dy2st.set_verbosity(2)
        sf(t(rand(2, 3)), t(2, "int64"))
        sf(t(rand(2, 3)), t(2, "int64"))
        err = capsys.readouterr().err
    finally:
        dy2st.set_verbosity(0)
    assert "converting branchy" in err
    assert "building a Program for branchy(x: float32[2, 3], n: int64[])" in err
    assert "cache miss" in err and "cache hit" in err
    sf(t(rand(2, 3)), t(2, "int64"))
    assert capsys.readouterr().err == ""


def test_set_verbosity_level_one_has_no_per_call_messages(capsys):
    sf = dy2st.to_static(branchy)
    try:
        dy2st.set_verbosity(1, also_to_stdout=True)
        sf(t(rand(2, 3)), t(2, "int64"))
        sf(t(rand(2, 3)), t(2, "int64"))
        out = capsys.readouterr().out
    finally:
        dy2st.set_verbosity(0)
    assert "building a Program" in out and "cache hit" not in out


G_COUNTER = 0


def uses_global(x):
    global G_COUNTER
    G_COUNTER = G_COUNTER + 1
    return x + 1.0


def uses_yield(x):
    yield x * 2.0


def test_full_graph_false_unconvertible_runs_eagerly_with_one_warning():
    sf = dy2st.to_static(uses_global, full_graph=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for v in (1.0, 2.0, 3.0):
            np.testing.assert_allclose(sf(t([v])).numpy(), [v + 1.0])
    mine = [w for w in caught if "dy2st" in str(w.message)]
    assert len(mine) == 1 and "uses_global" in str(mine[0].message)
    assert len(sf.program_cache) == 0


def test_full_graph_false_with_yield_runs_eagerly():
    sf = dy2st.to_static(uses_yield, full_graph=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = list(sf(t([2.0])))
        list(sf(t([3.0])))
    np.testing.assert_allclose(out[0].numpy(), [4.0])
    assert len([w for w in caught if "dy2st" in str(w.message)]) == 1


def test_full_graph_true_unconvertible_raises():
    sf = dy2st.to_static(uses_yield)
    with pytest.raises(Exception, match="yield"):
        sf(t([2.0]))
