"""Which globals and closure variables traced code probes: `k in memo`, `memo.get(k)`,
`memo.setdefault(k, v)`, `len(memo)`, `for k in memo`, `if memo:`, `try: v = memo[k]` with an
`except KeyError` (or LookupError, Exception, a bare `except`), or grows and reads an item of
(`KEPT.append(y)` and `KEPT[0]`).

A container the trace filled with its own traced values (`memo[k] = x * 2`) normally does not
make the next call retrace (`ACTS["h"] = h` written and read back within each call).  A memo is
different: eagerly the next call finds the key and reads the earlier call's value instead of
computing it, while the cached Program would compute it again from the new arguments.  So a
container the code probes keeps its before-the-trace guard: the next call retraces, and reading
the earlier trace's value is then a clear error (a value of another Program), never a silent
recomputation.
"""
import dis
import weakref

_LOADS = frozenset({"LOAD_GLOBAL", "LOAD_DEREF", "LOAD_NAME", "LOAD_CLASSDEREF", "LOAD_FAST"})
_PROBE_METHODS = frozenset({"get", "setdefault", "keys", "items", "values", "__contains__", "pop", "index",
                            "count"})
# Growing a container (each call adds an item) and reading an item of it: the read sees the items of
# earlier calls eagerly (a plain `ACTS["h"] = h` overwrites the same item at every call).
_GROW_METHODS = frozenset({"append", "extend", "insert", "update", "add"})
_PROBES = weakref.WeakKeyDictionary()
# what an `except` that catches a missing key names (a bare `except` catches it too)
_MISSING_KEY = frozenset({"KeyError", "LookupError", "IndexError", "Exception", "BaseException"})


def _lookup_guarded(code, ins):
    """The byte ranges of ``code``'s `try` bodies whose handler catches a missing key (see
    ``_MISSING_KEY``): an item read there probes the container (`try: v = memo[k]`). Python 3.11+
    (the exception table); nothing before."""
    try:
        entries = dis.Bytecode(code).exception_entries
    except AttributeError:
        return ()
    at = {op.offset: k for k, op in enumerate(ins)}
    ranges = []
    for e in entries:
        k = at.get(e.target)
        if k is None or ins[k].opname != "PUSH_EXC_INFO":
            continue  # a cleanup entry of a handler, not a `try` body
        names, j = set(), k + 1
        while j < len(ins) and ins[j].opname in ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF", "LOAD_FAST", "BUILD_TUPLE"):
            names.add(ins[j].argval)
            j += 1
        bare = j >= len(ins) or ins[j].opname != "CHECK_EXC_MATCH"
        if bare or names & _MISSING_KEY:
            ranges.append((e.start, e.end))
    return ranges


def _probed(code):
    names = _PROBES.get(code)
    if names is not None:
        return names
    found, grown, read = set(), set(), set()
    ins = [i for i in dis.get_instructions(code) if i.opname not in ("CACHE", "PRECALL", "PUSH_NULL")]
    tried = _lookup_guarded(code, ins)
    for i, op in enumerate(ins):
        if op.opname not in _LOADS or i + 1 >= len(ins):
            continue
        nxt = ins[i + 1]
        if tried and any(a <= op.offset < b for a, b in tried) and (nxt.opname == "BINARY_SUBSCR" or (
                i + 2 < len(ins) and nxt.opname.startswith("LOAD_") and ins[i + 2].opname == "BINARY_SUBSCR")):
            found.add(op.argval)  # `try: v = memo[k]` / `except KeyError:`
            continue
        if (nxt.opname in ("CONTAINS_OP", "GET_ITER", "POP_JUMP_FORWARD_IF_FALSE", "POP_JUMP_FORWARD_IF_TRUE",
                           "POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "UNARY_NOT")
                or (nxt.opname in ("LOAD_METHOD", "LOAD_ATTR") and nxt.argval in _PROBE_METHODS)):
            found.add(op.argval)
        elif i >= 1 and ins[i - 1].opname == "LOAD_GLOBAL" and ins[i - 1].argval == "len":
            found.add(op.argval)  # len(memo)
        elif nxt.opname in ("LOAD_METHOD", "LOAD_ATTR") and nxt.argval in _GROW_METHODS:
            grown.add(op.argval)
        elif nxt.opname == "BINARY_SUBSCR" or (
                i + 2 < len(ins) and nxt.opname.startswith("LOAD_") and ins[i + 2].opname == "BINARY_SUBSCR"):
            read.add(op.argval)
    found |= grown & read  # `KEPT.append(y)` then `KEPT[0]`: eagerly the first call's item
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            found |= _probed(const)
    _PROBES[code] = names = frozenset(found)
    return names


def probed_names(codes):
    """The names the code objects ``codes`` (and the functions nested in them) probe."""
    out = set()
    for code in codes:
        out |= _probed(code)
    return out


def probed(guard, names):
    """Whether ``guard`` (on a global, a closure cell or default values) guards a name in ``names``."""
    kind, owner, name = guard.where
    if kind == "attr" and name in ("__defaults__", "__kwdefaults__"):  # `def f(x, memo={})`
        code = getattr(owner, "__code__", None)
        return code is not None and bool(set(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]) & names)
    return kind in ("global", "cell") and name in names
