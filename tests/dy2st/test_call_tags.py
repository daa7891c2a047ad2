"""Output tags (``Tensor._origin``, ``output_spec.OutputTag``) and the written-out wrap of a cache hit.

A converted call marks each output Tensor with which output of which Program it is, so that
``output_spec=[out]`` can choose it.  The mark lives on the Tensor: it dies with it (a reused
``id`` never matches), keeps no Program alive, and copies or pickles of the Tensor carry none.
"""
import copy
import gc
import pickle

import numpy as np
import pytest

import dy2st
import runtime as rt
from dy2st.deploy.output_spec import OutputTag, _tag, select_outputs
from runtime import nn
from runtime.tensor import Tensor


def x34():
    return rt.to_tensor(np.random.default_rng(0).standard_normal((3, 4)).astype("float32"))


class Two(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        y = self.fc(x)
        return y, y.sum()


def choose(net, entries):
    concrete = net.forward.concrete_program
    chosen, _ = select_outputs(entries, concrete.outputs, concrete.out_skeleton, net.forward, concrete)
    return [next(k for k, o in enumerate(concrete.outputs) if o is v) for v in chosen]


@pytest.mark.parametrize("calls", [1, 4])  # the general path tags, then the generated call
def test_outputs_of_each_path_are_tagged_with_their_position(calls):
    net = dy2st.to_static(Two())
    x = x34()
    for _ in range(calls):
        y, s = net(x)
    assert net.forward._hit is not None  # built by the first call, served the later ones
    assert choose(net, [s, y]) == [1, 0]
    assert x._origin is None and rt.to_tensor([1.0])._origin is None


def test_a_dead_output_and_a_reused_id_are_not_outputs():
    net = dy2st.to_static(Two())
    x = x34()
    for _ in range(3):
        net(x)
    y, _ = net(x)
    dead = id(y)
    del y
    gc.collect()
    strangers = [Tensor.from_numpy(np.zeros(2, "float32")) for _ in range(64)]  # one may take the id
    stranger = next((t for t in strangers if id(t) == dead), strangers[0])
    with pytest.raises(ValueError, match="not an output"):
        choose(net, [stranger])


def test_tag_keeps_no_program_alive():
    net = dy2st.to_static(Two())
    x = x34()
    for _ in range(3):
        y, _ = net(x)
    assert _tag(y) is not None
    net.forward.program_cache.clear()
    net.forward._hit = None
    net.forward._fast_cache.clear()
    net.forward._fast_makers.clear()
    gc.collect()
    assert type(y._origin) is OutputTag and _tag(y) is None  # its Program is gone: no longer an output


def test_copies_and_pickles_of_an_output_are_untagged():
    net = dy2st.to_static(Two())
    x = x34()
    with rt.no_grad():  # an output on the tape does not pickle (its node holds the plan)
        for _ in range(3):
            y, _ = net(x)
    for other in (copy.copy(y), copy.deepcopy(y), pickle.loads(pickle.dumps(y))):
        assert other._origin is None
        np.testing.assert_array_equal(other.numpy(), y.numpy())
    assert _tag(y) is not None


def test_wrap_source_makes_what_from_numpy_makes():
    value = np.arange(6, dtype="float32").reshape(2, 3)
    ns = {"NEW": Tensor.__new__, "T": Tensor, "v": value}
    exec(Tensor.wrap_source("o", "v"), ns)  # noqa: S102
    made, want = ns["o"], Tensor.from_numpy(value)
    assert type(made) is Tensor and made._value is value
    slots = [s for s in Tensor.__slots__ if s != "__weakref__"]
    assert [getattr(made, s) for s in slots[1:]] == [getattr(want, s) for s in slots[1:]]
