"""What a tensor loop carries: each value's layout in the `while` op's flat loop vars (a tuple
element by element, a list as a tensor array), the dtype/rank widening and Python-number
reshaping found while tracing the body (raised as ``_Widen``/``_Mixed`` for a retrace), and the
scratch probe of carries that have no value before the loop.
"""
import numpy as np

import runtime as rt
from runtime.framework import Variable
from dy2st.operators.common import _describe, _with_location, is_symbolic
from dy2st.operators.ifelse import _dummy_like, _tensorizable
from dy2st.operators.python_semantics import (PythonFloat, exact_of, python_int)
from dy2st.operators.side_effects import probing
from dy2st.operators.list_items import item_kind
from dy2st.operators.tensor_array import ProbeList, TensorArray
from dy2st.pyct.undefined import RETURN_NO_VALUE, UndefinedVar

# None: rt.full's own choice for a Python float, the default float dtype (rt.set_default_dtype)
_PY_DTYPE = ((bool, "bool"), (int, "int64"), (float, None))


def _to_tensor(value, name):
    """A loop carry as a Variable: Python bool/int/float -> 0-d constant of the API's dtype."""
    if rt.is_tensor(value) or isinstance(value, TensorArray):
        return value
    for py_type, dtype in _PY_DTYPE:
        if isinstance(value, py_type):
            return rt.full([], value, dtype)
    if isinstance(value, UndefinedVar):
        raise ValueError(_with_location(
            f"variable '{name}' is carried by a tensor-dependent loop but has no value before "
            "it (it is first assigned inside the loop, or a `return` sits inside the loop): "
            "give it an initial value of the right dtype and shape before the loop"))
    if isinstance(value, list):
        return TensorArray.from_list(value, name)
    raise ValueError(_with_location(
        f"variable '{name}' is changed by a tensor-dependent loop but holds "
        f"{type(value).__name__} {value!r}, which cannot be a loop variable of a Program"))


class _ListSpec(tuple):
    """The spec of a list carried item by item: rebuilt as a list."""


class _NamedSpec(tuple):
    """The spec of a namedtuple carried item by item: rebuilt as its class (``cls``)."""
    cls = tuple


class _DictSpec(tuple):
    """The spec of a dict carried value by value (its ``keys``, in order): rebuilt as a dict."""
    keys = ()


class _Unchanged(Exception):
    """A dict or list carried item by item that the body does not rebind (it may write into it:
    those writes are slots of the loop's snapshot): build again with it left out of the carries."""

    def __init__(self, index):
        super().__init__(index)
        self.index = index


class IndexedByTensor(TypeError):
    """A list carried item by item was indexed by a tensor (`a[i]`, `i` a loop counter tensor)."""

    def __init__(self, items):
        super().__init__("a list indexed by a tensor inside a tensor-dependent loop is carried as one "
                         "stacked tensor array")
        self.items = items


class CarriedList(list):
    """A list carried item by item, as the body's trace sees it: read at a tensor index, it asks
    (IndexedByTensor) to be built again carried as one stacked tensor array, which that index can
    read (Paddle's dygraph-to-static turns such a list into a tensor array too)."""

    def __getitem__(self, index):
        bounds = (index.start, index.stop, index.step) if isinstance(index, slice) else (index,)
        if any(is_symbolic(b) for b in bounds):
            raise IndexedByTensor(self)
        return super().__getitem__(index)


class _Relist(Exception):
    """A list carried item by item that the body grows, shrinks or turns into something else:
    build again carrying that list (``index``: its carry) as one stacked tensor array."""

    def __init__(self, index):
        super().__init__(index)
        self.index = index


def _carry_spec(value, name, as_array=False, path=()):
    """(spec, flat loop vars, leaves) of one carry: "leaf" (a tensor), "array" (a TensorArray) or a
    tuple of specs (a tuple, or a non-empty list, flattened element by element). ``leaves`` has one
    (path, start value) per flat loop var: where in ``value`` it sits (indices and keys) and what.

    A list starts carried item by item: a fixed-length list the body rebinds (RNN states,
    `hs = [f(h) for h in hs]`) keeps its items' own shapes and stays a list; one the body
    grows or shrinks raises _Relist from `_conform` and is built again ``as_array``. A None
    item (an RNN layer without a cell state: `[h, None]`) is "none": no loop var, stays None."""
    if value is None:
        return "none", [], []
    if isinstance(value, dict):
        specs, flat, leaves = [], [], []
        for k, e in value.items():
            spec, f, lv = _carry_spec(e, f"{name}[{k!r}]", path=path + (k,))
            specs.append(spec)
            flat.extend(f)
            leaves.extend(lv)
        spec = _DictSpec(specs)
        spec.keys = tuple(value)
        return spec, flat, leaves
    if isinstance(value, tuple) or (isinstance(value, list) and value and not as_array):
        specs, flat, leaves = [], [], []
        for k, e in enumerate(value):
            spec, f, lv = _carry_spec(e, f"{name}[{k}]", path=path + (k,))
            specs.append(spec)
            flat.extend(f)
            leaves.extend(lv)
        if hasattr(value, "_fields"):
            spec = _NamedSpec(specs)
            spec.cls = type(value)
            return spec, flat, leaves
        return (_ListSpec(specs) if isinstance(value, list) else tuple(specs)), flat, leaves
    v = _to_tensor(value, name)
    return ("array" if isinstance(v, TensorArray) else "leaf"), [v], [(path, value)]


