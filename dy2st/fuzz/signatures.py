"""Grammar features about calls, comprehensions and shapes (``--features varargs,comprehensions,shape_logic``):

- ``varargs``: module-level functions taking ``*args``, keyword-only arguments, defaults and
  ``**kwargs``, each holding tensor control flow (a loop over ``args`` with a tensor ``if``, a
  ``while`` on a tensor, a loop of a tensor count, returns from nested tensor loops), called with
  unpacked lists, tuples and dicts, keywords, defaults, the int64 argument as a count, in branches
  and loops; nested functions and lambdas taking ``*args``/``**kwargs``, a returned pair unpacked
  into another call;
- ``comprehensions``: list, dict and generator comprehensions inside the converted code over
  Python ranges, over the columns of a tensor (``y.T``, ``rt.unbind``, ``rt.split``, ``zip``), with
  Python filters, tensor ternaries in their items, nested, fed to ``sum``/``max``/``any``/
  ``rt.stack``, inside tensor loops;
- ``shape_logic``: Python logic on ``y.shape[i]`` (a tensor in the saved model, the batch dim
  unknown): unpacking ``b, d = y.shape``, ``min``/``max``/``%``/``//`` of dims, dims in slices,
  reshapes, loop bounds, lists and conditions, ``y.shape == x.shape`` and tuples or lists of dims
  compared (``tuple(y.shape) == tuple(x.shape)``, ``(b, d) != (3, 4)``), ``divmod``/``float``/
  ``int``/``max``/``sum`` of dims, a batch of one returned early, stepped ranges and ``while``
  conditions bounded by a dim, a Python int a dim's condition picks used as a reshape's dim, a loop
  bound and a slice step.

Every form keeps ``x``/``y`` float32 [B, 4].  Comprehensions iterate over what the saved model knows
the length of (columns, ranges of known dims): iterating over the rows of a tensor whose batch dim
is unknown in Python is refused at its line by design (a plain ``for`` statement makes a loop op).
"""

from dy2st.fuzz.grammar import other as _other, claim as _claim

PRELUDE = '''def combine(*args, scale=0.5, **kw):
    total = args[0] * scale
    for a in args[1:]:
        if a.mean() > total.mean():
            total = total + a * kw.get('w', 0.25)
        else:
            total = total - a * 0.1007
    return total


def looped(a, *rest, steps=2, shift=0.0):
    for i in range(steps):
        a = a * 0.9 + shift
        for r in rest:
            a = a + r * 0.1007
    k = 0
    while a.mean() < 0.5007 and k < 3:
        k += 1
        a = a + 0.2007
    return a


def pick(a, *, k=2, mode='sum'):
    if mode == 'sum':
        r = a.sum(axis=1, keepdim=True)
    else:
        r = a.max(axis=1, keepdim=True)
    if r.mean() > 0.0007:
        return a * (k * 0.25)
    return a + r * 0.25


def early(a, limit=1.0007):
    for r in a:
        for v in r:
            if v > limit:
                return a * 0.5
    return a
'''


