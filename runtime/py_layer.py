"""``PyLayer``: user-defined differentiable ops (``rt.autograd.PyLayer``), with ``PyLayerContext``,
``once_differentiable`` and the ``py_layer`` op that carries a PyLayer in a Program.

Eagerly, ``PyLayer.apply`` runs ``forward`` with the tape off and records one tape node whose
backward (``_Backward``) calls the user's ``backward``; in a Program, ``forward`` is traced and
its outputs pass through one ``py_layer`` op whose gradient rule traces ``backward``. See
``runtime.autograd``, which re-exports these names, for the whole picture.
"""
import numpy as np

from . import framework
from .dispatch import apply as apply_op
from .framework import Variable
from .ops.common import stop_gradient
from .ops.creation import zeros_like
from .registry import Meta, def_op
from .tensor import Node, Tensor, TensorLike, _flat_inputs, _grad_mode, no_grad


class PyLayerContext:
    """The ``ctx`` a PyLayer's forward fills and its backward reads; any attribute may be set on it."""

    def __init__(self):
        self._saved = ()
        self._non_diff = set()
        self.materialize_grads = True
        self.needs_input_grad = ()

    def save_for_backward(self, *tensors):
        """Keep values (Tensors or anything else) for ``backward``; read them with ``saved_tensor()``."""
        self._saved = tensors

    def saved_tensor(self):
        """The values given to ``save_for_backward``, as a tuple."""
        return self._saved

    def mark_non_differentiable(self, *tensors):
        """Outputs that get no gradient (their grads reach ``backward`` as zeros, or None)."""
        self._non_diff.update(id(t) for t in tensors)

    def mark_not_inplace(self, *tensors):
        """Accepted for Paddle compatibility: outputs are always new Tensors here."""

    def set_materialize_grads(self, value):
        """False: outputs that received no gradient reach ``backward`` as None instead of zeros."""
        self.materialize_grads = bool(value)


class PyLayer:
    """Base class of a user-defined op: subclass it with static ``forward(ctx, ...)`` and ``backward(ctx, ...)``."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        """Compute the outputs from ``args``; a subclass defines it as a staticmethod taking ``ctx`` first."""
        raise NotImplementedError("a PyLayer subclass must define a static forward(ctx, ...)")

    @staticmethod
    def backward(ctx, *grads):
        """Return the gradients of the inputs, one per forward input, from the outputs' gradients ``grads``."""
        raise NotImplementedError("a PyLayer subclass must define a static backward(ctx, *grads)")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run ``forward`` and, when an input needs a gradient, record one tape node for ``backward``.

        As in Paddle, the inputs are the Tensors among the positional arguments, then among the keyword
        values (lists/tuples opened one level); forward may also return non-Tensor values (numbers,
        None, strings), which pass through: ``backward`` gets one gradient per Tensor output."""
        inputs = [t for t in _flat_inputs(args + tuple(kwargs.values())) if isinstance(t, TensorLike)]
        if framework._mode.static or any(isinstance(t, Variable) for t in inputs):
            return _apply_static(cls, inputs, args, kwargs)
        ctx = PyLayerContext()
        ctx.needs_input_grad = tuple(not t.stop_gradient for t in inputs)
        with no_grad():
            result = cls.forward(ctx, *args, **kwargs)
        outs = _forward_outputs(cls, result, Tensor)
        if not (_grad_mode.enabled and any(not t.stop_gradient for t in inputs)):
            return result
        values = [o._value for o in outs]
        node = Node(None, inputs, {}, values, custom_backward=_Backward(cls, ctx, inputs, values))
        wrapped = [Tensor._wrap(o._value, (node, i))
                   if o._value.dtype.kind == "f" and id(o) not in ctx._non_diff else o
                   for i, o in enumerate(outs)]
        return _with_outputs(result, wrapped, Tensor)


class _StaticLayer:
    """What a ``py_layer`` op's gradient rule needs: the PyLayer class and the ctx its forward filled."""

    __slots__ = ("cls", "ctx")

    def __init__(self, cls, ctx):
        self.cls, self.ctx = cls, ctx

    def __repr__(self):
        return f"<PyLayer {self.cls.__name__}>"

    def saved_attr(self):
        """What a saved Program keeps: the class name. Its forward ops are in the Program, so the
        saved model runs; its backward is Python code, so a loaded model cannot differentiate it."""
        return self.cls.__name__


def _forward_outputs(cls, result, kind):
    """The Tensor outputs of ``forward`` (one value or a tuple/list); at least one is needed."""
    outs = [o for o in (result if isinstance(result, (tuple, list)) else [result]) if isinstance(o, kind)]
    if not outs:
        raise TypeError(f"{cls.__name__}.forward must return a Tensor, or a tuple/list holding Tensors; "
                        f"it returned {type(result).__name__}")
    return outs


