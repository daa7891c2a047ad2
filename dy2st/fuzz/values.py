"""Grammar features about values (``python -m dy2st.fuzz --features int_tensors,...``):

- ``dict_branches``: dicts written on both sides of tensor conditions (a key added on each side,
  ``update``, ``+=`` on an item, two items swapped, ``if``/``elif``/``else``, inside a loop);
- ``int_tensors``: int32/int64 and bool tensors: ``//`` and ``%`` with negative operands, ``&``,
  ``|``, ``^``, ``~``, comparisons of ints and of bools, casts between int, bool and float,
  ``astype``, ``any``/``all``, int tensors as conditions, the int64 argument ``n`` in all of those;
- ``runtime_dims``: the batch dim read at run time (``y.shape[0]``, ``len(y)``, ``rt.shape(y)[0]``)
  in ``reshape``, ``rt.full``/``rt.arange``/``rt.expand``, slices, loop bounds, arithmetic and
  conditions (unknown in the saved model, so a tensor there);
- ``inplace_branches``: in-place methods (``add_``, ``subtract_``, ``scale_``, ``clip_``,
  ``multiply_``, ``tanh_``) and item writes (``y[0] = ...``, ``y[:, k] += c``, ``y[mask] = c``) on
  either side of tensor conditions, through an alias, on a list item, in a loop;
- ``inner_grad``: ``rt.grad`` inside the converted code, of a detached copy made to need a gradient
  (under ``rt.enable_grad()``: the inference runs call the program under ``rt.no_grad()``), with
  ``create_graph``, ``grad_outputs``, two inputs, in a branch and in a loop.

A detached copy's gradient is a constant to the outer backward, which finite differences of the
whole program do not see: ``inner_grad`` programs count as ``no_grad`` ones (no ``fd`` stage).
"""

from dy2st.fuzz.grammar import other as _other, claim as _claim


def dicts(g, depth, scope, always):
    """``dict_branches``: a dict written on both sides of a condition (or in a loop), then read."""
    r, t = g.r, g.tv()
    u = _other(g, t)
    d = g.fresh("d")
    c, _ = g.cond(scope)
    e1, e2 = g.expr(scope), g.expr(scope)
    form = r.randrange(7)
    if form == 6:  # the nested dict another name holds too, replaced on both sides, written after
        # (replaced on one side only is refused at the `if`: a later write through d['in'] reaches
        # `inner` on one path only, which one Program cannot follow)
        return [f"{d}i = {{'v': {t}}}", f"{d} = {{'in': {d}i}}", f"if {c}:", f"    {d}['in'] = {{'v': {e1}}}", "else:",
                f"    {d}['in'] = {{'v': {e2}}}", f"{d}['in']['v'] = {d}['in']['v'] * {g.c(0.5, 1.0)}",
                f"{t} = {d}i['v'] * {g.c(0.5, 1.0)} + {d}['in']['v'] * {g.c(-0.5, 0.5)}"]
    if form == 0:  # a key added on each side
        return [f"{d} = {{'a': {t}}}", f"if {c}:", f"    {d}['b'] = {e1}", f"    {d}['a'] = {d}['a'] * {g.c(0.5, 1.0)}",
                "else:", f"    {d}['b'] = {e2}", f"{t} = {d}['a'] + {d}['b'] * {g.c(-0.5, 0.5)}"]
    if form == 1:  # update() on each side
        return [f"{d} = {{'a': {t}, 'b': {u}}}", f"if {c}:", f"    {d}.update({{'a': {e1}}})", "else:",
                f"    {d}.update(b={e2}, a={d}['b'] * {g.c(0.5, 1.0)})", f"{t} = {d}['a'] * {g.c(0.5, 1.0)} + {d}['b'] * {g.c(-0.3, 0.3)}"]
    if form == 2:  # an item augmented on one side
        return [f"{d} = {{'a': {t} * 1.0}}", f"if {c}:", f"    {d}['a'] += {e1} * {g.c(-0.5, 0.5)}",
                f"{t} = {d}['a']"]
    if form == 3:  # two items swapped
        return [f"{d} = {{'a': {t}, 'b': {u} * {g.c(0.5, 1.0)}}}", f"if {c}:", f"    {d}['a'], {d}['b'] = {d}['b'], {d}['a']",
                f"{t} = {d}['a'] + {d}['b'] * {g.c(-0.3, 0.3)}"]
    if form == 4:  # if / elif / else, a nested dict written in place on both sides, or replaced on both
        # (not written in place on one side and replaced on the other: eagerly the name then holds the
        # old object or the new one, which one Program value cannot stand for; refused at the `if`)
        c2, _ = g.cond(scope)
        inner = ["{d}['in']['v'] = {e}", "{d}['in'] = {{'v': {e}}}"][r.randrange(2)]
        return [f"{d} = {{'in': {{'v': {t}}}, 'n': 0}}", f"if {c}:", "    " + inner.format(d=d, e=e1), f"    {d}['n'] = 1",
                f"elif {c2}:", "    " + inner.format(d=d, e=e2), f"    {d}['n'] = 2", "else:", f"    {d}['n'] = 3",
                f"{t} = {d}['in']['v'] + {d}['n'] * {g.c(-0.2, 0.2)}"]
    i = g.fresh("i")  # written on both sides inside a loop
    loop = f"for {i} in range({'2' if g.helper else r.choice(['n', '3'])}):"
    lscope = dict(scope, loopvars=scope["loopvars"] + [(i, "tensor_int" if "n" in loop else "py_int")])
    c, _ = g.cond(lscope)
    return [f"{d} = {{'a': {t}, 'b': {u}}}", loop, f"    if {c}:", f"        {d}['a'] = {d}['a'] * {g.c(0.5, 1.0)} + {d}['b'] * {g.c(-0.3, 0.3)}",
            "    else:", f"        {d}['b'] = {d}['b'] * {g.c(0.5, 1.0)} + {g.c()}", f"{t} = {d}['a'] + {d}['b'] * {g.c(-0.3, 0.3)}"]


