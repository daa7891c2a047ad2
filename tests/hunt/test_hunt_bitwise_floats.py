"""``& | ^`` with a float tensor operand raise, as in Paddle (``bool & float`` was silently a logical and)."""
import pytest

import dy2st
import runtime as rt


def _and(a, b):
    return a & b


@pytest.mark.parametrize("swap", [False, True])
def test_bool_and_float_operands_raise_eager_and_converted(swap):
    b, f = rt.to_tensor([True, False]), rt.to_tensor([0.5, 2.0])
    args = (f, b) if swap else (b, f)
    for fn in (_and, dy2st.to_static(_and)):
        with pytest.raises(TypeError, match="bool or integer"):
            fn(*args)
    assert _and(b, b).numpy().tolist() == [True, False]
