"""`a and f(x)` / `a or f(x)` / `lo < t < f(x)` with a traced bool `a`: eagerly `f` runs only when `a`
lets it, while the logical op evaluates every operand at trace time, so a count `f` keeps came
out as if it always ran. Such operands are refused at the user's line; pure ones still convert."""
import numpy as np
import pytest

import dy2st
from tests.hunt.eager_checks import check, t


def _counted_and_in_if(x):
    calls = [0]

    def positive(v):
        calls[0] += 1
        return v.mean() > 0
    if x.sum() > 0 and positive(x):
        y = x * 2
    else:
        y = x * 3
    return y * calls[0]


def _logged_or(x):
    log = []
    ok = (x.sum() > 0) or (log.append(1) or x.mean() > 0)
    return ok, len(log)


def _counted_chained_comparison(x):
    calls = [0]

    def limit():
        calls[0] += 1
        return 5.0
    y = x * 2 if 0 < x.sum() < limit() else x
    return y * calls[0]


def _pure_operands(x):
    y = x * 3
    if x.sum() > 0 and x.mean() < 5 or x.max() > 2:
        y = x * 2
    return y, 0 < x.sum() < 3


X = np.array([1.0, -2.0, 3.0], "float32")


@pytest.mark.parametrize("fn, kind, what", [(_counted_and_in_if, "and", r"calls\[0\]"),
                                            (_logged_or, "or", r"log\[0\]"),
                                            (_counted_chained_comparison, "and", r"calls\[0\]")])
def test_operand_writing_after_a_traced_bool_is_refused(fn, kind, what):
    with pytest.raises(TypeError, match=f"`{kind}` after .* writes into {what}: eagerly it runs only when"):
        dy2st.to_static(fn)(t(X))


def test_pure_operands_still_convert():
    check(_pure_operands, [(t(X),), (t(-X),), (t(X * 0.1),)])
