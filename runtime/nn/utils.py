"""``rt.nn.utils`` (Paddle's ``paddle.nn.utils``): weight and spectral normalisation as forward
pre-hooks, gradient clipping of ``.grad`` in place, and parameters to and from one vector; plus
``rt.create_parameter``.

``weight_norm`` and ``spectral_norm`` compute the weight with registered ops at every forward (the
power iteration's vectors are buffers written with ``assign_to``, as BatchNorm's running statistics),
so they convert and train like the layer's own code. The gradient clippers and the vector
functions work on eager values only, as Paddle's (``RuntimeError`` inside a converted function).
"""
import numpy as np

from ..dispatch import apply
from ..dtypes import DEFAULT_FLOAT
from ..ops.common import as_tensor, assign_to, stop_gradient
from ..ops.linalg import dot, mv
from ..ops.math import divide, matmul
from ..ops.composites_extra import normalize
from ..ops.math import multiply
from ..ops.reduce import sum as sum_
from ..ops.elementwise import sqrt
from ..ops.shape import reshape, transpose
from ..tensor import Parameter, Tensor
from ..trace_state import _mode
from .layer import Layer


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False, default_initializer=None):
    """A new Parameter of ``shape`` and ``dtype`` (Paddle's ``paddle.create_parameter``), initialized by
    ``attr``'s initializer, else ``default_initializer``, else zeros for a bias and Xavier-uniform otherwise."""
    from .param_attr import ParamAttr  # noqa: PLC0415
    attr = ParamAttr.resolve(attr)
    if name is not None and attr is not False and attr.name is None:
        attr.name = name
    return Layer(name_scope="create_parameter", dtype=dtype).create_parameter(
        shape, attr=attr, dtype=dtype, is_bias=is_bias, default_initializer=default_initializer)


# -- weight normalisation ----------------------------------------------------------------------------
def _moved(x, dim):
    """``x`` with axis ``dim`` swapped with axis 0 (its own inverse)."""
    if dim == 0:
        return x
    perm = list(range(x.ndim))
    perm[0], perm[dim] = dim, 0
    return transpose(x, perm)


def _norm_except_dim(v, dim):
    """Paddle's ``norm_except_dim``: sqrt(sum of squares + 1e-12) over every axis but ``dim`` (all, -1)."""
    if dim == -1:
        return sqrt(sum_(multiply(v, v)) + 1e-12)
    m = reshape(_moved(v, dim), [v.shape[dim], -1])
    return sqrt(sum_(multiply(m, m), axis=1) + 1e-12)


def _weight(v, g, dim):
    """``g * v / ||v||`` with the norm over every axis but ``dim``."""
    if dim == -1:
        return multiply(v, g) / (sqrt(sum_(multiply(v, v))) + 1e-12)
    moved = _moved(v, dim)
    shape = list(moved.shape)
    unit = reshape(normalize(reshape(moved, [shape[0], -1]), axis=1), shape)
    return _moved(multiply(unit, reshape(g, [shape[0]] + [1] * (len(shape) - 1))), dim)


class WeightNorm:
    """The forward pre-hook ``weight_norm`` registers: sets ``layer.{name}`` from ``{name}_g`` and ``{name}_v``."""

    def __init__(self, name, dim):
        self.name, self.dim = name, dim

    def compute_weight(self, layer):
        """``layer``'s weight from its current ``{name}_g`` and ``{name}_v``."""
        return _weight(getattr(layer, self.name + "_v"), getattr(layer, self.name + "_g"), self.dim)

    def __call__(self, layer, inputs):
        setattr(layer, self.name, self.compute_weight(layer))


