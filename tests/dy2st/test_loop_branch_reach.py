"""Steps of a tensor loop taking different branches: what a gradient reaches follows the branch
each step took, as eagerly.  A step whose branch drops a value (rebinds it from something that
needs no gradient) cuts what earlier steps fed it, even though another step took the branch that
keeps it: eagerly the result then needs no gradient, or an input's / parameter's ``.grad`` is
None, and so statically (not "needs gradient" with zeros)."""
import numpy as np

import dy2st
import runtime as rt

XV = np.random.default_rng(7).standard_normal((3, 4)).astype("float32")


def _run(fn, nv, params=()):
    """(outputs' values, outputs' stop_gradient, gradients of x and ``params``: None or arrays)."""
    for p in params:
        p.clear_gradient()
    x = rt.to_tensor(XV, stop_gradient=False)
    outs = fn(x, rt.to_tensor(nv, dtype="int64"))
    outs = outs if isinstance(outs, tuple) else (outs,)
    live = [o for o in outs if not o.stop_gradient]
    if live:
        sum(o.sum() for o in live).backward()
    grads = [None if v.grad is None else v.grad.numpy().copy() for v in [x] + list(params)]
    return [o.numpy() for o in outs], [o.stop_gradient for o in outs], grads


def _same(got, want, what):
    (gv, gs, gg), (wv, ws, wg) = got, want
    for a, b in zip(gv, wv):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=what)
    assert gs == ws, f"{what}: stop_gradient {gs} statically, {ws} eagerly"
    for k, (a, b) in enumerate(zip(gg, wg)):
        assert (a is None) == (b is None), f"{what}: gradient {k} is {a} statically, {b} eagerly"
        if b is not None:
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=what)


def _check_fn(fn, ns=(0, 1, 2, 3)):
    sf = dy2st.to_static(fn)
    for nv in ns:
        _same(_run(sf, nv), _run(fn, nv), f"{fn.__name__} n={nv}")


def _check_layer(cls, ns=(0, 1, 2, 3)):
    rt.seed(5)
    eager = cls()
    rt.seed(5)
    static = cls()
    sf = dy2st.to_static(static)
    for nv in ns:
        _same(_run(sf, nv, static.parameters()), _run(eager, nv, eager.parameters()), f"{cls.__name__} n={nv}")


def alternating(x, n):
    y = x * 0.5 + 0.4
    with rt.no_grad():
        y = y - y.mean() * 0.1
    for i in range(n):
        # step 0 keeps x, step 1 drops it: after two steps the result needs no gradient
        x = y - x.mean() * -0.2 if i % 2 == 0 else y * 0.8 - 0.5
    return y * -0.06, x + 0.17


def nested_cut_on_odd_steps(x, n):
    z = x * 0.0 + 1.0
    for i in range(n):
        if i < 5:
            if i % 2 == 1:
                with rt.no_grad():
                    z = z * 0.5 + 1.0  # cuts x on odd steps
            else:
                z = z * x  # reads x on even steps (and keeps what came before)
    return z + 0.0


def test_a_step_whose_branch_drops_the_input_cuts_it_like_eager():
    _check_fn(alternating, ns=(0, 1, 2, 3, 4))


def test_nested_branches_in_a_loop_use_the_branch_each_step_took():
    _check_fn(nested_cut_on_odd_steps, ns=(1, 2, 3))


class TwoStages(rt.nn.Layer):
    """``a`` on the first step, then ``b`` on a detached input (``continue``), then ``break``."""

    def __init__(self):
        super().__init__()
        self.a = rt.nn.Linear(4, 4)
        self.b = rt.nn.Linear(4, 4)

    def forward(self, x, n):
        h = x * 1.0
        for i in range(n):
            if i == 1:
                h = self.b(x.detach())
                continue
            if i >= 2:
                break
            h = self.a(h)
        return h * 2.0


def test_layer_parameters_of_a_dropped_step_get_none_with_break_and_continue():
    _check_layer(TwoStages, ns=(1, 2, 3, 0))


class InnerLoop(rt.nn.Layer):
    """A loop in a branch of a loop: the outer step that takes the other branch drops its work."""

    def __init__(self):
        super().__init__()
        self.w = rt.nn.Linear(4, 4)

    def forward(self, x, n):
        h = x * 1.0
        for i in range(n):
            if i % 2 == 0:
                for _ in range(i + 1):
                    h = self.w(h) * 0.5
            else:
                h = h.detach() * 2.0 + i
        return h.mean()


def test_a_loop_nested_in_a_branch_of_a_loop_follows_each_outer_step():
    _check_layer(InnerLoop, ns=(1, 2, 3))


def inner_rebound(x, n):
    y = x * 0.5
    for i in range(n):
        u = x * 1.0
        for _ in range(i):
            y = u * 2.0
            with rt.no_grad():
                u = y * 0.9 + 0.4  # an inner loop of two steps or more cuts the input
    return y * 0.8


def test_a_loop_nested_in_a_loop_counts_its_steps_on_each_outer_step():
    _check_fn(inner_rebound, ns=(2, 3, 1))


def swapping(x, n):
    a, b = x * 1.0, rt.ones([3, 4])
    for i in range(n):
        if i < 100:  # the same branch every step: the steps' record is one (branch, repeats) pair
            a, b = b, a * 2.0
    return a + 1.0  # the input reaches `a` after an even number of steps only


def test_repeated_steps_of_a_long_loop_keep_the_parity_of_their_count():
    _check_fn(swapping, ns=(7, 6, 0, 1))


def loop_in_a_branch(x, n):
    y = x * 1.0
    if n > 1:
        for i in range(n):
            y = y * 2.0 if i < 1 else y.detach() + 1.0  # from the second step on, y needs no gradient
    else:
        y = y + 1.0
    return y


def test_a_loop_in_a_branch_records_its_steps_like_one_in_the_main_block():
    _check_fn(loop_in_a_branch, ns=(2, 1, 3))
