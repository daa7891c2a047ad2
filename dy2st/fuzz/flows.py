"""Grammar features about jumps and writes in loops (``--features loop_else,deep_returns,...``):

- ``loop_else``: ``for ... else`` and ``while ... else`` whose ``break`` a tensor decides: an inner
  row loop's ``else`` inside a tensor loop, a ``while`` on a tensor condition whose ``else`` returns,
  a ``found`` flag set before the ``break`` and tested after the loop, a ``return`` in the body and
  a block of the base grammar in the ``else``;
- ``deep_returns``: early ``return`` two loops deep: a tensor ``while`` inside ``for i in
  range(n)``, a row loop inside a tensor loop, a ``return`` in an inner loop's ``else``, the 0-d
  items of a row, in a ``with rt.no_grad():`` region of an inner ``while ... else``, with work after
  the inner loop that a return skips;
- ``aug_targets``: augmented assignment to subscripts and attributes inside loops: list items at a
  (tensor) counter's index (``acc[i % 3] += ...``), dict items under row conditions
  (``d['a'] += row``), rows of a copy (``y[i % 2] += ...``), an object's attribute
  (``bx.v *= ...``) and, in the Layer form, a buffer (``self.steps += ...``);
- ``checks``: ``print`` and ``assert`` of tensors on both sides of tensor conditions and inside
  tensor loops (messages formatting tensors, conditions that are bool tensors).

Every form keeps ``x``/``y`` float32 [B, 4]; every ``return`` returns the function's one structure.
"""

from dy2st.fuzz.grammar import other as _other, claim as _claim

# (``aug_targets`` writes an object's attribute: the ``idioms`` prelude has the same class)
PRELUDE = '''class Box:
    def __init__(self, v):
        self.v = v
'''


def _indent(lines, k=1):
    return ["    " * k + ln for ln in lines]


def _tensor_loop(g, scope, rows_of=None):
    """(prologue, head, first body lines, loop variable (name, kind)) of a loop a tensor decides."""
    r = g.r
    kinds = ["row", "while"] + ([] if g.helper else ["rangen", "rangen"])
    which = r.choice(kinds)
    if which == "rangen":
        v = g.fresh("i")
        return [], f"for {v} in range({r.choice(['n', 'n + 1', 'n % 3'])}):", [], (v, "tensor_int")
    if which == "row":
        v = g.fresh("row")
        return [], f"for {v} in {rows_of or g.tv()}:", [], (v, "row")
    k = g.fresh("k")
    return [f"{k} = 0"], f"while {g.tensor_atom(scope)} and {k} < {r.randint(1, 3)}:", [f"{k} += 1"], (k, "counter")


def _update(g, scope):
    return f"{g.tv()} = {g.expr(scope)}"


def loop_else(g, depth, scope, always):
    """``loop_else``: loops with an ``else`` that runs when no (tensor-decided) ``break`` did."""
    r, t = g.r, g.tv()
    u = _other(g, t)
    _claim(g, always)
    form = r.randrange(4)
    if form == 0:  # an inner row loop's else, inside a tensor loop
        pre, head, first, lv = _tensor_loop(g, scope)
        row = g.fresh("row")
        inner = dict(scope, in_loop=True, loopvars=scope["loopvars"] + [lv, (row, "row")])
        body = first + [f"for {row} in {u}:", f"    if {row}.sum() > {g.c(-1.5, 1.5)}:", f"        {t} = {t} * {g.c(0.5, 1.0)}",
                        "        break", f"    {_update(g, inner)}", "else:", f"    {t} = {t} + {g.c()}"]
        return pre + [head] + _indent(body)
    if form == 1:  # a tensor while whose else returns (the loop ran out without a break)
        k = g.fresh("k")
        inner = dict(scope, in_loop=True, loopvars=scope["loopvars"] + [(k, "counter")])
        bound = "n" if not g.helper and r.random() < 0.5 else str(r.randint(1, 3))
        return [f"{k} = 0", f"while {g.tensor_atom(scope)} and {k} < {bound}:", f"    {k} += 1",
                f"    {_update(g, inner)}", f"    if {g.tensor_atom(inner)}:", "        break", "else:",
                f"    {t} = {t} * {g.c(0.5, 1.0)}"] + (["    return " + g.ret_expr()] if r.random() < 0.5 else [])
    if form == 2:  # a found flag set before the break, tested after the loop
        fl, row = g.fresh("found"), g.fresh("row")
        return [f"{fl} = False", f"for {row} in {u}:", f"    if {row}.max() > {g.c(0.3, 1.5)}:", f"        {fl} = True",
                "        break", "else:", f"    {t} = {t} * {g.c(0.5, 1.0)}", f"if {fl}:", f"    {t} = {t} + {g.c()}",
                f"{t} = {t} + rt.cast(rt.to_tensor({fl}), 'float32') * {g.c(-0.3, 0.3)}" if r.random() < 0.5 else
                f"{t} = {t} * ({g.c(0.5, 1.0)} if {fl} else {g.c(1.0, 1.3)})"]
    # a return in the body, the base grammar in the else
    pre, head, first, lv = _tensor_loop(g, scope)
    inner = dict(scope, in_loop=True, loopvars=scope["loopvars"] + [lv])
    body = first + [_update(g, inner), f"if {g.tensor_atom(inner)}:", f"    return {g.ret_expr()}"]
    if r.random() < 0.5:
        body += [f"if {g.tensor_atom(inner)}:", "    break"]
    orelse = g.block(depth + 1, scope, False) if depth < 2 and g.budget > 0 else [_update(g, scope)]
    return pre + [head] + _indent(body) + ["else:"] + _indent(orelse)


