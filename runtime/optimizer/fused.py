"""One contiguous buffer per parameter group, so an update rule runs once over all parameters.

``FlatGroup(params, accumulators)`` copies the group's parameters into one flat
array and makes each parameter's ``_value`` a view of its slice (the same for the
elementwise accumulators, e.g. Adam's moments, and a small array of the per-
parameter scalar accumulators, e.g. ``beta1_pow_acc``).  A step gathers the
gradients into one array and applies the rule's numpy expression once: the same
float operations, element by element, as the per-parameter loop, so the results
are bitwise identical, with a few numpy calls instead of a few per parameter.

``current()`` checks that every parameter and accumulator still is its view (a
``set_state_dict`` replaces arrays); the optimizer rebuilds the group when not.
"""
from operator import attrgetter, is_

import numpy as np

_value_of = attrgetter("_value")
_name_of = attrgetter("name")
_shape_of = attrgetter("shape")


class FlatGroup:
    """Parameters (and accumulators) of one group laid out in one buffer each."""

    def __init__(self, params, tables, elementwise, scalars, make_acc):
        dtype = params[0]._value.dtype
        sizes = [p._value.size for p in params]
        self.offsets = np.cumsum([0] + sizes).tolist()
        self.params = list(params)
        self.shapes = [p._value.shape for p in params]
        self.flat = np.empty(self.offsets[-1], dtype)
        self.grad = np.empty_like(self.flat)
        self.views = [self._adopt(i, p._value, self.flat) for i, p in enumerate(params)]
        for i, (p, view) in enumerate(zip(params, self.views)):
            p._value = view
        self.tables = tables
        self.acc = {}     # name -> (flat buffer, [views])
        for name in elementwise:
            buf = np.empty_like(self.flat)
            views = [self._adopt(i, make_acc(name, p), buf) for i, p in enumerate(params)]
            for p, view in zip(params, views):
                tables[name][p.name] = view
            self.acc[name] = (buf, views)
        for name in scalars:
            buf = np.empty(len(params), dtype)
            views = []
            for i, p in enumerate(params):
                buf[i] = make_acc(name, p)[0]
                views.append(buf[i:i + 1])
                tables[name][p.name] = views[-1]
            self.acc[name] = (buf, views)

    def _adopt(self, i, value, buf):
        lo, hi = self.offsets[i], self.offsets[i + 1]
        buf[lo:hi] = value.reshape(-1)
        return buf[lo:hi].reshape(value.shape)

    def current(self):
        """True while every parameter and accumulator still is this group's view, and no parameter
        has been given a learning rate or decay of its own since (``follows_group``)."""
        # map/is_ instead of a Python loop: run at every step, a few dozen identity tests
        if not all(map(is_, map(_value_of, self.params), self.views)):
            return False
        if not all(map(follows_group, self.params)):
            return False
        for name, (_, views) in self.acc.items():
            if not all(map(is_, map(self.tables[name].get, map(_name_of, self.params)), views)):
                return False
        return True

    def holds(self, params):
        """Whether ``params`` are this group's parameters, in order (a parameter frozen or unfrozen since
        changes the list a step updates)."""
        return len(params) == len(self.params) and all(map(is_, params, self.params))

    def gather(self, grads):
        """The gradients (in parameter order) as one flat array of the parameters' dtype, or None when
        one has another shape than its parameter."""
        if list(map(_shape_of, grads)) != self.shapes:
            return None
        # axis=None: each array raveled in C order, as reshape(-1), without a Python call per array
        np.concatenate(grads, axis=None, out=self.grad, casting="same_kind")
        return self.grad

    def uniform(self, name):
        """Whether every parameter's entry of scalar accumulator ``name`` holds the same value (False
        when one is NaN, as ``min() != max()`` says); one ``tolist`` instead of two reductions."""
        values = self.acc[name][0].tolist()
        return values.count(values[0]) == len(values)

    def buffer(self, name):
        """The flat array holding accumulator ``name`` for every parameter of the group."""
        return self.acc[name][0]


def trained(params):
    """The parameters a step updates: those that take a gradient. Paddle's step skips a parameter with
    ``stop_gradient`` (a frozen one, BatchNorm's running statistics) as if it were not in the group:
    no update, no decay, no accumulators. ``params`` itself when none is skipped."""
    for p in params:
        if p.stop_gradient:
            return [p for p in params if not p.stop_gradient]
    return params


def follows_group(p):
    """Whether ``p`` takes its group's update as it is: no learning rate and no decay of its own
    (``ParamAttr(learning_rate=..., regularizer=...)``), which the flat update would not apply."""
    return (getattr(p, "optimize_attr", _NO_ATTRS).get("learning_rate", 1.0) == 1.0
            and getattr(p, "regularizer", None) is None)


_NO_ATTRS = {}  # a tensor without ``optimize_attr`` (read only)


def fusable(params):
    """Whether ``params`` can share one buffer: one float dtype, writeable, no per-parameter lr."""
    if len(params) < 2:
        return False
    dtype = params[0]._value.dtype
    for p in params:
        v = p._value
        if v.dtype != dtype or dtype.kind != "f" or not v.flags.writeable or p.stop_gradient:
            return False
        if not follows_group(p):
            return False
    return len({p.name for p in params}) == len(params)