def ints(g, depth, scope, always):
    """``int_tensors``: int and bool tensor arithmetic, comparisons and casts, mixed back into floats."""
    r, t = g.r, g.tv()
    u = _other(g, t)
    q, m = g.fresh("q"), g.fresh("m")
    src = [f"rt.cast({u} * {g.c(2.0, 5.0)}, 'int64')", f"rt.cast({u} * {g.c(2.0, 5.0)}, 'int32')",
           f"rt.floor({u} * {g.c(2.0, 4.0)}).astype('int64')"]
    if not g.helper:
        src.append(f"rt.cast({u} * 3.0, 'int64') - n")
    lines = [f"{q} = {r.choice(src)}"]
    a, b = r.randint(2, 4), r.randint(2, 5)
    ie = r.choice([f"{q} // {a} + {q} % {b}", f"{q} // -{a} - {q} % -{b}", f"({q} & {r.randint(1, 7)}) | ({q} ^ {b})",
                   f"~{q} + {q} * {a}", f"rt.bitwise_xor({q}, {q} // {a})", f"abs({q}) % {b} - {q}",
                   f"rt.floor_divide({q}, rt.full_like({q}, {a})) * {b}", f"rt.remainder(-{q}, rt.full_like({q}, {b}))",
                   f"-{q} // {a}", f"{q} * {q} % {b}"])
    be = r.choice([f"({q} > {r.randint(-2, 2)}) ^ ({t} < {g.c()})", f"({q} % 2 == 0) | ~({q} != {r.randint(-2, 2)})",
                   f"rt.logical_and({q} >= 0, {u} <= {g.c()})", f"({q} > 0) == ({u} > {g.c()})",
                   f"rt.cast({q}, 'bool') & ({q} < {r.randint(1, 3)})", f"({q} <= {q} // 2) != ({t} > 0.0007)"])
    form = r.randrange(6)
    if form == 0:
        lines.append(f"{t} = {t} + rt.cast({ie}, 'float32') * {g.c(-0.2, 0.2)}")
    elif form == 1:
        lines += [f"{m} = {be}", f"{t} = rt.where({m}, {t} * {g.c(0.5, 1.0)}, {t} + rt.cast({m}, 'float32') * {g.c()})"]
    elif form == 2:  # an int tensor's reductions as conditions
        cond = r.choice([f"({ie}).sum() > {r.randint(-3, 3)}", f"({be}).any()", f"({be}).all()", f"{q}.max() >= {r.randint(0, 4)}",
                         f"rt.cast({q}, 'float32').mean() > {g.c()}"])
        _claim(g, always)
        lines += [f"if {cond}:", f"    {t} = {t} * {g.c(0.5, 1.0)} + rt.cast({q}, 'float32') * {g.c(-0.2, 0.2)}", "else:",
                  f"    {t} = {t} + {g.c()}"]
    elif form == 3:  # casts around: bool -> int32 -> float, int -> float by arithmetic
        lines.append(r.choice([f"{t} = {t} + rt.cast(rt.cast({be}, 'int32') * {a}, 'float32') * {g.c(-0.2, 0.2)}",
                               f"{t} = {t} + ({ie}).astype('float32') * {g.c(-0.2, 0.2)}",
                               f"{t} = {t} + ({q} * {g.c(0.1, 0.5)}) * {g.c(-0.3, 0.3)}",
                               f"{t} = {t} + ({q} / {a}) * {g.c(-0.3, 0.3)}"]))
    elif form == 4 and not g.helper:  # the int64 argument in int arithmetic, bitwise ops and conditions
        k = g.fresh("k")
        lines = [f"{k} = {r.choice(['n // 2 - n % 3 * 2', '(n & 1) + (n | 2) - (n ^ 3)', '-n // 3 + (-n) % 4', 'n * n % 5'])}",
                 f"if {r.choice([f'({k} & 1) == 1', f'{k} > 0', f'{k} % 2 == 0', f'not ({k} < 1)'])}:",
                 f"    {t} = {t} * {g.c(0.5, 1.0)}", f"{t} = {t} + rt.cast({k}, 'float32') * {g.c(-0.2, 0.2)}"]
        _claim(g, always)
    else:  # an int tensor carried through a tensor loop
        i = g.fresh("i")
        lines += [f"for {i} in range({'2' if g.helper else 'n'}):", f"    {q} = {q} // 2 + {q} % 3 - {i}",
                  f"{t} = {t} + rt.cast({q}, 'float32') * {g.c(-0.2, 0.2)}"]
    return lines


