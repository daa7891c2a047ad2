"""Constant folding: values computable once, when a plan is built, instead of every run.

An analysis (the Program is not changed): a pure op whose inputs are all
constants, writing names defined once and not persistable, is evaluated now.
For::

    c = fill_constant(shape=[1], value=2.0)
    d = scale(X=c, scale=3.0)
    y = multiply(X=x, Y=d)

``fold_constants`` returns ``{'c': array([2.]), 'd': array([6.])}`` and the two ops
folded; the compiled plan reads ``d`` as a constant and runs only the multiply.
With ``shapes=True`` (feature ``shape_folding``), ``numel``/``shape`` of a var whose
static shape is fully known are constants too (a mean's gradient divides by one).
"""
import numpy as np

from ...registry import get_op
from .liveness import op_io


def effective_attrs(opdef, op):
    """The op's attrs over its declaration's defaults (unknown attrs ignored)."""
    attrs = dict(opdef.attrs)
    for k, v in op.attrs.items():
        if k in attrs:
            attrs[k] = v
    return attrs


def arg_values(opdef, op, values):
    """The kernel's positional arguments for ``op`` from a name -> value map."""
    args = []
    for i, slot in enumerate(opdef.input_slots):
        ns = op.inputs.get(slot)
        if ns is None:
            args.append(None)
        elif opdef.is_variadic_input(i):
            args.append([values[n] for n in ns])
        else:
            args.append(values[ns[0]])
    return args


def flat_outputs(opdef, res):
    """A kernel's result as one flat list of values, in output-name order."""
    if len(opdef.outputs) == 1:
        return list(res) if opdef.is_variadic_output(0) else [res]
    out = []
    for j, r in enumerate(res):
        out.extend(r if opdef.is_variadic_output(j) else [r])
    return out


def _static_shape(block, op):
    xs = op.inputs.get("X") or []
    v = block._find_var(xs[0]) if len(xs) == 1 else None
    if v is None or v.kind != "tensor" or any(d < 0 for d in v.shape):
        return None
    return tuple(v.shape)


SHAPE_OPS = {"numel": lambda shape: np.asarray(int(np.prod(shape, dtype=np.int64)), dtype=np.int64),
              "shape": lambda shape: np.asarray(shape, dtype=np.int64)}


def foldable(opdef):
    """Whether ``fold_constants`` may evaluate an op of ``opdef`` whose inputs are all constants."""
    return opdef.pure and opdef.kernel is not None and opdef.build_kernel is None


def fold_constants(block, ops, input_names, on_error=None, shapes=False, io=None):
    """(name -> constant value, set of id(op) folded) for ``ops`` of ``block``.

    ``on_error(exc, op)`` turns a failure of a folded kernel into the exception
    raised (the executor names the op); by default the failure propagates.
    ``io``: ``liveness.op_io(ops)`` (or a map holding it), if the caller has it.
    """
    if io is None:
        io = op_io(ops)
    defs = {}
    for op in ops:
        for n in io[id(op)][2]:
            defs[n] = defs.get(n, 0) + 1
    inputs = set(input_names)
    values, folded = {}, set()
    bound, find = block.program.bound_tensors, block._find_var
    for op in ops:
        _, ins, outs = io[id(op)]
        if shapes and op.type in SHAPE_OPS and len(outs) == 1:
            shape = _static_shape(block, op)
            if shape is not None and defs[outs[0]] == 1 and outs[0] not in inputs:
                values[outs[0]] = SHAPE_OPS[op.type](shape)
                folded.add(id(op))
                continue
        # every input a constant first: the cheap test, false for nearly every op
        if not outs or not all(n in values for n in ins):
            continue
        opdef = get_op(op.type)
        if (foldable(opdef)
                and all(defs[n] == 1 and n not in inputs and not _persistable(n, bound, find) for n in outs)):
            try:
                res = opdef.kernel(*arg_values(opdef, op, values), **effective_attrs(opdef, op))
            except Exception as e:
                if on_error is None:
                    raise
                raise on_error(e, op) from None
            # a kernel's 0-d result may be a numpy scalar (np.add of two 0-d arrays): kept as a 0-d
            # ndarray, since a constant can be a Program output and Tensors hold ndarrays
            values.update((n, np.asarray(v) if isinstance(v, np.generic) else v)
                          for n, v in zip(outs, flat_outputs(opdef, res)))
            folded.add(id(op))
    return values, folded


def _persistable(n, bound, find):
    """``effects.is_persistable`` with the block's ``bound_tensors`` and ``_find_var`` looked up once."""
    if n in bound:
        return True
    v = find(n)
    return v is not None and v.persistable
