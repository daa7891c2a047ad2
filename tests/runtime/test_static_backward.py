"""append_backward / gradients vs eager autograd (same code, Python control flow) and finite differences.

Each model is written once with ``nn.cond`` / ``nn.while_loop``: in static mode they
build ``cond``/``while`` ops, in dynamic mode they run Python, so the eager run is
the reference the static gradients must match.
"""
import numpy as np
import pytest

import runtime as rt
from runtime.static import nn
from runtime.static.passes.prune import prune

RNG = np.random.default_rng(3)


def cond_model(x, w, n):
    h = nn.cond(x.sum() > 0, lambda: rt.tanh(x @ w), lambda: x * 2.0 - 1.0)
    return (h * h).sum()


def cond_untouched_input(x, w, n):
    h = nn.cond(x.sum() > 0, lambda: x * 3.0, lambda: rt.tanh(x @ w))
    return h.sum()


def while_with_cond(x, w, n):
    def body(i, h):
        h = nn.cond(h.sum() > 0.5, lambda: rt.tanh(h @ w), lambda: h * x + 0.1)
        return i + 1, h
    _, h = nn.while_loop(lambda i, h: i < n, body, [rt.zeros([1], "int64"), x])
    return (h * h).sum()


def while_in_cond(x, w, n):
    def loop():
        return nn.while_loop(lambda i, h: i < n, lambda i, h: [i + 1, rt.tanh(h @ w + x)],
                             [rt.zeros([1], "int64"), x])[1]
    h = nn.cond(x.sum() < 1.0, loop, lambda: x @ w)
    return (h * x).sum()


def nested_while_loop_dependent(x, w, n):
    def outer(i, h):
        _, h = nn.while_loop(lambda j, g: j < i, lambda j, g: [j + 1, rt.tanh(g @ w) + x * 0.1],
                             [rt.zeros([1], "int64"), h])
        return i + 1, h * 0.9
    _, h = nn.while_loop(lambda i, h: i < n, outer, [rt.zeros([1], "int64"), x])
    return (h * h).sum()


def rnn(x, w, n):
    def body(i, h):
        return i + 1, rt.tanh(h @ w + x * rt.cast(i, "float64"))
    _, h = nn.while_loop(lambda i, h: i < n, body, [rt.zeros([1], "int64"), rt.zeros([3], "float64")])
    return h.sum()


MODELS = [cond_model, cond_untouched_input, while_with_cond, while_in_cond, nested_while_loop_dependent, rnn]


def build(model):
    rt.enable_static()
    prog = rt.static.Program()
    try:
        with rt.static.program_guard(prog, rt.static.Program()):
            x = rt.static.data("x", [3], "float64")
            w = rt.static.data("w", [3, 3], "float64")
            n = rt.static.data("n", [1], "int64")
            loss = model(x, w, n)
            gx, gw = rt.static.gradients(loss, [x, w])
    finally:
        rt.disable_static()
    prog.verify()
    return prog, loss, gx, gw


def eager(model, xa, wa, nv):
    x = rt.to_tensor(xa, stop_gradient=False)
    w = rt.to_tensor(wa, stop_gradient=False)
    loss = model(x, w, rt.to_tensor(np.array([nv])))
    if not loss.stop_gradient:  # e.g. a loop that ran zero times
        loss.backward()
    zero = np.zeros_like
    return (loss.numpy(), x.grad.numpy() if x.grad is not None else zero(xa),
            w.grad.numpy() if w.grad is not None else zero(wa))


