"""Ops a plan writes as Python expressions instead of kernel calls (feature ``expressions``).

Per call, the registry's ``getitem`` rebuilds its index tuple from the spec, and
a ufunc on one-element values (loop counters, shapes) costs far more than the
scalar arithmetic it does.  So, for a while body::

    v_getitem_0 = _k2_getitem(v_x, [v_i], spec=[['t', 0]])      ->  v_getitem_0 = v_x[(v_i,)]
    v_add_0 = _k0_add(v_i, _c0)                                  ->  v_add_0 = (v_i + _c0s)
    v_less_than_1 = _k6_less_than(v_add_0, _c1)                  ->  v_less_than_1 = (v_add_0 < _c1s)
    v_r = _k4_reshape(v_t, None, shape=[-1, 32, 64])             ->  v_r = v_t.reshape((-1, 32, 64))

The index is the tuple the kernel would build, and the operators on same-dtype
rank-0 numpy values give the values and dtypes the ufuncs give.
"""
from .features import enabled

_BINARY = {"add": "+", "subtract": "-", "multiply": "*", "less_than": "<", "less_equal": "<=",
           "greater_than": ">", "greater_equal": ">=", "equal": "==", "not_equal": "!="}


def _getitem(block, op, ref, g, prefix):
    x, idx = op.inputs.get("X"), op.inputs.get("Index") or []
    if not x or len(x) != 1:
        return None
    spec = op.attrs.get("spec", [])
    if _two_steps(block, spec, idx):
        return None
    parts = []
    for k, item in enumerate(spec):
        tag = item[0]
        if tag == "i" and type(item[1]) is int:
            parts.append(repr(item[1]))
        elif tag == "s":
            name = f"{prefix}_s{k}"
            g[name] = slice(item[1], item[2], item[3])
            parts.append(name)
        elif tag == "t" and item[1] < len(idx):
            parts.append(ref(idx[item[1]]))
        elif tag == "n":
            parts.append("None")
        elif tag == "e":
            parts.append("...")
        else:
            return None
    return f"{ref(x[0])}[({''.join(p + ', ' for p in parts)})]"


def _two_steps(block, spec, idx):
    """Whether the key mixes ints (or 0-d int tensors) with other tensor indices, which the kernel
    applies in two numpy steps (indexing._keys); an unknown var counts as mixing."""
    scalar = other = False
    for item in spec:
        if item[0] == "i":
            scalar = True
        elif item[0] == "t":
            v = block._find_var(idx[item[1]]) if item[1] < len(idx) else None
            if v is None:
                return True
            if len(v.shape) == 0 and str(v.dtype) != "bool":
                scalar = True
            else:
                other = True
    return scalar and other


def _scalar_binary(block, op, scalar_ref):
    xs, ys = op.inputs.get("X"), op.inputs.get("Y")
    if not xs or not ys or len(xs) != 1 or len(ys) != 1:
        return None
    x, y = block._find_var(xs[0]), block._find_var(ys[0])
    if x is None or y is None or list(x.shape) or list(y.shape) or x.dtype != y.dtype:
        return None
    if not str(x.dtype).startswith(("int", "float")):
        return None
    return f"({scalar_ref(xs[0])} {_BINARY[op.type]} {scalar_ref(ys[0])})"


def _shape_op(block, op, ref):
    xs = op.inputs.get("X")
    x = block._find_var(xs[0]) if xs and len(xs) == 1 else None
    if x is None:
        return None
    if op.type == "reshape":
        shape = op.attrs.get("shape", [])
        # nothing for the kernel to resolve: positive dims and at most one -1, which numpy infers
        # as the kernel does (0, "copy the input dim", and run-time ShapeTensor dims are the kernel's)
        if (shape and not op.inputs.get("ShapeTensor") and all(type(d) is int and (d > 0 or d == -1) for d in shape)
                and shape.count(-1) <= 1):
            return f"{ref(xs[0])}.reshape({tuple(shape)!r})"
        return None
    perm = op.attrs.get("perm", [])
    if sorted(perm) == list(range(x.ndim)) and all(type(p) is int for p in perm):
        return f"{ref(xs[0])}.transpose({tuple(perm)!r})"
    return None


def expression(block, op, ref, scalar_ref, g, prefix):
    """Python source computing ``op``'s one output, or None (then the op's kernel is called).

    ``ref(name)``: the plan's name for a value; ``scalar_ref(name)``: the same, or a
    numpy scalar for a one-element constant; ``g``: the plan's globals (for slice
    objects, named from ``prefix``).
    """
    if not enabled("expressions"):
        return None
    if op.type == "getitem":
        return _getitem(block, op, ref, g, prefix)
    if op.type in _BINARY:
        return _scalar_binary(block, op, scalar_ref)
    if op.type in ("reshape", "transpose"):
        return _shape_op(block, op, ref)
    return None


_COMPARE = ("less_than", "less_equal", "greater_than", "greater_equal", "equal", "not_equal")


def loop_predicate(block, body, input_names, output_names, n_carries, consts):
    """A compiled loop's predicate as a comparison of numpy scalars (feature ``scalar_predicates``).

    ``i < n`` with ``n`` a [1] input costs a ufunc call a step; when the predicate is a
    comparison of one-element values of one dtype that nothing but the loop reads, the
    plan compares scalars instead: ``bool`` of the size-1 array the op makes is the
    scalar comparison's value.  Returns ``(op, operands)`` or None; each operand is
    ``(name, how)``: ``"value"`` (a rank-0 value, used as is), ``"hoist"`` (an outer
    value or constant, unpacked to a scalar once before the loop).
    """
    if not enabled("scalar_predicates"):
        return None
    cond = output_names[-1]
    if cond in output_names[:-1]:
        return None
    producer = None
    for op in body:
        if cond in op.input_arg_names:
            return None  # the body reads it too: keep its array
        if cond in op.output_arg_names:
            producer = op
    if producer is None or producer.type not in _COMPARE or producer.output_arg_names != [cond]:
        return None
    xs, ys = producer.inputs.get("X") or [], producer.inputs.get("Y") or []
    if len(xs) != 1 or len(ys) != 1:
        return None
    x, y = block._find_var(xs[0]), block._find_var(ys[0])
    if x is None or y is None or x.dtype != y.dtype or not str(x.dtype).startswith(("int", "float")):
        return None
    outer = set(input_names[n_carries:]) | set(consts)
    operands = []
    for n, v in ((xs[0], x), (ys[0], y)):
        if any(d != 1 for d in v.shape):
            return None
        if n in outer:
            operands.append((n, "hoist"))
        elif not v.shape and n not in input_names[n_carries:]:
            operands.append((n, "value"))
        else:
            return None
    return producer, operands
