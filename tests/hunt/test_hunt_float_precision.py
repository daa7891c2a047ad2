"""`float(t)` in converted code is a Python float eagerly: float64 holding the tensor's value, so
`float(t) * 0.1` computes in double. Compared, branched on, or used in tensor math (float32 and
float64 tensors) it must give eager's answer through one cached Program."""
import numpy as np

import dy2st
import runtime as rt
from tests.hunt.eager_checks import check


def t(v, dtype="float32"):
    return rt.to_tensor(np.array(v, dtype))


def branch(x):
    a = float(x) * 0.1  # 3.0 * 0.1 = 0.30000000000000004 > 0.3 in double, not in float32
    if a > 0.3:
        return x + 1.0
    return x - 1.0


def tensor_math(x, y64):
    a = float(x) * 0.1 + 1e-9
    b = x.item() * 0.1
    return x * a, y64 * a, a == 0.30000000000000004, b > 0.3, y64 * b


def summed(x, n):
    acc = 0.0
    i = 0
    while i < n:  # a carried Python float fed by float(t) arithmetic
        acc += float(x) * 0.1
        i += 1
    if acc > 0.9:
        return x * 2.0
    return x


def test_float_of_tensor_keeps_double_precision():
    values = [3.0, 0.7, 1e-3, -3.0]
    sf = check(branch, [(t(v),) for v in values])
    assert sf.get_traced_count() == 1
    sf = check(tensor_math, [(t(v), t([v, 2.5], "float64")) for v in values])
    assert sf.get_traced_count() == 1
    sf = check(summed, [(t(v), t(3, "int64")) for v in values])
    assert sf.get_traced_count() == 1
    out = dy2st.to_static(branch)(t(3.0))
    np.testing.assert_array_equal(out.numpy(), np.float32(4.0))  # the double comparison's branch