def varargs(g, depth, scope, always):
    """``varargs``: calls of the ``*args``/keyword-only/``**kwargs`` functions of ``PRELUDE``."""
    r, t, c = g.r, g.tv(), g.c
    u = _other(g, t)
    _claim(g, always)  # every one of them holds a tensor condition
    steps = r.choice(["2", "1"] + ([] if g.helper else ["n", "n % 3"]))
    calls = [f"combine({t}, {u}, {t} * {c(0.5, 1.0)}, scale={c(0.5, 1.0)}, w={c(0.1, 0.5)})",
             f"combine(*[{t}, {u}])", f"combine(*({u}, {t}), **{{'w': {c(0.1, 0.5)}}})",
             f"looped({t}, {u}, steps={steps}, shift={c(-0.1, 0.1)})", f"looped({t}, *({u}, {t} * {c(-0.5, 0.5)}))",
             f"looped({t})", f"pick({t}, **{{'k': {r.randint(1, 3)}, 'mode': '{r.choice(['sum', 'max'])}'}})",
             f"pick({u}, mode='{r.choice(['sum', 'max'])}')", f"early({t})", f"early({u}, limit={c(0.5, 1.5)})"]
    call, other = r.choice(calls), r.choice(calls)
    form = r.randrange(5)
    if form == 3:  # a nested function taking *args and **kwargs, called in a (tensor) loop and unpacked
        f, i = g.fresh("f"), g.fresh("i")
        return [f"def {f}(*vs, k={c(0.5, 1.0)}, **kw):", "    out = vs[0] * k", "    for v in vs[1:]:",
                "        if v.mean() > out.mean():", f"            out = out + v * kw.get('w', {c(0.1, 0.3)})",
                "    return out", f"for {i} in range({'2' if g.helper else r.choice(['n', '2'])}):",
                f"    {t} = {f}({t}, {u}, {t} * {c(0.5, 1.0)}, k={c(0.5, 1.0)}, w={c(0.1, 0.3)})",
                f"{t} = {t} * {c(0.5, 0.9)} + {f}(*[{u}, {t}]) * {c(0.1, 0.4)} + (lambda *a: sum(a))({t}, {u}) * {c(0.1, 0.2)}"]
    if form == 4:  # a call's pair unpacked into another call, keyword-only count
        f = g.fresh("f")
        return [f"def {f}(a, *, times):", "    for j in range(times):", f"        a = a * {c(0.7, 1.0)} + {c(-0.2, 0.2)}",
                "    if a.mean() > 0.0007:", "        return a, a * 0.5", "    return a * 0.5, a",
                f"{t} = combine(*{f}({t}, times={steps}), scale={c(0.5, 1.0)})"]
    if form == 0:
        return [f"{t} = {call} * {c(0.5, 1.0)} + {t} * {c(0.1, 0.4)}"]
    if form == 1:  # a different call on each side of a condition
        cond, _ = g.cond(scope)
        return [f"if {cond}:", f"    {t} = {call} * {c(0.5, 1.0)}", "else:", f"    {t} = {other} * {c(0.5, 1.0)}"]
    i = g.fresh("i")  # in a loop, the arguments gathered in a list first
    args = g.fresh("args")
    return [f"for {i} in range({'2' if g.helper else r.choice(['n', '2'])}):", f"    {args} = [{t}, {u} * {c(0.5, 1.0)}]",
            f"    {t} = combine(*{args}, scale={c(0.5, 1.0)}) * {c(0.5, 1.0)} + {u} * {c(-0.3, 0.3)}"]


def _columns(g, t):
    """``t``'s columns for a comprehension: as many as it has (known when the Program is built:
    see ``_Gen.needs_columns``)."""
    src = f"{t}.reshape([-1, 4])" if g.needs_columns() else t
    return g.r.choice([f"{src}.T", f"rt.unbind({src}, axis=1)"])


