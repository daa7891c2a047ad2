"""rt.autograd.PyLayer, rt.grad, a compiled Program as one differentiable op (rt.assign/increment,
Tensor.clone/gradient/set_value and devices are in test_assign_clone_api.py)."""
import numpy as np
import pytest

import dy2st
import runtime as rt


def _fd(f, x, eps=1e-3):
    """Central finite differences of the scalar f at float64 array x."""
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


class Cube(rt.autograd.PyLayer):
    @staticmethod
    def forward(ctx, x, scale=1.0):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return x ** 3 * scale

    @staticmethod
    def backward(ctx, dy):
        x, = ctx.saved_tensor()
        return 3 * x ** 2 * dy * ctx.scale


class SplitSum(rt.autograd.PyLayer):
    """Two inputs, two outputs (one integer): gradients route per input."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b, rt.argmax(a, axis=-1)

    @staticmethod
    def backward(ctx, dy, didx):
        a, b = ctx.saved_tensor()
        return dy * b, dy * a


class StraightThrough(rt.autograd.PyLayer):
    @staticmethod
    def forward(ctx, x):
        return rt.round(x)

    @staticmethod
    def backward(ctx, dy):
        return dy


def test_pylayer_gradient_matches_finite_differences():
    x0 = np.array([[0.5, -1.2], [2.0, 0.3]])
    x = rt.to_tensor(x0, stop_gradient=False)
    y = Cube.apply(x, scale=2.0)
    np.testing.assert_allclose(y.numpy(), 2 * x0 ** 3)
    (y * rt.to_tensor(np.array([[1.0, 2.0], [3.0, 4.0]]))).sum().backward()
    w = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(x.gradient(), _fd(lambda v: (2 * v ** 3 * w).sum(), x0), rtol=1e-5)


def test_pylayer_flows_into_parameters_and_custom_rule_is_used():
    rt.seed(0)
    lin = rt.nn.Linear(3, 2)
    x = rt.to_tensor(np.array([[0.2, 0.7, -1.4]], np.float32))
    out = StraightThrough.apply(lin(x) * 3)
    out.sum().backward()
    # straight-through: d out/d lin = 3 everywhere, so weight grad = 3 * x^T 1
    np.testing.assert_allclose(lin.weight.gradient(), 3 * np.tile(x.numpy().T, (1, 2)), rtol=1e-6)
    np.testing.assert_allclose(lin.bias.gradient(), [3.0, 3.0])


def test_pylayer_multiple_inputs_outputs_and_no_grad_input():
    a = rt.to_tensor([[1.0, 4.0], [3.0, 2.0]], stop_gradient=False)
    b = rt.to_tensor([[5.0, 6.0], [7.0, 8.0]])
    y, idx = SplitSum.apply(a, b)
    assert idx.dtype == "int64" and idx.stop_gradient and idx.numpy().tolist() == [1, 0]
    y.sum().backward()
    np.testing.assert_allclose(a.gradient(), b.numpy())
    assert b.gradient() is None


def test_pylayer_without_grad_is_plain_and_errors_are_clear():
    x = rt.to_tensor([1.0, 2.0])
    y = Cube.apply(x)
    assert y.stop_gradient and y.numpy().tolist() == [1.0, 8.0]

    class Bad(rt.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x, y):
            return x + y

        @staticmethod
        def backward(ctx, dy):
            return dy

    p = rt.to_tensor([1.0], stop_gradient=False)
    with pytest.raises(ValueError, match="Bad.backward returned 1 gradients.*2"):
        Bad.apply(p, p * 2).sum().backward()


def test_pylayer_materialize_grads_off_passes_none():
    seen = []

    class Two(rt.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append((g1 is None, g2 is None))
            return g1 * 2

    x = rt.to_tensor([1.0], stop_gradient=False)
    a, _ = Two.apply(x)
    a.backward()
    assert seen == [(False, True)] and x.gradient().tolist() == [2.0]


class Model(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = rt.nn.Linear(3, 2)

    def forward(self, x):
        return (StraightThrough.apply(self.lin(x) * 3) + Cube.apply(x, scale=2.0).sum(axis=1, keepdim=True)).sum()


def test_pylayer_under_to_static_uses_the_custom_backward():
    rt.seed(3)
    eager = Model()
    rt.seed(3)
    static = dy2st.to_static(Model())
    rng = np.random.RandomState(0)
    for batch in (2, 5):
        x0 = rng.randn(batch, 3).astype(np.float32)
        xe, xs = rt.to_tensor(x0, stop_gradient=False), rt.to_tensor(x0, stop_gradient=False)
        ye, ys = eager(xe), static(xs)
        np.testing.assert_allclose(ys.numpy(), ye.numpy(), rtol=1e-6)
        ye.backward()
        ys.backward()
        np.testing.assert_allclose(xs.gradient(), xe.gradient(), rtol=1e-5)
        for pe, ps in zip(eager.parameters(), static.parameters()):
            # round() has derivative 0: a non-zero gradient shows the straight-through rule ran
            assert np.abs(pe.gradient()).sum() > 0
            np.testing.assert_allclose(ps.gradient(), pe.gradient(), rtol=1e-5)
            pe.clear_grad()
            ps.clear_grad()
    types = [op.type for op in static.forward.get_concrete_program(xs).main_program.global_block().ops]
    assert types.count("py_layer") == 2


def test_pylayer_in_a_static_program_with_append_backward(tmp_path):
    main, start = rt.static.Program(), rt.static.Program()
    with rt.static.program_guard(main, start):
        rt.enable_static()
        try:
            x = rt.static.data("x", [None, 2], "float32")
            x.stop_gradient = False
            loss = Cube.apply(x).sum()
            gx, = rt.grad(loss, x)
        finally:
            rt.disable_static()
    x0 = np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)
    got_loss, got_g = rt.static.Executor().run(main, feed={"x": x0}, fetch_list=[loss, gx])
    np.testing.assert_allclose(got_loss, (x0 ** 3).sum(), rtol=1e-6)
    np.testing.assert_allclose(got_g, 3 * x0 ** 2, rtol=1e-6)
    # A saved model keeps the PyLayers' forward ops (it runs for inference) but not their Python backward
    model = Model()
    dy2st.save(model, str(tmp_path / "m"), input_spec=[rt.static.InputSpec([None, 3], "float32")])
    loaded = dy2st.load(str(tmp_path / "m"))
    for batch in (1, 4):
        xb = rt.to_tensor(np.random.RandomState(batch).randn(batch, 3).astype(np.float32))
        np.testing.assert_array_equal(loaded(xb).numpy(), model(xb).numpy())
    loaded.train()
    with pytest.raises(RuntimeError, match="PyLayer 'StraightThrough' of a loaded model has no backward"):
        loaded(xb).backward()


# -- rt.grad ---------------------------------------------------------------------------------------
def test_grad_eager_matches_finite_differences_and_leaves_grad_untouched():
    x0 = np.array([0.3, -0.7, 1.1])
    x = rt.to_tensor(x0, stop_gradient=False)
    y = (rt.tanh(x) * x).sum()
    g, = rt.grad(y, x)
    np.testing.assert_allclose(g.numpy(), _fd(lambda v: (np.tanh(v) * v).sum(), x0), rtol=1e-5)
    assert x.grad is None and g.stop_gradient


def test_grad_outputs_multiple_inputs_and_intermediate():
    x = rt.to_tensor([1.0, 2.0], stop_gradient=False)
    w = rt.to_tensor([3.0, -1.0], stop_gradient=False)
    h = x * w
    y = h * h
    gx, gw, gh = rt.grad([y], [x, w, h], grad_outputs=[rt.to_tensor([1.0, 0.5])])
    np.testing.assert_allclose(gh.numpy(), 2 * h.numpy() * [1.0, 0.5])
    np.testing.assert_allclose(gx.numpy(), 2 * h.numpy() * w.numpy() * [1.0, 0.5])
    np.testing.assert_allclose(gw.numpy(), 2 * h.numpy() * x.numpy() * [1.0, 0.5])


def test_grad_create_graph_gives_second_derivatives():
    x0 = np.array([0.4, -0.9])
    x = rt.to_tensor(x0, stop_gradient=False)
    y = (rt.sin(x) * x * x).sum()
    g, = rt.grad(y, x, create_graph=True)
    assert not g.stop_gradient
    gg, = rt.grad(g.sum(), x)
    want = _fd(lambda v: (np.cos(v) * v * v + 2 * v * np.sin(v)).sum(), x0)
    np.testing.assert_allclose(gg.numpy(), want, rtol=1e-5)
    # an op whose gradient is a gradient op (gelu_grad) differentiates again through that op's own rule
    g2, = rt.grad(rt.nn.functional.gelu(x).sum(), x, create_graph=True)
    gg2, = rt.grad(g2.sum(), x)
    np.testing.assert_allclose(gg2.numpy(), np.exp(-x0 * x0 / 2) / np.sqrt(2 * np.pi) * (2 - x0 * x0), rtol=1e-6)


def test_grad_unused_input():
    x = rt.to_tensor([1.0], stop_gradient=False)
    z = rt.to_tensor([2.0], stop_gradient=False)
    y = x * 2
    with pytest.raises(RuntimeError, match="allow_unused=True"):
        rt.grad(y, [x, z])
    gx, gz = rt.grad(y, [x, z], allow_unused=True)
    assert gz is None and gx.numpy().tolist() == [2.0]


def test_grad_in_static_program_and_under_to_static():
    main = rt.static.Program()
    with rt.static.program_guard(main):
        rt.enable_static()
        try:
            x = rt.static.data("x", [3], "float32")
            y = (x * x * x).sum()
            g, = rt.grad(y, x)
        finally:
            rt.disable_static()
    x0 = np.array([1.0, -2.0, 0.5], np.float32)
    got, = rt.static.Executor().run(main, feed={"x": x0}, fetch_list=[g])
    np.testing.assert_allclose(got, 3 * x0 ** 2)

    def f(x):
        y = (rt.sin(x) * x).sum()
        return rt.grad(y, x)[0]

    sf = dy2st.to_static(f)
    for v in ([0.1, 0.2], [1.5, -3.0]):
        xe = rt.to_tensor(v, stop_gradient=False)
        np.testing.assert_allclose(sf(rt.to_tensor(v)).numpy(), f(xe).numpy(), rtol=1e-6)


# -- the seam a converter uses: a compiled Program as one differentiable op ---------------------------
class ProgramOp(rt.autograd.PyLayer):
    """Forward runs the forward segment of a Program, backward its gradient segment."""

    @staticmethod
    def forward(ctx, step, *tensors):
        res = step["forward"](*[t.numpy() for t in tensors])
        ctx.step, ctx.saved = step, res[1:]
        ctx.set_materialize_grads(True)
        return rt.Tensor(res[0])

    @staticmethod
    @rt.autograd.once_differentiable
    def backward(ctx, dy):
        return tuple(rt.Tensor(g) for g in ctx.step["backward"](*ctx.saved, dy.numpy()))


def test_program_runs_as_one_differentiable_op():
    rt.seed(1)
    w0 = np.random.RandomState(0).randn(3, 2).astype(np.float32)
    prog = rt.static.Program()
    with rt.static.program_guard(prog):
        rt.enable_static()
        try:
            x = rt.static.data("x", [-1, 3], "float32")
            w = rt.static.data("w", [3, 2], "float32")
            y = rt.tanh(rt.matmul(x, w)).sum()
            n_fwd = len(prog.global_block().ops)
            seed = rt.static.data("seed", [], "float32")
            gx, gw = rt.static.gradients([y], [x, w], target_gradients=[seed])
        finally:
            rt.disable_static()
    block = prog.global_block()
    fwd_names = {n for op in block.ops[:n_fwd] for n in op.output_arg_names} | {"x", "w"}
    saved = sorted({n for op in block.ops[n_fwd:] for n in op.input_arg_names if n in fwd_names})
    step = {"forward": rt.static.compile_block(block, ["x", "w"], [y.name] + saved, op_range=(0, n_fwd)),
            "backward": rt.static.compile_block(block, saved + ["seed"], [gx.name, gw.name],
                                                op_range=(n_fwd, len(block.ops)))}
    for batch in (2, 5):
        x0 = np.random.RandomState(batch).randn(batch, 3).astype(np.float32)
        xs, ws = rt.to_tensor(x0, stop_gradient=False), rt.to_tensor(w0, stop_gradient=False)
        out = ProgramOp.apply(step, xs, ws)
        (out * 2).backward()
        xe, we = rt.to_tensor(x0, stop_gradient=False), rt.to_tensor(w0, stop_gradient=False)
        ref = rt.tanh(rt.matmul(xe, we)).sum()
        (ref * 2).backward()
        np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-5)
        np.testing.assert_allclose(xs.gradient(), xe.gradient(), rtol=1e-5)
        np.testing.assert_allclose(ws.gradient(), we.gradient(), rtol=1e-5)
    with pytest.raises(NotImplementedError, match="once_differentiable"):
        rt.grad(ProgramOp.apply(step, xs, ws), xs, create_graph=True)


def test_in_place_writes_in_converted_code_match_eager():
    def f(x):
        y = x[0:1] * 1
        rt.increment(y, 2.0)
        z = rt.zeros([2])
        rt.assign(y * 3, output=z)
        return y + z.clone()

    sf = dy2st.to_static(f)
    for v in ([1.0, 2.0], [-4.0, 0.5]):
        np.testing.assert_allclose(sf(rt.to_tensor(v)).numpy(), f(rt.to_tensor(v)).numpy())

    def loop(n):
        i = rt.zeros([1], "int64")
        s = rt.zeros([1], "int64")
        while i < n:
            s = s + i
            rt.increment(i)
        return s

    with pytest.raises(TypeError, match=r"in place into a value from an enclosing block.*x = rt.increment"):
        dy2st.to_static(loop)(rt.to_tensor([3]))


def test_clone_under_to_static_carries_gradients():
    def f(x):
        c = x.clone()
        return (c * c).sum()

    sf = dy2st.to_static(f)
    xs = rt.to_tensor([1.0, -3.0], stop_gradient=False)
    sf(xs).backward()
    np.testing.assert_allclose(xs.gradient(), [2.0, -6.0])
    assert rt.clone(rt.to_tensor([1.0])).stop_gradient


def test_autograd_backward_accumulates_several_roots():
    x = rt.to_tensor([1.0, 2.0], stop_gradient=False)
    rt.autograd.backward([x * 2, (x * x).sum()], [rt.to_tensor([1.0, 1.0]), None])
    np.testing.assert_allclose(x.gradient(), [2 + 2 * 1.0, 2 + 2 * 2.0])


class Counter(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", rt.zeros([1], "int64"))

    def forward(self, x):
        rt.increment(self.count)
        return x + self.count.astype("float32")


def test_increment_of_a_buffer_advances_on_every_converted_call():
    eager, static = Counter(), dy2st.to_static(Counter())
    x = rt.to_tensor([0.5])
    got = [(float(eager(x)), float(static(x))) for _ in range(3)]
    assert got == [(1.5, 1.5), (2.5, 2.5), (3.5, 3.5)]
    assert int(static.count) == 3
