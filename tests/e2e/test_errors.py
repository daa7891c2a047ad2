"""Errors raised while building or running a converted function keep their type and
point at the user's file, line and source text (the innermost user line), with the
generated code and framework frames hidden unless DY2ST_SHOW_INTERNALS=1."""
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import dy2st
import runtime as rt
from error_helpers import line_of, notes

HERE = os.path.basename(__file__)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def assert_points_at(exc, fn, text):
    msg = notes(exc)
    assert "In user code" not in str(exc), str(exc)  # the place is a note, the message stays the error's own
    line = line_of(fn, text)
    assert HERE in msg, msg
    assert f"line {line}" in msg, msg
    marked = re.search(rf">\s+{line} \| (.*)", msg)
    assert marked and text in marked.group(1), msg


def f32(*shape, v=1.0):
    return rt.to_tensor(np.full(shape, v, "float32"))


# -- build-time ------------------------------------------------------------------------------

def shape_in_branch(x, w):
    h = x * 1.0
    if h.mean() > 0:
        h = h @ w
    return h


def test_shape_mismatch_inside_if_branch_points_at_the_inner_line():
    sf = dy2st.to_static(shape_in_branch)
    with pytest.raises(ValueError) as info:
        sf(f32(2, 3), f32(4, 2))
    assert "matmul" in str(info.value)
    assert_points_at(info.value, shape_in_branch, "h = h @ w")
    assert "while building the Program" in notes(info.value)


def test_error_inside_branch_is_not_reported_as_branch_disagreement():
    sf = dy2st.to_static(shape_in_branch)
    with pytest.raises(ValueError) as info:
        sf(f32(2, 3), f32(4, 2))
    assert "disagree" not in str(info.value)
    assert str(info.value).startswith("matmul")


def bad_dtype(x):
    y = x * 2.0
    z = rt.nn.functional.embedding(y, y)
    return z


def test_bad_dtype_keeps_type_and_points_at_line():
    sf = dy2st.to_static(bad_dtype)
    with pytest.raises(ValueError) as info:
        sf(f32(2, 2))
    assert "int" in str(info.value)
    assert_points_at(info.value, bad_dtype, "z = rt.nn.functional.embedding(y, y)")


def bad_dtype_in_branch(x):
    if x.sum() > 0:
        y = ~x
    else:
        y = x
    return y


def test_bad_dtype_in_branch_keeps_type_error():
    sf = dy2st.to_static(bad_dtype_in_branch)
    with pytest.raises(TypeError) as info:
        sf(f32(2, 2))
    assert_points_at(info.value, bad_dtype_in_branch, "y = ~x")


def one_branch(x):
    if x.mean() > 0:
        y = x * 2
    return y


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_variable_defined_in_one_branch_of_tensor_if(sign):
    sf = dy2st.to_static(one_branch)
    with pytest.raises(NameError) as info:
        sf(f32(2, 2, v=sign))
    assert "'y'" in str(info.value)
    assert_points_at(info.value, one_branch, "return y")


def one_branch_used(x):
    if x.mean() > 0:
        y = x * 2
    z = y + 1
    return z


def test_variable_defined_in_one_branch_then_used():
    sf = dy2st.to_static(one_branch_used)
    with pytest.raises(NameError) as info:
        sf(f32(2, 2))
    assert "'y'" in str(info.value) and HERE in str(info.value)
    assert str(line_of(one_branch_used, "z = y + 1")) in str(info.value)


def uses_yield(x):
    yield x


def test_unsupported_construct_names_the_construct_and_line():
    sf = dy2st.to_static(uses_yield)
    with pytest.raises(Exception) as info:
        sf(f32(2))
    msg = str(info.value)
    assert "yield" in msg and HERE in msg
    assert str(line_of(uses_yield, "yield x")) in msg


# -- run-time --------------------------------------------------------------------------------

def asserting(x):
    y = x + 1
    assert x.mean() > 0, "mean must be positive"
    return y


def test_assert_op_failing_at_run_time():
    sf = dy2st.to_static(asserting)
    np.testing.assert_allclose(sf(f32(2, 2)).numpy(), 2.0)  # builds the Program; passes
    with pytest.raises(AssertionError) as info:
        sf(f32(2, 2, v=-1.0))  # same Program, fails at run time
    assert len(sf.program_cache) == 1
    assert "mean must be positive" in str(info.value)
    assert "while running the Program" in notes(info.value)
    assert_points_at(info.value, asserting, 'assert x.mean() > 0, "mean must be positive"')
    assert "assert" in [op.type for op in sf.concrete_program.main_program.global_block().ops]


def reshaping(x):
    h = x * 2.0
    y = h.reshape([-1, 8])
    return y


def test_kernel_failing_only_for_some_input_size():
    sf = dy2st.to_static(reshaping, input_spec=[dy2st.InputSpec([None, 4], "float32", "x")])
    assert sf(f32(2, 4)).shape == [1, 8]
    with pytest.raises(ValueError) as info:
        sf(f32(3, 4))
    assert len(sf.program_cache) == 1
    assert "reshape" in str(info.value)
    assert_points_at(info.value, reshaping, "y = h.reshape([-1, 8])")


def reshape_in_loop(x, n):
    i = 0
    while i < n:
        x = x.reshape([-1, 8])
        i += 1
    return x


def test_kernel_failing_inside_while_points_at_inner_line():
    sf = dy2st.to_static(reshape_in_loop, input_spec=[dy2st.InputSpec([None, 4], "float32", "x"),
                                                      dy2st.InputSpec([], "int64", "n")])
    with pytest.raises(ValueError) as info:
        sf(f32(3, 4), rt.to_tensor(2))
    assert_points_at(info.value, reshape_in_loop, "x = x.reshape([-1, 8])")


# -- what the user sees ----------------------------------------------------------------------

SCRIPT = textwrap.dedent('''
    import numpy as np
    import runtime as rt
    import dy2st


    @dy2st.to_static
    def f(x, w):
        h = x * 1.0
        if h.mean() > 0:
            h = h @ w
        return h


    f(rt.to_tensor(np.ones((2, 3), "float32")), rt.to_tensor(np.ones((4, 2), "float32")))
''')


def _run_script(tmp_path, env_extra):
    path = tmp_path / "user_model.py"
    path.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("DY2ST_SHOW_INTERNALS", None)
    env.update(env_extra)
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env, timeout=60)


def test_internal_frames_hidden_by_default(tmp_path):
    res = _run_script(tmp_path, {})
    err = res.stderr
    assert res.returncode == 1
    assert err.rstrip().splitlines()[-1] != ""
    assert "ValueError" in err and 'user_model.py", line 11' in err and "h = h @ w" in err
    assert "generated" not in err
    assert "dy2st/operators/" not in err and "runtime/" not in err
    assert "The above exception was the direct cause" not in err
    assert "During handling of the above exception" not in err


def test_show_internals_keeps_the_chain(tmp_path):
    res = _run_script(tmp_path, {"DY2ST_SHOW_INTERNALS": "1"})
    err = res.stderr
    assert "ValueError" in err and "h = h @ w" in err
    # The error itself is raised (not a rebuilt copy chained to it), with every internal frame.
    assert "In user code" in err and 'user_model.py", line 11' in err
    assert "dy2st/operators/" in err and "runtime/" in err
