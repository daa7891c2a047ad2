"""A Python float a converted function holds as a run-time value (a float carried through a tensor
loop, `float(t)`, `t.item()`, an int divided) is a float64 value that user code sees in the default
float dtype. Operators used the float64 value, but a runtime API given it (`rt.full(s, acc,
"float64")`, `rt.to_tensor(acc, "float64")`, `rt.add(x64, acc)`, `rt.where`, `rt.clip`, `rt.scale`,
`rt.linspace`...) got the float32 rounding: 0.30000001192092896 where eager has 0.30000000000000004,
silently; with a float16 tensor the result became float32. Ops now take the exact value, cast to the
float dtype of the other operand as a Python float is eagerly. A carried Python int given to
`rt.add(x_uint8, k)` promoted the uint8/int32 tensor to int64 (260 where eager wraps to 4); it now
takes the tensor's dtype as the int does eagerly. Such a float appended to a list built in a tensor
loop was stacked in float32 (`x64 * vals[0]` off in the 9th digit): refused at the user's line."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.hunt.eager_checks import same


def _apis(x):
    acc = 0.0
    for v in x:
        if v > 0:
            acc += 0.1
    return (rt.full([2], acc, "float64"), rt.to_tensor(acc, dtype="float64"), rt.full_like(x, acc),
            rt.add(x, acc), rt.where(x > 0.4, x, acc), rt.clip(x, min=acc), rt.scale(x, scale=acc, bias=acc),
            rt.pow(x, acc), rt.linspace(0, acc, 3, "float64"), rt.full([2], acc), rt.add(x.astype("int64"), acc))


def _reads(x):
    v = float(x.sum())
    w = x.mean().item()
    n = x.shape[0] / 3
    return rt.full([1], v, "float64"), rt.to_tensor(w, "float64"), rt.add(x, v), rt.full([1], n, "float64")


def test_apis_given_a_carried_python_float_use_its_exact_value():
    sf = dy2st.to_static(_apis)
    for dtype in ("float64", "float32", "float16"):
        for vals in ([0.3, 0.3, 0.3], [0.5, 0.0, 1.0]):
            x = rt.to_tensor(np.array(vals, dtype))
            eager, static = _apis(x), sf(x)
            same(eager, static)
            assert [str(t.dtype) for t in static] == [str(t.dtype) for t in eager]
    sf = dy2st.to_static(_reads)
    x = rt.to_tensor(np.array([0.1, 0.2, 0.7], "float64"))
    same(_reads(x), sf(x))


def _int_apis(x):
    k = 0
    for v in x:
        if v > 0:
            k += 5
    return rt.add(x, k), rt.multiply(x, k), rt.where(x > 1, x, k), rt.floor_divide(x, k), rt.remainder(x, k)


def test_apis_given_a_carried_python_int_keep_the_tensor_dtype():
    # eagerly a Python int next to a uint8/int32 tensor takes its dtype (uint8 wraps at 256)
    sf = dy2st.to_static(_int_apis)
    for dtype in ("uint8", "int32", "int64", "float32"):
        x = rt.to_tensor(np.array([250, 3, 1], dtype))
        eager, static = _int_apis(x), sf(x)
        same(eager, static)
        assert [str(t.dtype) for t in static] == [str(t.dtype) for t in eager]


def _float_items(x):
    vals = [0.0]
    for v in x:
        vals.append(float(v))  # eagerly the double-precision Python float
    return x * vals[1]


def _tensor_items(x):
    vals = []
    for v in x:
        vals.append(rt.to_tensor(float(v), "float64"))
    return x * vals[0], sum(vals)


def test_python_floats_appended_in_a_tensor_loop_are_refused():
    x = rt.to_tensor(np.array([0.1, 0.7, 0.9], "float64"))
    with pytest.raises(TypeError, match="double-precision Python float") as info:
        dy2st.to_static(_float_items)(x)
    assert "test_hunt_python_float_apis.py" in "".join(info.value.__notes__)
    same(_tensor_items(x), dy2st.to_static(_tensor_items)(x))
