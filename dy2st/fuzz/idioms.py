"""Grammar features ``idioms`` and ``calls``: constructs another author's generator would write.

``generator._Gen`` keeps its own statements (updates, tensor ``if``/``while``/``for``, jumps); these
add what it never wrote, each a statement (or a few) on the two tensor variables:

- ``idioms``: tuple unpacking and swapping (``x, y = y, x * c + y * d``, starred targets),
  augmented assignment to subscripts (``y[0] += ...``, ``y[:, 1:3] *= c``, ``y[i % 3] -= c`` with a
  tensor loop counter) and to a local object's attribute (``bx.v += ...`` under tensor conditions
  and loops), in-place methods (``add_``, ``scale_``, ``clip_``), slices with tensor bounds
  (``y[:n % 3 + 1]``), list/dict comprehensions over ranges, Python int/float/bool variables
  changed under tensor conditions and loops then mixed into tensors, ``range(a, b, step)`` with
  tensor bounds and negative steps, ``for ... else`` / ``while ... else`` around a loop body with
  breaks, chained comparisons (``c1 < y.mean() < c2``), ternaries inside calls, ``assert`` with a
  message, ``print`` of a tensor, ``len()`` of a list grown in a (tensor) loop, integer arithmetic
  with negative operands (``//``, ``%``), bool tensors (``&``, ``|``, ``~``, ``logical_xor``,
  ``where``), reductions along an axis, reshape/transpose/concat/stack, blocks inside
  ``try: ... finally:`` and ``with rt.no_grad():`` (returns in them included);
- ``calls``: module-level helpers called with default, positional and keyword arguments (a
  ``None`` default tested with ``is not None``), a helper returning a pair unpacked at the call,
  lambdas with defaults, and recursion on a Python-int depth with tensor conditions inside.

Every form keeps ``x``/``y`` float32 [B, 4] (B is 3 or 5, and unknown when saved) so the rest of
the grammar can use them, and writes no Python value whose type a tensor condition decides (int on
one side, float on the other; a list growing on one side), which has no one-Program form.
"""

from dy2st.fuzz.grammar import other as _other

PRELUDE = '''class Box:
    def __init__(self, v):
        self.v = v


def helper2(a, scale=0.5, shift=0.1, bias=None):
    if bias is not None:
        a = a + bias * 0.25
    if a.mean() > 0.1007:
        a = rt.tanh(a)
    return a * scale + shift


def pair(a, b):
    return b * 0.5, a + b * 0.25


def rec(a, depth):
    if depth <= 0:
        return a
    if a.sum() > 0.0007:
        return rec(a * 0.75 - 0.1, depth - 1)
    return rec(a + 0.3, depth - 1)
'''


def _indent(lines):
    return ["    " + ln for ln in lines]


def _ints(scope, kinds=("py_int", "tensor_int", "counter")):
    return [v for v, kind in scope["loopvars"] if kind in kinds]


def stmt(g, kind, depth, scope, always):
    """(lines, ends the block?) of one ``kind`` statement for the generator ``g``."""
    if kind == "calls":
        return _call(g, scope), False
    forms = [_unpack, _aug_sub, _inplace, _alias_write, _int_truth, _tensor_slice, _comprehension, _py_scalar, _int_math,
             _bools, _reduce, _shapes, _len_list, _ternary_call, _box_attr, _assert_print]
    if depth < 3 and g.budget > 0:
        forms += [_range_step, _loop_else, _chained_if, _try_finally, _no_grad_block, _shape_loop, _while_true]
    return g.r.choice(forms)(g, depth, scope, always), False


def _unpack(g, depth, scope, always):
    a, b = g.tvars
    form = g.r.randrange(3)
    if form == 0:  # the Fibonacci step: both right-hand sides read the old values
        return [f"{a}, {b} = {b}, {a} * {g.c(0.3, 0.7)} + {b} * {g.c(0.2, 0.5)}"]
    if form == 1:
        return [f"{b}, {a} = ({a} * {g.c(0.5, 1.0)}, rt.tanh({b}) + {a} * {g.c(-0.5, 0.5)})"]
    tmp = g.fresh("p")
    return [f"{tmp}, *{tmp}r = [{b} * {g.c(0.5, 1.0)}, {a}, {a} * {g.c()}]",
            f"{a} = {tmp} + {tmp}r[-1] * {g.c(-0.5, 0.5)}"]