def dims(g, depth, scope, always):
    """``runtime_dims``: the batch dim read at run time, in reshapes, creations, loops and conditions."""
    r, t = g.r, g.tv()
    u = _other(g, t)
    b = g.fresh("b")
    dim = r.choice([f"{u}.shape[0]", f"len({u})", f"{u}.shape[0]"])
    form = r.randrange(9)
    if form == 0:
        return [f"{b} = {dim}", f"{t} = rt.reshape(rt.reshape({t}, [{b} * 2, 2]) * {g.c(0.5, 1.0)}, [{b}, 4])"]
    if form == 1:
        return [f"{t} = {t}.reshape([{t}.shape[0], 2, -1]).sum(axis=-1).tile([1, 2]) * {g.c(0.3, 0.6)} + {t} * {g.c(0.2, 0.5)}"]
    if form == 2:
        return [f"{t} = {t} + rt.arange({dim}, dtype='float32').unsqueeze(1) * {g.c(-0.3, 0.3)}"]
    if form == 3:
        fill = r.choice([f"rt.full([{dim}, 4], {g.c()})", f"rt.ones([{dim}, 1]) * {g.c()}", f"rt.zeros([{dim}, 4])",
                         f"rt.expand({u}.mean(axis=0, keepdim=True), [{dim}, 4])"])
        return [f"{t} = {t} * {g.c(0.5, 1.0)} + {fill}"]
    if form == 4:  # a while loop up to the batch dim
        k = g.fresh("k")
        return [f"{k} = 0", f"while {k} < {dim}:", f"    {t} = {t} * {g.c(0.7, 1.0)} + {u}[{k}] * {g.c(-0.3, 0.3)}",
                f"    {k} += {r.randint(1, 2)}"]
    if form == 5:
        i = g.fresh("i")
        return [f"for {i} in range({dim} - 1):", f"    {t} = {t} + ({u}[{i} + 1] - {u}[{i}]) * {g.c(-0.3, 0.3)}"]
    if form == 6:  # arithmetic with the dim
        return [r.choice([f"{t} = {t} * ({g.c(0.5, 1.0)} + {dim} * {g.c(0.0, 0.1)})", f"{t} = {t} / {dim} + {t} * {g.c(0.3, 0.6)}",
                          f"{t} = {t} + rt.cast(rt.shape({u})[0], 'float32') * {g.c(-0.1, 0.1)}",
                          f"{t} = {t} + {u}[:{dim} // 2 + 1].sum(axis=0) * {g.c(-0.3, 0.3)}"])]
    if form == 7:  # the dim in a condition (Python when known, a tensor in the saved model)
        return [f"if {dim} > {r.choice([3, 4])}:", f"    {t} = {t} * {g.c(0.5, 1.0)}", "else:", f"    {t} = {t} + {g.c()}"]
    # (the columns' -1 is unknown in the saved model, b being a tensor there: see loose_columns)
    cols = "4" if g.loose_columns() else "-1"
    return [f"{b} = {dim}", f"{t} = rt.reshape(rt.transpose(rt.reshape({t}, [{b}, 2, 2]), [0, 2, 1]), [{b}, {cols}]) * {g.c(0.5, 1.0)}"]


