"""An in-place method whose operand broadcasts the tensor it writes (`x.add_(y)` with x [1, 3] and
y [2, 3]) raises eagerly. With both dims unknown while the Program is built (InputSpec [None, 3]),
the shapes matched as [-1, 3] and the Program silently made x [2, 3]; the write is now checked when
the Program runs, raising eager's ValueError at the user's line. Equal run-time shapes still write."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime.static import InputSpec
from tests.error_helpers import line_of, notes


def _add_into(a, b):
    c = a * 1.0
    c.add_(b)
    return c


def _fill_into(a, b):
    c = a * 1.0
    c.masked_fill_(b > 1.0, 0.0)
    return c


@pytest.mark.parametrize("fn, line", [(_add_into, "c.add_(b)"), (_fill_into, "c.masked_fill_(b > 1.0, 0.0)")])
def test_an_in_place_write_broadcast_over_run_time_dims_raises(fn, line):
    sf = dy2st.to_static(fn, input_spec=[InputSpec([None, 3], "float32"), InputSpec([None, 3], "float32")])
    a, b = np.ones((2, 3), "float32"), np.arange(6, dtype="float32").reshape(2, 3)
    np.testing.assert_array_equal(sf(rt.to_tensor(a), rt.to_tensor(b)).numpy(), fn(rt.to_tensor(a), rt.to_tensor(b)).numpy())
    with pytest.raises(ValueError, match="would change the tensor's shape"):
        fn(rt.to_tensor(a[:1]), rt.to_tensor(b))
    with pytest.raises(ValueError, match="would change the tensor's shape") as info:
        sf(rt.to_tensor(a[:1]), rt.to_tensor(b))
    assert f"line {line_of(fn, line)}" in str(info.value) + notes(info.value)