def _row_index(g, scope):
    ints = _ints(scope)
    if ints and g.r.random() < 0.6:
        return f"{g.r.choice(ints)} % 3"
    return str(g.r.choice([0, 1, 2, -1]))


def _aug_sub(g, depth, scope, always):
    r, t = g.r, g.tv()
    u = _other(g, t)
    # a copy first: the input x is a leaf that needs a gradient (written in place eagerly it refuses)
    lines = [f"{t} = {t} * 1.0"]
    form = r.randrange(6)
    if form == 5:  # a slice with a run-time bound
        k = r.choice([f"{v} % 3 + 1" for v in _ints(scope, ("tensor_int",))] + ([] if g.helper else ["n % 3"]) + ["1"])
        lines.append(f"{t}[{r.choice([f':{k}', f'{k}:, 1:'])}] {r.choice(['+', '*'])}= {g.c(0.5, 1.0)}")
    elif form == 0:
        lines.append(f"{t}[{_row_index(g, scope)}] += {u}[{_row_index(g, scope)}] * {g.c(-0.5, 0.5)}")
    elif form == 1:
        lines.append(f"{t}[:, {r.randrange(4)}] -= {g.c()}")
    elif form == 2:
        lines.append(f"{t}[:, 1:3] *= {g.c(0.5, 1.5)}")
    elif form == 3:
        lines.append(f"{t}[{_row_index(g, scope)}] = {t}[0] * {g.c(0.5, 1.0)} + {g.c()}")
    else:
        lines.append(f"{t}[:, {r.randrange(4)}] = {u}[:, {r.randrange(4)}] * {g.c(-1, 1)}")
    return lines


def _inplace(g, depth, scope, always):
    t = g.tv()
    u = _other(g, t)
    form = g.r.choice([f"{t}.add_({u} * {g.c(-0.5, 0.5)})", f"{t}.scale_({g.c(0.5, 1.2)})",
                       f"{t}.clip_({g.c(-2.0, -0.5)}, {g.c(0.5, 2.0)})", f"{t}.subtract_({u}.mean() * {g.c()})"])
    return [f"{t} = {t} + 0.0", form]


def _alias_write(g, depth, scope, always):
    """A second name for a tensor, then an in-place write through the first under a condition or in
    a loop: eagerly both names see the write."""
    r, t = g.r, g.tv()
    u, al = _other(g, t), g.fresh("al")
    c, _ = g.cond(scope)
    write = r.choice([f"{t}[{_row_index(g, scope)}] += {g.c()}", f"{t}.scale_({g.c(0.5, 1.2)})",
                      f"{t}[:, {r.randrange(4)}] = {u}[:, 0] * {g.c()}", f"{t}.add_({u} * {g.c(-0.5, 0.5)})"])
    head = r.choice([f"if {c}:", f"for {al}i in range({r.randint(1, 2)}):"] + ([] if g.helper else [f"for {al}i in range(n):"]))
    return [f"{t} = {t} * 1.0", f"{al} = {t}", head, f"    {write}", f"{u} = {u} * {g.c(0.5, 0.9)} + {al} * {g.c(-0.3, 0.3)}"]


def _int_truth(g, depth, scope, always):
    """An int tensor as a condition (its truth), counted down in a loop."""
    t = g.tv()
    m = g.fresh("m")
    if g.helper:
        start = f"rt.cast({g.tv()}.sum() > 0, 'int64') + 1"
    else:
        start = g.r.choice(["n + 0", "n % 3", "n - 2"])
    return [f"{m} = {start}", f"while {m} > 0:", f"    {m} = {m} - 1", f"    {t} = {t} * {g.c(0.7, 1.0)} + {g.c(-0.2, 0.2)}",
            f"if {m} % 2:" if g.r.random() < 0.5 else f"if not {m}:", f"    {t} = {t} + {g.c()}"]


