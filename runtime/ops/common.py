"""Helpers every op module shares: operand conversion, broadcasting, gradient reduction."""
import numpy as np

from ..dispatch import append_op, apply, exact_float, to_variable
from ..dtypes import convert_dtype, default_dtype_of, promote, scalar_dtype
from .. import tensor as _tensor  # read at call time: Tensor is made after the op declarations
import runtime as _rt  # runtime.framework (Variable) loads after the op declarations: read at call time
from ..trace_state import STATIC_MODE, _mode
from ..registry import Meta, def_op, get_op
from .shape_args import fill_dims, static_dims
from ..tensor import TensorLike
from ..hints import DTypeLike

SCALARS = (bool, int, float, np.bool_, np.integer, np.floating)


def is_tensor(x):
    """True for an eager Tensor or a static Variable."""
    return isinstance(x, TensorLike)


def window_ints(v, what):
    """``v`` (a sequence of ints: a kernel size, stride, padding...) as a list of ints.

    A value known only when the Program runs (``x.shape[-1]`` of a dim an InputSpec leaves None) is
    a TypeError that says so: a window's size fixes the shape of the result when the Program is built.
    """
    try:
        return [int(d) for d in v]
    except TypeError:
        from ..variable import Variable  # noqa: PLC0415  (its class is built on the op methods)
        if isinstance(v, Variable) or isinstance(v, (list, tuple)) and any(isinstance(d, Variable) for d in v):
            raise TypeError(
                f"{what} is known only when the Program runs (it comes from a dim the input_spec leaves None, "
                f"such as x.shape[-1]), but it sets the shape of the result and must be a Python int when "
                f"the Program is built. Give that dim in the InputSpec, or for a window over the whole "
                f"input use an adaptive pool (F.adaptive_max_pool1d(x, 1), F.adaptive_avg_pool2d(x, 1))"
            ) from None
        raise


def constant(value, dtype):
    """A constant as a Tensor (eager) or a ``fill_constant``/``assign_value`` op (static)."""
    dtype = convert_dtype(dtype)
    arr = np.asarray(value, dtype=dtype.np)
    if STATIC_MODE.get():  # ``_mode.static`` without its property frame
        if arr.ndim == 0:
            # apply("fill_constant", ...) without apply's look-ups: one such op per Python scalar operand
            return append_op(get_op("fill_constant"), (), {"shape": [], "value": arr.item(), "dtype": str(dtype)})
        return apply("assign_value", shape=list(arr.shape), dtype=str(dtype), values=arr.ravel().tolist())
    return _tensor.Tensor._wrap(arr)


def as_tensor(x, dtype=None):
    """Tensors pass through; scalars, lists and arrays become constants."""
    if isinstance(x, TensorLike):
        return x if dtype is None or x.dtype == dtype else cast(x, dtype)
    return constant(x, dtype if dtype is not None else default_dtype_of(x))


def cast(x: TensorLike, dtype: DTypeLike) -> TensorLike:
    """``x`` converted to ``dtype`` (``x`` itself when it already has it)."""
    dtype = convert_dtype(dtype)
    if x.dtype == dtype:
        return x
    return apply("cast", x, dtype=str(dtype))


def binary_operands(x, y):
    """Bring two operands (Tensor/Variable, Python scalar or ndarray) to one dtype."""
    xt, yt = isinstance(x, TensorLike), isinstance(y, TensorLike)
    if xt and yt:
        dt = promote(x.dtype, y.dtype)
        if dt != x.dtype or dt != y.dtype:
            # a Python number a converted function holds as a Variable (``Variable.python_number``)
            # takes the dtype it would eagerly next to the other operand (uint8 stays uint8, float16
            # float16); a float's cast starts from its float64 value (dispatch.EXACT_FLOATS)
            nx, ny = getattr(x, "python_number", None), getattr(y, "python_number", None)
            if nx is not None and ny is None:
                dt = scalar_dtype(nx, y.dtype)
            elif ny is not None and nx is None:
                dt = scalar_dtype(ny, x.dtype)
        return cast(x, dt), cast(y, dt)
    if xt:
        return _with_other(x, y)
    if yt:
        b, a = _with_other(y, x)
        return a, b
    raise TypeError(f"expected at least one Tensor operand, got {type(x).__name__} and {type(y).__name__}")


