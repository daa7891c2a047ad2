"""A tensor-dependent `if` whose second branch writes a slot the first left alone is traced
once: the first branch's block outputs the slot's value before the `if` (no second build)."""
import itertools

import numpy as np
import pytest

import dy2st
import runtime as rt

INPUTS = [np.array([1.0, 2.0], "float32"), np.array([3.0, 4.0], "float32")]
CALLS = {"first": itertools.count(), "inner": itertools.count()}  # next(): no write the trace sees


def _value(v):
    if isinstance(v, dict):
        return {k: _value(e) for k, e in v.items()}
    if isinstance(v, (list, tuple)):
        return [_value(e) for e in v]
    return np.asarray(v.numpy()).tolist() if rt.is_tensor(v) else v


def second_writes_more(x):
    res = {"a": x, "b": 1, "c": [x, 2.0]}
    if x.sum() > 4:
        next(CALLS["first"])
        res["a"] = x * 2
        if x.mean() > 0:  # nested `cond`: traced once too
            next(CALLS["inner"])
            y = x + 1
        else:
            y = x - 1
    else:
        res["b"] = 5          # a Python int only this branch writes
        res["c"][0] = x * 3   # an item of a tracked list
        res["a"] = x - 1
        y = x
    return res, y


def second_writes_new_int(x):
    out = {"n": 0}
    if x.sum() > 4:
        y = x + 1
    else:
        out["n"] = 7
        y = x - 1
    return out, y


@pytest.mark.parametrize("fn", [second_writes_more, second_writes_new_int])
def test_matches_eager_and_traces_each_branch_once(fn):
    CALLS.update(first=itertools.count(), inner=itertools.count())
    sf = dy2st.to_static(fn)
    for a in INPUTS:
        assert _value(sf(rt.to_tensor(a))) == _value(fn(rt.to_tensor(a))), a
    assert len(sf.program_cache) == 1
    if fn is second_writes_more:  # one trace, then one eager call taking the branch
        assert (next(CALLS["first"]), next(CALLS["inner"])) == (2, 2)


def test_probe_and_gradient_through_written_slot():
    def f(x):
        res = {"s": x * 0}
        for i in range(rt.to_tensor(2, dtype="int64")):
            if x.sum() > 4:
                y = x * 2
            else:
                res["s"] = res["s"] + x
                y = x
        return res["s"] + y

    sf = dy2st.to_static(f)
    for a in INPUTS:
        xs, xe = rt.to_tensor(a, stop_gradient=False), rt.to_tensor(a, stop_gradient=False)
        got, want = sf(xs), f(xe)
        np.testing.assert_allclose(got.numpy(), want.numpy())
        got.sum().backward()
        want.sum().backward()
        np.testing.assert_allclose(xs.grad.numpy(), xe.grad.numpy())


def early_return_in_second(x):
    res = {"a": x, "k": 1}
    if x.sum() < 5:
        next(CALLS["first"])
        if x.mean() > 1:
            next(CALLS["inner"])
            res["a"] = x * 2
        else:
            res["a"] = x + 2
    else:
        res["k"] = 3
        return x * 3, res["k"]  # only this branch sets the return value: the roles swap
    return res["a"] - 1, res["k"]


def test_early_return_in_second_branch_swaps_without_tracing_again():
    CALLS.update(first=itertools.count(), inner=itertools.count())
    sf = dy2st.to_static(early_return_in_second)
    for a in INPUTS + [np.array([0.5, 1.0], "float32")]:
        assert _value(sf(rt.to_tensor(a))) == _value(early_return_in_second(rt.to_tensor(a))), a
    assert len(sf.program_cache) == 1
    # one trace, then eager calls: two take the first branch, one of them the inner one
    assert (next(CALLS["first"]), next(CALLS["inner"])) == (3, 2)