def _tensor_slice(g, depth, scope, always):
    t = g.tv()
    bounds = [str(g.r.randint(1, 3))] + [f"{v} % 3 + 1" for v in _ints(scope, ("tensor_int",))]
    if not g.helper:
        bounds.append("n % 3 + 1")
    k = g.r.choice(bounds)
    form = g.r.randrange(3)
    if form == 0:
        s = f"{g.tv()}[:{k}]"
    elif form == 1:
        s = f"{g.tv()}[-({k}):]"
    else:
        s = f"{g.tv()}[{k} - 1:, 1:]"
        return [f"{t} = {t} + rt.concat([{s}.mean(axis=0), {s}.max(axis=0)[:1]]) * {g.c(-0.5, 0.5)}"]
    return [f"{t} = {t} + {s}.sum(axis=0) * {g.c(-0.5, 0.5)}"]


def _comprehension(g, depth, scope, always):
    t, u = g.tv(), g.tv()
    form = g.r.randrange(3)
    if form == 0:
        i = g.fresh("c")
        return [f"{t} = rt.stack([{u} * {g.c(0.5, 1.0)} + {i} * {g.c(-0.3, 0.3)} for {i} in range({g.r.randint(1, 3)})]).mean(axis=0)"]
    d, i = g.fresh("d"), g.fresh("c")
    if form == 1:
        return [f"{d} = {{{i}: rt.tanh({u}) * ({i} + {g.c(0.5, 1.0)}) for {i} in range(3) if {i} != 1}}",
                f"{t} = {d}[0] * {g.c(0.5, 1.0)} + {d}[2] * {g.c(-0.3, 0.3)}"]
    return [f"{d} = [[{u} * ({i} + {d}j) for {d}j in range(2)] for {i} in range(2)]",
            f"{t} = {t} * {g.c(0.3, 0.7)} + {d}[1][0] * {g.c(-0.3, 0.3)} + sum([{d}[0][1], {d}[1][1]]) * {g.c(-0.2, 0.2)}"]


def _py_scalar(g, depth, scope, always):
    """A Python int, float or bool changed under a tensor condition or loop, then used."""
    r, t = g.r, g.tv()
    s = g.fresh("s")
    c, _ = g.cond(scope)
    form = r.randrange(4)
    if form == 0:  # ints on both sides
        return [f"{s} = {r.randint(-2, 2)}", f"if {c}:", f"    {s} += {r.randint(1, 3)}", "else:",
                f"    {s} = {s} * {r.randint(-2, 2)} - 1", f"{t} = {t} * {g.c(0.3, 0.6)} + {s} * {g.c(-0.2, 0.2)}"]
    if form == 1:  # a float scale
        return [f"{s} = {g.c(0.5, 1.0)}", f"if {c}:", f"    {s} = {s} * 2", "else:",
                f"    {s} = {s} / 4", f"{t} = {t} * {s}"]
    if form == 2:  # a counter of rows meeting a condition
        row, k = g.fresh("row"), g.fresh("k")
        return [f"{s} = 0", f"for {row} in {g.tv()}:", f"    if {row}.sum() > {g.c(-1, 1)}:", f"        {s} += 1",
                f"{k} = {s} % 2 - {s} // 2", f"{t} = {t} + {s} * {g.c(-0.2, 0.2)} + {k} * {g.c(-0.2, 0.2)}"]
    row = g.fresh("row")  # a bool found in a loop, then the condition of an expression
    return [f"{s} = False", f"for {row} in {g.tv()}:", f"    if {row}.max() > {g.c(0.5, 2.0)}:", f"        {s} = True",
            "        break", f"{t} = {t} * {g.c(0.5, 1.0)} if {s} else {t} + {g.c()}"]