def _with_other(t, other):
    if isinstance(other, SCALARS):
        other = other.item() if isinstance(other, np.generic) else other
        dt = scalar_dtype(other, t.dtype)
        return cast(t, dt), constant(other, dt)
    if isinstance(other, (np.ndarray, list, tuple)):
        o = as_tensor(other)
        dt = promote(t.dtype, o.dtype)
        return cast(t, dt), cast(o, dt)
    raise TypeError(f"unsupported operand type {type(other).__name__} with a Tensor")


def broadcast_shape(a, b, what="operands"):
    """numpy broadcasting with ``-1`` for unknown dims; incompatible shapes raise ValueError."""
    a, b = tuple(a), tuple(b)
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + a
    b = (1,) * (n - len(b)) + b
    out = []
    for da, db in zip(a, b):
        if da == db:
            out.append(da)
        elif da == 1:
            out.append(db)
        elif db == 1:
            out.append(da)
        elif da == -1 or db == -1:
            out.append(max(da, db))
        else:
            raise ValueError(f"shapes {list(a)} and {list(b)} of the {what} cannot be broadcast together "
                             f"(dims {da} and {db} differ and neither is 1)")
    return tuple(out)


def infer_broadcast(x, y, **_):
    """Shape inference of a binary elementwise op: the broadcast shape, the first input's dtype."""
    return Meta(broadcast_shape(x.shape, y.shape), x.dtype)


def same_as(x, **_):
    """Shape inference of an op whose output has its input's shape and dtype."""
    return Meta(x.shape, x.dtype)


def same_as_grad(_, g, **__):
    """Shape inference of a gradient op ``(X or Out or Mask, OutGrad) -> XGrad``: OutGrad's shape and dtype."""
    return Meta(g.shape, g.dtype)


def reduce_as(g, like):
    """Sum ``g`` down to the shape of ``like`` (undoing broadcasting) when they differ."""
    if g is None:
        return None
    if isinstance(g, _rt.framework.Variable) or isinstance(like, _rt.framework.Variable):
        if list(g.shape) == list(like.shape) and -1 not in g.shape:  # an unknown dim may be a broadcast 1
            return g
        return apply("reduce_as", g, like)
    if g._value.shape == like._value.shape:
        return g
    return apply("reduce_as", g, like)


def _reduce_as_kernel(g, like):
    if g.shape == like.shape:
        return g
    if g.ndim == like.ndim + 1 and g.shape[1:] == like.shape:
        # a bias gradient: the batch axis summed (the same sum as below; add.reduce is what
        # ndarray.sum calls, without its Python wrapper)
        return np.add.reduce(g, axis=0)
    nlead = g.ndim - like.ndim
    axes = tuple(range(nlead)) + tuple(i + nlead for i, d in enumerate(like.shape)
                                       if d == 1 and g.shape[i + nlead] != 1)
    out = g.sum(axis=axes, keepdims=True) if axes else g
    return out.reshape(like.shape)


def _expand_as_kernel(x, like):
    return np.broadcast_to(x, like.shape).copy()


def _same_shape_alias(block, op):
    """reduce_as/expand_as between equal, fully known static shapes: X itself."""
    x, t = block._find_var(op.input("X")[0]), block._find_var(op.input("Target")[0])
    if x is not None and t is not None and x.shape == t.shape and -1 not in x.shape:
        return op.input("X")[0]
    return None


def _same_dtype_alias(block, op):
    """A cast to the dtype X already has: X itself."""
    x = block._find_var(op.input("X")[0])
    return op.input("X")[0] if x is not None and x.dtype == op.attrs.get("dtype") else None


def_op("reduce_as", ["X", "Target"], ["Out"], kernel=_reduce_as_kernel, alias=_same_shape_alias,
       infer=lambda x, t, **_: Meta(t.shape, x.dtype),
       grad=lambda ctx: [apply("expand_as", ctx.out_grads[0], ctx.inputs[0]), None], onnx="reduce_as",
       doc="Sum X over broadcast dims so it has Target's shape (gradient of broadcasting).")
