"""`x.numpy()`, `int(x)`, `float(x)`, `bool(x)` on traced values follow Paddle's to_static;
where a Python value is truly needed, the error names the line and `full_graph=False`."""
import json
import math
import warnings

import numpy as np
import pytest

import dy2st
import runtime as rt


def mean_numpy_branch(x):
    if rt.mean(x).numpy() > 5:
        y = x * 2
    else:
        y = x - 1
    n = int(x.shape[0])
    k = float(x.sum())
    return y * n + k


def bool_cast(x):
    if bool(x.max() > 3):
        return x + 1
    return x


@pytest.mark.parametrize("fn", [mean_numpy_branch, bool_cast])
def test_casts_convert_and_match_eager(fn):
    sf = dy2st.to_static(fn, input_spec=[dy2st.InputSpec([None], "float32")])
    for a in ([1.0, 2.0], [10.0, 20.0, 30.0], [4.0]):
        x = rt.to_tensor(np.array(a, "float32"))
        np.testing.assert_allclose(sf(x).numpy(), fn(x).numpy(), rtol=1e-6)
    assert len(sf.program_cache) == 1
    ops = [op.type for op in sf.program_cache.last().main_program.global_block().ops]
    assert "cond" in ops


def test_cast_ops_and_generated_code():
    sf = dy2st.to_static(mean_numpy_branch)
    assert "_jst.Numpy(rt.mean(x)) > 5" in sf.code
    assert "_jst.AsDtype(x.sum(), 'float')" in sf.code
    out = dy2st.to_static(lambda x: int(x.sum()))(rt.to_tensor([1.5, 2.0]))
    assert out.dtype == "int64" and out.shape == [] and int(out) == 3
    assert dy2st.to_static(lambda x: float(x[0]))(rt.to_tensor([2, 3])).dtype == "float64"  # a Python float's double


def test_cast_of_many_elements_is_refused():
    with pytest.raises(TypeError, match=r"int\(\) needs a tensor with one element, got shape \[3\]"):
        dy2st.to_static(lambda x: int(x))(rt.to_tensor([1, 2, 3]))


def dumps(x):
    return json.dumps(float(x.sum()))


def sqrt_text(x):
    return f"{math.sqrt(float(x[0]))}"


@pytest.mark.parametrize("fn", [dumps, sqrt_text])
def test_python_value_needed_is_a_clear_error_and_full_graph_false_falls_back(fn):
    x = rt.to_tensor([4.0, 5.0])
    with pytest.raises(TypeError, match="full_graph=False") as info:
        dy2st.to_static(fn)(x)
    assert "return " in str(info.value) and "float(x" in str(info.value)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert dy2st.to_static(fn, full_graph=False)(x) == fn(x)


def test_shadowed_int_is_left_alone():
    def f(x):
        int = lambda v: v * 3  # noqa: E731
        return int(x)

    assert "_jst.AsDtype" not in dy2st.to_static(f).code
    np.testing.assert_allclose(dy2st.to_static(f)(rt.to_tensor([1.0])).numpy(), [3.0])