def _spec_size(spec):
    return sum(_spec_size(s) for s in spec) if isinstance(spec, tuple) else int(spec != "none")


def _rebuild(spec, it):
    if isinstance(spec, tuple):
        items = (_rebuild(s, it) for s in spec)
        if isinstance(spec, _NamedSpec):
            return spec.cls(*items)
        if isinstance(spec, _DictSpec):
            return dict(zip(spec.keys, items))
        return list(items) if isinstance(spec, _ListSpec) else tuple(items)
    if spec == "none":
        return None
    v = next(it)
    return v if spec != "array" or isinstance(v, TensorArray) else TensorArray(v)


def _conform(spec, value, start, name):
    """The body's new value of a carry as flat loop vars matching `start`, its flat start vars."""
    if isinstance(spec, _ListSpec) and (not isinstance(value, list) or len(value) != len(spec)):
        raise _Relist(None)
    if spec == "none":
        if value is not None:
            raise ValueError(_with_location(
                f"'{name}' is None before a tensor-dependent loop and the loop sets it to "
                f"{_describe(value)}: give it a value of that dtype and shape before the loop"))
        return []
    if isinstance(spec, _DictSpec):
        if not isinstance(value, dict) or sorted(value) != sorted(spec.keys):
            raise ValueError(_with_location(
                f"variable '{name}' is a dict with keys {list(spec.keys)} before a tensor-dependent "
                f"loop and the loop changes it to {_describe(value)}: keep its keys the same "
                "(give every key a value before the loop)"))
        value = [value[k] for k in spec.keys]
    if isinstance(spec, tuple):
        if not isinstance(value, (tuple, list)) or len(value) != len(spec):
            raise ValueError(_with_location(
                f"variable '{name}' is a tuple of {len(spec)} before a tensor-dependent loop and "
                f"the loop changes it to {_describe(value)}"))
        out, pos = [], 0
        for k, (s, e) in enumerate(zip(spec, value)):
            size = _spec_size(s)
            out.extend(_conform(s, e, start[pos:pos + size], f"{name}[{k}]"))
            pos += size
        return out
    if isinstance(value, list):
        value = TensorArray.from_list(value, name)
    elif isinstance(value, PythonFloat):
        value = exact_of(value)  # a float carry holds the float64 value behind the view
    elif not rt.is_tensor(value) and isinstance(value, (bool, int, float)):
        value = _number_like(value, start[0])
    return [value]


def _number_like(value, old):
    """A Python number the body rebinds a carry to, as a tensor like the carry: its shape
    (the number broadcasts the same way), and its dtype when the number fits it (a float
    into an int carry keeps the float's dtype: the loop then widens or refuses)."""
    py_dtype = next(d for t, d in _PY_DTYPE if isinstance(value, t))
    if not rt.is_tensor(old):
        return rt.full([], value, py_dtype)
    kind = np.dtype(old.dtype.np).kind
    fits = kind == "b" if isinstance(value, bool) else (kind in "iuf" if isinstance(value, int) else kind == "f")
    shape = old.shape if all(d >= 0 for d in old.shape) else []
    return rt.full(shape, value, old.dtype if fits else py_dtype)


def _needs_probe(v):
    return isinstance(v, UndefinedVar) or (isinstance(v, list) and not v)


def _probe_number(v):
    """A Python number carry as the probe's tensor; an int marked as the body will see it (rebuild)."""
    t = _to_tensor(v, "")
    return python_int(t) if type(v) is int else t


