"""Arguments of a converted function: a returned argument is the caller's own object.

(Writes into list/dict arguments are carried out on the caller's containers after each run:
``execution/container_writes.py``.)
"""


def returned_inputs(concrete, tensors, outs):
    """`outs` with each output that is a fed input replaced by the caller's own Tensor: eager
    `return x` hands back the same object (an item write into it changes the caller's `x`)."""
    fed = {v.name: t for v, t in zip(concrete.inputs, tensors)}
    if not fed:
        return outs
    return [fed.get(v.name, o) for v, o in zip(concrete.outputs, outs)] + list(outs[len(concrete.outputs):])


def outside_changes(before, fn):
    """The global/closure lists and dicts the trace of ``fn`` changed (from the guards taken before
    it, ``guards._Calls.before``): eagerly such a list also given as an argument (`G.append(x)` in
    ``f(t, G)``) shows the write through the argument, which the trace read as a copy. Each entry:
    (what, the container, its contents before the trace, to put back when the call is refused)."""
    out = []
    for g in before:
        kind = g.where[0]
        if kind == "items":
            obj = g.where[1]
            old = list(zip(g.value[0], g.pinned)) if type(obj) is dict else list(g.pinned)
        elif kind in ("global", "cell") and g.plain and type(g.value) in (list, dict):
            obj = g.read()
            old = list(g.value.items()) if type(g.value) is dict else list(g.value)
        else:
            continue
        if type(obj) in (list, dict) and not g.holds():
            what = g.label if kind != "items" else g.label.replace("the items of ", "") + " (a global or closure variable)"
            out.append((what, obj, old))
    return tuple(out)


def _containers(value, out, depth=0):
    if type(value) in (list, dict):
        out[id(value)] = value
    if depth < 4 and type(value) in (list, tuple, dict):
        for v in (value.values() if type(value) is dict else value):
            _containers(v, out, depth + 1)
    return out


def check_outside_changes(changes, args, kwargs, fn, traced):
    """TypeError when a list/dict the trace changed as a global or closure variable is also given as
    an argument: the Program traced the argument as a copy, so a read through it missed the write
    (eagerly seen). Checked on every call of such a Program (a cache hit makes no Python write, which
    eagerly the argument would show); right after the trace (``traced``) the contents it changed are
    put back as they were."""
    given = _containers([list(args), dict(kwargs)], {})
    for what, obj, old in changes:
        if id(obj) in given:
            if not traced:
                pass
            elif type(obj) is dict:
                obj.clear()
                obj.update(old)
            else:
                obj[:] = old
            code = getattr(fn, "__code__", None)
            where = f" ({code.co_filename}, line {code.co_firstlineno})" if code is not None else ""
            raise TypeError(
                f"{getattr(fn, '__qualname__', fn)}{where} writes into {what}, which is also given as one of its "
                "arguments: eagerly the write is seen through the argument, the Program traced the argument as "
                "a copy; pass a copy as the argument, or write through the argument only")
