"""A plain callable object (a class with `__call__`, not a Layer) that converted code calls, kept
in a global or on a Layer: the attributes its `__call__` reads (`self.k`) and the globals it reads
were not guarded, so changing them reused the Program built for the old values; nor were the
attributes a plain object's methods and properties read (`cfg.get_scale()`, `cfg.doubled`)."""
import numpy as np

import dy2st
import runtime as rt

G = [1.0]


class _Scaler:
    def __init__(self):
        self.k = 2.0

    def __call__(self, x):
        return x * self.k * G[0]


_SCALER = _Scaler()


class _Holder(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.s = _Scaler()

    def forward(self, x):
        return self.s(x) + 1


def _uses_global(x):
    return _SCALER(x) + 1


def test_attributes_and_globals_a_called_objects_call_reads_are_guarded():
    holder = _Holder()
    for fn, scaler in ((dy2st.to_static(_uses_global), _SCALER), (dy2st.to_static(holder), holder.s)):
        for k, g in ((2.0, 1.0), (3.0, 1.0), (3.0, 5.0), (3.0, 5.0)):
            scaler.k, G[0] = k, g
            x = rt.to_tensor(np.array([1.0, -2.0], "float32"), stop_gradient=False)
            out = fn(x)
            out.sum().backward()
            np.testing.assert_array_equal(out.numpy(), np.array([1.0, -2.0], "float32") * (k * g) + 1)
            np.testing.assert_array_equal(x.grad.numpy(), np.full(2, k * g, "float32"))


class _Cfg:
    def __init__(self):
        self.scale = 2.0

    def get_scale(self):
        return self.scale

    @property
    def doubled(self):
        return self.scale * 2


_CFG = _Cfg()


def _method(x):
    return x * _CFG.get_scale()


def _property(x):
    return x * _CFG.doubled


class _WithCfg(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.cfg = _Cfg()

    def forward(self, x):
        return x * self.cfg.get_scale()


def test_attributes_read_by_a_plain_objects_methods_and_properties_are_guarded():
    layer = _WithCfg()
    for fn, cfg, times in ((_method, _CFG, 1), (_property, _CFG, 2), (layer, layer.cfg, 1)):
        sf = dy2st.to_static(fn)
        for scale in (2.0, 3.0, 3.0):
            cfg.scale = scale
            np.testing.assert_array_equal(sf(rt.ones([2])).numpy(), [scale * times] * 2)