def _int_math(g, depth, scope, always):
    t = g.tv()
    q = g.fresh("q")
    if g.helper or g.r.random() < 0.5:
        first = f"{q} = rt.cast({g.tv()} * {g.c(2.0, 5.0)}, '{g.r.choice(['int32', 'int64'])}')"
    else:
        first = f"{q} = n - {g.r.randint(1, 4)}"
    a, b = g.r.randint(2, 4), g.r.randint(2, 5)
    expr = g.r.choice([f"{q} // {a} - {q} % {b}", f"(-{q}) // {a} + {q} % -{b}", f"{q} % {b} * {a} - (-{q}) % {a}",
                       f"abs({q}) // {a}"])
    return [first, f"{t} = {t} + rt.cast({expr}, 'float32') * {g.c(-0.2, 0.2)}"]


def _bools(g, depth, scope, always):
    t, u = g.tv(), g.tv()
    m = g.fresh("m")
    lines = [f"{m} = ({t} > {g.c(-0.5, 0.5)}) & ({u} < {g.c(0.0, 1.0)}) | ~({t} > {g.c(-1.5, -0.5)})"]
    form = g.r.randrange(3)
    if form == 0:
        lines.append(f"{t} = rt.where({m}, {t} * {g.c(0.5, 1.0)}, {u} * {g.c(-0.5, 0.5)})")
    elif form == 1:
        lines.append(f"{t} = {t} + rt.cast(rt.logical_xor({m}, {u} > {g.c()}), 'float32') * {g.c(-0.5, 0.5)}")
    else:
        lines.append(f"{t} = {t} + rt.cast({m}, 'float32').sum(axis=1, keepdim=True) * {g.c(-0.2, 0.2)}")
    return lines


def _reduce(g, depth, scope, always):
    t, u = g.tv(), g.tv()
    parts = g.r.sample([f"{u}.sum(axis=1, keepdim=True)", f"{u}.max(axis=0)", f"{u}.mean(axis=-1, keepdim=True)",
                        f"{u}.min(axis=1, keepdim=True)", f"rt.tanh({u}).prod(axis=1, keepdim=True)",
                        f"rt.cumsum({u}, axis=1)"], 2)
    return [f"{t} = {t} * {g.c(0.5, 1.0)} + {parts[0]} * {g.c(-0.3, 0.3)} + {parts[1]} * {g.c(-0.3, 0.3)}"]


def _shapes(g, depth, scope, always):
    t, u = g.tv(), g.tv()
    form = g.r.randrange(4)
    if form == 0:
        return [f"{t} = rt.reshape(rt.transpose(rt.reshape({u}, [-1, 2, 2]), [0, 2, 1]), [-1, 4]) * {g.c(0.5, 1.0)}"]
    if form == 1:
        k = g.r.randint(1, 3)
        return [f"{t} = rt.concat([{u}[:, {k}:], {u}[:, :{k}] * {g.c(0.5, 1.0)}], axis=1)"]
    if form == 2:
        axis = g.r.choice([0, 1, -1])
        return [f"{t} = rt.stack([{t}, {u} * {g.c(-0.5, 0.5)}], axis={axis}).sum(axis={axis}) * {g.c(0.3, 0.6)}"]
    return [f"{t} = rt.concat([{t}, {u}], axis=0)[{u}.shape[0]:] + {t}.flatten()[:4] * {g.c(-0.3, 0.3)}"]


def _len_list(g, depth, scope, always):
    t, acc = g.tv(), g.fresh("acc")
    head = g.r.choice([f"for {acc}i in range({g.r.randint(0, 3)}):", f"for {acc}r in {g.tv()}:"]
                      + ([] if g.helper else [f"for {acc}i in range(n):"]))
    item = f"{acc}r * {g.c()}" if f"{acc}r" in head else f"{t} * {g.c(0.5, 1.0)}"
    return [f"{acc} = []", head, f"    {acc}.append({item})",
            f"{t} = {t} * ({g.c(0.2, 0.5)} + len({acc}) * {g.c(0.0, 0.2)})"]


def _ternary_call(g, depth, scope, always):
    t = g.tv()
    c1, _ = g.cond(scope)
    c2 = f"{g.c(-1.0, 0.0)} < {g.tv()}.mean() < {g.c(0.0, 1.0)}"
    inner = f"rt.tanh({g.tv()} if {c1} else {g.tv()} * {g.c(0.5, 1.0)})"
    if g.helper:
        return [f"{t} = {inner} * ({g.c(0.5, 1.0)} if {c2} else {g.c(-1.0, -0.5)})"]
    return [f"{t} = helper({inner}) * ({g.c(0.5, 1.0)} if {c2} else {g.c(-1.0, -0.5)}) + {t} * {g.c(0.1, 0.4)}"]


