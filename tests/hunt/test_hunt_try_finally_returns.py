"""`return` inside `try/finally` under a tensor-dependent `if` (and a tensor `if` inside a
try/finally, a `return` in the `finally`, loops around them): converted code gives eager's values,
gradients and prints on every path."""
import contextlib
import io

import numpy as np

from tests.compat.helpers import check


def _return_in_try(x):
    if x.sum() > 0:
        try:
            return x + 1
        finally:
            print("finally")
    return x - 1


def _finally_rebinds(x):
    y = x
    if x.sum() > 0:
        try:
            y = x * 3
            return y + 1
        finally:
            y = y * 2
    return y - 1


def _finally_returns(x):
    if x.sum() > 0:
        try:
            x = x + 1
        finally:
            return x * 2  # noqa: B012  (a return in finally is the case tested)
    return x - 1


def _if_inside_try(x):
    try:
        if x.sum() > 0:
            return x * x
    finally:
        print("always")
    return -x


def _loop(x):
    for k in range(3):
        try:
            if x.sum() > k:
                return x + k
        finally:
            x = x * 2
    return x


def test_return_in_try_finally_under_tensor_if():
    args = [np.array([v, 0.5], "float32") for v in (1.0, -2.0)]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        for fn in (_return_in_try, _finally_rebinds, _finally_returns, _if_inside_try, _loop):
            check(fn, *args, grad=True)
    lines = buf.getvalue().splitlines()
    # eager and converted print alike: "finally" for the positive input, "always" for all
    assert lines.count("finally") == 2 and lines.count("always") == 4
