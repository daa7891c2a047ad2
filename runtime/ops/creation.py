"""Tensor creation: to_tensor, constants, ``*_like``, ranges, eye and random tensors.

Every function goes through ``apply``, so in static mode it appends an op:
constants with fixed shapes become ``fill_constant``/``assign_value``, the
``*_like`` functions take the tensor as an input (``fill_any_like``) so unknown
(-1) dims are resolved at run time, and random tensors are ``random=True`` ops
drawing from ``runtime.random.generator()``.
"""
import numpy as np

from ..dispatch import apply
from ..dtypes import DEFAULT_FLOAT, convert_dtype, default_dtype_of, int64, promote
from ..trace_state import _mode
from ..random import generator, reseed
from ..registry import RANDOM, Meta, def_op
from .. import tensor as _tensor  # read at call time: Tensor is made after the op declarations
import runtime as _rt  # runtime.framework (Variable) loads after the op declarations: read at call time
from ..tensor import TensorLike
from .common import cast, constant, float_of, stop_gradient as _detach
from .range_values import arange_len as _arange_len, arange_values as _arange_values, linspace_tables as _linspace_tables, linspace_values as _linspace_values
from .shape import expand, reshape
from .shape_args import fill_dims, python_int, split_shape, static_dims, tensor_input
from ..hints import DTypeLike, ShapeLike


def _fill_any_like_kernel(x, value=0.0, dtype=None):
    return np.full(x.shape, value, dtype=x.dtype if dtype is None else dtype)


def_op("fill_any_like", ["X"], ["Out"], attrs={"value": 0.0, "dtype": None}, kernel=_fill_any_like_kernel,
       infer=lambda x, value=0.0, dtype=None: Meta(x.shape, x.dtype if dtype is None else dtype),
       onnx="fill_like", api=["full_like", "zeros_like", "ones_like", "empty_like"],
       methods=["zeros_like", "ones_like", "full_like"],
       doc="A tensor shaped like X (read at run time) filled with value.")
# start/end/step are declared floats so that a saved model's check takes both kinds (arange(0, 1, 0.1)).
def_op("arange", [], ["Out"], attrs={"start": 0.0, "end": 1.0, "step": 1.0, "dtype": "int64"},
       kernel=lambda start=0, end=1, step=1, dtype="int64": _arange_values(start, end, step, dtype),
       infer=lambda start=0, end=1, step=1, dtype="int64": Meta((_arange_len(start, end, step, dtype),), dtype),
       onnx="fold", api=["arange"])


def _range_kernel(start, end, step, dtype="int64"):
    return _arange_values(start.item(), end.item(), step.item(), dtype)


def_op("range", ["Start", "End", "Step"], ["Out"], attrs={"dtype": "int64"}, kernel=_range_kernel,
       infer=lambda s, e, st, dtype="int64": Meta((-1,), dtype),
       onnx="range", api=["arange"], doc="arange with tensor bounds (length known at run time).")
def_op("linspace", [], ["Out"], attrs={"start": 0.0, "stop": 1.0, "num": 1, "dtype": "float32"},
       kernel=lambda start=0.0, stop=1.0, num=1, dtype="float32": _linspace_values(start, stop, num, dtype),
       infer=lambda start=0.0, stop=1.0, num=1, dtype="float32": Meta((num,), dtype), onnx="fold", api=["linspace"])
def_op("eye", [], ["Out"], attrs={"num_rows": 1, "num_columns": 1, "dtype": "float32"},
       kernel=lambda num_rows=1, num_columns=1, dtype="float32": np.eye(num_rows, num_columns, dtype=dtype),
       infer=lambda num_rows=1, num_columns=1, dtype="float32": Meta((num_rows, num_columns), dtype),
       onnx="fold", api=["eye"])


