"""A method replaced on the class after the first call (`Net.helper = other`), and a function of the
user's own module replaced (`utils.act = other`): eagerly the next call runs the new code, so the
cached Program must not be reused (it retraces once, then is cached again)."""
import importlib
import sys

import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import nn


def _xs():
    return [rt.to_tensor(np.array(v, "float32")) for v in ([1.0, -2.0, 3.0], [0.5, 4.0, -1.0], [2.0, 2.0, 0.0])]


def _same_over(sf, eager):
    for x in _xs():
        np.testing.assert_array_equal(sf(x).numpy(), eager(x).numpy())


class Base(nn.Layer):
    def helper(self, x):
        return x + 1.0

    @staticmethod
    def shift(x):
        return x - 0.5

    @classmethod
    def scale(cls, x):
        return x * 3.0

    def forward(self, x):
        return self.scale(self.shift(self.helper(x)))


class Net(Base):
    pass


@pytest.fixture
def restore():
    saved = {k: Base.__dict__[k] for k in ("helper", "shift", "scale")}
    yield
    for k in ("helper", "shift", "scale"):
        Net.__dict__.get(k) is not None and delattr(Net, k)
        setattr(Base, k, saved[k])


def test_methods_replaced_on_the_class_retrace(restore):
    net = Net()
    sf = dy2st.to_static(Net())
    _same_over(sf, net)
    assert sf.forward.get_traced_count() == 1  # a classmethod/staticmethod guard holds across calls
    Base.helper = lambda self, x: x * x                       # on the class defining it
    _same_over(sf, net)
    Net.shift = staticmethod(lambda x: x + 10.0)              # a subclass now overrides it
    _same_over(sf, net)
    Base.scale = classmethod(lambda cls, x: x * -2.0)
    _same_over(sf, net)
    assert sf.forward.get_traced_count() == 4


MODULE = """
def act(x):
    return x * 2.0
"""

USER = """
import dy2st
import userfns

def plain(x):
    return userfns.act(x) + 1.0

converted = dy2st.to_static(plain)
"""


def test_user_module_function_replaced_retraces(tmp_path, monkeypatch):
    (tmp_path / "userfns.py").write_text(MODULE)
    (tmp_path / "usercode.py").write_text(USER)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("userfns", "usercode"):
        sys.modules.pop(name, None)
    try:
        fns, code = importlib.import_module("userfns"), importlib.import_module("usercode")
        _same_over(code.converted, code.plain)
        fns.act = lambda x: x * 10.0
        _same_over(code.converted, code.plain)
        assert code.converted.get_traced_count() == 2
    finally:
        for name in ("userfns", "usercode"):
            sys.modules.pop(name, None)
