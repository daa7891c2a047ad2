"""A parameter or buffer the converted forward writes in place (`w.set_value(...)`, `rt.assign(v,
buf)`, `buf.add_(...)`) after an op used it for a gradient: eagerly that op's gradient uses the
value it saw; the Program's backward read the variable itself and so used the new value, silently
(x.grad and other parameters' gradients differed). That now raises at the user's line; a write before
the use or a read through `w.clone()` keep working, eager-exact. (The Program is built with gradients
even for a call under no_grad, so such a call raises too: a loud refusal, never a wrong value.)"""
import numpy as np
import pytest

import dy2st
import runtime as rt


class _Ema(rt.nn.Layer):
    def __init__(self, how):
        super().__init__()
        self.fc = rt.nn.Linear(2, 2)
        self.register_buffer("scale", rt.ones([1]))
        self.how = how

    def forward(self, x):
        if self.how == "before":
            self.fc.weight.set_value(self.fc.weight * 0.5)
        w = self.fc.weight.clone() if self.how == "clone" else self.fc.weight
        y = rt.matmul(x, w) * self.scale + self.fc.bias
        if self.how == "before":
            return y
        with rt.no_grad():
            if self.how == "buffer":
                rt.assign(self.scale + 1, self.scale)
            else:
                self.fc.weight.set_value(self.fc.weight * 0.5)
        return y


@pytest.mark.parametrize("how", ["param", "buffer"])
def test_write_after_a_gradient_use_raises_at_the_users_line(how):
    rt.seed(0)
    net = dy2st.to_static(_Ema(how))
    x = rt.to_tensor(np.array([[1.0, -2.0]], "float32"), stop_gradient=False)
    with pytest.raises(Exception, match="in place after a 'm") as info:
        net(x)
    where = str(info.value) + "".join(getattr(info.value, "__notes__", []))
    marked = "rt.assign(self.scale + 1, self.scale)" if how == "buffer" else "self.fc.weight.set_value("
    assert "test_hunt_layer_writes_after_use.py" in where and f"|                 {marked}" in where.split(">")[-1]


def _run(net, calls):
    outs = []
    for k in calls:
        x = rt.to_tensor(np.array([[1.0, -2.0]], "float32") * k, stop_gradient=False)
        y = net(x)
        y.sum().backward()
        outs.append((y.numpy(), x.grad.numpy(), net.fc.weight.grad.numpy(), net.fc.weight.numpy()))
    return outs


@pytest.mark.parametrize("how", ["clone", "before"])
def test_clone_read_and_writes_before_the_use_stay_eager_exact(how):
    rt.seed(0)
    eager = _Ema(how)
    rt.seed(0)
    static = _Ema(how)
    got = _run(dy2st.to_static(static), (1, 2, -1))
    want = _run(eager, (1, 2, -1))
    for a, b in zip(want, got):
        for u, v in zip(a, b):
            np.testing.assert_array_equal(u, v)
    assert len(static.forward.program_cache) == 1


class _Accumulate(rt.nn.Layer):
    """`x + self.acc` then `self.acc.add_(...)`: add's gradient reads no values (its declaration says
    so), so the write after the use keeps gradients eager's and is allowed."""

    def __init__(self):
        super().__init__()
        self.register_buffer("acc", rt.ones([1]))

    def forward(self, x):
        y = (x + self.acc) * x
        self.acc.add_(x.mean().reshape([1]))
        return y


def test_write_after_a_shape_only_gradient_use_stays_eager_exact():
    eager, static = _Accumulate(), dy2st.to_static(_Accumulate())
    for k in (1.0, 2.0, -3.0):
        got, want = [], []
        for net, out in ((eager, want), (static, got)):
            x = rt.to_tensor(np.array([[1.0, -2.0]], "float32") * k, stop_gradient=False)
            y = net(x)
            y.sum().backward()
            out += [y.numpy(), x.grad.numpy(), net.acc.numpy()]
        for u, v in zip(want, got):
            np.testing.assert_array_equal(u, v)
