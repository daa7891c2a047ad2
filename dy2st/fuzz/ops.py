"""Grammar features about tensor operations and indexing (``--features tensor_ops,indexing``):

- ``tensor_ops``: ``rt.where``, ``masked_fill``, ``clip``, ``cumsum``, ``topk``, ``sort``,
  ``argsort`` + ``take_along_axis``, ``gather``, ``index_select``, ``scatter``, ``concat``,
  ``stack``, ``split``, ``chunk``, ``unbind``, ``flip``, ``roll``, ``maximum``/``minimum``, on
  either side of tensor conditions, inside tensor loops, their results unpacked;
- ``indexing``: slices with steps (``y[::-1]``, ``y[:, 1::2]``), item writes through steps
  (``y[::2] = ...``, ``y[:, ::2] += c``), rows picked by a 0-d int tensor (``y[k]``, ``y[k] = ...``
  with ``k = rt.argmax(...)``), rows and columns picked by an int tensor (``y[idx]``,
  ``y[:, idx]``), ``None`` and ``...`` in subscripts, a slice start a tensor decides.

Every form keeps ``x``/``y`` float32 [B, 4] (B is 3 or 5, unknown when saved; row indices stay
below 3) so the rest of the grammar can use them.  The operands come from random normal draws
scaled by constants with odd offsets, so sorts and top-k meet no ties.
"""

from dy2st.fuzz.grammar import other as _other, claim as _claim


def _op(g, t, u):
    """One assignment to ``t`` through an operation of ``tensor_ops`` (several lines for unpacking)."""
    r, c = g.r, g.c
    k = g.fresh("o")
    forms = [
        lambda: [f"{t} = rt.where({u} > {c(-0.5, 0.5)}, {t} * {c(0.5, 1.0)}, {u} * {c(-0.5, 0.5)})"],
        lambda: [f"{t} = rt.masked_fill({t}, {u} < {c(-0.5, 0.5)}, {c()})"],
        lambda: [f"{t} = {t}.masked_fill({t} > {c(0.5, 1.5)}, {c()}) * {c(0.5, 1.0)}"],
        lambda: [f"{t} = rt.clip({t} * {c(1.0, 2.0)}, {c(-1.5, -0.5)}, {c(0.5, 1.5)})"],
        lambda: [f"{t} = rt.cumsum({t}, axis={r.choice([1, -1, 0])}) * {c(0.3, 0.6)}"],
        lambda: [f"{k}v, {k}i = rt.topk({u}, {r.randint(1, 3)}, axis=1)",
                 f"{t} = {t} + {k}v.sum(axis=1, keepdim=True) * {c(-0.3, 0.3)} + rt.cast({k}i[:, :1], 'float32') * {c(-0.2, 0.2)}"],
        lambda: [f"{t} = rt.sort({t}, axis={r.choice([1, -1])}, descending={r.choice([True, False])}) * {c(0.5, 1.0)} + {u} * {c(-0.3, 0.3)}"],
        lambda: [f"{k} = rt.argsort({u}, axis=1)", f"{t} = rt.take_along_axis({t}, {k}, axis=1) * {c(0.5, 1.0)}"],
        lambda: [f"{t} = rt.gather({t}, rt.argsort({u}.sum(axis=0)), axis=1) + {u} * {c(-0.3, 0.3)}"],
        lambda: [f"{t} = rt.index_select({t}, rt.to_tensor({r.sample(range(4), 4)}), axis=1) * {c(0.5, 1.0)}"],
        lambda: _scatter(g, t, u),
        lambda: [f"{k}a, {k}b = rt.split({t}, {r.choice(['2', '[1, 3]', '[3, -1]'])}, axis=1)",
                 f"{t} = rt.concat([{k}b * {c(0.5, 1.0)}, {k}a], axis=1)"],
        lambda: [f"{k} = rt.chunk({u}, 2, axis=1)", f"{t} = {t} + rt.concat([{k}[1], {k}[0] * {c(-0.5, 0.5)}], axis=1)"],
        lambda: _unbind(g, t, k),
        lambda: [f"{t} = rt.flip({t}, [{r.choice(['0', '1', '0, 1'])}]) * {c(0.5, 1.0)} + {u} * {c(-0.3, 0.3)}"],
        lambda: [f"{t} = rt.roll({t}, {r.choice([1, -1, 2])}, axis={r.choice([0, 1])}) * {c(0.5, 1.0)}"],
        lambda: [f"{t} = rt.maximum({t}, {u} * {c(0.5, 1.0)}) + rt.minimum({t}, {c()}) * {c(-0.3, 0.3)}"],
        lambda: [f"{t} = rt.stack([{t}, {u}], axis=0).max(axis=0) * {c(0.5, 1.0)}"],
    ]
    return r.choice(forms)()