def deep_returns(g, depth, scope, always):
    """``deep_returns``: a ``return`` two loops deep, under tensor conditions, work after the inner loop."""
    r = g.r
    _claim(g, always)
    pre, head, first, lv = _tensor_loop(g, scope)
    outer = dict(scope, in_loop=True, loopvars=scope["loopvars"] + [lv])
    form = r.randrange(5)
    if form == 4:  # a return inside a no_grad region, a while loop's else around it
        g.no_grad = True
        k = g.fresh("k")
        inner = dict(outer, loopvars=outer["loopvars"] + [(k, "counter")])
        body = first + [f"{k} = 0", f"while {g.tensor_atom(outer)} and {k} < {r.randint(1, 3)}:", f"    {k} += 1",
                        "    with rt.no_grad():", f"        {_update(g, inner)}", f"        if {g.tensor_atom(inner)}:",
                        f"            return {g.ret_expr()}", "else:", f"    {_update(g, outer)}"]
        return pre + [head] + _indent(body)
    if form == 3:  # the 0-d items of a row, in a row loop
        row, v = g.fresh("row"), g.fresh("v")
        body = first + [f"for {row} in {g.tv()}:", f"    for {v} in {row}:", f"        if {v} > {g.c(1.0, 2.5)}:",
                        f"            return {g.ret_expr()}", f"    {_update(g, outer)}"]
        return pre + [head] + _indent(body)
    pre2, head2, first2, lv2 = _tensor_loop(g, outer)
    inner = dict(outer, loopvars=outer["loopvars"] + [lv2])
    body2 = first2 + [_update(g, inner), f"if {g.tensor_atom(inner)}:", f"    return {g.ret_expr()}"]
    if depth < 1 and g.budget > 0 and r.random() < 0.4:
        body2 += g.block(depth + 2, inner, always)
    if form == 1:  # the return in the inner loop's else
        body2 = first2 + [_update(g, inner), f"if {g.tensor_atom(inner)}:", "    break"]
        loop2 = pre2 + [head2] + _indent(body2) + ["else:", f"    if {g.tensor_atom(outer)}:", f"        return {g.ret_expr()}"]
    else:
        loop2 = pre2 + [head2] + _indent(body2)
    after = [_update(g, outer)] + ([f"if {g.tensor_atom(outer)}:", "    continue", _update(g, outer)] if form == 2 else [])
    return pre + [head] + _indent(first + loop2 + after)


