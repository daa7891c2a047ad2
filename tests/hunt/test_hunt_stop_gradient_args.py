"""Converted code reading an argument's ``stop_gradient`` sees the caller's flag, as eagerly.

Before, every argument was traced as a feed with ``stop_gradient=True`` and the Program was
cached by shape and dtype only: ``if w.stop_gradient:`` took the first call's branch for every
later call, silently.  Code that names ``stop_gradient`` now has each argument's flag in its
cache key (one Program per combination, as Paddle's ``InputSpec.from_tensor`` keeps it); code
that does not keeps one Program for both.
"""
import numpy as np

import dy2st
import runtime as rt
from runtime import nn


def _tensor(values, stop_gradient):
    t = rt.to_tensor(np.asarray(values, "float32"))
    t.stop_gradient = stop_gradient
    return t


def scaled(x, w):
    if w.stop_gradient:
        return x * 2
    return x * w


def test_a_branch_on_an_argument_flag_follows_each_call():
    static = dy2st.to_static(scaled)
    for flag in [True, False, True, False]:
        for base in (1.0, -2.5):
            x, w = _tensor([base, 2.0, 3.0], True), _tensor([3.0, 0.5, -1.0], flag)
            want, got = scaled(x, w), static(x, w)
            np.testing.assert_array_equal(got.numpy(), want.numpy())
            assert got.stop_gradient == want.stop_gradient == flag
    assert len(static.program_cache) == 2


def test_gradients_through_the_flag_dependent_branch():
    static = dy2st.to_static(scaled)
    for fn in (scaled, static):
        x, w = _tensor([1.0, 2.0, 3.0], False), _tensor([3.0, 0.5, -1.0], False)
        (fn(x, w) * x).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), [6.0, 2.0, -6.0])
        np.testing.assert_array_equal(w.grad.numpy(), [1.0, 4.0, 9.0])


class Gate(nn.Layer):
    def forward(self, x):
        if x.stop_gradient:
            return x + 1
        return x * 5


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.gate = Gate()

    def forward(self, x):
        return self.gate(x) * 2


def test_a_sub_layer_reading_the_flag():
    eager, static = Net(), dy2st.to_static(Net())
    for flag in [True, False, False, True]:
        x = _tensor([1.0, -2.0], flag)
        np.testing.assert_array_equal(static(x).numpy(), eager(x).numpy())


def test_code_that_never_reads_the_flag_keeps_one_program():
    static = dy2st.to_static(lambda x: x * 2 + 1)
    for flag in [True, False, True]:
        x = _tensor([1.0, 2.0], flag)
        y = static(x)
        np.testing.assert_array_equal(y.numpy(), [3.0, 5.0])
        assert y.stop_gradient == flag
    assert len(static.program_cache) == 1