def comprehensions(g, depth, scope, always):
    """``comprehensions``: list/dict/generator comprehensions over ranges and over tensor columns."""
    r, t, c = g.r, g.tv(), g.c
    u = _other(g, t)
    v, j = g.fresh("v"), g.fresh("j")
    form = r.randrange(8)
    if form == 0:  # columns rebuilt
        return [f"{t} = rt.stack([{v} * {c(0.5, 1.0)} + {c()} for {v} in {_columns(g, t)}], axis=1)"]
    if form == 1:  # a tensor ternary in the items
        _claim(g, always)
        return [f"{t} = rt.stack([{v} * {c(0.5, 1.5)} if {v}.mean() > {c(-0.5, 0.5)} else {v} - {c(0.0, 0.5)} "
                f"for {v} in {_columns(g, t)}], axis=1)"]
    if form == 2:  # a dict over enumerate with a Python filter
        d = g.fresh("d")
        return [f"{d} = {{{j}: {v} * ({j} + {c(0.5, 1.0)}) for {j}, {v} in enumerate({_columns(g, u)}) if {j} % 2 == 0}}",
                f"{t} = {t} + ({d}[0] + {d}[2] * {c(-0.5, 0.5)}).unsqueeze(1)"]
    if form == 3:  # generator expressions into sum / max
        agg = r.choice([f"sum({v}.sum() * {c(-0.2, 0.2)} for {v} in {_columns(g, u)})",
                        f"max([{v}.mean() for {v} in {_columns(g, u)}]) * {c(-0.5, 0.5)}",
                        f"sum([{u}[:, {j}] * {c(-0.3, 0.3)} for {j} in range({r.randint(1, 4)})]).unsqueeze(1)"])
        return [f"{t} = {t} + {agg}"]
    if form == 4:  # any() of tensor conditions as a condition
        _claim(g, always)
        return [f"if {r.choice(['any', 'all'])}([{v}.mean() > {c(-0.5, 0.5)} for {v} in {_columns(g, u)}]):",
                f"    {t} = {t} * {c(0.5, 1.0)}", "else:", f"    {t} = {t} + {c()}"]
    if form == 5:  # nested, over a range and zip of columns
        m = g.fresh("m")
        a, b = g.fresh("a"), g.fresh("b")
        return [f"{m} = [[{a} * {j} + {b} * {c(-0.5, 0.5)} for {j} in range(2)] for {a}, {b} in zip({_columns(g, t)}, {_columns(g, u)})]",
                f"{t} = {t} * {c(0.3, 0.7)} + rt.stack([{v}[1] for {v} in {m}], axis=1) * {c(-0.5, 0.5)}"]
    if form == 6:  # pieces of rt.split rebuilt
        return [f"{t} = rt.concat([{v} * {c(0.5, 1.0)} for {v} in rt.split({t}, {r.choice(['2', '[1, 3]', '4'])}, axis=1)][::-1], axis=1)"]
    # inside a tensor loop
    i = g.fresh("i")
    _claim(g, always and not g.helper)
    return [f"for {i} in range({'2' if g.helper else 'n'}):",
            f"    {t} = rt.stack([{v} * {c(0.7, 1.0)} + {i} * {c(-0.1, 0.1)} for {v} in {_columns(g, t)}], axis=1)"]


