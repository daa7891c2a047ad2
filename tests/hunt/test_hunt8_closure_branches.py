"""A nested function reached only through another closure (a ternary's branch calling `f(x)`, a
`lambda v: f(v)` called in a tensor `if`) writes into its captured objects as the branch taken
does: both branches are traced, so without following `f`'s own cells a Python counter it bumps
counted both traces."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.hunt.eager_checks import check, t


def _counter_in_ternary(x):
    calls = [0]

    def f(v):
        calls[0] += 1
        return v * 2
    y = f(x) if x.sum() > 0 else f(-x)
    return y * calls[0]


def _counter_through_lambda(x):
    calls = [0]

    def f(v):
        calls[0] += 1
        return v * 2
    g = lambda v: f(v)  # noqa: E731
    if x.sum() > 0:
        y = g(x)
    else:
        y = g(-x) + 1
    return y * calls[0]


def _one_key_per_branch(x):
    seen = {}

    def note(k, v):
        seen[k] = True
        return v
    y = note("pos", x) if x.sum() > 0 else note("neg", -x)
    return y, rt.to_tensor(len(seen))


X = np.array([1.0, -2.0, 3.0], "float32")


def test_counter_bumped_in_ternary_branch_counts_once():
    check(_counter_in_ternary, [(t(X),), (t(-X),)], grad=True)
    np.testing.assert_array_equal(dy2st.to_static(_counter_in_ternary)(t(X)).numpy(), X * 2)


def test_counter_bumped_through_lambda_counts_once():
    check(_counter_through_lambda, [(t(X),), (t(-X),)], grad=True)


def test_key_set_in_one_ternary_branch_is_refused():
    with pytest.raises(ValueError, match=r"seen\['neg'\] is set in only one branch"):
        dy2st.to_static(_one_key_per_branch)(t(X))