def _unbind(g, t, k):
    # (as many outputs as columns: on 4 known columns again where another form leaves them unknown)
    src = f"{t}.reshape([-1, 4])" if g.needs_columns() else t
    return [f"{k} = rt.unbind({src}, axis=1)",
            f"{t} = rt.stack([{k}[{g.r.randrange(4)}], {k}[1], {k}[2] * {g.c(0.5, 1.0)}, {k}[3]], axis=1)"]


def _scatter(g, t, u):
    idx = g.r.choice([[0, 2], [1], [2, 0]])
    return [f"{t} = rt.scatter({t}, rt.to_tensor({idx}), {u}[:{len(idx)}] * {g.c(0.5, 1.0)}, "
            f"overwrite={g.r.choice([True, False])})"]


def tensor_ops(g, depth, scope, always):
    """``tensor_ops``: operations on their own, on both sides of a condition, or in a loop."""
    r, t = g.r, g.tv()
    u = _other(g, t)
    form = r.randrange(4)
    if form == 0:
        return _op(g, t, u)
    if form == 1:  # both sides of a condition, different operations
        c, tensor = g.cond(scope)
        if tensor:
            _claim(g, always)
        return [f"if {c}:"] + ["    " + ln for ln in _op(g, t, u)] + ["else:"] + ["    " + ln for ln in _op(g, t, u)]
    if form == 2:  # one side only, the other name read after
        c, _ = g.cond(scope)
        return [f"if {c}:"] + ["    " + ln for ln in _op(g, t, u)] + [f"{u} = {u} * {g.c(0.5, 0.9)} + {t} * {g.c(-0.3, 0.3)}"]
    i = g.fresh("i")  # in a loop
    head = f"for {i} in range({'2' if g.helper else r.choice(['n', '2'])}):"
    return [head] + ["    " + ln for ln in _op(g, t, u)] + [f"    {t} = rt.tanh({t}) * {g.c(0.8, 1.2)}"]


def indexing(g, depth, scope, always):
    """``indexing``: steps, int-tensor indices, ``None``/``...`` and tensor-decided starts in subscripts."""
    r, t, c = g.r, g.tv(), g.c
    u = _other(g, t)
    k = g.fresh("k")
    start = "1" if g.helper else "n % 2"
    forms = [
        lambda: [f"{t} = {t}[::-1] * {c(0.5, 1.0)} + {u} * {c(-0.3, 0.3)}"],
        lambda: [f"{t} = rt.concat([{t}[:, 1::2], {u}[:, ::2] * {c(0.5, 1.0)}], axis=1)"],
        lambda: [f"{t} = {t} * 1.0", f"{t}[::2] = {t}[::2] * {c(0.5, 1.0)} + {c()}"],
        lambda: [f"{t} = {t} * 1.0", f"{t}[:, ::{r.choice([2, 3])}] += {c()}"],
        lambda: [f"{t} = {t} * 1.0", f"{t}[:, 1::2] = {u}[:, ::2] * {c(-1.0, 1.0)}"],
        lambda: [f"{k} = rt.argmax({u}.sum(axis=1)[:3])", f"{t} = {t} + {u}[{k}] * {c(-0.5, 0.5)}"],
        lambda: [f"{k} = rt.argmin({u}[:3, 0])", f"{t} = {t} * 1.0", f"{t}[{k}] = {t}[{k}] * {c(0.5, 1.0)} + {c()}"],
        lambda: [f"{k} = rt.argsort({u}[:, 0])", f"{t} = {t}[{k}] * {c(0.5, 1.0)} + {u} * {c(-0.3, 0.3)}"],
        lambda: [f"{k} = rt.argsort({u}.sum(axis=0))", f"{t} = {t}[:, {k}] * {c(0.5, 1.0)}"],
        # (a mean of products with tanh: repeated in loops, a sum of raw products squares the values
        # up to inf and NaN, seed 201025 of every feature)
        lambda: [f"{t} = ({t}[:, None, :] * rt.tanh({u})[None, ...]).mean(axis=1) * {c(0.5, 1.0)}"],
        lambda: [f"{t} = {t}[..., ::-1] * {c(0.5, 1.0)} + {t}[..., 0:1] * {c(-0.3, 0.3)}"],
        lambda: [f"{t} = {t} * 1.0", f"{t}[{start}::2] = {u}[{start}::2] * {c(0.5, 1.0)}"],
        lambda: [f"{t} = {t} + {u}[{start}::2].sum(axis=0) * {c(-0.3, 0.3)}"],
    ]
    lines = r.choice(forms)()
    if r.random() < 0.3:  # under a condition
        cond, _ = g.cond(scope)
        return [f"if {cond}:"] + ["    " + ln for ln in lines]
    return lines


FORMS = {"tensor_ops": tensor_ops, "indexing": indexing}
