"""Scenarios of Paddle's test_logical, rewritten: `not`, `and`, `or` mixing tensor comparisons with
Python values (`None` guards whose right side must not run, numbers), nested in one condition, and
`x.shape == y.shape` comparisons of shape lists. Converted equals eager on inputs that take every
path, with one Program per function."""
import numpy as np
import pytest

import dy2st
import runtime as rt

from .helpers import same


def negations(x):
    x = rt.to_tensor(x)
    if not x:
        x = x - 1
    else:
        x = x + 1
    if x != 10:
        x = x - 1
    else:
        x = x + 1
    y = 0
    if not y:
        x = x + 4
    if y != 3:
        x = x + 2
    return x


def none_guard_with_not(x):
    x = rt.to_tensor(x)
    y = None
    if y is not None and not y:
        x = x + 4
    if y != 3:
        x = x + 2
    return x


def conjunctions(x):
    x = rt.to_tensor(x)
    if x < 10 and x > 1:
        x = x - 1
    else:
        x = x + 1
    y = 3
    if y < 10 and y > 1:
        x = x - 2
    else:
        x = x + 2
    return x


def none_guards(x):
    x = rt.to_tensor(x)
    a = None
    if a is not None and a > 1:  # `a > 1` must not run: it would raise
        x = x - 1
    else:
        x = x + 1
    b = 3
    if b is not None and b > 1:
        x = x - 1
    else:
        x = x + 1
    return x


def disjunctions(x):
    x = rt.to_tensor(x)
    if x < 10 or x > 1:
        x = x - 1
    else:
        x = x + 1
    a = 10
    if a > 3 or a < 1:
        x = x - 1
    else:
        x = x + 1
    return x


def disjunction_short_circuit(x):
    x = rt.to_tensor(x)
    a = None
    if x > 1 or a is None or a > 1:
        x = x - 1
    else:
        x = x + 1
    return x


def mixed(x):
    x = rt.to_tensor(x)
    a = 1
    if x < 10 and (a < 4 or a > 0) or a < -1 or not x > -1:
        x = x - 1
    else:
        x = x + 1
    return x


def strictly_between(x):
    x = rt.to_tensor(x)
    if x > 1 and x < 10 or not x != 0:
        return x * 2
    return x - 100


FNS = [negations, none_guard_with_not, conjunctions, none_guards, disjunctions,
       disjunction_short_circuit, mixed, strictly_between]


@pytest.mark.parametrize("fn", FNS, ids=[f.__name__ for f in FNS])
def test_logical_operators(fn):
    sf = dy2st.to_static(fn)
    for v in (3, 0, 1, 10, -5, 12):
        x = np.array([v], "int32")
        same(fn(x), sf(x))
    assert len(sf.program_cache) == 1


def same_shape(x):
    x = rt.to_tensor(x)
    y = rt.zeros([1, 2, 3])
    if x.shape == y.shape:
        return y
    else:
        return rt.ones([1, 2, 3])


def other_shape(x):
    x = rt.to_tensor(x)
    y = rt.zeros([1, 2, 3])
    if x.shape != y.shape:
        return y
    else:
        return rt.ones([1, 2, 3])


@pytest.mark.parametrize("fn", [same_shape, other_shape])
def test_shape_comparisons(fn):
    sf = dy2st.to_static(fn)
    for shape in ([1, 2, 3], [2, 3], [3, 2, 1]):
        x = np.ones(shape, "float32")
        same(fn(x), sf(x))
    # a shape list compares as Python lists do: decided while the Program is built
    ops = {op.type for op in sf.program_cache.last().main_program.global_block().ops}
    assert "cond" not in ops
