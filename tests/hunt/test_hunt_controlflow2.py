"""Statements the passes used to miss: `match` (a `return` in a case was dropped, a `break` or
`continue` in a case did not compile, a class pattern saw a traced tensor as no Tensor), `try`/
`except*` (the same), a `:=` in a `while` condition (the name it binds was lost to the body) or in
an operand made a lambda (bound inside it: refused), a `raise` ending one branch of an `if` with
an `else` (it fired while the Program was built), and functions whose every path returns through
a Python branch holding a tensor-dependent one (an implicit `return None` was merged with the
tensors). Each converted function is compared with eager on several values through one cached
Program."""
from dataclasses import dataclass

import numpy as np
import pytest

import dy2st
import runtime as rt
from dy2st.pyct.errors import Dy2StSyntaxError
from tests.hunt.eager_checks import check as _check, t as _t


@dataclass
class _Op:
    kind: str
    k: float


def _dispatch(x, cmd):
    match cmd:
        case ["scale", k]:
            return x * k
        case ["shift", k] if x.sum() > 0:
            return x + k
        case ["shift", k]:
            return x - k
        case {"pow": p, **rest}:
            return x ** p + len(rest)
        case _Op(kind="mul", k=k) | _Op(kind="times", k=k):
            y = x * k
        case _Op(kind=kind) as op:
            y = x * op.k + len(kind)
        case None:
            return -x
        case 1 | 2:
            return x * 100
        case _:
            y = x * 0
    if y.sum() > 1:
        return y
    return y - 1


def test_match_cases_return_like_eager():
    cmds = [["scale", 2.0], ["shift", 3.0], {"pow": 2}, {"pow": 3, "a": 1}, _Op("mul", 2.0),
            _Op("times", 3.0), _Op("div", 1.5), None, 2, 3.5]
    _check(_dispatch, [(_t([v]), c) for v in (-1.0, 2.0) for c in cmds], grad=True)


def _match_in_loop(x, n):
    s = x * 0
    i = 0
    while i < n:
        i += 1
        match i % 4:  # a tensor subject when n is a tensor: value patterns compare as tensors
            case 0:
                continue
            case 1 | 2 if x.sum() > 0:
                s = s + i
            case 3:
                if s.sum() > 5:
                    break
                s = s * 2
            case _:
                s = s - 1
    return s, i


@pytest.mark.parametrize("as_tensor", [True, False])
def test_match_with_break_and_continue_in_a_loop(as_tensor):
    n = (lambda k: _t(k, "int64")) if as_tensor else (lambda k: k)
    _check(_match_in_loop, [(_t([v]), n(k)) for v in (-1.0, 2.0) for k in (0, 3, 9)])


def _nested_python_branch_returns(x, mode):
    if mode == "a":
        if x.sum() > 0:
            return x * 2
        return x
    else:
        return x * 0


def test_every_path_returns_through_a_python_branch():
    _check(_nested_python_branch_returns, [(_t([v]), m) for v in (-1.0, 2.5) for m in ("a", "b")], grad=True)


def _walrus_while(x, n):
    s = x * 0
    while (n := n - 1) >= 0:
        if s.sum() > 4:
            continue
        s = s + n
    else:
        s = s * 10
    return s, n


@pytest.mark.parametrize("as_tensor", [True, False])
def test_walrus_in_while_condition(as_tensor):
    n = (lambda k: _t(k, "int64")) if as_tensor else (lambda k: k)
    _check(_walrus_while, [(_t([1.0]), n(k)) for k in (0, 3, 5)])


def _class_patterns(x, n):
    s = x * 0
    for i in range(n):  # `i` is a Python int eagerly, a counter tensor when n is one
        match i:
            case int():
                s = s + 1
            case _:
                s = s - 1
    match x:
        case rt.Tensor():
            s = s * 2
    return s


def _class_pattern_with_fields(x):
    match x:
        case rt.Tensor(shape=[1]):
            return x * 2
    return x


def test_class_patterns_see_traced_tensors_as_eagerly():
    _check(_class_patterns, [(_t([1.0]), _t(k, "int64")) for k in (0, 3)])
    with pytest.raises(TypeError, match="class pattern") as info:
        dy2st.to_static(_class_pattern_with_fields)(_t([1.0]))
    assert "match x:" in str(info.value)


def _try_star(x, n):
    for i in range(n):
        try:
            if x.sum() > i:
                return x * i
        except* ValueError:
            pass
        x = x + 1
    return x


def test_return_inside_try_star():
    # `try`/`except*` has a `try`'s flow: its return and break were left as they were
    _check(_try_star, [(_t([v]), k) for v in (-1.0, 1.5) for k in (0, 3)], grad=True)


def _raise_with_else(x, mode):
    if mode == "a":
        y = x * 2
    elif x.sum() > 5:
        raise ValueError("big")
    else:
        y = x - 1
    if y.sum() > 0:
        z = y
    else:
        raise ValueError("neg")
    return z


def test_raise_in_a_branch_with_an_else():
    # both branches were traced, so the raise fired while the Program was built, for every input
    sf = dy2st.to_static(_raise_with_else)
    for args in [(_t([1.0]), "a"), (_t([3.0]), "b"), (_t([6.0]), "b"), (_t([-3.0]), "a")]:
        try:
            eager = _raise_with_else(*args).numpy()
        except ValueError as e:
            with pytest.raises(ValueError, match=str(e)):
                sf(*args)
        else:
            np.testing.assert_array_equal(sf(*args).numpy(), eager)


def _walrus_in_or(x):
    z = x * 0
    _ = x.sum() > 0 or (z := x * 7).sum() > 0
    return z


def _walrus_in_ternary(x):
    y = (z := x * 2) if x.sum() > 0 else (z := x * 3)
    return y + z


@pytest.mark.parametrize("fn", [_walrus_in_or, _walrus_in_ternary])
def test_walrus_in_an_operand_made_a_lambda_is_refused(fn):
    # bound inside the operand's lambda: `z` kept its old value silently (or was unbound)
    with pytest.raises(Dy2StSyntaxError, match="`:=` inside"):
        dy2st.to_static(fn)(_t([-1.0]))
