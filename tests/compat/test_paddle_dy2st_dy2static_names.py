"""``paddle.jit.dy2static`` names Paddle's tests import (as ``dy2st.dy2static``): returns of different
structure under a tensor ``if`` raise Paddle's ``Dygraph2StaticException`` (still a ValueError, at the
user's line), ``func_to_source_code`` prints a function without its comments,
``program_translator.StaticFunction`` is what ``to_static`` returns, and ``set_dynamic_shape`` leaves a
loop that grows a tensor converted exactly as eager."""
import numpy as np
import pytest

import dy2st
import runtime as paddle
from dy2st.dy2static import utils_helper
from dy2st.dy2static.program_translator import StaticFunction
from dy2st.dy2static.utils import Dygraph2StaticException, func_to_source_code


def _pair_or_one(x):
    y = x + 1
    if x > 0:
        return x, y
    return x


def _none_or_pair(x):
    y = x + 1
    if x > 0:
        return None
    else:
        return x, y


def _grow(n):
    mask = paddle.ones([2, 2])
    utils_helper.set_dynamic_shape(mask, [-1, 2])
    row = paddle.full([1, 2], 3.0)
    for _ in range(n):
        mask = paddle.concat([mask, row], axis=0)
        if mask.shape[0] == 5:
            break
    return mask


def test_differing_returns_raise_paddles_exception_at_the_users_line():
    for fn in (_pair_or_one, _none_or_pair):
        with pytest.raises(Dygraph2StaticException, match="Your if/else have different number of return value") as info:
            dy2st.to_static(fn)(paddle.to_tensor([1.0]))
        assert isinstance(info.value, ValueError)
        assert "test_paddle_dy2st_dy2static_names.py" in str(info.value) + "".join(getattr(info.value, "__notes__", []))


def test_source_code_static_function_and_set_dynamic_shape():
    code = func_to_source_code(_grow)
    assert code.startswith("def _grow(n):") and "#" not in code
    sf = dy2st.to_static(_grow)
    assert isinstance(sf, StaticFunction) and func_to_source_code(sf) == code
    for n in (0, 2, 5, 9):
        steps = paddle.to_tensor(n)
        want, got = _grow(steps), sf(steps)
        assert want.shape == got.shape
        np.testing.assert_array_equal(want.numpy(), got.numpy())