# -- random -------------------------------------------------------------------------------------------
def _uniform_kernel(shape_tensors=None, shape=(), min=-1.0, max=1.0, dtype="float32"):  # noqa: A002
    shape = fill_dims(shape, shape_tensors, "uniform_random")
    r = generator().random(tuple(shape), dtype=np.float64 if dtype == "float64" else np.float32)
    return (r * (max - min) + min).astype(dtype, copy=False)


def _gaussian_kernel(shape_tensors=None, shape=(), mean=0.0, std=1.0, dtype="float32"):
    shape = fill_dims(shape, shape_tensors, "gaussian_random")
    r = generator().standard_normal(tuple(shape), dtype=np.float64 if dtype == "float64" else np.float32)
    return (r * std + mean).astype(dtype, copy=False)


def _randint_kernel(shape_tensors=None, shape=(), low=0, high=2, dtype="int64"):
    if high <= low:
        raise ValueError(f"randint: high ({high}) must be greater than low ({low})")
    shape = fill_dims(shape, shape_tensors, "randint")
    return generator().integers(low, high, size=tuple(shape)).astype(dtype)


def _shape_infer(st=None, shape=(), dtype="float32", **_):
    return Meta(static_dims(shape), dtype)


# None dims of ``shape`` are the values of ShapeTensor (see shape_args).
def_op("uniform_random", ["ShapeTensor*"], ["Out"], attrs={"shape": [], "min": -1.0, "max": 1.0, "dtype": "float32"},
       kernel=_uniform_kernel, infer=_shape_infer, random=True, no_onnx=RANDOM, api=["rand", "uniform"])
def_op("seed", [], [], attrs={"value": 0}, kernel=lambda value=0: (reseed(value), ())[1], infer=lambda **_: (),
       side_effect=True, no_onnx=RANDOM,
       doc="rt.seed(value) at every run (in a converted function): the random ops after it repeat their draws.")
def_op("gaussian_random", ["ShapeTensor*"], ["Out"], attrs={"shape": [], "mean": 0.0, "std": 1.0, "dtype": "float32"},
       kernel=_gaussian_kernel, infer=_shape_infer, random=True, no_onnx=RANDOM,
       api=["randn", "normal", "standard_normal"])
def_op("randint", ["ShapeTensor*"], ["Out"], attrs={"shape": [], "low": 0, "high": 2, "dtype": "int64"},
       kernel=_randint_kernel, infer=_shape_infer, random=True, no_onnx=RANDOM, api=["randint"])
def_op("randperm", [], ["Out"], attrs={"n": 1, "dtype": "int64"},
       kernel=lambda n=1, dtype="int64": generator().permutation(n).astype(dtype),
       infer=lambda n=1, dtype="int64": Meta((n,), dtype), random=True, no_onnx=RANDOM, api=["randperm"])


# -- public ----------------------------------------------------------------------------------------------
def _shaped(op, shape, what, **attrs):
    """``op`` with ``shape`` given as ints and int tensors (see shape_args)."""
    dims, tensors = split_shape(shape, what)
    return apply(op, *tensor_input(tensors), shape=dims, **attrs)


def _dtype(dtype, default):
    return str(convert_dtype(default if dtype is None else dtype))