def _box_attr(g, depth, scope, always):
    t, bx = g.tv(), g.fresh("bx")
    c, _ = g.cond(scope)
    head = g.r.choice([f"if {c}:", f"for {bx}i in range({g.r.randint(1, 3)}):", f"for {bx}r in {g.tv()}:"]
                      + ([] if g.helper else [f"for {bx}i in range(n):"]))
    add = f"{bx}r.sum()" if f"{bx}r" in head else g.tv()
    return [f"{bx} = Box({t} * {g.c(0.5, 1.0)})", head, f"    {bx}.v += {add} * {g.c(-0.3, 0.3)}",
            f"    {bx}.v *= {g.c(0.7, 1.0)}", f"{t} = {bx}.v"]


def _assert_print(g, depth, scope, always):
    t = g.tv()
    form = g.r.randrange(3)
    if form == 0:
        return [f"assert {t}.shape[-1] == 4, 'the feature dim is 4'"]
    if form == 1:
        return [f"assert ({t} == {t}).all(), f'a NaN in {t}: {{{t}.sum()}}'"]
    return [f"print('{t} mean', {t}.mean())"]


def _range_step(g, depth, scope, always):
    r = g.r
    v = g.fresh("i")
    heads = [(f"range({r.randint(2, 4)}, {r.randint(-3, 0)}, -{r.randint(1, 2)})", "py_int")]
    if not g.helper:
        heads += [(f"range(n + {r.randint(0, 2)}, 0, -1)", "tensor_int"),
                  (f"range(n, -{r.randint(1, 3)}, -2)", "tensor_int"),
                  (f"range({r.randint(-1, 1)}, n + {r.randint(1, 3)}, {r.randint(2, 3)})", "tensor_int")]
    rng, kind = r.choice(heads)
    if kind == "tensor_int" and always and not g.py_jump:
        g.tensor_cf = True
    body_scope = dict(scope, in_loop=True, loopvars=scope["loopvars"] + [(v, kind)])
    body = [f"{g.tv()} = {g.tv()} * {g.c(0.7, 1.0)} + {v} * {g.c(-0.2, 0.2)}"] + g.block(depth + 1, body_scope, always)
    return [f"for {v} in {rng}:"] + _indent(body)


def _shape_loop(g, depth, scope, always):
    """Loops over a tensor's rows written through its shape (the batch dim is unknown in a saved model)."""
    r, t, u = g.r, g.tv(), g.tv()
    v = g.fresh("i")
    form = r.randrange(4)
    if form < 2:
        head = f"for {v} in range({t}.shape[0]):" if form == 0 else f"for {v} in range(len({t}) - 1, -1, -1):"
        lv, first = (v, "py_int"), [f"{u} = {u} * {g.c(0.7, 1.0)} + {t}[{v}] * {g.c(-0.3, 0.3)}"]
    elif form == 2:
        head, lv, first = f"for {v} in {t}[::-1]:", (v, "row"), []
    else:
        j, row2 = g.fresh("j"), g.fresh("row")
        head, lv = f"for {j}, ({v}, {row2}) in enumerate(zip({t}, {u} * {g.c(0.5, 1.0)})):", (v, "row")
        first = [f"{g.tv()} = {g.tv()} + {v} * {row2} * {g.c(-0.3, 0.3)} + {j} * {g.c(-0.1, 0.1)}"]
    if form == 2 and always and not g.py_jump:
        # (a known batch dim makes `range(t.shape[0])` a Python loop when traced, and a zip of
        # tensors may be unrolled too: only the iteration over a tensor claims a loop op)
        g.tensor_cf = True
    body_scope = dict(scope, in_loop=True, loopvars=scope["loopvars"] + [lv])
    return [head] + _indent(first + g.block(depth + 1, body_scope, always))


