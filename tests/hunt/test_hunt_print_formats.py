"""`print("x %s" % t)` and `print("x {}".format(t))` in converted code print the tensor's value at
every run, as eager print does (they printed the Variable's name, formatted once while tracing),
numeric directives (``%.3f``, ``%5d``) included; forms Python must format (a tuple variable, numbers
that are Python's) stay Python's."""
import contextlib
import io

import dy2st
import runtime as rt


def _prints(x):
    y = x * 2
    print("a=%s b=%r %% c=%-4s|" % (x, y, 3))
    print("v {0} {1!r} {name:>4} {0}".format(x, y, name="n"))
    print("loss {:.3f}".format(1.23456), "%5.2f" % 3.14159)
    m, n = x.mean(), rt.cast(x.sum(), "int64")
    print("loss %.3f %+.2f|%08.3f|%-8.2f|%e|%g" % (m, m, m, m, m, m), "n=%d %5d %-5d| %x %+d" % (n, n, n, n, n))
    print("loss {:.3f} {:>8.2f}".format(m, m))
    pair = (x, y)
    print("%s and %s" % pair)
    if x.sum() > 0:
        print("pos %s" % x)
    else:
        print("neg {}".format(y))
    return y


def test_percent_and_format_print_run_time_values():
    sf = dy2st.to_static(_prints)
    for v in ([1.5, 2.0], [-3.0, 1.0], [0.25, -0.5]):
        eager, static = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(eager):
            _prints(rt.to_tensor(v))
        with contextlib.redirect_stdout(static):
            sf(rt.to_tensor(v))
        assert static.getvalue() == eager.getvalue()
        assert "var " not in static.getvalue()
    assert len(sf.program_cache) == 1