def to_tensor(data: object, dtype: DTypeLike | None = None, place: object = None,
              stop_gradient: bool = True) -> TensorLike:
    """A Tensor from Python/numpy data: floats the default float dtype, ints int64, bools bool, ndarrays keep their dtype."""
    if isinstance(data, TensorLike):
        out = data if dtype is None else cast(data, dtype)
        # while a Program is built an eager tensor (a global, a parameter) is bound live by the op below
        if _mode.static or isinstance(out, _rt.framework.Variable):
            # Eager to_tensor copies into a new leaf, so no gradient flows back to `data`.
            out = _detach(out)
            if not stop_gradient:  # a trainable leaf, as eagerly (see the constant case below)
                out.stop_gradient = False
            return out
        out = _tensor.Tensor(np.array(out._value, copy=True), stop_gradient=stop_gradient)
        return out
    if _mode.static and _holds_tensor(data):  # its tensors (eager ones bound live) stacked, not baked in
        out = _stacked(data, dtype)
        if not stop_gradient:  # a trainable leaf (detached from the items), as eagerly
            out.stop_gradient = False
        return out
    if dtype is None and isinstance(data, (list, tuple)):
        # one numpy conversion gives the dtype (numpy's own with a Tensor among the items, as in Paddle;
        # else Python data's rules) and the values (cast after: a Python float rounds once either way)
        arr = np.asarray(data)
        dt = convert_dtype(arr.dtype) if _has_tensor_item(data) else default_dtype_of(data, arr)
        if not _mode.static:
            return _tensor.Tensor(arr if arr.dtype == dt.np else arr.astype(dt.np), stop_gradient=stop_gradient)
    else:
        dt = convert_dtype(dtype) if dtype is not None else default_dtype_of(data)
    if _mode.static:
        out = constant(data, dt)
        if not stop_gradient:  # a trainable leaf, as eagerly (dy2st checks that no gradient it gets is lost)
            out.stop_gradient = False
        return out
    return _tensor.Tensor(np.array(data, dtype=dt.np), stop_gradient=stop_gradient)


def _has_tensor_item(data):
    """Whether a list/tuple has a Tensor among its own items (not nested ones), as Paddle's test (one
    look per distinct item type: a long list of floats costs a C-level pass, not a Python loop)."""
    return any(issubclass(t, TensorLike) for t in set(map(type, data)))


def _holds_variable(data):
    return isinstance(data, (list, tuple)) and any(
        isinstance(d, _rt.framework.Variable) or _holds_variable(d) for d in data)


def _holds_tensor(data):
    return isinstance(data, (list, tuple)) and any(isinstance(d, TensorLike) or _holds_tensor(d) for d in data)


def _stacked(data, dtype):
    """``to_tensor([n, n + 1])`` while a Program is built, some items run-time values (an unknown
    dim): the items stacked as eager stacks their values, in the dtype eager gives (the given one; with
    a tensor among the items numpy's for their values, as in Paddle; else the promotion of the items'
    dtypes, Python ints int64, floats the default float dtype)."""
    items = [_stacked(d, dtype) if _holds_tensor(d) else d for d in data]
    if dtype is not None:
        dt = convert_dtype(dtype)
    elif any(_genuine_tensor(d) for d in data):
        dt = convert_dtype(np.result_type(*[_numpy_dtype(i) for i in items]))
    else:
        dt = None
        for i in items:
            d = i.dtype if isinstance(i, TensorLike) else default_dtype_of(i)
            dt = d if dt is None else promote(dt, d)
    parts = [cast(i, dt) if isinstance(i, TensorLike) else constant(i, dt) for i in items]
    return _detach(_rt.stack(parts, axis=0))


def _genuine_tensor(item):
    """A Tensor or a plain Variable: Variable subclasses stand for Python numbers in converted code."""
    return isinstance(item, _tensor.Tensor) or type(item) is _rt.framework.Variable


def _numpy_dtype(item):
    """The numpy dtype numpy's array gives ``item``'s values (a Python number's: int64, float64, bool)."""
    if _genuine_tensor(item):
        return item.dtype.np
    if isinstance(item, TensorLike):  # a Variable standing for a Python number
        return np.dtype({"f": "float64", "b": "bool"}.get(item.dtype.np.kind, "int64"))
    return np.asarray(item).dtype


