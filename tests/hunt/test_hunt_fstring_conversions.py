"""`print(f"{t!s:>30}")` of a traced tensor: eager formats `str(t)` (the whole "Tensor(shape=..."
text) and pads it; the print op formatted the value as a number (and refused any tensor but a
one-element one). `!r`/`!a` with a spec, and `"{!s:^40}".format(t)`, are the same case."""
import contextlib
import io

import pytest

import dy2st
import runtime as rt


def _prints(x):
    print(f"{x!s:>60}|{x!r:<5}|{x!a}|{x}|")
    print(f"{x.sum():8.3f}|{x.sum()!s:^70}|", "{!s:*<50}".format(x * 2))
    return x * 2


def _out(fn, x):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        fn(x)
    return buf.getvalue()


@pytest.mark.parametrize("values, grad", [([1.0], False), ([1.5, -2.0], True), ([0.25, 3.0, -1.0], False)])
def test_conversions_with_a_spec_pad_the_tensors_text(values, grad):
    sf = dy2st.to_static(_prints)
    x = rt.to_tensor(values, stop_gradient=not grad)
    want = _out(_prints, x)
    assert "Tensor(shape=" in want.splitlines()[0]
    assert _out(sf, x) == want
    assert _out(sf, x) == want  # the cached Program prints it again
