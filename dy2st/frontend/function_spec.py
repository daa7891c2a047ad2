"""Input signatures: which Program in the cache serves a call.

Tensor arguments are described by dtype and shape (``InputSpec`` ``None``/-1
dims match any size); every other argument is part of the key by value, so a
Python ``flag=True`` and ``flag=False`` get separate Programs, while two
tensors of the same dtype and shape share one.
"""
import ast
import inspect
import textwrap

import numpy as np

import runtime as rt
from runtime.dispatch import to_variable
from runtime.framework import Variable
from runtime.static import InputSpec

from ..operators.tensor_array import TensorArray
from ..pyct.undefined import RETURN_NO_VALUE, UndefinedVar
from ..tools.error import UserOrigin, attach_origin
from .value_keys import value_key


class _TensorSlot:
    """Marks where a tensor sat in the flattened arguments."""

    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index

    def __repr__(self):
        return f"<tensor #{self.index}>"


def _sequence(obj, items):
    """The skeleton of a list/tuple: a namedtuple keeps its class (rebuilt as that class), other
    list and tuple subclasses come back as plain lists and tuples."""
    if isinstance(obj, tuple) and hasattr(type(obj), "_fields"):
        return ("namedtuple", type(obj), items)
    return ("list" if isinstance(obj, list) else "tuple", items)


def _items(skeleton):
    """The item skeletons of a list/tuple/namedtuple skeleton."""
    return skeleton[2] if skeleton[0] == "namedtuple" else skeleton[1]


def flatten(obj, tensors):
    """Replace tensors in a nested structure with slots; return a hashable skeleton."""
    if isinstance(obj, rt.Tensor):
        tensors.append(obj)
        return ("T", len(tensors) - 1)
    if isinstance(obj, np.ndarray):
        tensors.append(rt.to_tensor(obj))
        return ("T", len(tensors) - 1)
    if isinstance(obj, (list, tuple)):
        return _sequence(obj, tuple(flatten(v, tensors) for v in obj))
    if isinstance(obj, dict):
        return ("dict", tuple((k, flatten(obj[k], tensors)) for k in sorted(obj, key=repr)))
    try:
        hash(obj)
    except TypeError:
        raise TypeError(f"a to_static function argument of type {type(obj).__name__} is neither a Tensor nor "
                        "hashable, so it cannot be part of the Program cache key") from None
    extra = value_key(obj)
    return ("V", type(obj).__name__, obj) if extra is None else ("V", type(obj).__name__, obj, extra)


def unflatten(skeleton, values):
    """Rebuild a structure from a skeleton, filling tensor slots from ``values``."""
    kind = skeleton[0]
    if kind == "T":
        return values[skeleton[1]]
    if kind == "array":
        stacked = values[skeleton[1]]
        return [stacked[i] for i in range(stacked.shape[0])]
    if kind in ("list", "tuple"):
        items = [unflatten(s, values) for s in skeleton[1]]
        return items if kind == "list" else tuple(items)
    if kind == "dict":
        return {k: unflatten(s, values) for k, s in skeleton[1]}
    if kind == "namedtuple":
        return skeleton[1](*[unflatten(s, values) for s in _items(skeleton)])
    return skeleton[2]


def spec_list(input_spec):
    """The InputSpecs (and other leaves) of a possibly nested input_spec, in order."""
    flat = []

    def walk(s):
        if isinstance(s, (list, tuple)):
            for v in s:
                walk(v)
        else:
            flat.append(s)
    walk(input_spec)
    return flat


def check_against_spec(tensors, input_spec, fn_name):
    """Validate tensors against ``input_spec``; return the shapes to trace with (-1 for None dims)."""
    specs = [s for s in spec_list(input_spec) if isinstance(s, InputSpec)]
    # Tensors beyond the declared specs (an optional argument given a Tensor) are described by
    # themselves, as Paddle does: their dtype and exact shape select the Program.
    specs = specs + [InputSpec.from_tensor(t) for t in tensors[len(specs):]]
    shapes = []
    for i, (t, spec) in enumerate(zip(tensors, specs)):
        want = [(-1 if d is None else int(d)) for d in spec.shape]
        got = t.shape
        label = spec.name or f"argument {i}"
        if t.dtype != spec.dtype:
            raise ValueError(f"{fn_name}(): input '{label}' expects dtype {spec.dtype} (InputSpec shape {want}), "
                             f"got dtype {t.dtype} with shape {got}")
        if len(got) != len(want) or any(w not in (-1, g) for w, g in zip(want, got)):
            raise ValueError(f"{fn_name}(): input '{label}' expects shape {want} (None/-1 = any size), "
                             f"got shape {got}")
        shapes.append(want)
    return shapes


def cache_key(skeleton, tensors, traced_shapes, training):
    """The program-cache key of a call: its argument skeleton, each tensor's dtype and traced shape, and the mode."""
    metas = tuple((str(t.dtype), tuple(s)) for t, s in zip(tensors, traced_shapes))
    return (skeleton, metas, training)