def full(shape: ShapeLike, fill_value: int | float | bool | TensorLike, dtype: DTypeLike | None = None,
         name: str | None = None) -> TensorLike:
    """``shape``: ints and 1-element int Tensors, or a 1-D int Tensor (read when the Program runs)."""
    if isinstance(fill_value, _rt.framework.Variable):  # a run-time value: broadcast it to the shape
        # a bool one fills bool, as eagerly a bool's or a bool Tensor's .item() (a carried Python bool is a
        # bool Variable too); detached: eagerly (and in Paddle) no gradient reaches the value
        dt = _dtype(dtype, "bool" if fill_value.dtype == "bool" else DEFAULT_FLOAT[0])
        return _detach(expand(reshape(cast(fill_value, dt), []), shape))
    if isinstance(fill_value, _tensor.Tensor):
        fill_value = fill_value.item()
    # a bool fill gives a bool tensor, as in Paddle (not float32 ones)
    dt = _dtype(dtype, "bool" if isinstance(fill_value, (bool, np.bool_)) else DEFAULT_FLOAT[0])
    value = bool(fill_value) if dt == "bool" else fill_value
    return _shaped("fill_constant", shape, "full", value=value, dtype=dt)


def zeros(shape: ShapeLike, dtype: DTypeLike | None = None, name: str | None = None) -> TensorLike:
    """A Tensor of ``shape`` filled with 0 (the default float dtype unless ``dtype``); ``shape`` may hold int Tensors."""
    return _shaped("fill_constant", shape, "zeros", value=0.0, dtype=_dtype(dtype, DEFAULT_FLOAT[0]))


def ones(shape: ShapeLike, dtype: DTypeLike | None = None, name: str | None = None) -> TensorLike:
    """A Tensor of ``shape`` filled with 1 (the default float dtype unless ``dtype``); ``shape`` may hold int Tensors."""
    return _shaped("fill_constant", shape, "ones", value=1.0, dtype=_dtype(dtype, DEFAULT_FLOAT[0]))


def full_like(x: TensorLike, fill_value: int | float | bool, dtype: DTypeLike | None = None,
              name: str | None = None) -> TensorLike:
    """A Tensor shaped like ``x`` filled with ``fill_value``, of ``x``'s dtype unless ``dtype``."""
    if isinstance(fill_value, _rt.framework.Variable):  # a run-time value, broadcast as np.full does eagerly;
        # detached: eagerly (and in Paddle) no gradient reaches the value
        return _detach(apply("expand_as", cast(fill_value, _dtype(dtype, x.dtype)), x))
    return apply("fill_any_like", x, value=fill_value, dtype=_dtype(dtype, x.dtype))


def zeros_like(x: TensorLike, dtype: DTypeLike | None = None, name: str | None = None) -> TensorLike:
    """Zeros shaped like ``x``, of ``x``'s dtype unless ``dtype``."""
    return apply("fill_any_like", x, value=0.0, dtype=_dtype(dtype, x.dtype))


def ones_like(x: TensorLike, dtype: DTypeLike | None = None, name: str | None = None) -> TensorLike:
    """Ones shaped like ``x``, of ``x``'s dtype unless ``dtype``."""
    return apply("fill_any_like", x, value=1.0, dtype=_dtype(dtype, x.dtype))


def empty(shape: ShapeLike, dtype: DTypeLike | None = None, name: str | None = None) -> TensorLike:
    """Like ``zeros`` (this runtime always initializes memory)."""
    return zeros(shape, dtype)


def empty_like(x: TensorLike, dtype: DTypeLike | None = None, name: str | None = None) -> TensorLike:
    """Like ``zeros_like`` (this runtime always initializes memory)."""
    return zeros_like(x, dtype)


def _number(v):
    return v.item() if isinstance(v, _tensor.Tensor) else v


