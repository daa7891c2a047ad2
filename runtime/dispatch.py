"""``apply(op_type, *inputs, **attrs)``: the single door every op goes through.

Eager mode runs the registered kernel (recording a tape node only when an
input needs a gradient); static mode (``enable_static()``, a converter trace,
or any input being a ``Variable``) appends an Operator to the current block and
returns new Variables whose shape/dtype come from the op's ``infer`` rule.
"""
import sys

import numpy as np

from . import tensor as _tensor  # read at call time: Tensor is made after the op declarations
import runtime as _rt  # runtime.framework (Variable) loads after the op declarations: read at call time
from .registry import Meta, get_op
# The ContextVars behind ``_grad_mode.enabled`` and ``_mode.static``: read directly, without the
# properties' Python frames (every op asks them).
from .tensor import GRAD_ENABLED, Node
from .trace_state import STATIC_MODE

_FLOATS = ("float16", "float32", "float64")
_F16 = np.dtype("float16")  # numpy's native float16 dtype is one object: tested with ``is``
_ndarray = np.ndarray
_modules, _SWITCHES = sys.modules, "runtime.static.passes.features"  # loaded with runtime, read at call time


def _any_variable(inputs):
    tensor = _tensor.Tensor
    for x in inputs:
        if type(x) is tensor or x is None:  # the eager case, decided without Variable
            continue
        variable = _rt.framework.Variable
        if isinstance(x, variable):
            return True
        if isinstance(x, (list, tuple)):
            for v in x:
                if isinstance(v, variable):
                    return True
    return False


def apply(type, *inputs, **attrs):
    """Run op ``type`` on ``inputs``: eagerly on Tensors, or append it to the current Program in static mode.

    Raises KeyError when no op of that type is registered.
    """
    opdef = get_op(type)
    if STATIC_MODE.get() or _any_variable(inputs):
        return append_op(opdef, inputs, attrs)
    return run_eager(opdef, inputs, attrs)


# -- eager ---------------------------------------------------------------------
def _value(x, opdef):
    if isinstance(x, _tensor.Tensor):
        return x._value
    if isinstance(x, (list, tuple)):
        return [_value(v, opdef) for v in x]
    if x is None:
        return None
    raise TypeError(f"op '{opdef.type}' expects Tensors as inputs, got {type(x).__name__}")


def _needs_grad(inputs):
    tensor = _tensor.Tensor
    for x in inputs:
        if isinstance(x, tensor):
            if not x.stop_gradient:
                return True
        elif isinstance(x, (list, tuple)):
            for v in x:
                if isinstance(v, tensor) and not v.stop_gradient:
                    return True
    return False


def _as_recorded(x):
    """An input as the tape keeps it: its value and producer now, so an in-place write to the
    Tensor later (``y[0] = v``) changes neither what this op's gradient reads nor where it flows.
    A leaf that needs a gradient stays itself (its ``.grad`` is filled; it cannot be written in place)."""
    if isinstance(x, (list, tuple)):
        return type(x)(_as_recorded(v) for v in x)
    tensor = _tensor.Tensor
    if type(x) is not tensor or (x._node is None and not x.stop_gradient):
        return x
    alias = tensor._wrap(x._value, x._node)
    alias.stop_gradient = x.stop_gradient
    return alias


def run_eager(opdef, inputs, attrs):
    """Run an op's kernel on Tensor inputs now, recording a tape node when a gradient is needed."""
    vals = [_value(x, opdef) for x in inputs]
    kernel = opdef.kernel
    if opdef.float16_in_float32:  # no float16 array among the inputs: the kernel the wrapper would call
        for v in vals:
            if v is not None and (type(v) is not _ndarray or v.dtype is _F16):
                break
        else:
            pair = opdef.float16_kernels
            if kernel is pair[0] and _modules[_SWITCHES].FEATURES["plain_kernels"]:
                kernel = pair[1]
    out = kernel(*vals, **attrs)
    multi = len(opdef.outputs) > 1 or opdef.outputs[0].endswith("*")
    outs = list(out) if multi else [out]
    outs = [o if type(o) is np.ndarray else np.asarray(o) for o in outs]
    node = None
    if opdef.grad is not None and GRAD_ENABLED.get() and _needs_grad(inputs):
        node = Node(opdef, [_as_recorded(x) for x in inputs], opdef.full_attrs(attrs), outs)
    if not multi:
        return _tensor.Tensor._wrap(outs[0], None if node is None or outs[0].dtype.kind not in "fc" else (node, 0))
    # Integer outputs (indices, masks) never carry a gradient.
    tensors = [_tensor.Tensor._wrap(o, None if node is None or o.dtype.kind not in "fc" else (node, i))
               for i, o in enumerate(outs)]
    if len(opdef.outputs) == 1:  # one variadic output slot: a list
        return tensors
    return tuple(tensors)