def_op("expand_as", ["X", "Target"], ["Out"], kernel=_expand_as_kernel, alias=_same_shape_alias,
       infer=lambda x, t, **_: Meta(t.shape, x.dtype),
       grad=lambda ctx: [reduce_as(ctx.out_grads[0], ctx.inputs[0]), None], onnx="expand_as",
       api=["expand_as"], methods=["expand_as"], module="runtime.ops.shape",
       doc="Broadcast X to Target's shape.")
def_op("cast", ["X"], ["Out"], attrs={"dtype": "float32"}, alias=_same_dtype_alias,
       kernel=lambda x, dtype: x.astype(dtype),
       infer=lambda x, dtype, **_: Meta(x.shape, dtype),
       grad=lambda ctx: [cast(ctx.out_grads[0], ctx.inputs[0].dtype)
                         if ctx.inputs[0].dtype in ("float16", "float32", "float64") else None],
       onnx="cast", api=["cast"], methods=["astype=cast", "cast"], grad_reads_no_values=True)


def _fill_constant_kernel(shape_tensors=None, shape=(), value=0.0, dtype="float32"):
    if shape_tensors:
        shape = fill_dims(shape, shape_tensors, "fill_constant")
    return np.full(shape, value, dtype=dtype)


def_op("fill_constant", ["ShapeTensor*"], ["Out"], attrs={"shape": [], "value": 0.0, "dtype": "float32"},
       kernel=_fill_constant_kernel,
       infer=lambda st=None, shape=(), value=0.0, dtype="float32": Meta(static_dims(shape), dtype),
       onnx="fill_constant", api=["zeros", "ones", "full", "empty"], module="runtime.ops.creation",
       doc="A constant filled with one value (folded once when a plan is built); None dims of shape "
           "are the values of ShapeTensor, read at run time.")
def_op("assign_value", [], ["Out"], attrs={"shape": [], "dtype": "float32", "values": []},
       kernel=lambda shape, dtype, values: np.asarray(values, dtype=dtype).reshape(shape),
       infer=lambda shape, dtype, values: Meta(shape, dtype), onnx="fold",
       doc="A constant tensor given by its values.")


def _refuse_write_after_grad_use(dvar, what):
    """A write into a parameter or buffer after an op of this Program read it for a gradient.

    Eager keeps what the earlier op saw (its gradient uses the old value); the Program's backward
    reads the variable itself, so it would use the new value: a silently different gradient.
    A copy (`assign`, i.e. w.clone()) is exempt, as are ops declared ``grad_reads_no_values``, whose
    gradient reads only shapes and dtypes (`self.acc.add_(x.mean())` after `self.acc + x`).
    """
    program = dvar.block.program
    if program.__dict__.get("_train_backward"):  # a training step: its backward already ran, with the old values
        return
    ops = [op for blk in program.blocks for op in blk.ops]
    # an op built under no_grad is followed by stop_gradient ops alone: backward never reaches it
    cut = {n: True for op in ops for n in op.input_arg_names}
    for op in ops:
        for n in op.input_arg_names:
            cut[n] = cut[n] and op.type == "stop_gradient"
    for op in ops:
        if (op.type in ("stop_gradient", "assign") or dvar.name not in op.input_arg_names
                or get_op(op.type).grad_reads_no_values):
            continue
        blk = op.block
        outs = [(n, blk.vars.get(n, blk.program.global_block().vars.get(n))) for n in op.output_arg_names]
        if any(v is not None and not v.stop_gradient and not cut.get(n, False) for n, v in outs):
            raise RuntimeError(
                f"{what} writes the parameter or buffer {dvar.name!r} in place after a '{op.type}' op of the "
                f"converted function used it for a gradient: the Program's backward would read the new "
                f"value where eager code uses the old one. Write it before its use, outside the converted "
                f"function (e.g. after backward), or read a copy (w.clone()) in the op")


