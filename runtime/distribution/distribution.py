"""``Distribution``, the base of ``rt.distribution`` (Paddle's ``paddle.distribution.Distribution``), and
the helpers its subclasses share.

Every method is made of registered ops, so it works on eager Tensors and inside a converted function
alike (gradients included). Draws come from random ops (``uniform_random``, ``gaussian_random``,
``standard_gamma``): a Program draws fresh values at every run, and ``rt.seed`` makes them
repeatable (the streams are runtime's, not Paddle's). ``sample`` detaches its result (Paddle samples
under ``no_grad``); ``rsample`` keeps the reparameterised gradient where Paddle has one.
"""
import numpy as np

import runtime as rt
from ..ops.common import broadcast_shape, stop_gradient


def to_param(x, dtype=None):
    """A parameter as a Tensor: Tensors (and static Variables) as they are, Python numbers and lists as
    float32, numpy arrays in their float dtype (float32 for ints), as Paddle's ``_to_tensor``."""
    if isinstance(x, rt.framework.Variable) or isinstance(x, rt.Tensor):
        return x if dtype is None or str(x.dtype) == dtype else rt.cast(x, dtype)
    arr = np.asarray(x)
    dt = dtype or (str(arr.dtype) if arr.dtype.kind == "f" else "float32")
    return rt.to_tensor(arr.astype(dt))


def common_dtype(*xs):
    """float64 when any tensor parameter is float64, else float32."""
    return "float64" if any(str(getattr(x, "dtype", "")) in ("float64", "paddle.float64") for x in xs) else \
        "float32"


def params(*xs):
    """The parameters as Tensors of one float dtype (Paddle's ``_broadcast_all`` without the broadcast)."""
    dt = common_dtype(*[x for x in xs if hasattr(x, "dtype")])
    return [to_param(x, dt) for x in xs]


def static_shape(*xs):
    """The broadcast shape of the tensors (-1 for a dim known only at run time)."""
    shape = ()
    for x in xs:
        shape = broadcast_shape(shape, tuple(x.shape), "distribution parameters")
    return tuple(shape)


def shape_list(shape, what="sample"):
    """A sample shape as a list (Paddle takes a list or tuple of ints)."""
    if isinstance(shape, int):
        return [shape]
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"{what}: shape must be a list or tuple of ints, got {type(shape).__name__}")
    return list(shape)


def dims_of(like, shape):
    """``shape``'s dims, a run-time dim taken from ``like`` (aligned from the right) where one is -1."""
    out = []
    for k, d in enumerate(shape):
        if d >= 0:
            out.append(int(d))
        else:
            j = k - len(shape) + like.ndim
            out.append(rt.shape(like)[j])
    return out


class Distribution:
    """The base class: ``batch_shape`` and ``event_shape``, and the methods each distribution fills in."""

    def __init__(self, batch_shape=(), event_shape=()):
        self._batch_shape = tuple(batch_shape)
        self._event_shape = tuple(event_shape)

    @property
    def batch_shape(self):
        """The shape of the batch of distributions (a tuple)."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of one draw (a tuple)."""
        return self._event_shape

    @property
    def mean(self):
        """The mean."""
        raise NotImplementedError

    @property
    def variance(self):
        """The variance."""
        raise NotImplementedError

    def sample(self, shape=()):
        """Draws of shape ``shape + batch_shape + event_shape``, without gradient."""
        return stop_gradient(self.rsample(shape))

    def rsample(self, shape=()):
        """Reparameterised draws (gradients flow to the parameters)."""
        raise NotImplementedError(f"{type(self).__name__} has no reparameterised sampler (rsample)")

    def entropy(self):
        """The entropy, shape ``batch_shape``."""
        raise NotImplementedError

    def log_prob(self, value):
        """The log density (or mass) of ``value``."""
        raise NotImplementedError

    def prob(self, value):
        """The density (or mass) of ``value``: ``exp(log_prob(value))``."""
        return rt.exp(self.log_prob(value))

    def probs(self, value):
        """The density (or mass) of ``value`` (Paddle's older name of ``prob``)."""
        return self.prob(value)

    def kl_divergence(self, other):
        """KL(self || other), by the rule registered for the two types (``register_kl``)."""
        from .kl import kl_divergence  # noqa: PLC0415  (kl imports the distributions)
        return kl_divergence(self, other)

    def _extend_shape(self, sample_shape):
        return tuple(sample_shape) + self._batch_shape + self._event_shape

    def _draw_dims(self, shape, like):
        """``shape + batch_shape + event_shape`` as ints and run-time dims (from ``like``)."""
        full = shape_list(shape) + list(self._batch_shape) + list(self._event_shape)
        if all(d >= 0 for d in full):
            return full
        n = len(shape_list(shape))
        return full[:n] + dims_of(like, full[n:])

    # Paddle's helpers, which user subclasses call
    def _probs_to_logits(self, probs, is_binary=False):
        """``log(p) - log(1 - p)`` (binary) or ``log(p)``."""
        return rt.log(probs) - rt.log1p(-probs) if is_binary else rt.log(probs)

    def _logits_to_probs(self, logits, is_binary=False):
        """``sigmoid(logits)`` (binary) or ``softmax(logits, -1)``."""
        return rt.sigmoid(logits) if is_binary else rt.nn.functional.softmax(logits, axis=-1)

    def _to_tensor(self, *args):
        """The arguments as Tensors of one float dtype."""
        return tuple(params(*args))

    def _broadcast_all(self, *args):
        """The arguments as Tensors of one float dtype, broadcast to one shape."""
        ts = params(*args)
        return tuple(rt.broadcast_tensors(ts)) if len(ts) > 1 else tuple(ts)

    def _value(self, value):
        dt = str(self._dtype) if hasattr(self, "_dtype") else "float32"
        return to_param(value, dt)

    def __repr__(self):
        return f"{type(self).__name__}(batch_shape={list(self.batch_shape)}, event_shape={list(self.event_shape)})"