def arange(start: int | float | TensorLike = 0, end: int | float | TensorLike | None = None,
           step: int | float | TensorLike = 1, dtype: DTypeLike | None = None, name: str | None = None) -> TensorLike:
    """Values from ``start`` to ``end`` (exclusive) by ``step``; ``arange(n)`` counts from 0.

    int64 when every bound is an int, else the default float dtype; bounds may be 1-element Tensors (a ``range`` op).
    """
    if end is None:
        start, end = 0, start
    if any(isinstance(v, _rt.framework.Variable) for v in (start, end, step)):
        dt = _dtype(dtype, int64 if all(_is_int(v) for v in (start, end, step)) else DEFAULT_FLOAT[0])
        bounds = [cast(v, dt) if isinstance(v, TensorLike) else constant(v, dt) for v in (start, end, step)]
        return apply("range", *bounds, dtype=dt)
    start, end, step = _number(start), _number(end), _number(step)
    dt = _dtype(dtype, int64 if all(_is_int(v) for v in (start, end, step)) else DEFAULT_FLOAT[0])
    return apply("arange", start=start, end=end, step=step, dtype=dt)


def _is_int(v):
    if isinstance(v, TensorLike):
        return v.dtype in ("int8", "int16", "int32", "int64", "uint8")
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def linspace(start: float | TensorLike, stop: float | TensorLike, num: int | TensorLike, dtype: DTypeLike | None = None,
             name: str | None = None) -> TensorLike:
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive (the default float dtype unless ``dtype``)."""
    if any(isinstance(v, _rt.framework.Variable) for v in (start, stop)):
        if np.dtype(str(_dtype(dtype, DEFAULT_FLOAT[0]))).kind == "f":
            return _float_linspace_at_run_time(start, stop, python_int(num, "linspace", "num"),
                                               str(_dtype(dtype, DEFAULT_FLOAT[0])))
        return _linspace_at_run_time(start, stop, python_int(num, "linspace", "num"), _dtype(dtype, DEFAULT_FLOAT[0]))
    return apply("linspace", start=float(_number(start)), stop=float(_number(stop)),
                 num=python_int(num, "linspace", "num"), dtype=_dtype(dtype, DEFAULT_FLOAT[0]))


def _float_linspace_at_run_time(start, stop, num, dtype):
    """The float linspace kernel's arithmetic (``_linspace_values``) with ``start``/``stop`` read when
    the Program runs (eagerly ``float()`` reads: one element, no gradient), op by op in its dtype."""
    w = "float64" if dtype == "float64" else "float32"

    def number(v):
        if isinstance(v, _rt.framework.Variable):
            return float_of(v, w)
        return constant(np.asarray(float(_number(v)), w), w)

    s, e = number(start), number(stop)
    if num < 2:
        return cast(apply("add", constant(np.zeros(num, w), w), s), dtype)
    step = apply("divide", apply("subtract", e, s), constant(np.asarray(num - 1, w), w))
    lo, hi, first = _linspace_tables(num, np.dtype(w))
    y = apply("where", constant(first, "bool"), apply("add", s, apply("multiply", step, constant(lo, w))),
              apply("subtract", e, apply("multiply", step, constant(hi, w))))
    return cast(y, dtype)


def _linspace_at_run_time(start, stop, num, dtype):
    """The linspace kernel's np.linspace steps in float64 with ``start``/``stop`` read when the Program
    runs (eagerly ``float()`` reads: one element, no gradient), so each value rounds as eagerly: the
    zero-step branch for denormal steps (numpy gh-5437), ``stop`` itself last, then the cast."""
    def number(v):
        if isinstance(v, _rt.framework.Variable):
            return float_of(v)
        return constant(np.asarray(float(_number(v)), "float64"), "float64")

    def f64(v):
        return constant(np.asarray(v, "float64"), "float64")

    a, b = number(start), number(stop)
    delta = apply("subtract", b, a)
    if num <= 1:  # no step: 0 * delta + start, as numpy (nan for an infinite delta)
        return cast(apply("add", apply("multiply", f64(np.zeros(num)), delta), a), dtype)
    div, steps = f64(float(num - 1)), f64(np.arange(num - 1, dtype="float64"))
    step = apply("divide", delta, div)
    tiny = apply("multiply", apply("divide", steps, div), delta)
    y = apply("where", apply("equal", step, f64(0.0)), tiny, apply("multiply", steps, step))
    return cast(apply("concat", [apply("add", y, a), reshape(b, [1])], axis=0), dtype)


def eye(num_rows: int | TensorLike, num_columns: int | TensorLike | None = None, dtype: DTypeLike | None = None,
        name: str | None = None) -> TensorLike:
    """A 2-D identity matrix of ``num_rows`` x ``num_columns`` (square by default), the default float dtype unless ``dtype``."""
    num_columns = num_rows if num_columns is None else num_columns
    if any(isinstance(n, _rt.framework.Variable) for n in (num_rows, num_columns)):  # sizes known at run time
        rows = apply("unsqueeze", arange(num_rows), axis=[1])
        cols = apply("unsqueeze", arange(num_columns), axis=[0])
        return cast(apply("equal", rows, cols), _dtype(dtype, DEFAULT_FLOAT[0]))
    return apply("eye", num_rows=python_int(num_rows, "eye", "num_rows"),
                 num_columns=python_int(num_columns, "eye", "num_columns"), dtype=_dtype(dtype, DEFAULT_FLOAT[0]))


def rand(shape: ShapeLike, dtype: DTypeLike | None = None, name: str | None = None) -> TensorLike:
    """Uniform samples in [0, 1) of ``shape`` (the default float dtype unless ``dtype``); repeatable after ``rt.seed``."""
    return _shaped("uniform_random", shape, "rand", min=0.0, max=1.0, dtype=_dtype(dtype, DEFAULT_FLOAT[0]))


def uniform(shape: ShapeLike, dtype: DTypeLike | None = None, min: float = -1.0, max: float = 1.0, seed: int = 0,
            name: str | None = None) -> TensorLike:  # noqa: A002
    """Uniform samples in [``min``, ``max``) of ``shape``; ``seed`` is accepted and ignored (use ``rt.seed``)."""
    return _shaped("uniform_random", shape, "uniform", min=float(min), max=float(max),
                   dtype=_dtype(dtype, DEFAULT_FLOAT[0]))


def randn(shape: ShapeLike, dtype: DTypeLike | None = None, name: str | None = None) -> TensorLike:
    """Standard normal samples of ``shape`` (the default float dtype unless ``dtype``); repeatable after ``rt.seed``."""
    return _shaped("gaussian_random", shape, "randn", mean=0.0, std=1.0, dtype=_dtype(dtype, DEFAULT_FLOAT[0]))


def normal(mean: float = 0.0, std: float = 1.0, shape: ShapeLike | None = None, name: str | None = None) -> TensorLike:
    """Samples of N(``mean``, ``std``) with ``shape`` ([1] by default), of the default float dtype;
    ``mean``/``std`` are Python numbers."""
    return _shaped("gaussian_random", [1] if shape is None else shape, "normal", mean=float(mean),
                   std=float(std), dtype=str(DEFAULT_FLOAT[0]))


def standard_normal(shape: ShapeLike, dtype: DTypeLike | None = None, name: str | None = None) -> TensorLike:
    """Same as ``randn``."""
    return randn(shape, dtype)


def randint(low: int = 0, high: int | None = None, shape: ShapeLike = (1,), dtype: DTypeLike | None = None,
            name: str | None = None) -> TensorLike:
    """Random ints in [``low``, ``high``) of ``shape`` (int64 unless ``dtype``); ``randint(n)`` means [0, n)."""
    if high is None:
        low, high = 0, low
    return _shaped("randint", shape, "randint", low=int(low), high=int(high), dtype=_dtype(dtype, int64))


def randperm(n: int, dtype: DTypeLike = "int64", name: str | None = None) -> TensorLike:
    """A random permutation of ``0..n-1``."""
    return apply("randperm", n=int(n), dtype=_dtype(dtype, int64))