def finite_diff(f, a, eps=1e-6):
    g = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        d = np.zeros_like(a)
        d[idx] = eps
        g[idx] = (f(a + d) - f(a - d)) / (2 * eps)
    return g


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_gradients_match_eager_and_finite_differences(model):
    prog, loss, gx, gw = build(model)
    exe = rt.static.Executor()
    fetch = [loss] + [g for g in (gx, gw) if g is not None]
    for trial, nv in enumerate((0, 1, 3, 5)):
        xa = RNG.normal(size=3) * (1 if trial % 2 else -0.3)
        wa = RNG.normal(size=(3, 3)) * 0.7
        feed = {"x": xa, "w": wa, "n": np.array([nv])}
        got = exe.run(prog, feed=feed, fetch_list=fetch)
        lv, sgx = got[0], got[1] if gx is not None else np.zeros(3)
        sgw = got[-1] if gw is not None else np.zeros((3, 3))
        el, egx, egw = eager(model, xa, wa, nv)
        np.testing.assert_allclose(lv, el, rtol=1e-10)
        np.testing.assert_allclose(sgx, egx, rtol=1e-7, atol=1e-10)
        np.testing.assert_allclose(sgw, egw, rtol=1e-7, atol=1e-10)

        def loss_at(**kw):
            return exe.run(prog, feed=dict(feed, **kw), fetch_list=[loss])[0]
        np.testing.assert_allclose(sgx, finite_diff(lambda a: loss_at(x=a), xa), rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(sgw, finite_diff(lambda a: loss_at(w=a), wa), rtol=1e-4, atol=1e-6)


def test_while_backward_saves_steps_and_replays():
    prog, loss, gx, gw = build(rnn)
    ops = [op.type for op in prog.global_block().ops]
    assert "while_grad" in ops
    fwd = [op for op in prog.global_block().ops if op.type == "while"][0]
    assert "StepScopes" in fwd.outputs
    assert "while_grad" in str(prog)


def test_append_backward_fc_params_vs_eager():
    rt.enable_static()
    main, startup = rt.static.Program(), rt.static.Program()
    scope = rt.static.Scope()
    with rt.static.program_guard(main, startup):
        x = rt.static.data("x", [None, 4])
        h = nn.fc(x, 5, activation="relu")
        y = nn.fc(h, 1)
        loss = rt.mean(y * y)
        pairs = rt.static.append_backward(loss)
    rt.disable_static()
    assert [(p.name, g.name) for p, g in pairs] == [(n, n + "@GRAD") for n in
                                                    ("fc_0.w_0", "fc_0.b_0", "fc_1.w_0", "fc_1.b_0")]
    exe = rt.static.Executor()
    exe.run(startup, scope=scope)
    xa = RNG.normal(size=(8, 4)).astype("float32")
    got = exe.run(main, feed={"x": xa}, fetch_list=[loss] + [g for _, g in pairs], scope=scope)
    params = {k: rt.to_tensor(v, stop_gradient=False) for k, v in scope.items()}
    hh = rt.relu(rt.to_tensor(xa) @ params["fc_0.w_0"] + params["fc_0.b_0"])
    yy = hh @ params["fc_1.w_0"] + params["fc_1.b_0"]
    ll = rt.mean(yy * yy)
    ll.backward()
    np.testing.assert_allclose(got[0], ll.numpy(), rtol=1e-5)
    for (p, _), g in zip(pairs, got[1:]):
        np.testing.assert_allclose(g, params[p.name].grad.numpy(), rtol=1e-4, atol=1e-6)


def test_gradients_with_target_gradients_and_no_path():
    rt.enable_static()
    prog = rt.static.Program()
    with rt.static.program_guard(prog, rt.static.Program()):
        x = rt.static.data("x", [3], "float64")
        z = rt.static.data("z", [3], "float64")
        seed = rt.static.data("seed", [3], "float64")
        y = rt.tanh(x) * x
        gx, gz = rt.static.gradients([y], [x, z], target_gradients=[seed])
    rt.disable_static()
    assert gz is None
    xa, sa = RNG.normal(size=3), RNG.normal(size=3)
    got, = rt.static.Executor().run(prog, feed={"x": xa, "seed": sa}, fetch_list=[gx])
    np.testing.assert_allclose(got, sa * ((1 - np.tanh(xa) ** 2) * xa + np.tanh(xa)))


def test_training_with_bound_parameters_updates_live_tensors():
    w = rt.Parameter(np.array([[0.5], [-0.3]], "float32"), name="w_train")
    rt.enable_static()
    prog = rt.static.Program()
    with rt.static.program_guard(prog, rt.static.Program()):
        x = rt.static.data("x", [None, 2])
        loss = rt.mean((x @ w) * (x @ w))
        (p, g), = rt.static.append_backward(loss)
    rt.disable_static()
    assert p.name == "w_train"
    exe = rt.static.Executor()
    xa = RNG.normal(size=(4, 2)).astype("float32")
    first = None
    for _ in range(20):
        lv, gv = exe.run(prog, feed={"x": xa}, fetch_list=[loss, g])
        first = lv if first is None else first
        w._value = w._value - 0.1 * gv
    assert lv < first


def test_while_backward_replays_dropout_masks():
    rt.seed(5)
    rt.enable_static()
    prog = rt.static.Program()
    with rt.static.program_guard(prog, rt.static.Program()):
        x = rt.static.data("x", [50], "float64")
        _, h = nn.while_loop(lambda i, h: i < 3,
                             lambda i, h: [i + 1, rt.nn.functional.dropout(h, 0.5, training=True) * 1.5],
                             [rt.zeros([1], "int64"), x])
        gx, = rt.static.gradients(h.sum(), [x])
    rt.disable_static()
    xa = np.ones(50)
    hv, g = rt.static.Executor().run(prog, feed={"x": xa}, fetch_list=[h, gx])
    # d(sum h)/dx is exactly h / x when the backward sees the forward's masks
    np.testing.assert_allclose(g, hv / xa)
    assert 0 < np.count_nonzero(g) < 50


def dropout_in_cond(x, w):
    def noisy():
        return rt.nn.functional.dropout(rt.tanh(x @ w), 0.5, training=True) * 1.5
    h = nn.cond(x.sum() > 0, noisy, lambda: x * 2.0)
    return (h * x).sum()


def _build_dropout_cond(with_grad=True):
    rt.enable_static()
    prog = rt.static.Program()
    try:
        with rt.static.program_guard(prog, rt.static.Program()):
            x = rt.static.data("x", [40], "float64")
            w = rt.static.data("w", [40, 40], "float64")
            loss = dropout_in_cond(x, w)
            grads = rt.static.gradients(loss, [x, w]) if with_grad else []
    finally:
        rt.disable_static()
    prog.verify()
    return prog, loss, grads


def test_cond_backward_replays_dropout_masks_like_eager():
    prog, loss, (gx, gw) = _build_dropout_cond()
    fwd = [op for op in prog.global_block().ops if op.type == "cond"][0]
    assert "RngState" in fwd.outputs
    exe = rt.static.Executor()
    for trial in range(3):
        xa = np.abs(RNG.normal(size=40)) + 0.1  # x.sum() > 0: the dropout branch
        wa = RNG.normal(size=(40, 40)) * 0.3
        rt.seed(11 + trial)
        lv, sgx, sgw = exe.run(prog, feed={"x": xa, "w": wa}, fetch_list=[loss, gx, gw])
        after_static = rt.rand([4]).numpy()
        rt.seed(11 + trial)
        x = rt.to_tensor(xa, stop_gradient=False)
        w = rt.to_tensor(wa, stop_gradient=False)
        el = dropout_in_cond(x, w)
        el.backward()
        after_eager = rt.rand([4]).numpy()
        np.testing.assert_allclose(lv, el.numpy(), rtol=1e-12)
        np.testing.assert_allclose(sgx, x.grad.numpy(), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(sgw, w.grad.numpy(), rtol=1e-10, atol=1e-12)
        # the backward's replay leaves the random stream where the forward left it
        np.testing.assert_array_equal(after_static, after_eager)
    # the mask really drops something: zero columns in dW
    assert 0 < np.count_nonzero(np.abs(sgw).sum(0)) < 40


def test_cond_rng_state_only_with_gradients_and_pruned_for_inference():
    prog, loss, _ = _build_dropout_cond(with_grad=False)
    fwd = [op for op in prog.global_block().ops if op.type == "cond"][0]
    assert not fwd.outputs.get("RngState")
    xa, wa = np.ones(40), np.eye(40)
    rt.seed(3)
    plain = rt.static.Executor().run(prog, feed={"x": xa, "w": wa}, fetch_list=[loss])[0]
    plain_next = rt.rand([3]).numpy()

    prog, loss, _ = _build_dropout_cond()
    rt.seed(3)
    trained = rt.static.Executor().run(prog, feed={"x": xa, "w": wa}, fetch_list=[loss])[0]
    np.testing.assert_array_equal(trained, plain)
    np.testing.assert_array_equal(rt.rand([3]).numpy(), plain_next)
    pruned = prune(prog, ["x", "w"], [loss.name])
    ops = [op for b in pruned.blocks for op in b.ops]
    assert [op.type for op in ops].count("cond") == 1
    assert not any(op.outputs.get("RngState") for op in ops)
    assert not any(v.kind == "rng_state" for v in pruned.list_vars())
    rt.seed(3)
    np.testing.assert_array_equal(rt.static.Executor().run(pruned, feed={"x": xa, "w": wa},
                                                           fetch_list=[loss.name])[0], plain)


@pytest.mark.parametrize("model", [while_with_cond, while_in_cond, nested_while_loop_dependent],
                         ids=lambda m: m.__name__)
def test_indexed_grad_renames_build_what_a_full_walk_builds(model, monkeypatch):
    """Renaming a summed gradient enters only the sub-blocks the name index says mention it: the
    Program (every block, every name) is the one renaming through every op at every depth builds."""
    from runtime.static import backward
    fast = str(build(model)[0])

    def full_walk(self, old, new):
        for op in self.block.ops[self.start:]:
            backward.rename_in_op(op, old, new)
    monkeypatch.setattr(backward._Pass, "_rename", full_walk)
    assert str(build(model)[0]) == fast
    assert "@GRAD" in fast
