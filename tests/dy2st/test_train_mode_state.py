"""Train mode under tensor control flow: batch norm's running statistics (persistable state an op
writes) and dropout's random draws, in tensor `if`s, tensor loops and Python-unrolled loops, with
and without a backward pass, equal eager execution: outputs, gradients and buffers."""
import numpy as np
import pytest

import dy2st
import runtime as rt


def _pair(cls):
    """An eager and a converted instance of ``cls`` with the same initial parameters, in train mode."""
    rt.seed(7)
    eager = cls()
    rt.seed(7)
    static = cls()
    eager.train()
    static.train()
    return eager, static, dy2st.to_static(static)


def _state(layer):
    """What a forward writes: the buffers, and the parameters that take no gradient (BatchNorm's statistics)."""
    return [p for p in layer.parameters() if p.stop_gradient] + layer.buffers()


def _call(layer, fn, xv, args, backward):
    x = rt.to_tensor(xv, stop_gradient=not backward)
    for p in layer.parameters():
        p.clear_gradient()
    rt.seed(11)
    out = fn(x, *args)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    got = [o.numpy() for o in outs]
    if backward:
        total = outs[0].sum()
        for o in outs[1:]:
            total = total + o.sum()
        total.backward()
        got.append(x.grad.numpy())
        got += [None if p.grad is None else p.grad.numpy() for p in layer.parameters()]
    return got + [b.numpy().copy() for b in _state(layer)]


def _assert_like_eager(cls, inputs, backward=(False, True)):
    """Several calls (each input with and without backward), state carried from call to call."""
    eager, static, sf = _pair(cls)
    for xv, args in inputs:
        for bw in backward:
            want = _call(eager, eager, xv, args, bw)
            got = _call(static, sf, xv, args, bw)
            assert len(got) == len(want)
            for g, w in zip(got, want):
                if w is None or g is None:
                    assert g is None and w is None
                else:
                    np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    # the statistics moved: a test that never updates them proves nothing
    assert any(np.abs(b.numpy()).sum() > 0 and not np.allclose(b.numpy(), 1.0) for b in _state(static))


def _xs(seed, count, shift=0.0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((5, 4)) * (0.5 + 0.3 * k) + shift).astype("float32") for k in range(count)]


class _TwiceInIf(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.bn = rt.nn.BatchNorm1D(4)

    def forward(self, x):
        if x.sum() < 100.0:
            for _ in range(3):  # unrolled: three `cond`s, each updating the statistics
                x = self.bn(x) * 0.45 + x * 0.6 if x.mean() > -5.0 else x * 0.9
        return x


def test_batchnorm_in_tensor_if_twice_updates_running_stats_like_eager():
    _assert_like_eager(_TwiceInIf, [(xv, ()) for xv in _xs(0, 3)])


class _NestedIfs(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.bn = rt.nn.BatchNorm1D(4)
        self.fc = rt.nn.Linear(4, 4)

    def forward(self, x):
        y = self.bn(x) * 0.5  # written before the branches, read again inside them
        if x.mean() > -5.0:
            if x.sum() > -50.0:
                y = self.bn(self.fc(y)) + y
            else:
                y = y * 2.0
            y = self.bn(y) * 0.3 + y
        return y


def test_batchnorm_in_nested_tensor_ifs_updates_running_stats_once_per_call_with_a_backward():
    # the backward recomputes the branches: that recomputation must not update the statistics again
    _assert_like_eager(_NestedIfs, [(xv, ()) for xv in _xs(1, 3)])


class _BeforeAndInWhile(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.bn = rt.nn.BatchNorm1D(4)
        self.drop = rt.nn.Dropout(0.4)

    def forward(self, x, n):
        y = x * 1.1
        x = self.bn(x) * 0.27 + y * 0.81  # a pending update the loop body must see
        if x.sum() < -3.3:
            y = y + 1.0
        else:
            y = self.drop(y) * 0.89
        for _ in range(n):  # a tensor loop updating the statistics at every step
            x = self.bn(y) * 0.34 + x * 0.87
        return y * 0.14, x - 0.05


def test_batchnorm_before_and_inside_a_tensor_while_updates_running_stats_like_eager():
    xs = _xs(2, 3)
    _assert_like_eager(_BeforeAndInWhile, [(xv, (rt.to_tensor(nv, dtype="int64"),))
                                           for xv, nv in zip(xs, (2, 0, 3))])


class _IfInWhile(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.bn = rt.nn.BatchNorm1D(4)
        self.drop = rt.nn.Dropout(0.3)

    def forward(self, x, n):
        y = x * 0.5
        for _ in range(n):
            if y.sum() < -100.0:
                y = self.drop(y) * 0.5
            else:
                y = self.bn(y) * 0.4 + self.drop(y) * 0.6
            y = self.bn(y) * 0.5 + y  # after the branch: reads the statistics it wrote
        return y


def test_batchnorm_and_dropout_in_tensor_if_inside_tensor_while_with_a_backward_like_eager():
    xs = _xs(3, 3, shift=0.5)
    _assert_like_eager(_IfInWhile, [(xv, (rt.to_tensor(nv, dtype="int64"),)) for xv, nv in zip(xs, (3, 1, 2))])


class _EarlyReturn(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.drop = rt.nn.Dropout(0.5)
        self.bn = rt.nn.BatchNorm1D(4)

    def forward(self, x):
        y = x * 0.45 + 0.8
        if x.sum() < 10.0:
            x = self.bn(x) * 0.45 if x.mean() > 0.2 else self.drop(y) * 0.96
        else:
            return x  # only the second branch sets the return value: the `cond` is built twice
        return y * 0.93 + x


def test_dropout_and_batchnorm_next_to_an_early_return_under_tensor_if_run_once_like_eager():
    # the first, discarded `cond` used to stay in the Program: its dropout drew (and its batch norm
    # updated) before the real one
    xs = [xv * 0.3 - 0.3 for xv in _xs(4, 2)] + [xv * 0.1 + 0.35 for xv in _xs(5, 2)] + [xv + 2.0 for xv in _xs(6, 1)]
    _assert_like_eager(_EarlyReturn, [(xv, ()) for xv in xs])


class _UnrolledDropout(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.drop = rt.nn.Dropout(0.4)
        self.bn = rt.nn.BatchNorm1D(4)

    def forward(self, x):
        for _ in range(2):
            if x.mean() > 0.0:
                x = self.drop(x) * 0.5 + self.bn(x)
            else:
                x = self.bn(self.drop(x)) * 0.7
            x = self.drop(x) + x * 0.1
        return x


@pytest.mark.parametrize("shift", [-1.0, 1.0])
def test_dropout_in_repeated_tensor_ifs_draws_in_eager_order_with_a_backward(shift):
    _assert_like_eager(_UnrolledDropout, [(xv, ()) for xv in _xs(7, 3, shift=shift)])


def _print_nested(x):
    if x.mean() > -5.0:
        if x.sum() > -50.0:
            print("inner branch")
            x = x * 2.0
        x = x + 1.0
    return x


def test_print_in_nested_tensor_ifs_prints_once_with_a_backward(capfd):
    sf = dy2st.to_static(_print_nested)
    x = rt.to_tensor(np.ones((2, 3), "float32"), stop_gradient=False)
    sf(x).sum().backward()  # the backward recomputes the outer branch, not its print
    assert capfd.readouterr().out.count("inner branch") == 1
    np.testing.assert_allclose(x.grad.numpy(), np.full((2, 3), 2.0))