def _while_true(g, depth, scope, always):
    """``while True:`` left by a break under a tensor condition (a counter bounds it)."""
    k = g.fresh("k")
    body_scope = dict(scope, in_loop=True, loopvars=scope["loopvars"] + [(k, "counter")])
    if always and not g.py_jump:
        g.tensor_cf = True
    # the exit test first: a block ending in `continue` would skip one written after it
    body = [f"{k} += 1", f"if {g.tensor_atom(body_scope)} or {k} > {g.r.randint(1, 4)}:", "    break"] + \
        g.block(depth + 1, body_scope, always)
    return [f"{k} = 0", "while True:"] + _indent(body)


def _loop_else(g, depth, scope, always):
    r = g.r
    if r.random() < 0.5:
        v = g.fresh("i")
        head, lv = r.choice([(f"for {v} in range({r.randint(1, 3)}):", (v, "py_int")),
                             (f"for {v} in {g.tv()}:", (v, "row"))]
                            + ([] if g.helper else [(f"for {v} in range(n):", (v, "tensor_int"))]))
        pre, first = [], []
    else:
        v = g.fresh("k")
        head, lv = f"while {g.tensor_atom(scope)} and {v} < {r.randint(1, 3)}:", (v, "counter")
        pre, first = [f"{v} = 0"], [f"{v} += 1"]
    body_scope = dict(scope, in_loop=True, loopvars=scope["loopvars"] + [lv])
    c, tensor = g.cond(body_scope)
    if not tensor:
        g.py_jump = True
    body = first + g.block(depth + 1, body_scope, always) + [f"if {c}:", "    break"]
    # the else part runs when no break did: never claimed as always traced
    orelse = g.block(depth + 1, scope, False)
    return pre + [head] + _indent(body) + ["else:"] + _indent(orelse)


def _chained_if(g, depth, scope, always):
    lo, hi = g.c(-1.5, -0.1), g.c(0.1, 1.5)
    c = f"{lo} < {g.tv()}.{g.r.choice(['mean', 'sum', 'min'])}() < {hi}"
    if always and not g.py_jump:
        g.tensor_cf = True
    lines = [f"if {c}:"] + _indent(g.block(depth + 1, scope, always))
    if g.r.random() < 0.5:
        lines += ["else:"] + _indent(g.block(depth + 1, scope, always))
    return lines


def _try_finally(g, depth, scope, always):
    t = g.tv()
    return ["try:"] + _indent(g.block(depth + 1, scope, always)) + \
           ["finally:", f"    {t} = {t} * {g.c(0.5, 1.0)}"]


def _no_grad_block(g, depth, scope, always):
    g.no_grad = True
    return ["with rt.no_grad():"] + _indent(g.block(depth + 1, scope, always))


def _call(g, scope):
    r, t, u = g.r, g.tv(), g.tv()
    form = r.randrange(5)
    if form == 0:
        args = r.choice([f"{u}", f"{u}, {g.c(0.5, 1.0)}", f"{u}, shift={g.c()}", f"{u}, bias={t}",
                         f"{u}, {g.c(0.5, 1.0)}, bias={t} * {g.c()}", f"bias=None, a={u}, scale={g.c(0.5, 1.5)}"])
        return [f"{t} = helper2({args}) + {t} * {g.c(0.1, 0.5)}"]
    if form == 1:
        a, b = g.tvars
        return [f"{a}, {b} = pair({g.tv()}, {g.tv()} * {g.c(0.5, 1.0)})"]
    if form == 2:
        f = g.fresh("f")
        return [f"{f} = lambda v, k={g.c(0.5, 1.0)}: rt.tanh(v) * k + {g.c()}",
                f"{t} = {f}({t}) + {f}({u}, k={g.c(-0.5, 0.5)}) * {g.c(0.2, 0.5)}"]
    if form == 3:
        return [f"{t} = rec({u}, {r.randint(0, 3)}) * {g.c(0.5, 1.0)}"]
    c, _ = g.cond(scope)
    return [f"{t} = helper2({u}, scale=({g.c(0.5, 1.0)} if {c} else {g.c(1.0, 1.5)}))"]