# -- static ----------------------------------------------------------------------
def to_variable(x, block=None):
    """The Variable for ``x`` in the current Program; eager Tensors are bound by reference.

    A Parameter keeps its name and stays live: the executor reads its current
    value at every run, so an optimizer step on the eager parameter is seen by
    the next run without copying.
    """
    if isinstance(x, _rt.framework.Variable):
        return x
    if not isinstance(x, _tensor.Tensor):
        raise TypeError(f"expected a Tensor or Variable, got {type(x).__name__}")
    program = _rt.framework.default_main_program()
    gblock = program.global_block()
    bound = program.bound_tensors
    for name, t in bound.items():
        if t is x:
            return gblock.vars[name]
    given = x._name  # a name given (or read), not one generated here
    name = given if given and not gblock.has_var(given) else program.unique_name("eager_const")
    var = gblock.create_var(name=name, shape=x.shape, dtype=x.dtype, persistable=True,
                            stop_gradient=x.stop_gradient)
    var.trainable = bool(getattr(x, "trainable", False))
    bound[name] = x
    return var


def _as_var(x, opdef):
    if type(x) is _rt.framework.Variable:
        return x
    if isinstance(x, (_rt.framework.Variable, _tensor.Tensor)):
        return to_variable(x)
    if isinstance(x, (list, tuple)):
        return [_as_var(v, opdef) for v in x]
    if x is None:
        return None
    raise TypeError(f"op '{opdef.type}' expects Tensors or Variables as inputs, got {type(x).__name__}")


_new_meta = Meta.__new__


def _meta(v):
    if type(v) is _rt.framework.Variable:
        # Meta(v._shape, v._dtype) without its int() of every dim: a Variable's dims are ints already
        # (its constructor made them so, and nothing else assigns ``_shape``).
        m = _new_meta(Meta)
        m.shape = tuple(v._shape)
        m.dtype = v._dtype
        return m
    if isinstance(v, list):
        return [_meta(x) for x in v]
    return None if v is None else Meta(tuple(v.shape), v.dtype)


# A Program attribute dy2st sets: {name of a default-dtype Variable that stands for a Python float
# (a float carried through a tensor loop, `float(t)`): the float64 Variable of its exact value}.
EXACT_FLOATS = "_python_float_exact"
_FLOAT_RANK = {"float16": 1, "bfloat16": 1, "float32": 2, "float64": 3}


def exact_float(v):
    """The float64 value behind ``v`` when it stands for a Python float (``EXACT_FLOATS``); ``v`` otherwise."""
    block = getattr(v, "block", None)
    exact = block.program.__dict__.get(EXACT_FLOATS) if block is not None else None
    return exact.get(v.name, v) if exact else v


def _exact_floats(opdef, vars_in, exact, block):
    """The inputs of an op with each Python-float stand-in replaced by what the eager API makes of the
    Python float: its exact value cast to the float dtype of the op's other float inputs (a float64
    tensor computes with the float64 value, not its float32 rounding; a float16 one takes a float16
    scalar), or, for a cast, cast from the exact value. The stand-in itself where those agree."""
    def name(v):
        return v.name if v is not None and not isinstance(v, list) else None

    if not any(name(v) in exact for v in vars_in):
        return vars_in
    if opdef.type == "cast":
        return [exact.get(name(v), v) for v in vars_in]
    others = [x for v in vars_in if v is not None and name(v) not in exact
              for x in (v if isinstance(v, list) else [v]) if str(x.dtype) in _FLOAT_RANK]
    if not others:
        return vars_in
    target = str(max((x.dtype for x in others), key=lambda d: _FLOAT_RANK[str(d)]))
    out = []
    for v in vars_in:
        src = exact.get(name(v))
        if src is not None and target != str(v.dtype):
            v = src if target == str(src.dtype) else append_op(get_op("cast"), [src], {"dtype": target}, block)
        out.append(v)
    return out


