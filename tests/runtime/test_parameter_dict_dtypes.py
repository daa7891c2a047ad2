"""Paddle 2.x names ported code uses: ``nn.ParameterDict`` (its order and names as Paddle 3.3 keeps them),
``paddle.dtype`` (the class of every dtype) and the dtypes runtime cannot hold (``bfloat16``, complex),
which exist to be named and compared but refuse to make a value, eagerly and in a converted function."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from error_helpers import notes
from runtime import nn


class Stack(nn.Layer):
    """Paddle's ParameterDict example: matmuls through the dict's parameters in order."""

    def __init__(self, n=3):
        super().__init__()
        self.params = nn.ParameterDict({f"t{i}": self.create_parameter([2, 2]) for i in range(n)})

    def forward(self, x):
        for key in self.params:
            x = rt.matmul(x, self.params[key])
        return x


def test_parameter_dict_registers_keeps_order_and_replaces_in_place():
    m = Stack()
    assert len(m.params) == 3 and list(m.params) == ["t0", "t1", "t2"] and "t1" in m.params
    assert list(m.state_dict()) == ["params.t0", "params.t1", "params.t2"]  # Paddle 3.3's names
    new = m.create_parameter([2, 3])
    m.params["t0"] = new  # Paddle 3.3: a replaced key keeps its place
    assert list(m.params) == ["t0", "t1", "t2"] and m.params["t0"] is new and len(m.parameters()) == 3
    m.params["t3"] = m.create_parameter([3, 3])
    assert list(m.params.keys())[-1] == "t3" and len(list(m.params.values())) == 4
    d = nn.ParameterDict([("a", m.create_parameter([1])), ("b", m.create_parameter([2]))])
    d.update(nn.ParameterDict({"c": m.create_parameter([3])}))
    assert [k for k, _ in d.items()] == ["a", "b", "c"]
    with pytest.raises(ValueError, match="must be 2"):
        nn.ParameterDict([("a",)])
    with pytest.raises(TypeError, match="Parameter"):
        d["x"] = rt.ones([2])


def test_parameter_dict_layer_converted_trains_like_eager():
    from compat.helpers import train_same

    data = [(np.random.default_rng(i).standard_normal((4, 2)).astype("float32"),) for i in range(2)]
    train_same(Stack, data, lambda m, x: m(x).square().mean())


def test_dtype_class_and_unsupported_dtypes():
    assert isinstance(rt.float32, rt.dtype) and isinstance(rt.int64, rt.dtype) and isinstance(rt.bfloat16, rt.dtype)
    x = rt.ones([2])
    assert x.dtype != rt.bfloat16 and not (x.dtype == rt.complex64) and rt.bfloat16 == "bfloat16"
    assert rt.bfloat16 == rt.bfloat16 and rt.float32 != rt.bfloat16 and {rt.bfloat16: 1}["bfloat16"] == 1
    for make in (lambda: x.astype(rt.bfloat16), lambda: rt.zeros([2], "bfloat16"), lambda: rt.cast(x, "paddle.bfloat16"),
                 lambda: rt.to_tensor([1.0], dtype=rt.complex64), lambda: rt.to_tensor(np.array([1j]))):
        with pytest.raises(TypeError, match=r"not supported by runtime .*supported dtypes: bool, float16, float32"):
            make()


def test_unsupported_dtype_in_converted_code_is_refused_at_the_users_line():
    def f(x):
        return x.astype(rt.bfloat16) * 2

    with pytest.raises(TypeError, match="bfloat16") as info:
        dy2st.to_static(f)(rt.ones([2]))
    assert "return x.astype(rt.bfloat16)" in notes(info.value)