def aug_targets(g, depth, scope, always):
    """``aug_targets``: ``+=``-style writes to list and dict items, rows and attributes in loops."""
    r, t, c = g.r, g.tv(), g.c
    u = _other(g, t)
    _claim(g, always)
    form = r.randrange(5)
    pre, head, first, lv = _tensor_loop(g, scope)
    v, kind = lv
    index = f"{v} % 3" if kind in ("tensor_int", "counter") else str(r.choice([0, 1, -1]))
    if form == 0:  # list items at a counter's index
        acc = g.fresh("acc")
        body = [f"{acc}[{index}] += {u} * {c(-0.5, 0.5)}", f"{acc}[0] -= {acc}[-1] * {c(0.0, 0.2)}"]
        return [f"{acc} = [{t} * 1.0, {t} * {c(-1.0, -0.5)}, {u}]"] + pre + [head] + _indent(first + body) + \
            [f"{t} = {acc}[0] + {acc}[1] * {c(-0.5, 0.5)} + {acc}[2] * {c(-0.3, 0.3)}"]
    if form == 1:  # dict items under row conditions
        d, row = g.fresh("d"), g.fresh("row")
        return [f"{d} = {{'a': {t} * 1.0, 'b': {u} * {c(0.5, 1.0)}}}", f"for {row} in {u}:",
                f"    if {row}.sum() > {c(-1.0, 1.0)}:", f"        {d}['a'] += {row} * {c(-0.5, 0.5)}", "    else:",
                f"        {d}['b'] *= {c(0.5, 1.0)}", f"    {d}['a'] -= {d}['b'] * {c(0.0, 0.1)}",
                f"{t} = {d}['a'] + {d}['b'] * {c(-0.3, 0.3)}"]
    if form == 2:  # rows of a copy (rows 0..2: the batch has 3 or 5)
        row = f"({v} % 3)" if kind in ("tensor_int", "counter") else str(r.choice([0, 1, 2]))
        return [f"{t} = {t} * 1.0"] + pre + [head] + _indent(first + [f"{t}[{row}] += {u}[{r.choice([0, 1, 2])}] * {c(-0.5, 0.5)}",
                                                                      f"{t}[:, {r.randrange(4)}] *= {c(0.7, 1.0)}"])
    if form == 3 and g.layer:  # a buffer, in place of a rebinding
        return pre + [head] + _indent(first + [f"self.steps += {c(0.1, 0.9)}", f"{t} = {t} + self.steps * {c(-0.1, 0.1)}"])
    bx = g.fresh("bx")  # an object's attribute
    return [f"{bx} = Box({t} * {c(0.5, 1.0)})"] + pre + [head] + \
        _indent(first + [f"{bx}.v += {u} * {c(-0.3, 0.3)}", f"if {g.tensor_atom(dict(scope, loopvars=scope['loopvars'] + [lv]))}:",
                         f"    {bx}.v *= {c(0.5, 1.0)}"]) + [f"{t} = {bx}.v"]


def checks(g, depth, scope, always):
    """``checks``: ``print``/``assert`` of tensors in tensor branches and loops."""
    r, t, c = g.r, g.tv(), g.c
    u = _other(g, t)
    _claim(g, always)
    prints = [f"print('{t} is', {t}.mean(), 'sum', {t}.sum())", f"print(f'{u} max {{{u}.max()}}')",
              f"print('{t} rows', {t}.shape[0], {t}[0])"]
    asserts = [f"assert ({t} == {t}).all(), f'a NaN in {t}: {{{t}.sum()}}'", f"assert {t}.abs().max() < 1e6, 'too large'",
               f"assert {t}.shape[-1] == 4", f"assert rt.isfinite({u}).all()"]
    form = r.randrange(3)
    if form == 0:  # both sides of a tensor condition
        return [f"if {g.tensor_atom(scope)}:", "    " + r.choice(prints), "    " + r.choice(asserts), f"    {t} = {t} * {c(0.5, 1.0)}",
                "else:", "    " + r.choice(asserts + prints), f"    {t} = {t} + {c()}"]
    pre, head, first, lv = _tensor_loop(g, scope)
    inner = dict(scope, in_loop=True, loopvars=scope["loopvars"] + [lv])
    if form == 1:  # in a tensor loop, the counter printed
        body = first + [f"print('step', {lv[0]}, {t}.sum())" if lv[1] != "row" else f"print('row', {lv[0]})",
                        r.choice(asserts), _update(g, inner)]
        return pre + [head] + _indent(body)
    # in a branch inside a tensor loop
    body = first + [_update(g, inner), f"if {g.tensor_atom(inner)}:", "    " + r.choice(prints),
                    "    " + r.choice(asserts)]
    return pre + [head] + _indent(body)


def _bounded(form, depth_limit):
    """``form`` where it fits (its loops nest two deep), else a plain update."""
    def write(g, depth, scope, always):
        if depth >= depth_limit:
            return [_update(g, scope)]
        return form(g, depth, scope, always)
    return write


FORMS = {"loop_else": _bounded(loop_else, 2), "deep_returns": _bounded(deep_returns, 2),
         "aug_targets": _bounded(aug_targets, 3), "checks": _bounded(checks, 3)}
