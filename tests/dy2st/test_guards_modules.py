"""Guards on the attributes of the user's own modules that a trace read (``import config;
if config.FLAG:``): changing one retraces, as eager code would see the new value at once.

The config module and the converted code are written to files and imported, as a user's
project would be; installed libraries' modules (numpy here) are code, not settings, and are
not guarded.
"""
import importlib
import sys
import textwrap

import numpy as np
import pytest

import dy2st
import runtime as rt

CONFIG = """
FLAG = True
SCALE = 2.0
SIZES = (3,)
"""

MODEL = """
import numpy as np
import dy2st
import runtime as rt
import usercfg

def plain(x):
    if usercfg.FLAG:
        return x * usercfg.SCALE + np.pi
    return x - float(usercfg.SIZES[0])

converted = dy2st.to_static(plain)

class Net(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(3, 3)

    def forward(self, x):
        y = self.fc(x)
        if usercfg.FLAG:
            y = rt.tanh(y)
        return y * usercfg.SCALE
"""


@pytest.fixture
def modules(tmp_path, monkeypatch):
    (tmp_path / "usercfg.py").write_text(textwrap.dedent(CONFIG))
    (tmp_path / "usermodel.py").write_text(textwrap.dedent(MODEL))
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("usercfg", "usermodel"):
        sys.modules.pop(name, None)
    cfg, model = importlib.import_module("usercfg"), importlib.import_module("usermodel")
    yield cfg, model
    for name in ("usercfg", "usermodel"):
        sys.modules.pop(name, None)


def _inputs():
    rng = np.random.default_rng(1)
    return [rt.to_tensor((rng.standard_normal((2, 3)) * s).astype("float32")) for s in (1.0, -3.0)]


def _check(sf, eager):
    for x in _inputs():
        np.testing.assert_allclose(sf(x).numpy(), eager(x).numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("change", [("FLAG", False), ("SCALE", 5.0), ("SIZES", (7,))])
def test_user_module_attribute_changed_retraces(modules, change):
    cfg, model = modules
    _check(model.converted, model.plain)
    setattr(cfg, *change)
    _check(model.converted, model.plain)


def test_layer_forward_reading_a_user_module_retraces(modules):
    cfg, model = modules
    net = model.Net()
    sf = dy2st.to_static(model.Net.forward.__get__(net))
    for flag, scale in ((True, 2.0), (False, 2.0), (False, -1.5), (True, 2.0)):
        cfg.FLAG, cfg.SCALE = flag, scale
        for x in _inputs():
            np.testing.assert_allclose(sf(x).numpy(), model.Net.forward(net, x).numpy(), rtol=1e-6, atol=1e-6)


def test_explain_names_the_module_attribute(modules):
    cfg, model = modules
    x = _inputs()[0]
    model.converted(x)
    cfg.FLAG = False
    report = model.converted.explain(x)
    assert "stale" in report and "usercfg.FLAG" in report


def test_library_module_attributes_are_not_guarded(modules):
    _, model = modules
    x = _inputs()[0]
    model.converted(x)
    report = model.converted.explain(x)
    assert "usercfg.SCALE" in report
    assert "np.pi" not in report and "attribute np." not in report
