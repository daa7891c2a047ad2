"""rt.set_printoptions (eager printing and a print inside converted code) and rt.LazyGuard, as Paddle's."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import printing


@pytest.fixture(autouse=True)
def _restore():
    saved = dict(printing._OPTIONS)
    yield
    printing._OPTIONS.update(saved)


def test_defaults_then_precision_threshold_sci_mode():
    x = rt.to_tensor(np.array([[0, 1 / 3, 2 / 3], [1, 4 / 3, 5 / 3]], "float32"))
    assert "0.33333334" in str(x)
    rt.set_printoptions(precision=2)
    assert str(x).splitlines()[1:] == ["       [[0.  , 0.33, 0.67],", "        [1.  , 1.33, 1.67]])"]
    rt.set_printoptions(sci_mode=True)
    assert "3.33e-01" in str(x)
    rt.set_printoptions(sci_mode=False, threshold=4, edgeitems=1)
    assert str(rt.arange(10)).endswith("[0, ..., 9])")
    rt.set_printoptions(precision=None)  # None keeps the current setting
    assert "0.67]" in str(x) and "..." in str(x)


def test_print_in_converted_code_follows_the_options(capsys):
    @dy2st.to_static
    def f(x):
        y = x / 3
        if y.sum() > 0:
            print(y)
        return y

    rt.set_printoptions(precision=3)
    f(rt.to_tensor(np.ones(2, "float32")))
    assert "[0.333, 0.333]" in capsys.readouterr().out


@pytest.mark.parametrize("kw", [{"precision": -1}, {"threshold": 2.5}, {"edgeitems": True}, {"sci_mode": 1}])
def test_bad_options_are_type_errors(kw):
    with pytest.raises(TypeError, match="set_printoptions"):
        rt.set_printoptions(**kw)


def test_lazy_guard_builds_the_layer_and_initialize_keeps_values():
    rt.seed(3)
    with rt.LazyGuard():
        net = rt.nn.Linear(4, 2)
    before = net.weight.numpy().copy()
    for p in net.parameters():
        p.initialize()
    np.testing.assert_array_equal(net.weight.numpy(), before)
    rt.seed(3)
    np.testing.assert_array_equal(rt.nn.Linear(4, 2).weight.numpy(), before)  # same draws as without the guard
