"""A `functools.partial` of a user function, called in converted code, runs the converted function
(its tensor `if` becomes a `cond`), with the partial's bound arguments."""
import functools

from tests.compat.helpers import arr, check


def _shift(x, by):
    if x.mean() > 0:
        return x - by
    return x + by


def _calls_partials(x):
    down = functools.partial(_shift, by=2.0)
    bound = functools.partial(_shift, x)
    return down(x), bound(3.0)


def test_partials_of_user_functions_are_converted():
    check(_calls_partials, (arr(3, lo=0, hi=1),), (arr(3, lo=-1, hi=0),), grad=True)
