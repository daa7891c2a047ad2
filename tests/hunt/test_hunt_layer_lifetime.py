"""Converting a Layer does not keep it alive (Paddle's test_circular_reference.py): a decorated
`forward` holds its Layer weakly (the class's per-instance cache and the Programs' guards held it
strongly, so every Layer ever called stayed in memory with its parameters), `to_static(layer)`
leaves the layer's reference count unchanged, and a method whose object is gone says so."""
import gc
import sys
import weakref

import pytest

import dy2st
import runtime as rt
from runtime import nn


class _Decorated(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    @dy2st.to_static
    def forward(self, x):
        if x.mean() > 0:  # a tensor `if`: guards and the fast call path built too
            return self.fc(x)
        return self.fc(-x)


class _Plain(nn.Layer):
    def __init__(self):
        super().__init__()
        self.inner = _Decorated()

    def forward(self, x):
        return self.inner(x) * 2


def _collected(make):
    net = make()
    for _ in range(3):
        net(rt.ones([2, 3])).sum().backward()
    ref = weakref.ref(net)
    del net
    gc.collect()
    return ref() is None


def test_called_layers_are_freed():
    assert _collected(_Decorated)
    assert _collected(lambda: dy2st.to_static(_Plain()))


def test_to_static_layer_keeps_reference_counts():
    net = _Plain()
    before = sys.getrefcount(net), sys.getrefcount(net.inner)
    dy2st.to_static(net)
    assert (sys.getrefcount(net), sys.getrefcount(net.inner)) == before


def test_method_of_a_deleted_layer_is_an_error():
    with pytest.raises(RuntimeError, match=r"forward: the object this converted method belongs to has been deleted"):
        _Decorated().forward(rt.ones([2, 3]))


def test_converted_bound_method_keeps_its_object():
    f = dy2st.to_static(_Plain().forward)  # the caller holds only the result
    gc.collect()
    assert f(rt.ones([1, 3])).shape == [1, 2]