def assign_to(src, dst, what=None):
    """Write ``src`` into the persistable ``dst`` (running stats, optimizer state).

    Eager: replaces dst's value in place of the same Tensor object.  Static: an
    ``assign`` op whose output *is* dst's var, so the executor writes the new
    value back to the bound tensor / scope after the run.
    """
    if _mode.static or isinstance(src, _rt.framework.Variable) or isinstance(dst, _rt.framework.Variable):
        dvar = to_variable(dst)
        svar = to_variable(src)
        from ..inplace import refuse_grad_write, write_refused  # noqa: PLC0415  (inplace builds on the ops)
        why = write_refused(dst) or write_refused(dvar)  # a converter's copy of its value would miss the write
        if why is not None:
            raise TypeError(why)
        refuse_grad_write(dvar)
        if getattr(dvar, "is_data", False) and not dvar.persistable:
            # a fed input (running statistics given to a converted function as arguments)
            from ..inplace import adopt_input  # noqa: PLC0415  (inplace builds on the ops)
            return adopt_input(dvar, apply("assign", svar), what or "a write (e.g. batch norm's running statistics)")
        if what is not None and dvar.persistable:
            _refuse_write_after_grad_use(dvar, what)
        block = _rt.framework.current_block()
        block.append_op("assign", {"X": [svar.name]}, {"Out": [dvar.name]}, {})
        return dvar
    dst._value = np.array(src._value, dtype=dst._value.dtype, copy=True)
    return dst


def_op("assign", ["X"], ["Out"], kernel=lambda x: x.copy(), infer=same_as,
       grad=lambda ctx: [ctx.out_grads[0]], onnx="Identity")
# No gradient rule: a Program's `x.detach()`, `with no_grad():` region or `t.stop_gradient = True`.
def_op("stop_gradient", ["X"], ["Out"], kernel=lambda x: x.copy(), infer=same_as, onnx="Identity",
       doc="The value of X; no gradient flows back through it.")


def stop_gradient(x):
    """``x`` cut off from the gradient (``Variable.detach()`` in a Program)."""
    return apply("stop_gradient", x)


def no_grad_target(t):
    """A label (or class weight) Paddle's loss kernels give no gradient: cut, so a target that needs one
    (another network's output, as in mutual learning) trains as under Paddle, not through the loss."""
    return stop_gradient(t) if is_tensor(t) and not t.stop_gradient else t


def float_of(v, dtype="float64"):
    """Eager ``float(v)`` of a Variable as a float64 0-d value read when the Program runs: one element
    (checked here when the shape is known, else by the reshape when run) and no gradient.  ``dtype``:
    then cast as that Python float is next to an array of ``dtype`` (float64 first, so an int64 beyond
    2**53 rounds as float() rounds it)."""
    if all(d >= 0 for d in v.shape) and int(np.prod(v.shape)) != 1:
        raise TypeError(f"float() needs a tensor with one element, got shape {list(v.shape)}")
    v = exact_float(v)  # a Python float's float64 value, not its default-dtype stand-in
    value = cast(apply("reshape", stop_gradient(v), shape=[]), "float64")
    return value if dtype == "float64" else cast(value, dtype)


def same_shape(a, b, message, dims=None):
    """Eager's check that ``a`` and ``b`` have one shape (ValueError ``message``) -- or one size along each
    axis of ``dims`` -- where dims may be known only when the Program runs: equal where both are known
    now, the rest checked when it runs (the ops would broadcast a 1 there where eager raises)."""
    pairs = list(zip(a.shape, b.shape)) if dims is None else [(a.shape[k], b.shape[k]) for k in dims]
    if (dims is None and len(a.shape) != len(b.shape)) or any(x != y and x >= 0 and y >= 0 for x, y in pairs):
        raise ValueError(message)
    if any(x < 0 or y < 0 for x, y in pairs):
        sa, sb = apply("shape", a), apply("shape", b)
        if dims is not None:
            sa, sb = (apply("gather", t, constant(np.asarray(list(dims), "int64"), "int64")) for t in (sa, sb))
        ok = apply("reduce_all", apply("equal", sa, sb))
        apply("assert", ok, [], error="ValueError", message=message)