def append_op(opdef, inputs, attrs, block=None):
    """Append an op to ``block`` (the current block by default) and return its output Variables.

    Output shapes and dtypes come from the op's infer rule; NotImplementedError if it has none.
    """
    framework = _rt.framework
    block = block or framework.current_block()
    variable = framework.Variable
    vars_in = [x if type(x) is variable else _as_var(x, opdef) for x in inputs]
    exact = block.program.__dict__.get(EXACT_FLOATS)
    if exact:
        vars_in = _exact_floats(opdef, vars_in, exact, block)
    full = opdef.full_attrs(attrs)
    if opdef.infer is None:
        raise NotImplementedError(f"op '{opdef.type}' cannot be used in a static Program (no infer rule)")
    metas = opdef.infer(*[_meta(v) for v in vars_in], **full)
    in_names, out_names = opdef._slot_names()
    per_slot = [metas] if len(out_names) == 1 else list(metas)
    stop = opdef.grad is None
    if not stop:
        stop = True
        for v in vars_in:  # _flat's walk, inline: one generator per op built is measurable
            if type(v) is variable:
                if not v.stop_gradient:
                    stop = False
                    break
            elif v is not None and any(x is not None and not x.stop_gradient for x in _flat([v])):
                stop = False
                break
    in_slots = {}
    program = block.program
    for slot, v in zip(in_names, vars_in):
        if v is None:
            continue
        if isinstance(v, list):
            for x in v:
                if x.block.program is not program and x.block.program.sealed:
                    _foreign(opdef, x, program)
            in_slots[slot] = [x.name for x in v]
        else:
            if v.block.program is not program and v.block.program.sealed:
                _foreign(opdef, v, program)
            in_slots[slot] = [v.name]
    out_vars, out_slots = [], {}
    unique_name, create_var = block.program.unique_name, block._create_built
    for slot, m in zip(out_names, per_slot):
        if not isinstance(m, list):  # one Variable (most ops): no comprehension frames
            v = create_var(unique_name(opdef.type), m.shape, m.dtype, stop or str(m.dtype) not in _FLOATS)
            out_slots[slot] = [v.name]
            out_vars.append(v)
            continue
        vs = [create_var(unique_name(opdef.type), g.shape, g.dtype, stop or str(g.dtype) not in _FLOATS)
              for g in m]
        out_slots[slot] = [v.name for v in vs]
        out_vars.append(vs)
    # The slot lists and ``full`` were made for this op alone: the Operator keeps them uncopied.
    block._append(framework.Operator._owning(block, opdef.type, in_slots, out_slots, full))
    result = out_vars[0] if len(out_vars) == 1 else tuple(out_vars)
    if opdef.grad is not None and not GRAD_ENABLED.get():
        # Built inside `with no_grad():`: like eager, these values take no gradient.
        result = _stop_gradient(result, block)
    return result


class ForeignVariableError(ValueError):
    """An op of one Program given a Variable of a sealed other one (names are per Program: it would
    read whatever this one calls by that name, or nothing)."""


def _foreign(opdef, v, program):
    source = program.clone_of
    while source is not None:  # a clone's ops may read its original's Variables: the same names
        if source is v.block.program:
            return
        source = source.clone_of
    raise ForeignVariableError(
        f"op '{opdef.type}' was given the value '{v.name}' of another Program: a value traced while "
        "building an earlier Program (kept in a global, a dict, a list or an attribute across calls) "
        "has no value in this one")


def _stop_gradient(v, block):
    if isinstance(v, (list, tuple)):
        return type(v)(_stop_gradient(x, block) for x in v)
    if v is None or str(v.dtype) not in _FLOATS:
        return v
    return append_op(get_op("stop_gradient"), [v], {}, block)


def _flat(vs):
    for v in vs:
        if isinstance(v, list):
            yield from (x for x in v if x is not None)
        elif v is not None:
            yield v
