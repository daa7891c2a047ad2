"""Scenarios of Paddle's test_fallback: `to_static(..., build_strategy=s)` with `s.build_cinn_pass`
set runs a function that cannot be converted eagerly (a warning says why); unset, the conversion
error is raised at the user's line."""
import warnings

import numpy as np
import pytest

import dy2st
import runtime as rt


def _needs_numbers(x):
    y = 3 * x
    n = y.numpy()  # a Python-side value: cannot be a graph value
    return rt.to_tensor(np.full(int(n[0]), 2.0, "float32")) + y.astype("float32").sum()


class _Net(rt.nn.Layer):
    def forward(self, x):
        return _needs_numbers(x) if self.training else _needs_numbers(x + 1)


def _cinn():
    s = rt.static.BuildStrategy()
    s.build_cinn_pass = True
    return s


@pytest.mark.parametrize("v", [1, 2, 3])
def test_cinn_pass_falls_back_to_eager(v):
    x = rt.to_tensor([v])
    with pytest.warns(UserWarning, match="could not be converted"):
        out = dy2st.to_static(_needs_numbers, build_strategy=_cinn())(x)
    np.testing.assert_array_equal(out.numpy(), _needs_numbers(x).numpy())


def test_cinn_pass_layer_follows_train_and_eval():
    net = _Net()
    sf = dy2st.to_static(_Net(), build_strategy=_cinn())
    x = rt.to_tensor([2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(sf(x).numpy(), net(x).numpy())
        sf.eval()
        net.eval()
        np.testing.assert_array_equal(sf(x).numpy(), net(x).numpy())
    assert sf.training is False
    with pytest.raises(ValueError):
        print(sf.forward.main_program)  # nothing was built


def test_without_cinn_pass_the_error_is_raised():
    s = rt.static.BuildStrategy()
    with pytest.raises(TypeError, match="test_paddle_dy2st_fallback.py"):
        dy2st.to_static(_needs_numbers, build_strategy=s)(rt.to_tensor([2]))


def test_cinn_pass_changes_nothing_for_convertible_code():
    def f(x):
        return x * 2 if x.sum() > 0 else x - 1
    sf = dy2st.to_static(f, build_strategy=_cinn())
    for v in ([1.0, 2.0], [-3.0, 1.0]):
        x = rt.to_tensor(v)
        np.testing.assert_array_equal(sf(x).numpy(), f(x).numpy())
    assert len(sf.program_cache) == 1