def weight_norm(layer: Layer, name: str = "weight", dim: int | None = 0) -> Layer:
    """Re-parameterise ``layer.{name}`` as ``g * v / ||v||`` (parameters ``{name}_g``, the norms over
    every axis but ``dim`` (``None``: one norm of everything), and ``{name}_v``), recomputed at every forward."""
    if any(isinstance(h, WeightNorm) and h.name == name for h in layer._forward_pre_hooks):
        raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
    w = layer._parameters.get(name)
    if w is None:
        raise ValueError(f"weight_norm: {type(layer).__name__} has no parameter {name!r}")
    dim = -1 if dim is None else dim
    if not -w.ndim <= dim < w.ndim:
        raise ValueError(f"weight_norm: dim must be in [-{w.ndim}, {w.ndim}), got {dim}")
    dim = dim if dim == -1 else dim % w.ndim
    hook = WeightNorm(name, dim)
    g = _norm_except_dim(Tensor(w._value), dim)
    del layer._parameters[name]
    layer.add_parameter(name + "_v", Parameter(w._value.copy(), name=w.name + "_v"))
    layer.add_parameter(name + "_g", Parameter(g._value.copy(), name=w.name + "_g"))
    setattr(layer, name, hook.compute_weight(layer))
    layer.register_forward_pre_hook(hook)
    return layer


def remove_weight_norm(layer: Layer, name: str = "weight") -> Layer:
    """Undo ``weight_norm``: ``layer.{name}`` is a plain Parameter again, holding the current ``g * v / ||v||``."""
    for hook in list(layer._forward_pre_hooks):
        if isinstance(hook, WeightNorm) and hook.name == name:
            w = hook.compute_weight(layer)
            name_v = layer._parameters[name + "_v"].name
            for suffix in ("_g", "_v"):
                del layer._parameters[name + suffix]
            layer.__dict__.pop(name, None)
            layer.add_parameter(name, Parameter(np.array(w._value), name=name_v[:-2]))
            layer._forward_pre_hooks.remove(hook)
            return layer
    raise ValueError(f"weight_norm of '{name}' not found in {layer}")


# -- spectral normalisation ----------------------------------------------------------------------------
class SpectralNorm:
    """The forward pre-hook ``spectral_norm`` registers: ``layer.{name} = {name}_orig / sigma``, sigma
    the largest singular value estimated by power iteration (one round per forward while training)."""

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got n_power_iterations="
                             f"{n_power_iterations}")
        self.name, self.n_power_iterations, self.dim, self.eps = name, n_power_iterations, dim, eps

    def reshape_weight_to_matrix(self, weight):
        """``weight`` with axis ``dim`` first, as a [that dim, everything else] matrix."""
        if self.dim != 0:
            weight = transpose(weight, [self.dim] + [d for d in range(weight.ndim) if d != self.dim])
        return reshape(weight, [weight.shape[0], -1])

    def compute_weight(self, layer, do_power_iteration):
        """``{name}_orig / sigma``; ``do_power_iteration`` first refines the buffers ``{name}_u``/``_v``."""
        weight = getattr(layer, self.name + "_orig")
        u, v = getattr(layer, self.name + "_u"), getattr(layer, self.name + "_v")
        mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            fixed = stop_gradient(mat)  # Paddle runs the iteration under no_grad
            for _ in range(self.n_power_iterations):
                assign_to(normalize(matmul(fixed, u, transpose_x=True), axis=0, epsilon=self.eps), v)
                assign_to(normalize(matmul(fixed, v), axis=0, epsilon=self.eps), u)
            # copies: the product below keeps these values for the backward, whatever the next forward writes
            u, v = apply("assign", u), apply("assign", v)
        return divide(weight, dot(u, mv(mat, v)))

    def __call__(self, layer, inputs):
        setattr(layer, self.name, self.compute_weight(layer, do_power_iteration=layer.training))