_INPLACE = ["{t}.add_({u} * {c})", "{t}.subtract_({u}.mean() * {c})", "{t}.scale_({p})", "{t}.clip_({lo}, {hi})",
            "{t}.multiply_(rt.tanh({u}) * 0.5 + 1.0)", "{t}.tanh_()", "{t}[0] = {u}[1] * {c}", "{t}[:, {k}] += {c}",
            "{t}[{t} > {hi}] = {c}", "{t}[-1] *= {p}"]


def _write(g, t, u, methods_only=False):
    forms = [f for f in _INPLACE if not f.startswith("{t}[")] if methods_only else _INPLACE
    return g.r.choice(forms).format(t=t, u=u, c=g.c(-0.5, 0.5), p=g.c(0.5, 1.2), lo=g.c(-2.0, -0.5),
                                       hi=g.c(0.5, 2.0), k=g.r.randrange(4))


def inplace(g, depth, scope, always):
    """``inplace_branches``: in-place methods and item writes under conditions (on a copy of x)."""
    r, t = g.r, g.tv()
    u = _other(g, t)
    c, _ = g.cond(scope)
    # a copy first: the input x is a leaf that needs a gradient (written in place eagerly it refuses)
    lines = [f"{t} = {t} * 1.0"]
    form = r.randrange(6)
    if form == 0:
        lines += [f"if {c}:", f"    {_write(g, t, u)}", "else:", f"    {_write(g, t, u)}"]
    elif form == 1:
        c2, _ = g.cond(scope)
        lines += [f"if {c}:", f"    {_write(g, t, u)}", f"elif {c2}:", f"    {_write(g, t, u)}", f"    {_write(g, t, u)}"]
    elif form == 2:  # through an alias; the other name reads the write
        al = g.fresh("al")
        lines += [f"{al} = {t}", f"if {c}:", f"    {_write(g, al, u)}", f"{u} = {u} * {g.c(0.5, 0.9)} + {t} * {g.c(-0.3, 0.3)}"]
    elif form == 3:  # an in-place method on a list item, in a branch
        # (not an item write `acc[0][k] = v`: refused at its line by design, the Program cannot carry
        # it to every holder of the tensor (test_hunt_alias_loops); nor in a tensor loop, which
        # refuses a write into a tensor its body does not assign by name, at its line too)
        acc = g.fresh("acc")
        write = _write(g, acc + "[0]", u, methods_only=True) if not scope["in_loop"] else _write(g, t, u)
        lines += [f"{acc} = [{t}, {u}]", f"if {c}:", f"    {write}", f"{t} = {acc}[0] + {t} * {g.c(-0.3, 0.3)}"]
    elif form == 4:  # in a loop, under a condition on the loop variable
        i = g.fresh("i")
        head = f"for {i} in range({'2' if g.helper else r.choice(['n', '3'])}):"
        lscope = dict(scope, loopvars=scope["loopvars"] + [(i, "py_int" if g.helper or "3" in head else "tensor_int")])
        c, _ = g.cond(lscope)
        lines += [head, f"    if {c}:", f"        {_write(g, t, u)}", "    else:", f"        {t} = {t} * {g.c(0.7, 1.0)}"]
    else:  # nested branches, the old value kept aside before
        z, c2 = g.fresh("z"), g.cond(scope)[0]
        lines += [f"{z} = {t} + 0.0", f"if {c}:", f"    if {c2}:", f"        {_write(g, t, u)}", "    else:",
                  f"        {_write(g, t, u)}", f"{t} = {t} + {z} * {g.c(-0.3, 0.3)}"]
    return lines


