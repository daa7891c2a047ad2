"""A parameter read as a Python number in converted code (`p.item()`, `float(p)`, `p.numpy()[0]`)
is read at every run of the Program: it was taken once while tracing and stayed in the cached
Program after the parameter changed (set_value, an optimizer step), where eager reads the new value."""
import numpy as np
import pytest

import dy2st
import runtime as rt


class _Scaled(rt.nn.Layer):
    def __init__(self, how):
        super().__init__()
        self.alpha = self.create_parameter([1], default_initializer=rt.nn.initializer.Constant(2.0))
        self.how = how

    def forward(self, x):
        if self.how == "item":
            s = self.alpha.item()
        elif self.how == "float":
            s = float(self.alpha)
        else:
            s = self.alpha.numpy()[0]
        return x * self.alpha + s


@pytest.mark.parametrize("how", ["item", "float", "numpy"])
def test_parameter_numbers_follow_the_parameter(how):
    static, eager = dy2st.to_static(_Scaled(how)), _Scaled(how)
    opts = [rt.optimizer.SGD(0.1, parameters=m.parameters()) for m in (static, eager)]
    for step in range(2):
        losses = []
        for m, opt in zip((static, eager), opts):
            loss = m(rt.ones([2])).sum()
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(loss.numpy())
        np.testing.assert_array_equal(losses[0], losses[1])
    static.alpha.set_value(np.float32([5.0]))
    assert static(rt.ones([1])).numpy().tolist() == [10.0]