def spectral_norm(layer: Layer, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Layer:
    """Divide ``layer.{name}`` by its spectral norm at every forward (parameter ``{name}_orig``, buffers
    ``{name}_u`` and ``{name}_v`` drawn from N(0, 1) and normalised). ``dim`` defaults to 1 for Linear
    and transposed convolutions, else 0."""
    if any(isinstance(h, SpectralNorm) and h.name == name for h in layer._forward_pre_hooks):
        raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
    if dim is None:
        dim = 1 if type(layer).__name__ in ("Linear", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose") else 0
    hook = SpectralNorm(name, n_power_iterations, dim, eps)
    weight = layer._parameters[name]
    h, w = hook.reshape_weight_to_matrix(Tensor(weight._value)).shape
    from ..random import generator  # noqa: PLC0415
    dt = weight._value.dtype
    u = normalize(Tensor(generator().standard_normal(h).astype(dt)), axis=0, epsilon=eps)
    v = normalize(Tensor(generator().standard_normal(w).astype(dt)), axis=0, epsilon=eps)
    del layer._parameters[name]
    layer.add_parameter(name + "_orig", weight)
    setattr(layer, name, weight * 1.0)
    layer.register_buffer(name + "_u", Tensor(u._value))
    layer.register_buffer(name + "_v", Tensor(v._value))
    layer.register_forward_pre_hook(hook)
    return layer


# -- gradients and vectors (eager only, as Paddle's) ------------------------------------------------
def _eager_only(what):
    if _mode.static:
        raise RuntimeError(f"{what} can only run in dynamic mode (eagerly), not inside a converted function")


def _params(parameters):
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False):
    """Scale the ``.grad`` of ``parameters`` in place so their total ``norm_type`` norm (inf, 0, 1 or 2)
    is at most ``max_norm`` (by ``max_norm / (total + 1e-6)``); returns the total norm."""
    _eager_only("clip_grad_norm_")
    params = _params(parameters)
    if float(norm_type) not in (float("inf"), 0.0, 1.0, 2.0):
        raise ValueError(f"clip_grad_norm_: norm_type only supports [inf, 0, 1, 2], got {norm_type}")
    grads = [p.grad._value for p in params if p.grad is not None]
    if not grads:
        return as_tensor(0.0, str(DEFAULT_FLOAT[0]))
    norm_type = float(norm_type)
    dt = grads[0].dtype.type
    if norm_type == float("inf"):
        total = np.max(np.stack([np.abs(g).max() for g in grads]))
    elif norm_type == 0:  # Paddle's: the 0-"norm" (nonzero count) of the per-gradient counts
        total = dt(np.count_nonzero([np.count_nonzero(g) for g in grads]))
    else:
        norms = np.stack([np.sum(np.abs(g) ** dt(norm_type)) ** dt(1 / norm_type) for g in grads])
        total = np.sum(norms ** dt(norm_type)) ** dt(1 / norm_type)
    total = dt(total)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(f"The total norm of {norm_type} order of the gradients from `parameters` is non-finite, "
                           "so it cannot be clipped; set error_if_nonfinite=False to scale by it anyway")
    coef = min(dt(max_norm) / (total + dt(1e-6)), dt(1.0))
    for p in params:
        if p.grad is not None:
            p.grad = Tensor(p.grad._value * dt(coef))
    return Tensor(np.asarray(total))


def clip_grad_value_(parameters, clip_value: float) -> None:
    """Clip every ``.grad`` of ``parameters`` in place to ``[-clip_value, clip_value]``."""
    _eager_only("clip_grad_value_")
    c = float(clip_value)
    for p in _params(parameters):
        if p.grad is not None:
            g = p.grad._value
            p.grad = Tensor(np.clip(g, g.dtype.type(-c), g.dtype.type(c)))


def parameters_to_vector(parameters, name=None):
    """The values of ``parameters`` flattened and joined into one 1-D Tensor (a new leaf that needs a gradient)."""
    _eager_only("parameters_to_vector")
    params = list(parameters)
    out = Tensor(np.concatenate([p._value.reshape(-1) for p in params]).astype(params[0]._value.dtype))
    out.stop_gradient = False
    return out


def vector_to_parameters(vec, parameters, name=None) -> None:
    """Write consecutive slices of the 1-D ``vec`` into ``parameters`` (each its own shape)."""
    _eager_only("vector_to_parameters")
    if vec.ndim != 1:
        raise ValueError(f"vector_to_parameters: vec must be 1-D, got shape {vec.shape}")
    params, flat, at = list(parameters), vec._value, 0
    total = sum(int(np.prod(p.shape)) for p in params)
    if total > flat.shape[0]:
        raise ValueError("The total_elements of vec should be equal to or larger than the number of elements in "
                         f"parameters ({flat.shape[0]} < {total})")
    for p in params:
        n = int(np.prod(p.shape))
        p.set_value(flat[at:at + n].reshape(p._value.shape).astype(p._value.dtype))
        at += n