def shape_logic(g, depth, scope, always):
    """``shape_logic``: Python logic on dims, which the saved model knows only when it runs."""
    r, t, c = g.r, g.tv(), g.c
    u = _other(g, t)
    b, d = g.fresh("b"), g.fresh("d")
    lines = [f"{t} = {t}.reshape([-1, 4])"] if g.needs_columns() else []  # (a known column count: see there)
    form = r.randrange(11)
    if form == 10:  # a Python int a dim's condition picks, then a reshape's dim, a loop bound, a step
        k, i = g.fresh("k"), g.fresh("i")
        pick = f"{k} = {r.choice([1, 2])} if {t}.shape[0] > 4 else {r.choice([2, 4])}"
        if r.random() < 0.5:  # (4 columns again, known only when it runs in the saved model: see loose_columns)
            back = ".reshape([-1, 4])" if g.loose_columns() else ""
            use = f"{t} = {t}.reshape([-1, {k}, 4 // {k}]).sum(axis=-1).repeat_interleave(4 // {k}, axis=1){back} * {c(0.2, 0.5)}"
        else:
            use = f"{t} = {t} + {u}[::{k}].sum(axis=0) * {c(-0.3, 0.3)}"
        return lines + [pick, use, f"for {i} in range({k}):", f"    {t} = {t} * {c(0.7, 1.0)} + {i} * {c(-0.1, 0.1)}"]
    if form == 7:  # a batch of one returned as it is (never here: B is 3 or 5), halves of the rows
        h = g.fresh("h")
        return lines + [f"if {t}.shape[0] == 1:", f"    return {g.ret_expr()}", f"{h} = {t}.shape[0] // 2",
                        f"{t} = {t} + {t}[:{h}].sum(axis=0) * {c(-0.3, 0.3)} + {t}[{h}:].mean(axis=0) * {c(-0.3, 0.3)}"]
    if form == 8:  # dims through Python's number functions
        q = g.fresh("q")
        return lines + [f"{q}, {b} = divmod({t}.shape[0], 2)",
                        f"{t} = {t} * (float({t}.shape[0]) * {c(0.05, 0.2)} + int({u}.shape[0] / 2) * {c(-0.1, 0.1)}) "
                        f"+ ({q} + {b} + max({u}.shape) * {c(-0.05, 0.05)} + sum({t}.shape) * {c(-0.05, 0.05)})"]
    if form == 9:  # a stepped range and a while bounded by a dim
        i, k = g.fresh("i"), g.fresh("k")
        _claim(g, always)
        return lines + [f"for {i} in range({r.choice([0, 1])}, {t}.shape[0], 2):", f"    {t} = {t} + {u}[{i}] * {c(-0.3, 0.3)}",
                        f"{k} = 0", f"while {k} < {u}.shape[0] and {g.tensor_atom(scope)}:",
                        f"    {t} = {t} * {c(0.7, 1.0)} + {u}[{k}] * {c(-0.3, 0.3)}", f"    {k} += 2"]
    if form == 0:  # unpacked, halves of the columns
        return lines + [f"{b}, {d} = {t}.shape", f"{t} = rt.concat([{t}[:, :{d} // 2] * {c(0.5, 1.5)}, {t}[:, {d} // 2:]], axis=1)",
                        f"{t} = {t}.reshape([{b}, 2, {d} // 2]).sum(axis=1).tile([1, 2]) * {c(0.3, 0.6)}"]
    if form == 1:  # a dim in a condition and min/max
        return lines + [f"{b} = {t}.shape[0]", f"if {b} > {r.choice([3, 4])}:", f"    {t} = {t} * {c(0.5, 1.0)}",
                        f"{t} = {t} + min({b}, {r.randint(2, 4)}) * {c(-0.2, 0.2)} + max(1, {b} - 1) * {c(-0.1, 0.1)}"]
    if form == 2:  # a dim in a slice
        return lines + [f"{b} = max(1, {u}.shape[0] - {r.randint(1, 2)})",
                        f"{t} = {t} + {u}[:{b}].mean(axis=0) * {c(-0.5, 0.5)} + {u}[{b} // 2] * {c(-0.3, 0.3)}"]
    if form == 3:  # parity and equality of dims
        same = r.choice([f"{t}.shape == {u}.shape", f"tuple({t}.shape) == tuple({u}.shape)",
                         f"list({t}.shape) == [{u}.shape[0], 4]", f"({t}.shape[0], {t}.shape[1]) != ({r.choice([3, 5])}, 4)"])
        return lines + [f"if {t}.shape[0] % 2 == 1 and {t}.shape[-1] == 4:", f"    {t} = {t} + {c()}",
                        f"if {same}:", f"    {t} = {t} * {c(0.5, 1.0)}"]
    if form == 4:  # dims in a list, then arithmetic
        s = g.fresh("s")
        return lines + [f"{s} = [{t}.shape[0], {t}.shape[1]]", f"{t} = {t} * ({s}[0] / ({s}[1] + 1)) * {c(0.5, 1.0)}"]
    if form == 5:  # a loop bound of a dim
        i = g.fresh("i")
        _claim(g, False)
        return lines + [f"for {i} in range({t}.shape[0] // 2):", f"    {t} = {t} + {u}[{i}] * {c(-0.3, 0.3)}"]
    # a dim carried as a number, scaled in a tensor branch
    cond, tensor = g.cond(scope)
    if tensor:
        _claim(g, always)
    return lines + [f"{b} = {t}.shape[0] * 2", f"if {cond}:", f"    {b} = {b} // 2 + 1", f"{t} = {t} + {b} * {c(-0.1, 0.1)}"]


FORMS = {"varargs": varargs, "comprehensions": comprehensions, "shape_logic": shape_logic}