def has_input_spec(obj):
    """True when a nested structure of arguments holds an InputSpec."""
    if isinstance(obj, InputSpec):
        return True
    if isinstance(obj, (list, tuple)):
        return any(has_input_spec(v) for v in obj)
    if isinstance(obj, dict):
        return any(has_input_spec(v) for v in obj.values())
    return False


def skeleton_values(skeleton):
    """The Python values (not tensors) a skeleton holds, e.g. Layers passed as arguments."""
    kind = skeleton[0]
    if kind in ("list", "tuple", "namedtuple"):
        return [v for s in _items(skeleton) for v in skeleton_values(s)]
    if kind == "dict":
        return [v for _, s in skeleton[1] for v in skeleton_values(s)]
    return [skeleton[2]] if kind == "V" else []


def specs_to_placeholders(structure):
    """(skeleton, specs) of arguments where InputSpecs (and Tensors) stand for fed tensors.

    Everything else is a Python value and part of the skeleton, as in ``flatten``.
    """
    specs = []

    def walk(s):
        if isinstance(s, (list, tuple)):
            return _sequence(s, tuple(walk(v) for v in s))
        if isinstance(s, dict):
            return ("dict", tuple((k, walk(s[k])) for k in sorted(s, key=repr)))
        if isinstance(s, InputSpec):
            specs.append(s)
            return ("T", len(specs) - 1)
        if isinstance(s, rt.Tensor):
            specs.append(InputSpec.from_tensor(s))
            return ("T", len(specs) - 1)
        try:
            hash(s)
        except TypeError:
            raise TypeError(f"a to_static function argument of type {type(s).__name__} is neither an InputSpec, "
                            "a Tensor nor hashable, so it cannot be part of the Program cache key") from None
        return ("V", type(s).__name__, s)
    return walk(structure), specs


# -- outputs ----------------------------------------------------------------------
def return_origin(fn, name):
    """The user's last ``return`` mentioning ``name`` (else the ``def`` line), as a UserOrigin."""
    fn = inspect.unwrap(fn)
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    line = code.co_firstlineno
    try:
        lines, first = inspect.getsourcelines(fn)
        tree = ast.parse(textwrap.dedent("".join(lines)))
        hits = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Return) and n.value is not None
                and any(isinstance(m, ast.Name) and m.id == name for m in ast.walk(n.value))]
        if hits:
            line = first + max(hits) - 1
    except (OSError, TypeError, SyntaxError):
        pass
    return UserOrigin(code.co_filename, line, "", fn.__qualname__)


def signature_text(inputs):
    """A Program's feeds as `(name: dtype[shape], ...)`, for the log."""
    return "(" + ", ".join(f"{v.name}: {v.dtype}{list(v.shape)}" for v in inputs) + ")"


def skeleton_text(skeleton):
    """The non-tensor parts of a call's arguments (they select the Program), for the log."""
    kind = skeleton[0]
    if kind == "T":
        return "<tensor>"
    if kind == "namedtuple":
        return f"{skeleton[1].__name__}({', '.join(skeleton_text(s) for s in _items(skeleton))})"
    if kind in ("list", "tuple"):
        inner = ", ".join(skeleton_text(s) for s in skeleton[1])
        return f"[{inner}]" if kind == "list" else f"({inner}{',' if len(skeleton[1]) == 1 else ''})"
    if kind == "dict":
        return "{" + ", ".join(f"{k!r}: {skeleton_text(s)}" for k, s in skeleton[1]) + "}"
    return repr(skeleton[2])


def flatten_outputs(obj, out_vars, fn=None):
    """A skeleton of what the traced function returned; its tensors appended to ``out_vars``."""
    if isinstance(obj, UndefinedVar) and obj is not RETURN_NO_VALUE:
        origin = return_origin(fn, obj.var_name)
        err = NameError(f"{getattr(fn, '__name__', 'the function')} returns '{obj.var_name}', which is not "
                        "defined on every path (it is assigned only in some branches of a tensor-dependent "
                        "`if` or in a loop that may not run)")
        raise attach_origin(err, origin, "while building the Program") if origin else err
    if isinstance(obj, TensorArray):
        # A list built in a tensor loop: one stacked output, handed back as a list of its rows.
        out_vars.append(obj.tensor)
        return ("array", len(out_vars) - 1)
    if isinstance(obj, (Variable, rt.Tensor)):
        var = obj if isinstance(obj, Variable) else to_variable(obj)
        for i, seen in enumerate(out_vars):
            if seen is var:  # returned twice: one Tensor at both places, as eager returns one object
                return ("T", i)
        out_vars.append(var)
        return ("T", len(out_vars) - 1)
    if isinstance(obj, (list, tuple)):
        return _sequence(obj, tuple(flatten_outputs(v, out_vars, fn) for v in obj))
    if isinstance(obj, dict):
        return ("dict", tuple((k, flatten_outputs(v, out_vars, fn)) for k, v in obj.items()))
    return ("V", type(obj).__name__, obj)
