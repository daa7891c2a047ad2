"""Control flow the passes used to miss: `match` statements (a `return` in a case was dropped,
a `break`/`continue` in a case did not compile), a `:=` in a `while` condition (the name it binds
was lost to the body), and functions whose every path returns through a Python branch holding
a tensor-dependent one (an implicit `return None` was merged with the tensors). Each converted
function is compared with eager on several values through one cached Program."""
from dataclasses import dataclass

import numpy as np
import pytest

import dy2st
import runtime as rt
from dy2st.pyct.errors import Dy2StSyntaxError


def _t(v, dtype="float32"):
    return rt.to_tensor(np.array(v, dtype=dtype))


def _same(a, b):
    if isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif rt.is_tensor(a) or rt.is_tensor(b):
        np.testing.assert_array_equal(np.asarray(b.numpy() if rt.is_tensor(b) else b),
                                      np.asarray(a.numpy() if rt.is_tensor(a) else a))
    else:
        assert a == b


def _check(fn, calls, grad=False):
    """Call one StaticFunction with every argument tuple of ``calls``; compare with ``fn`` eagerly."""
    sf = dy2st.to_static(fn)
    for args in calls:
        _same(fn(*args), sf(*args))
        if grad:
            x, rest = args[0], args[1:]
            x.stop_gradient = False
            x.clear_gradient()
            fn(x, *rest).sum().backward()
            eager = x.grad.numpy().copy()
            x.clear_gradient()
            sf(x, *rest).sum().backward()
            np.testing.assert_array_equal(x.grad.numpy(), eager)
            x.clear_gradient()
            x.stop_gradient = True
    return sf


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


def _reversed_range(x, n):
    acc = x * 0
    for i in reversed(range(n)):
        acc = acc * 2 + i
    return acc


def _reversed_rows(x):
    acc = x[0] * 0
    for v in reversed(x):
        acc = acc * 2 + v
    return acc


def test_reversed_over_tensor_range_and_rows():
    # a tensor bound: a `while` op from the last item (an RNN's backward direction)
    _check(_reversed_range, [(_t([1.0]), _t(k, "int64")) for k in (3, 0, 1)], grad=True)
    _check(_reversed_rows, [(_t([1.0, 2.0, 3.0]),), (_t([4.0, -2.0, 3.0]),)], grad=True)


def _zip_with_list(x):
    s = x[0] * 0
    for v, w in zip(x, [1.0, 2.0, 3.0]):
        if v > 0:
            s = s + v * w
    return s


def test_zip_of_a_tensor_and_a_list():
    # a known first dim: unrolled (the list bounds it), as eager
    _check(_zip_with_list, [(_t(a),) for a in ([1.0, -3.0, 5.0], [1.0, 2.0, 3.0, 4.0], [5.0])], grad=True)
    # a run-time first dim: refused at the user's line rather than with an internal name
    sf = dy2st.to_static(_zip_with_list, input_spec=[dy2st.InputSpec([None], "float32")])
    with pytest.raises(TypeError, match="whose length is known only when the Program runs") as info:
        sf(_t([1.0, 2.0]))
    assert "for v, w in zip(x, [1.0, 2.0, 3.0])" in str(info.value)


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


def _writes_into_walked_rows(x):
    x = x * 1
    s = x[0] * 0
    for i, v in enumerate(x):
        if i + 1 < 3:
            x[i + 1] = x[i + 1] + v * v  # eagerly the next row read sees this write
        s = s + v
    return s, x


def _writes_into_an_alias_of_the_rows(x):
    y = x * 1
    z = y
    for v in reversed(z):
        y[1] = y[1] * v
    return y, z


def _writes_then_rebinds(x):
    x = x * 1
    for v in x:
        x[0] = x[0] + v
        x = x * 2
    return x


