"""float16 computed in float32 and rounded once: what an op or composite declares with ``float16_in_float32``.

Paddle's float16 kernels load float16, compute in float32 (their ``MPType``) and round the result
once.  numpy's float16 arithmetic rounds after every operation instead: a kernel of several steps
(``1 / (1 + exp(-x))``, a softplus, a layer_norm) piles those roundings up, and a cancellation
between two rounded terms loses most of the bits (softplus was 43% off below 1e-3, elu/selu/celu near
0 and log_softmax 100% off).  numpy's own float16 ufuncs (exp, tanh, sqrt...) already compute each
element in float32 and round once, so only kernels of several steps need the declaration.

* An op's kernel is wrapped once, at declaration (``def_op``): float16 array inputs become float32,
  the float32 outputs float16 again.  Eager mode, the executor's plans and constant folding all call
  that one wrapped kernel, so eager and static results stay the same bits.  Only when every float
  input is float16: float16 mixed with float32 (a float16 layer_norm with float32 scales) keeps
  numpy's promotion and the dtypes shape inference declares for it.
* An op's gradient rule is wrapped too: it builds its ops on float32 casts of the float16 values it
  reads, and each float32 input gradient is cast back to float16 (one rounding).
* A composite's function is wrapped the same way (all float tensor arguments float16) with registered
  ``cast`` ops around it: in a Program the casts are ops like any other, and the gradient flows back
  through them, so the composite's gradient is computed in float32 too and rounded once, at the cast
  back to float16.
"""
import functools

import sys

import numpy as np

_modules, _SWITCHES = sys.modules, "runtime.static.passes.features"  # loaded with runtime, read at call time

_F16 = np.dtype("float16")
_F32 = np.dtype("float32")
_F64 = np.dtype("float64")


def kernel_in_float32(kernel):
    """``kernel`` computing float16 inputs in float32, its float32 outputs rounded once to float16.
    Other dtypes call ``kernel`` itself (one loop over the arguments in between)."""
    def run(*args, **attrs):
        for a in args:  # the common case first: no float16 array, the kernel itself
            if type(a) is np.ndarray:
                if a.dtype is _F16:
                    break
            elif type(a) is list and any(_is_f16_array(v) for v in a):
                break
        else:
            return kernel(*args, **attrs)
        for a in args:
            for v in (a if type(a) is list else (a,)):
                if type(v) is np.ndarray and v.dtype.kind == "f" and v.dtype != _F16:
                    return kernel(*args, **attrs)  # float16 with a wider float: numpy's promotion, as before
        out = kernel(*[_up(a) for a in args], **attrs)
        if type(out) is tuple or type(out) is list:
            return type(out)(_down(o) for o in out)
        return _down(out)
    run.__wrapped__ = kernel
    run.__name__ = getattr(kernel, "__name__", "kernel")
    run.__doc__ = getattr(kernel, "__doc__", None)
    return run


def _is_f16_array(a):
    # ``is``: numpy's native float16 dtype is one object (a byte-swapped one keeps the plain kernel)
    return type(a) is np.ndarray and a.dtype is _F16


def _up(a):
    if type(a) is list:
        return [_up(v) for v in a]
    return a.astype(_F32) if _is_f16_array(a) else a


def _down(o):
    if type(o) is list:
        return [_down(v) for v in o]
    if isinstance(o, (np.ndarray, np.floating)) and o.dtype == _F32:
        return o.astype(_F16)
    return o


def composite_in_float32(fn):
    """``fn`` (a composite of registered ops) run on float32 casts of its float16 Tensor/Variable
    arguments, its float32 results cast back to float16 (``cast`` ops: differentiable, and in a
    Program as in eager mode)."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        if args:  # the common case first: x an eager float32/float64 Tensor (the loops below would say fn)
            v = getattr(args[0], "_value", None)
            if (type(v) is np.ndarray and (v.dtype is _F32 or v.dtype is _F64)
                    and _modules[_SWITCHES].FEATURES["plain_kernels"]):
                return fn(*args, **kwargs)
        values = args + tuple(kwargs.values()) if kwargs else args
        for a in values:  # a loop, not any(): ~1 us less a call
            if _is_f16_value(a):
                break
        else:
            return fn(*args, **kwargs)
        if any(_value_dtype(a) in ("float32", "float64") for a in values):
            return fn(*args, **kwargs)  # float16 with a wider float: promotion as before, as for kernels
        from .dispatch import apply  # registry -> here: dispatch loads after the declarations' module
        up = lambda a: apply("cast", a, dtype="float32") if _is_f16_value(a) else a  # noqa: E731
        out = fn(*[up(a) for a in args], **{k: up(v) for k, v in kwargs.items()})

        def down(o):
            if isinstance(o, (tuple, list)):
                return type(o)(down(v) for v in o)
            return apply("cast", o, dtype="float16") if _value_dtype(o) == "float32" else o
        return down(out)
    return run


def grad_in_float32(grad):
    """The gradient rule ``grad(ctx)`` run on float32 casts of ctx's float16 values, the input gradients
    cast back to float16 where their input is float16."""
    def rule(ctx):
        if not _any_f16(ctx):
            return grad(ctx)
        from .dispatch import apply

        def up(v):
            if isinstance(v, list):
                return [up(e) for e in v]
            return apply("cast", v, dtype="float32") if _is_f16_value(v) else v

        def down(g, x):
            if isinstance(g, (list, tuple)):
                return type(g)(down(e, xe) for e, xe in zip(g, x))
            if g is not None and _is_f16_value(x) and _value_dtype(g) == "float32":
                return apply("cast", g, dtype="float16")
            return g
        inner = type(ctx)([up(v) for v in ctx.inputs], [up(v) for v in ctx.outputs],
                          [up(v) for v in ctx.out_grads], ctx.attrs, ctx.op, True)
        grads = grad(inner)
        return [down(g, x) for g, x in zip(grads, ctx.inputs)] + list(grads[len(ctx.inputs):])
    rule.__wrapped__ = grad
    return rule


def _any_f16(ctx):
    """Whether a value of ctx (its inputs, outputs, output gradients; lists one level down) is float16.
    Loops, an eager Tensor's array read inline: every eager backward step of such an op asks."""
    for part in (ctx.inputs, ctx.outputs, ctx.out_grads):
        for v in part:
            a = getattr(v, "_value", None)
            if type(a) is np.ndarray:
                if a.dtype is _F16:
                    return True
            elif v is not None and (any(map(_is_f16_value, v)) if isinstance(v, list) else _is_f16_value(v)):
                return True
    return False


def _value_dtype(a):
    """A Tensor's or Variable's dtype name, or None for anything else."""
    v = getattr(a, "_value", None)
    if type(v) is np.ndarray:
        return "float16" if v.dtype is _F16 else "float32" if v.dtype is _F32 else str(v.dtype)
    if hasattr(a, "block") and hasattr(a, "dtype"):  # a static Variable
        return str(a.dtype)
    return None


def _is_f16_value(a):
    v = getattr(a, "_value", None)  # an eager Tensor's array: its dtype read without a name (numpy's is Python code)
    if type(v) is np.ndarray:
        return v.dtype is _F16
    return _value_dtype(a) == "float16"
