"""Arguments of a converted function: a write into a list/dict argument is refused, and a
returned argument is the caller's own object.

The Program cache rebuilds list/dict (and dataclass) arguments from their structure on every trace, so writes
into them (`acc.append(y)`, `cfg["n"] = 2`, `xs[0] = xs[0] * 2`) reach neither the caller's
container nor later calls (which reuse the Program): eager changes the caller's list on every
call. Such a write is reported instead of being dropped silently.
"""


class _Field(str):
    """A dataclass field on a path (shown as `.name`)."""


def _describe(path):
    return "".join(f".{p}" if isinstance(p, _Field) else f"[{p!r}]" for p in path)


def _find_change(spec, obj, feeds, path, fed):
    """(path, what changed) of the first place ``obj`` differs from the traced structure ``spec``
    (a ``pytree.TreeSpec``; ``fed`` iterates the feeds its leaves took), or None."""
    kind = spec.kind
    if kind == "leaf":
        return None if obj is next(fed) else (path, "holds another value")
    if kind == "const":
        return None if obj is spec.meta else (path, "holds another value")
    if kind == "dict":
        keys = list(spec.meta[0])
        if set(obj) != set(keys):
            return path, f"now has keys {sorted(obj, key=repr)} instead of {sorted(keys, key=repr)}"
        pairs = [(k, s, obj[k]) for k, s in zip(keys, spec.children)]
    elif kind == "dataclass":  # `data.x = ...` is a write into the caller's object too
        pairs = [(_Field(n), s, getattr(obj, n)) for n, s in zip(spec.meta[1], spec.children)]
    elif kind == "list" and (not isinstance(obj, list) or len(obj) != len(spec.children)):
        return path, f"now has {len(obj)} items instead of {len(spec.children)}"
    else:  # a tuple is immutable itself; only its mutable items can change
        pairs = [(i, s, o) for i, (s, o) in enumerate(zip(spec.children, obj))]
    for key, s, o in pairs:
        hit = _find_change(s, o, feeds, path + (key,), fed)
        if hit:
            return hit
    return None


def check_unchanged(skeleton, args_and_kwargs, feeds, fn):
    """Raise TypeError when tracing changed a list/dict argument (see the module docstring)."""
    hit = _find_change(skeleton, args_and_kwargs, feeds, (), iter(feeds))
    if hit is None or len(hit[0]) < 2:
        return
    path, what = hit
    where = (f"argument #{path[1]}" if path[0] == 0 else f"keyword argument {path[1]!r}") + _describe(path[2:])
    code = getattr(fn, "__code__", None)
    at = f" ({code.co_filename}, line {code.co_firstlineno})" if code is not None else ""
    raise TypeError(
        f"{getattr(fn, '__qualname__', fn)}{at} changed its {where} (it {what}): under to_static the Program runs the function's "
        "tensor ops, not its Python side effects, so the caller's list/dict would silently stay "
        "unchanged (eager changes it on every call); return the new values instead")


def returned_inputs(concrete, tensors, outs):
    """`outs` with each output that is a fed input replaced by the caller's own Tensor: eager
    `return x` hands back the same object (an item write into it changes the caller's `x`)."""
    fed = {v.name: t for v, t in zip(concrete.inputs, tensors)}
    if not fed:
        return outs
    return [fed.get(v.name, o) for v, o in zip(concrete.outputs, outs)] + list(outs[len(concrete.outputs):])
