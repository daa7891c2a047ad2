"""Plain class attributes the traced code reads (`SCALE = 2.0` in a Layer's class body read as
`self.SCALE` or `type(self).SCALE`, `Cfg.flag` of a config class) were not guarded: only instance
attributes were, so changing one on the class reused the Program built for its old value."""
import numpy as np

import dy2st
import runtime as rt


class _Net(rt.nn.Layer):
    SCALE = 2.0
    USE = True

    def forward(self, x):
        if self.USE:
            x = x * self.SCALE
        return x * type(self).SCALE


class _Cfg:
    flag = True


def _reads_class(x):
    return x * 2 if _Cfg.flag else x


def _check(fn, eager, change):
    sf = dy2st.to_static(fn)
    for k in range(4):
        change(k)
        x = rt.to_tensor(np.array([1.0, -2.0], "float32"), stop_gradient=False)
        out = sf(x)
        out.sum().backward()
        xe = rt.to_tensor(np.array([1.0, -2.0], "float32"), stop_gradient=False)
        want = eager(xe)
        want.sum().backward()
        np.testing.assert_array_equal(out.numpy(), want.numpy())
        np.testing.assert_array_equal(x.grad.numpy(), xe.grad.numpy())
    return sf


def test_class_attributes_read_by_traced_code_are_guarded():
    net = _Net()

    def change(k):
        _Net.USE, _Net.SCALE = [(True, 2.0), (False, 2.0), (True, 3.0), (True, 3.0)][k]

    _check(net, lambda x: _Net.forward(net, x), change)
    sf = _check(_reads_class, _reads_class, lambda k: setattr(_Cfg, "flag", k % 2 == 0))
    assert len(sf.program_cache) == 2
