"""`to_static(fn, build_strategy=rt.static.BuildStrategy())` (Paddle's test_build_strategy.py): the
graph fusion options are taken and change no result; anything else as build_strategy is a
TypeError, as in Paddle, and an option Paddle lacks is an AttributeError. An input_spec that is not
a list (test_function_spec.py) is a TypeError saying so."""
import pytest

import dy2st
import runtime as rt
from tests.compat.helpers import arr, same


def _foo(x):
    if x.mean() > 0:
        return rt.nn.functional.relu(x) + 1
    return x * 2


def test_build_strategy_is_accepted_and_checked():
    bs = rt.static.BuildStrategy()
    bs.fuse_elewise_add_act_ops = bs.fuse_bn_act_ops = bs.enable_addto = True
    sf = dy2st.to_static(_foo, build_strategy=bs)
    for seed, lo in ((0, -1.0), (1, 0.5)):
        x = rt.to_tensor(arr(3, 4, seed=seed, lo=lo))
        same(_foo(x), sf(x))
    with pytest.raises(TypeError, match="BuildStrategy"):
        dy2st.to_static(_foo, build_strategy="x")
    with pytest.raises(AttributeError):
        bs.fuse_everything = True


def test_input_spec_must_be_a_list():
    with pytest.raises(TypeError, match=r"input_spec must be a list or tuple .*got InputSpec"):
        dy2st.to_static(_foo, input_spec=dy2st.InputSpec([None, 4]))
