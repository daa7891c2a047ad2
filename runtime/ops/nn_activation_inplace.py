"""Paddle's in-place activations ``F.relu_``, ``F.elu_``, ``F.leaky_relu_``, ``F.softmax_``, ``F.tanh_``,
``F.hardtanh_`` and ``F.thresholded_relu_``: each is its out-of-place function, after which ``x`` takes over
the result, so every reference to ``x`` sees the new value and the call returns ``x`` (as Paddle's).

Eagerly the write goes through ``tape.write_back`` (as ``x.add_(y)`` does): gradients flow through it,
and a leaf that needs a gradient refuses with Paddle's ValueError. While a Program is built, the Variable
``x`` takes over the result's identity when the Program made it in the same block (``inplace.adopt``);
a fed input, a parameter or a value from an enclosing block cannot be written so, and is an error
(``InPlaceRefused``, holding the result) that says to write ``x = F.relu(x)``; the converter catches it
and carries the write out itself where it can (dy2st's ``InplaceCall``).
"""
from ..hints import TensorLike
from ..inplace import InPlaceRefused, adopt
from ..registry import composite
from ..trace_state import _mode


def _functional(name):
    from ..nn import functional  # noqa: PLC0415  (runtime.nn loads after the op modules)
    return getattr(functional, name)


def _in_place(name, x, *args, **kwargs):
    base = name[:-1]
    fn = _functional(base)
    from ..variable import Variable  # noqa: PLC0415  (its class is built on the op methods)
    if isinstance(x, Variable) or _mode.static:
        out = fn(x, *args, **kwargs)
        _check(x, out, name)
        if not adopt(x, out):
            raise InPlaceRefused(f"F.{name}(x) writes in place into a parameter, an input of the converted function "
                                 f"or a tensor made outside this branch or loop, which the Program cannot change: "
                                 f"write x = F.{base}(x) instead", out)
        return x
    if not x.stop_gradient and x._node is None:
        raise ValueError(f"Leaf Var{f' ({x._name})' if x._name else ''} that doesn't stop gradient can't use inplace strategy "
                         f"(F.{name}); use the out-of-place F.{base}")
    from ..tape import write_back  # noqa: PLC0415

    def compute(old):
        out = fn(old, *args, **kwargs)
        _check(old, out, name)
        return out
    return write_back(x, compute, f"F.{name} cannot write into a leaf that needs a gradient")


def _check(x, out, name):
    if out.dtype != x.dtype or list(out.shape) != list(x.shape):
        raise TypeError(f"F.{name} would change the tensor from {x.dtype}{list(x.shape)} to "
                        f"{out.dtype}{list(out.shape)}; an in-place function keeps both: use F.{name[:-1]}")


@composite("relu_", functional=["relu_"])
def relu_(x: TensorLike, name: str | None = None) -> TensorLike:
    """In place: ``x`` becomes ``F.relu(x)``; returns ``x``."""
    return _in_place("relu_", x)


@composite("elu_", functional=["elu_"])
def elu_(x: TensorLike, alpha: float = 1.0, name: str | None = None) -> TensorLike:
    """In place: ``x`` becomes ``F.elu(x, alpha)`` (``alpha >= 0``, as Paddle's); returns ``x``."""
    from .nn_activation import check_at_run_time, number  # noqa: PLC0415
    message = "elu_ only support alpha >= 0, please use elu instead."
    a = number(alpha)
    if isinstance(a, float):
        assert a >= 0.0, message
    else:  # a one-element tensor read when the Program runs
        from .logic import greater_equal  # noqa: PLC0415
        check_at_run_time(greater_equal(a, 0.0), "AssertionError", message)
    return _in_place("elu_", x, alpha)


@composite("leaky_relu_", functional=["leaky_relu_"])
def leaky_relu_(x: TensorLike, negative_slope: float = 0.01, name: str | None = None) -> TensorLike:
    """In place: ``x`` becomes ``F.leaky_relu(x, negative_slope)``; returns ``x``."""
    return _in_place("leaky_relu_", x, negative_slope)


@composite("softmax_", functional=["softmax_"])
def softmax_(x: TensorLike, axis: int = -1, dtype: str | None = None, name: str | None = None) -> TensorLike:
    """In place: ``x`` becomes ``F.softmax(x, axis, dtype)`` (a ``dtype`` other than x's is an error);
    returns ``x``."""
    return _in_place("softmax_", x, axis, dtype)


@composite("tanh_", functional=["tanh_"])
def tanh_(x: TensorLike, name: str | None = None) -> TensorLike:
    """In place: ``x`` becomes ``tanh(x)``; returns ``x``."""
    return _in_place("tanh_", x)


@composite("hardtanh_", functional=["hardtanh_"])
def hardtanh_(x: TensorLike, min: float = -1.0, max: float = 1.0, name: str | None = None) -> TensorLike:  # noqa: A002
    """In place: ``x`` becomes ``F.hardtanh(x, min, max)``; returns ``x``."""
    return _in_place("hardtanh_", x, min, max)


@composite("thresholded_relu_", functional=["thresholded_relu_"])
def thresholded_relu_(x: TensorLike, threshold: float = 1.0, value: float = 0.0, name: str | None = None) -> TensorLike:
    """In place: ``x`` becomes ``F.thresholded_relu(x, threshold, value)``; returns ``x``."""
    return _in_place("thresholded_relu_", x, threshold, value)


# the in-place functions themselves (the converter writes `F.relu_(z)` back into `z`, as `z.relu_()`)
FUNCTIONS = frozenset({relu_, elu_, leaky_relu_, softmax_, tanh_, hardtanh_, thresholded_relu_})