def _with_outputs(result, tensors, kind):
    """``result`` with its Tensor outputs replaced, in order, by ``tensors`` (other values kept)."""
    if not isinstance(result, (tuple, list)):
        return tensors[0]
    it = iter(tensors)
    out = [next(it) if isinstance(o, kind) else o for o in result]
    return tuple(out) if isinstance(result, tuple) else out


def _apply_static(cls, inputs, args, kwargs):
    ctx = PyLayerContext()
    ctx.needs_input_grad = tuple(not t.stop_gradient for t in inputs)
    result = cls.forward(ctx, *args, **kwargs)
    outs = _forward_outputs(cls, result, TensorLike)
    if not inputs:
        return result
    got = apply_op("py_layer", inputs, outs, layer=_StaticLayer(cls, ctx))
    # As eagerly, outputs marked non-differentiable get no gradient path (a Program cuts one with a
    # stop_gradient op): their users' gradients must not reach the inputs, not even as zeros.
    got = [stop_gradient(g) if id(o) in ctx._non_diff else g for o, g in zip(outs, got)]
    return _with_outputs(result, got, TensorLike)


def _py_layer_grad(gctx):
    rec = gctx.attrs["layer"]
    if not isinstance(rec, _StaticLayer):  # a loaded Program: the class name only (see saved_attr)
        raise RuntimeError(f"the PyLayer {rec!r} of a loaded model has no backward: its backward is Python code, "
                           "which a saved model does not keep. Load the model for inference (eval()), or "
                           "fine-tune the original Layer")
    xs, _ = gctx.inputs
    grads = []
    for g, o in zip(gctx.out_grads, gctx.outputs):
        if g is None and rec.ctx.materialize_grads:
            g = zeros_like(o)
        grads.append(g)
    res = _Backward(rec.cls, rec.ctx, xs, None).check(rec.cls.backward(rec.ctx, *grads))
    return [res, None]


def_op("py_layer", ["X*", "Y*"], ["Out*"], attrs={"layer": None},
       kernel=lambda xs, ys, layer=None: list(ys),
       infer=lambda xs, ys, layer=None: [Meta(y.shape, y.dtype) for y in ys],
       grad=_py_layer_grad, no_onnx="a PyLayer's backward is user Python code; its forward ops are in the Program",
       doc="A PyLayer in a Program: Out is forward's result Y; the gradient w.r.t. X is the PyLayer's backward.")


class _Backward:
    """The tape node's backward: output grads (arrays or None) -> one grad per Tensor input."""

    __slots__ = ("cls", "ctx", "inputs", "values")

    def __init__(self, cls, ctx, inputs, values):
        self.cls, self.ctx, self.inputs, self.values = cls, ctx, inputs, values

    def __call__(self, out_grads):
        grads = []
        for g, v in zip(out_grads, self.values):
            if g is None:
                grads.append(Tensor._wrap(np.zeros_like(v)) if self.ctx.materialize_grads else None)
            else:
                grads.append(g if isinstance(g, Tensor) else Tensor._wrap(g))
        return self.check(self.cls.backward(self.ctx, *grads))

    def check(self, res):
        """One gradient (Tensor, Variable or None) per input, shapes checked where they are known."""
        # opened one level, as the inputs were: a list input gets a list of gradients (Paddle's rule)
        res = list(_flat_inputs(res)) if isinstance(res, (tuple, list)) else [res]
        name = self.cls.__name__
        if len(res) != len(self.inputs):
            raise ValueError(f"{name}.backward returned {len(res)} gradients; forward took {len(self.inputs)} "
                             "Tensor inputs and needs one gradient (or None) for each")
        out = []
        for i, (g, t) in enumerate(zip(res, self.inputs)):
            if g is None or isinstance(g, Variable):
                out.append(g)
                continue
            if not isinstance(g, Tensor):
                g = Tensor._wrap(np.asarray(g, dtype=str(t.dtype)))
            if len(g.shape) != len(t.shape) or any(a != b and b >= 0 for a, b in zip(g.shape, t.shape)):
                raise ValueError(f"{name}.backward: the gradient of input {i} has shape {g.shape}, "
                                 f"the input has shape {t.shape}")
            out.append(g)
        return out


def once_differentiable(backward):
    """Mark a PyLayer's ``backward`` as not differentiable itself: ``rt.grad(..., create_graph=True)``
    through it raises instead of silently dropping second-order terms."""
    backward.once_differentiable = True
    return backward
