"""Differences the random-program fuzzer (``python -m dy2st.fuzz``) found, each cut down to the
behaviour it broke and compared with eager execution."""
import numpy as np

import dy2st
import runtime as rt


def _grads(fn, xv, *args):
    x = rt.to_tensor(xv, stop_gradient=False)
    out = fn(x, *args)
    out.sum().backward()
    return out.numpy(), x.grad.numpy()


def _alias_carry(x, n):
    y = x * 0.5
    v = y  # the same tensor enters the loop as two carries
    for _ in range(n):
        if y.mean() > 0.0:
            v = v * 0.5
        y = y + v
    return y


def test_while_gradient_reaches_a_carry_that_enters_the_loop_twice():
    xv = np.random.default_rng(0).standard_normal((3, 4)).astype("float32")
    sf = dy2st.to_static(_alias_carry)
    for nv in (3, 0):
        n = rt.to_tensor(nv, dtype="int64")
        want, want_grad = _grads(_alias_carry, xv, n)
        got, got_grad = _grads(sf, xv, n)
        np.testing.assert_allclose(got, want, rtol=1e-6)
        np.testing.assert_allclose(got_grad, want_grad, rtol=1e-6)


def test_static_while_loop_with_one_variable_as_two_loop_vars_differentiates_both():
    rt.enable_static()
    try:
        main, startup = rt.static.Program(), rt.static.Program()
        with rt.static.program_guard(main, startup):
            x = rt.static.data("x", [3, 4], "float32")
            x.stop_gradient = False
            n = rt.static.data("n", [], "int64")
            y = x * 0.5
            _, y2, _ = rt.static.nn.while_loop(lambda i, y, v: i < n,
                                               lambda i, y, v: (i + 1, y + v * 0.5, v * 0.5),
                                               [rt.full([], 0, "int64"), y, y])
            loss = y2.sum()
            grad, = rt.static.gradients([loss], [x])
        exe = rt.static.Executor()
        exe.run(startup)
        got, = exe.run(main, feed={"x": np.ones((3, 4), "float32"), "n": np.array(3)}, fetch_list=[grad])
    finally:
        rt.disable_static()
    np.testing.assert_allclose(got, np.full((3, 4), 0.5 * 1.875, "float32"))  # y * (1 + 1/2 + 1/4 + 1/8)


class _Steps(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.register_buffer("steps", rt.zeros([1]))

    def forward(self, x):
        y = x * 0.3 - 0.16
        if x.sum() < -30.0:  # the rest of forward becomes a branch, recomputed by its gradient
            return y * 0.4
        self.steps = self.steps + 1.0
        y = y + self.steps * 0.5
        return rt.tanh(y)


def test_gradient_uses_the_buffer_value_forward_read_not_the_one_it_wrote():
    xv = np.random.default_rng(1).standard_normal((3, 4)).astype("float32")
    eager, static = _Steps(), _Steps()
    sf = dy2st.to_static(static)
    for _ in range(3):  # each call advances the buffer: the gradient must see the value before
        want, want_grad = _grads(eager.forward, xv)
        got, got_grad = _grads(sf.forward, xv)
        np.testing.assert_allclose(got, want, rtol=1e-6)
        np.testing.assert_allclose(got_grad, want_grad, rtol=1e-6)
        np.testing.assert_array_equal(static.steps.numpy(), eager.steps.numpy())


class _LastInUnrolledLoop(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.last = rt.zeros([1, 4])

    def forward(self, x):
        y = x * 0.7 + 0.2
        for _ in range(3):  # a Python loop whose `break` depends on a tensor
            self.last = self.last + y.mean(axis=0, keepdim=True)
            if x.mean() > 0.4:
                break
        return y * 2.0


def test_attribute_written_after_a_tensor_break_in_an_unrolled_loop_follows_the_break():
    rng = np.random.default_rng(2)
    eager, static = _LastInUnrolledLoop(), _LastInUnrolledLoop()
    sf = dy2st.to_static(static)
    for shift in (1.0, -1.0, 1.0):  # breaks after the first iteration, then runs all three
        xv = (rng.standard_normal((3, 4)) + shift).astype("float32")
        np.testing.assert_allclose(sf(rt.to_tensor(xv)).numpy(), eager(rt.to_tensor(xv)).numpy(), rtol=1e-6)
        np.testing.assert_allclose(static.last.numpy(), eager.last.numpy(), rtol=1e-6)
    assert len(sf.forward.program_cache) == 1


class _UnusedBatchNormBranch(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.bn = rt.nn.BatchNorm1D(4)

    def forward(self, x):
        y = x * 0.5 if x.mean() > 10.0 else self.bn(x) * 0.5  # y is never read again ...
        y = x * 2.0
        return y


def test_running_statistics_update_in_a_branch_whose_result_is_unused():
    xv = np.random.default_rng(3).standard_normal((5, 4)).astype("float32")
    eager, static = _UnusedBatchNormBranch(), _UnusedBatchNormBranch()
    sf = dy2st.to_static(static)
    for _ in range(2):  # ... but the branch ran, so batch norm's running statistics moved
        np.testing.assert_allclose(sf(rt.to_tensor(xv)).numpy(), eager(rt.to_tensor(xv)).numpy())
        for mine, theirs in zip(static.buffers(), eager.buffers()):
            np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-6)
    assert np.abs(static.bn._mean.numpy()).sum() > 0  # it started at zeros


class _BatchNormInLoopBranch(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.bn = rt.nn.BatchNorm1D(4)

    def forward(self, x, n):
        y = x * 0.5
        for _ in range(n):  # a tensor loop ...
            if y.sum() < -100.0:
                y = y * 0.5
            else:  # ... whose branch updates batch norm's running statistics at every step
                y = self.bn(y) * 0.4 + y * 0.6
        return y


def test_running_statistics_updated_under_a_branch_in_a_tensor_loop_accumulate_over_steps():
    xv = np.random.default_rng(4).standard_normal((5, 4)).astype("float32") + 0.5
    eager, static = _BatchNormInLoopBranch(), _BatchNormInLoopBranch()
    sf = dy2st.to_static(static)
    for nv in (3, 2):
        n = rt.to_tensor(nv, dtype="int64")
        np.testing.assert_allclose(sf(rt.to_tensor(xv), n).numpy(), eager(rt.to_tensor(xv), n).numpy(),
                                   rtol=1e-5, atol=1e-6)
        for mine, theirs in zip(static.buffers(), eager.buffers()):
            np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-7)