def inner_grad(g, depth, scope, always):
    """``inner_grad``: ``rt.grad`` of a detached copy inside the converted code, its result mixed in."""
    r, t = g.r, g.tv()
    u = _other(g, t)
    g.no_grad = True
    gz, gg = g.fresh("gz"), g.fresh("gg")
    curved = [f"(rt.tanh({gz}) * {g.c(0.5, 1.5)} + {gz} * {gz} * {g.c(-0.3, 0.3)}).sum()", f"rt.tanh({gz}).mean()",
              f"(rt.exp(rt.tanh({gz})) * {g.c(0.2, 0.5)}).sum()"]
    f = r.choice(curved + [f"({gz} * {t}.detach()).sum()"])
    lines = [f"{gz} = {u}.detach()", f"{gz}.stop_gradient = False", "with rt.enable_grad():"]
    form = r.randrange(6)
    if form == 0:
        body = [f"{gg}, = rt.grad({f}, {gz})"]
    elif form == 1:
        body = [f"{gg} = rt.grad([{f}], [{gz}])[0]"]
    elif form == 2:  # a second derivative
        # (of a curved function: the first derivative of a linear one does not reach gz, and
        # rt.grad refuses an input it does not reach, eagerly too; Paddle gives zeros there)
        body = [f"{gg}1, = rt.grad({r.choice(curved)}, {gz}, create_graph=True)", f"{gg}, = rt.grad(({gg}1 * {gg}1).sum(), {gz})"]
    elif form == 3:
        body = [f"{gg}, = rt.grad(rt.tanh({gz}) * {g.c(0.5, 1.5)}, {gz}, grad_outputs=rt.ones_like({gz}) * {g.c(0.5, 1.5)})"]
    elif form == 4:  # two inputs, one in a branch
        # (the else side detached: an output taking a gradient through a leaf made inside the
        # function is refused by design, dy2st cannot give that leaf the .grad eager backward fills)
        c, _ = g.cond(scope)
        body = [f"{gz}w = {t}.detach() * 1.0", f"{gz}w.stop_gradient = False",
                f"{gg}v = ({gz} * {gz}w).sum() + rt.tanh({gz}w).sum() * {g.c(-0.5, 0.5)}", f"if {c}:",
                f"    {gg}, {gg}w = rt.grad({gg}v, [{gz}, {gz}w])", "else:", f"    {gg} = {gz}.detach() * 0.5",
                f"    {gg}w = {gz}w.detach() * 0.5",
                f"{gg} = {gg} + {gg}w * {g.c(-0.5, 0.5)}"]
    else:  # in a loop
        i = g.fresh("i")
        body = [f"{gg} = rt.zeros_like({gz})", f"for {i} in range({'2' if g.helper else r.choice(['n', '2'])}):",
                f"    {gg}i, = rt.grad((rt.tanh({gz} * ({i} + 1.0))).sum(), {gz})", f"    {gg} = {gg} + {gg}i * {g.c(0.2, 0.5)}"]
    # (through tanh: a derivative fed back into the value it is taken at grows without bound in loops)
    return lines + ["    " + ln for ln in body] + [f"{t} = {t} + rt.tanh({gg}) * {g.c(-0.5, 0.5)}"]


FORMS = {"dict_branches": dicts, "int_tensors": ints, "runtime_dims": dims, "inplace_branches": inplace,
         "inner_grad": inner_grad}
