"""Attributes the traced code reads that the instance did not hold while tracing: a method or class
default an instance attribute later hides (`net.helper = f`), and names asked for with
getattr/hasattr and a default. Setting one retraces (the Program kept the class's method, the
default, the hasattr answer), as eager code reads the new one; leaving them unset keeps one Program."""
import sys

import numpy as np

import dy2st
import runtime as rt


class _Net(rt.nn.Layer):
    SCALE = 1.0

    def helper(self, x):
        return x * 2

    def forward(self, x):
        extra = getattr(self, "extra", 0.0) + (1.0 if hasattr(self, "flag") else 0.0)
        return self.helper(x) * self.SCALE + extra


class _Cfg:
    def act(self, x):
        return x * 3


CFG = _Cfg()


def _uses_cfg(x):
    return CFG.act(x) + getattr(CFG, "bias", 0.5)


def _times_five(v):
    return v * 5


def _times_seven(v):
    return v * 7


def _same(a, b):
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_layer_attributes_set_after_the_trace():
    net = _Net()
    sf = dy2st.to_static(net)
    x = rt.to_tensor(np.array([1.0, -2.0], "float32"))
    _same(sf(x), _Net.forward(net, x))
    _same(sf(x * 3), _Net.forward(net, x * 3))
    assert len(sf.forward.program_cache) == 1
    for name, value in (("helper", _times_five), ("SCALE", 4.0), ("extra", 10.0), ("flag", True)):
        setattr(net, name, value)
        _same(sf(x), _Net.forward(net, x))
    assert len(sf.forward.program_cache) == 5


def test_plain_object_attributes_set_after_the_trace():
    sf = dy2st.to_static(_uses_cfg)
    x = rt.to_tensor(np.array([1.0, -2.0], "float32"))
    try:
        _same(sf(x), _uses_cfg(x))
        CFG.act = _times_seven
        _same(sf(x), _uses_cfg(x))
        CFG.bias = -1.0
        _same(sf(x), _uses_cfg(x))
        _same(sf(x * 2), _uses_cfg(x * 2))
    finally:
        vars(CFG).clear()
    _same(sf(x), _uses_cfg(x))


def test_user_module_attribute_asked_with_getattr(tmp_path, monkeypatch):
    (tmp_path / "hunt_unset_cfg.py").write_text("SCALE = 2.0\n")
    (tmp_path / "hunt_unset_model.py").write_text(
        "import hunt_unset_cfg\n\n\ndef f(x):\n    return x * hunt_unset_cfg.SCALE + getattr(hunt_unset_cfg, 'BIAS', 0.0)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import hunt_unset_cfg as cfg  # noqa: PLC0415  (written above)
    import hunt_unset_model as model  # noqa: PLC0415
    sf = dy2st.to_static(model.f)
    x = rt.to_tensor(np.array([1.0, -2.0], "float32"))
    _same(sf(x), model.f(x))
    cfg.BIAS = 5.0
    _same(sf(x), model.f(x))
    assert len(sf.program_cache) == 2
    for name in ("hunt_unset_cfg", "hunt_unset_model"):
        monkeypatch.delitem(sys.modules, name)