def _initialise_unknown_carries(body, prefix, values, carried, names):
    """Give carries with no value yet (a `return` value, a name first assigned in the loop, an
    empty list appended to) a start value of the dtype/rank the body gives them.

    The body is traced once into a scratch Program, thrown away, to see what comes out; the
    start value is a zero constant (or an empty tensor array) that the loop overwrites. A
    carry with no value that the body passes through untouched (its assignment sits on a path
    this trace does not take) is not carried at all. Returns (values, carried).
    """
    if not any(_needs_probe(values[i]) for i in carried):
        return values, carried
    with rt.static.program_guard(rt.static.Program()), probing():
        # A carried tensor enters the probe as an input of the scratch Program, as the loop's own
        # trace gets it: `i = rt.increment(i)` rebinds a block input but refuses a value of another block.
        probe_values = [ProbeList(v, names[i]) if isinstance(v, list) else
                        (_probe_number(v) if isinstance(v, (bool, int, float)) else
                         rt.static.data(f"probe_{i}", list(v.shape), v.dtype)
                         if i in carried and is_symbolic(v) and type(v) is rt.static.Variable else v)
                        for i, v in enumerate(values)]
        _, outs = body(*prefix, *probe_values)
    values = list(values)
    kept = []
    for i in carried:
        kept.append(i)
        if not _needs_probe(values[i]):
            continue
        out = outs[i]
        if isinstance(values[i], list) and isinstance(out, list) and out and rt.is_tensor(out[-1]):
            item = out[-1]
            # Dims known only at run time start as 1: an empty array takes the first item's
            # real dims when it is appended to (TensorArray.appended reshapes it).
            values[i] = TensorArray(rt.zeros([0] + [d if d >= 0 else 1 for d in item.shape], item.dtype),
                                    item_kind(item))
        elif isinstance(values[i], list) and isinstance(out, TensorArray):
            # written at a tensor index (`rt.tensor.array_write(x, i, arr)`): an empty array of its items
            t = out.tensor
            values[i] = TensorArray(rt.zeros([0] + [d if d >= 0 else 1 for d in t.shape[1:]], t.dtype), out.kind)
        elif isinstance(values[i], UndefinedVar) and out is values[i]:
            kept.pop()
        elif values[i] is RETURN_NO_VALUE and out is None:
            # `return None` inside the loop: the function returns None whether or not the loop
            # returns (falling off its end is None too), so the value is plain Python.
            values[i] = None
            kept.pop()
        elif isinstance(values[i], UndefinedVar) and _tensorizable(out):
            values[i] = _dummy_like(out)
    return tuple(values), kept


def _is_static_object(v):
    if isinstance(v, dict):  # carried value by value, like a tuple (string keys only)
        return (not v or any(not isinstance(k, str) or (isinstance(e, list) and not e) for k, e in v.items())
                or _is_static_object(tuple(v.values())))
    if isinstance(v, tuple):  # carried element by element when every element can be
        # (None items stay None; a tuple of Nones only is no carry at all)
        return not v or all(v_ is None for v_ in v) or any(
            v_ is not None and (isinstance(v_, str) or _is_static_object(v_)) for v_ in v)
    return not (rt.is_tensor(v) or isinstance(v, (bool, int, float, list, UndefinedVar, TensorArray)))


class _WrittenThenRebound(Exception):
    """A carried tensor the body writes into (`y[0] = v`, `y.add_(v)`) and then rebinds
    (`y = y * 2`): build again with two more carries for it.

    Eagerly the first iteration writes into the tensor the loop started with, which aliases made
    before the loop (`z = y`) still hold; later iterations write into tensors the body made. The
    `while` op's output for the name is the rebound value, so the start tensor's own value is
    carried beside it: a flag true on the first iteration only, and the start value, replaced by
    the write's value where the flag is true. After the loop the start tensor takes it over
    (``aliasing.rebind``), as the write would have left it."""

    def __init__(self, indices):
        super().__init__(indices)
        self.indices = indices


def _shadow_outputs(shadows, state, starts, full, outs, record, carried):
    """The shadow carries' next values (see ``_WrittenThenRebound``), or that exception for a
    carried tensor written into and rebound that has none yet."""
    found = []
    for i in carried:
        write = record.get(id(full[i])) if isinstance(full[i], Variable) else None
        start = starts[i]
        if (write is not None and outs[i] is not write[1] and i not in shadows and isinstance(start, Variable)
                and not start.persistable):  # a persistable Variable keeps the rebinding alone (aliasing.rebind)
            found.append(i)
    if found:
        raise _WrittenThenRebound(found)
    new = []
    for k, i in enumerate(shadows):
        first, start = state[2 * k], state[2 * k + 1]
        write = record.get(id(full[i])) if isinstance(full[i], Variable) else None
        value = write[1] if write is not None else full[i]
        new.extend([rt.full([], False, "bool"), rt.where(first, value, start)])
    return new
