"""`print("loss %.3f" % loss)` (or `"loss {:.3f}".format(loss)`) in converted code: the string was
made once, while the Program was built (from the Variable's text), and later calls printed it
again. Both are formatted at every run now, as an f-string is; what the print op cannot mimic is
refused at the user's line."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from error_helpers import notes


def _prints(x, n):
    s = x.sum()
    print("v %s" % s)
    print("v %r|%.3f|%8.2e|%-7.1f|%+g %%" % (s, s, s, s, s))
    print("n %d|%5d|%x" % (n, n * 3, n * 10), "plain %d" % 3)
    print("v {0!r}|{0:.3f}|{1:>8.2e}|{k:+g}|{{}}|{2}".format(s, s, "lit", k=s), "n {:d} {:5d}".format(n, n * 3))
    i = 0
    while i < n:
        print("step %d of %d" % (i, n))
        i += 1
    return s


def _int_of_float(x):
    print("%d" % x.sum())
    return x


def test_percent_formats_in_print_print_at_every_call(capsys):
    sf = dy2st.to_static(_prints)
    for v in (1.5, -2.25, 1.5):
        x, n = rt.to_tensor(np.array([v, 1.0], "float32")), rt.to_tensor(v > 0 and 2 or 3)
        _prints(x, n)
        eager = capsys.readouterr().out
        sf(x, n)
        assert capsys.readouterr().out == eager
    assert len(sf.program_cache) == 1


def test_a_conversion_the_print_op_cannot_mimic_is_refused_at_the_users_line():
    with pytest.raises(TypeError, match="f-string") as info:
        dy2st.to_static(_int_of_float)(rt.ones([2]))
    where = notes(info.value)
    assert "test_hunt_print_percent.py" in where and 'print("%d" % x.sum())' in where


def _str_of_tensor(x):
    print("x=" + str(x.sum()))
    return x


def _lazy_messages(x, n):
    if x.sum() > 100:
        raise ValueError("too big: " + str(x.sum()))  # made only if it raises, as eagerly
    assert x.sum() > -100, "small " + repr(x.sum())
    print("layer_" + str(n), str([1, 2]))
    return x * n


def test_str_of_a_traced_tensor_is_refused_and_lazy_messages_convert(capsys):
    with pytest.raises(TypeError, match=r"str\(\) of a traced tensor") as info:
        dy2st.to_static(_str_of_tensor)(rt.ones([2]))
    assert 'print("x=" + str(x.sum()))' in notes(info.value)
    out = dy2st.to_static(_lazy_messages)(rt.ones([2]), 3)
    np.testing.assert_array_equal(out.numpy(), [3.0, 3.0])
    assert capsys.readouterr().out == "layer_3 [1, 2]\n"
