"""Dataclass arguments (Paddle's test_dataclass_as_input.py): a dataclass holding Tensors is fed
field by field, so one Program serves every value and gradients reach the caller's tensors;
its Python fields select the Program like any Python argument; a returned dataclass comes back
as one; a field write reaches the caller's dataclass, as one into a list argument does."""
import dataclasses

import numpy as np

import dy2st
import runtime as rt
from tests.compat.helpers import arr, same


@dataclasses.dataclass
class Data:
    x: rt.Tensor
    scale: float = 1.0


@dataclasses.dataclass(frozen=True)
class Pair:
    a: Data
    b: rt.Tensor


def _use(p):
    if p.a.x.mean() > 0:  # a tensor `if`: fields are Program values, not constants
        return p.a.x * p.a.scale + p.b
    return p.b - p.a.x


def _pair(seed, scale=1.0, lo=-1.0):
    x = rt.to_tensor(arr(3, 4, seed=seed, lo=lo), stop_gradient=False)
    b = rt.to_tensor(arr(3, 4, seed=seed + 7), stop_gradient=False)
    return Pair(Data(x, scale), b)


def test_dataclass_fields_feed_one_program_with_grads():
    sf = dy2st.to_static(_use)
    for seed, lo in ((0, 0.1), (1, -2.0), (2, 0.5)):
        pe, ps = _pair(seed, lo=lo), _pair(seed, lo=lo)
        e, s = _use(pe), sf(ps)
        same(e, s)
        e.sum().backward()
        s.sum().backward()
        same(pe.a.x.grad, ps.a.x.grad)
        same(pe.b.grad, ps.b.grad)
    assert len(sf.program_cache) == 1
    same(_use(_pair(3, scale=2.5, lo=0.1)), sf(_pair(3, scale=2.5, lo=0.1)))  # a Python field: its own Program
    assert len(sf.program_cache) == 2


def _make(x):
    return Data(x * 2, scale=3.0)


def test_returned_dataclass_is_rebuilt():
    x = rt.to_tensor(arr(2, 3))
    out = dy2st.to_static(_make)(x)
    assert type(out) is Data and out.scale == 3.0
    same(_make(x).x, out.x)


def _writes(d):
    d.x = d.x + 1
    return d.x


def test_field_write_into_argument_reaches_the_caller():
    d = Data(rt.to_tensor(np.ones(2, "float32")))
    out = dy2st.to_static(_writes)(d)
    assert d.x is out  # the caller's dataclass holds the new value, as eagerly
    same(np.full(2, 2.0, "float32"), d.x)


def test_utils_flatten_keeps_a_dataclass_as_a_leaf():
    d = Data(rt.ones([2]))
    assert rt.utils.flatten([d, 1]) == [d, 1]  # Paddle's nest does not descend into it
