"""What Tensor and Variable define themselves, and the one generated part (operators and declared op methods)."""
import numpy as np

import runtime as rt
from runtime import registry, tensor_methods
from runtime.framework import Variable
from runtime.tensor import TensorLike
from runtime.tensor_methods import TensorMethods
from static_helpers import building


def test_hand_written_members_live_in_their_class_bodies():
    assert {"dim", "ndimension", "T", "__hash__"} <= set(vars(TensorLike))
    assert {"size", "detach"} <= set(vars(Variable))
    # the generated part is exactly the protocol operators, the declared op methods, their in-place forms and the
    # methods made of public functions (new_zeros, x.float(), requires_grad...)
    generated = {**tensor_methods.EXTRA_METHODS, **tensor_methods.OPERATORS, **registry.tensor_methods(),
                 **tensor_methods.INPLACE}
    assert not set(generated) & {"dim", "ndimension", "T", "size", "detach", "__hash__"}
    assert all(vars(TensorMethods)[name] is fn for name, fn in generated.items())
    housekeeping = {"__doc__", "__module__", "__slots__", "__hash__"}
    assert set(vars(TensorMethods)) - housekeeping == set(generated)


def test_the_classes_are_made_with_their_methods():
    """Tensor and Variable are defined on TensorMethods: no op method is put on a class after it exists."""
    assert rt.Tensor.__bases__ == (TensorMethods,) and Variable.__bases__ == (TensorMethods,)
    assert TensorMethods.__bases__ == (TensorLike,)
    generated = {**tensor_methods.OPERATORS, **registry.tensor_methods()}
    for cls in (TensorLike, rt.Tensor, rt.Parameter, Variable):
        patched = sorted(set(generated) & set(vars(cls)))
        assert not patched, f"{cls.__name__} holds op methods of its own: {patched}"
    assert rt.Tensor.__hash__ is not None and Variable.__hash__ is TensorLike.__hash__


def test_the_members_agree_between_modes():
    x = rt.to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
    assert (x.dim(), x.ndimension(), x.T.shape, x.size) == (2, 2, [3, 2], 6)
    assert {x: 1}[x] == 1
    with building():
        v = rt.static.data("v", [-1, 3], "float32")
        k = rt.static.data("k", [2, 3], "float32")
        assert (v.dim(), v.ndimension(), v.T.shape, k.size) == (2, 2, [3, -1], 6)
        assert isinstance(v.size, Variable) and v.detach().stop_gradient and {v: 1}[v] == 1
