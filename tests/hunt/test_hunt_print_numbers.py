"""`print` of a value that is a Python number eagerly (a loop counter over a tensor bound, float(t))
prints that number in converted code too, not a 0-d Tensor."""
import contextlib
import io

import dy2st
import runtime as rt


def _prints_counters(x, n):
    for i in range(n):
        print("step", i, f"{i / 2:.2f}", x * i)
    print(f"total {float(x.sum())!r}")
    return x


def test_counters_and_python_floats_print_as_numbers():
    sf = dy2st.to_static(_prints_counters)
    x, n = rt.to_tensor([1.0, 2.0]), rt.to_tensor(3)
    eager, static = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(eager):
        _prints_counters(x, n)
    with contextlib.redirect_stdout(static):
        sf(x, n)
    assert static.getvalue() == eager.getvalue()
