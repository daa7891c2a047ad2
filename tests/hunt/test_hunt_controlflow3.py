"""Loops over tensors and closures the passes got wrong: `reversed` over a tensor range or rows
(refused as not reversible), `zip` of a tensor with a Python list, a `for` over a tensor its body
writes into in place (the rows it started with were read, silently), closures over names a
branch or loop rebinds (they kept the old value, silently), and a Layer mixing the constructs."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.hunt.eager_checks import check as _check, t as _t


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


def _cumulative_rows(x):
    y = x * 1
    for i, row in enumerate(y):
        if i + 1 < y.shape[0]:
            y[i + 1] = y[i + 1] + row
    return y


def test_rows_written_in_place_under_a_run_time_batch():
    # one Program (batch None) serves every batch size, each row read after the previous write
    sf = dy2st.to_static(_cumulative_rows, input_spec=[dy2st.InputSpec([None, 2], "float32")])
    for b in (2, 5, 1):
        x = _t(np.arange(2.0 * b).reshape(b, 2))
        np.testing.assert_array_equal(sf(x).numpy(), _cumulative_rows(x).numpy())
    assert len(sf.program_cache) == 1