def test_for_over_a_tensor_its_body_writes_into():
    # the loop op read the rows it started with: a silently different sum; now it reads the carry
    calls = [(_t([1.0, 2.0, 3.0]),), (_t([-1.0, 0.5, 2.0]),)]
    _check(lambda x: _writes_into_walked_rows(x)[1], calls, grad=True)
    _check(_writes_into_walked_rows, calls)
    _check(lambda x: _writes_into_an_alias_of_the_rows(x)[0], calls, grad=True)
    with pytest.raises(TypeError, match="writes into that tensor in place and then rebinds") as info:
        dy2st.to_static(_writes_then_rebinds)(_t([1.0, 2.0, 3.0]))
    assert "x[0] = x[0] + v" in str(info.value) or "for v in x:" in str(info.value)


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


class _Base(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(4, 4)

    def forward(self, x, mode="relu"):
        h = self.fc(x)
        match mode:
            case "relu":
                h = rt.nn.functional.relu(h)
            case "tanh":
                h = rt.tanh(h)
        return h


class _Net(_Base):
    def __init__(self):
        super().__init__()
        self.blocks = rt.nn.LayerList([rt.nn.Linear(4, 4) for _ in range(2)])
        self.head = rt.nn.Linear(4, 1)

    def forward(self, x, n, mode="relu"):
        h = super().forward(x, mode)
        for i, blk in enumerate(self.blocks):
            if i >= 1 and h.mean() > 0.5:
                break
            h = blk(h)
        k = 0
        while k < n:
            k += 1
            if h.abs().max() > 3:
                h = h / 2
                continue
            h = h + 0.1
        for row in reversed(range(n)):
            h = h * 0.9 + row * 0.01
        return self.head(h).mean()


def test_layer_mixing_the_constructs_trains_like_eager():
    rt.seed(5)
    eager = _Net()
    rt.seed(5)
    net = dy2st.to_static(_Net())
    opts = [rt.optimizer.SGD(0.05, parameters=m.parameters()) for m in (eager, net)]
    rng = np.random.RandomState(0)
    for step in range(4):
        x, n, mode = _t(rng.randn(3, 4)), _t(rng.randint(0, 4), "int64"), ("relu", "tanh", "none")[step % 3]
        losses = [m(x, n, mode) for m in (eager, net)]
        np.testing.assert_array_equal(losses[1].numpy(), losses[0].numpy())
        for loss, opt in zip(losses, opts):
            loss.backward()
            opt.step()
            opt.clear_grad()
    for p, q in zip(eager.parameters(), net.parameters()):
        np.testing.assert_array_equal(q.numpy(), p.numpy())


def _closure_after_branch(x):
    scale = 1.0
    g = lambda t: t * scale  # noqa: E731  (a closure over `scale`, rebound below)
    if x.sum() > 0:
        scale = 2.0
    return g(x)


def _closure_inside_loop(x, n):
    acc = x * 0

    def add(t):
        return acc + t  # reads the loop's current `acc` eagerly

    for _ in range(n):
        acc = add(x)
    return acc


def test_closures_see_what_branches_and_loops_rebind():
    # the branch and loop bodies bound their own locals: the closure kept the old value, silently
    _check(_closure_after_branch, [(_t([v]),) for v in (-1.0, 1.0)], grad=True)
    _check(_closure_inside_loop, [(_t([1.0]), _t(k, "int64")) for k in (0, 3)], grad=True)
    _check(_closure_inside_loop, [(_t([1.0]), k) for k in (0, 3)])


def _closure_over_a_name_first_bound_in_the_loop(x, n):
    for i in range(n):
        y = x * i
        f = lambda: y + 1  # noqa: E731
        x = f()
    return x


def test_closure_over_a_name_first_bound_inside_a_loop():
    # not carried (it has no value before the loop): a loop that runs zero times is fine
    _check(_closure_over_a_name_first_bound_in_the_loop, [(_t([1.0]), _t(k, "int64")) for k in (0, 1, 3)])
