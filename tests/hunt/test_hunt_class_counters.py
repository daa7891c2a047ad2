"""A class attribute the traced code itself changes (`type(self).calls += 1` in a Layer's forward,
`self.__class__.n += 1`, `Counter.n += 1`): eagerly every call changes it again and reads the new
value; the cached Program had baked in the value of the one trace (the class of `self` was guarded
only after the trace). A guard taken before the trace now retraces the next call, as for a global
counter, with the usual warning once many Programs were built."""
import warnings

import numpy as np

import dy2st
import runtime as rt


class _Counted(rt.nn.Layer):
    calls = 0

    def forward(self, x):
        type(self).calls += 1
        return x * type(self).calls


class _Dunder(rt.nn.Layer):
    n = 0

    def forward(self, x):
        self.__class__.n += 2
        return x + self.n


class _Counter:
    n = 0


class _Outer(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.inner = _Dunder()

    def forward(self, x):
        _Counter.n += 1
        return self.inner(x) * _Counter.n


def _run(make, reset, calls=4):
    outs = []
    for convert in (False, True):
        reset()
        net = make()
        f = dy2st.to_static(net) if convert else net
        got = []
        for k in range(calls):
            x = rt.to_tensor(np.array([1.0, -2.0], "float32") * (k + 1), stop_gradient=False)
            y = f(x)
            y.sum().backward()
            got.append((y.numpy(), x.grad.numpy()))
        outs.append(got)
    for (ye, ge), (ys, gs) in zip(*outs):
        np.testing.assert_array_equal(ye, ys)
        np.testing.assert_array_equal(ge, gs)


def test_class_counters_change_at_every_call():
    def reset():
        _Counted.calls = _Dunder.n = _Counter.n = 0
    _run(_Counted, reset)
    assert _Counted.calls == 4
    _run(_Dunder, reset)
    _run(_Outer, reset)
    assert _Counter.n == 4 and _Dunder.n == 8


def test_many_calls_warn_that_the_program_keeps_changing():
    _Counted.calls = 0
    net = dy2st.to_static(_Counted())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(12):
            net(rt.ones([1]))
    assert _Counted.calls == 12
    assert any("has traced" in str(w.message) for w in caught)
