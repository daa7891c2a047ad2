"""In-place writes into a fed input that is a leaf needing its gradient raise eager's error at the
user's line (the converted function gave the input a gradient through the write); a non-leaf input
keeps eager's values and gradients."""
import warnings

import numpy as np
import pytest

import dy2st
import runtime as rt


def _add(x):
    x.add_(rt.ones([2, 3]))  # the line the errors name
    return x * x


def _item(x):
    if x.sum() > 0:
        x[0] = 5.0
    return x * 2


def _under_no_grad(x):
    with rt.no_grad():
        x.scale_(2.0)
    return x * 3


def _leaf(v=1.0):
    return rt.to_tensor(np.full((2, 3), v, "float32"), stop_gradient=False)


@pytest.mark.parametrize("fn, kind", [(_add, RuntimeError), (_item, RuntimeError), (_under_no_grad, TypeError)])
def test_leaf_input_write_raises_like_eager(fn, kind):
    if kind is RuntimeError:  # eager's own error
        with pytest.raises(kind):
            fn(_leaf())
    else:  # eagerly the leaf keeps its gradient with the new value: a clear error when converted
        fn(_leaf()).sum().backward()
    sf = dy2st.to_static(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sf(rt.to_tensor(np.ones((2, 3), "float32")))  # a constant input: allowed (with the input warning)
        with pytest.raises(kind) as info:  # the same Program, now fed a leaf that needs its gradient
            sf(_leaf())
    assert "test_hunt_inplace_leaf_inputs.py" in str(info.value)
    assert ("x.add_" in str(info.value)) or ("x[0] = 5.0" in str(info.value)) or ("x.scale_" in str(info.value))


@pytest.mark.parametrize("v", [1.0, -0.5])
def test_non_leaf_input_write_matches_eager(v):
    results = []
    for fn in (_add, dy2st.to_static(_add)):
        a = _leaf(v)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn(a * 3)
        out.sum().backward()
        results.append((out.numpy(), a.grad.numpy()))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])
