"""Names read and written by statements and expressions.

Nested functions and lambdas count only through what they capture: a nested `def g(y): z = y`
reads no outer `y` and writes only `g`. Comprehensions have their own scope in Python 3, so
their loop variables are not writes of the enclosing block.
"""
import gast

from dy2st.pyct.nodes import walk

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


def _params(fn):
    a = fn.args
    names = [p.id for p in a.posonlyargs + a.args + a.kwonlyargs]
    for extra in (a.vararg, a.kwarg):
        if extra is not None:
            names.append(extra.id)
    return set(names)


def declared_names(fn):
    """The names ``fn``'s own statements declare ``global`` or ``nonlocal`` (the converter refuses a
    declaration inside a block): they outlive the function, bound outside it."""
    # (not the `nonlocal` a generated branch or loop function declares to bind the closure cells of
    # the function around it, ``ifelse.in_cells``: there a name lives no longer than it does there)
    return {name for s in fn.body if isinstance(s, (gast.Nonlocal, gast.Global)) and not getattr(s, "dy2st_cells", False)
            for name in s.names}


def free_reads(fn):
    """Names a nested function or lambda reads from its enclosing scope (with the names it declares
    ``nonlocal``, which it may rebind there)."""
    body = fn.body if isinstance(fn.body, list) else [fn.body]
    local = _params(fn) if not isinstance(fn, gast.ClassDef) else set()
    local |= block_writes(body)
    inner = block_reads(body)
    if isinstance(fn, gast.FunctionDef):  # `nonlocal k` (and `global k`): k is not the function's own
        declared = declared_names(fn)
        if declared:
            local -= declared
            inner |= {name for s in body if isinstance(s, gast.Nonlocal) for name in s.names} & declared
    defaults = set()
    if not isinstance(fn, gast.ClassDef):
        for d in fn.args.defaults + [d for d in fn.args.kw_defaults if d is not None]:
            defaults |= reads(d)
    else:
        for b in fn.bases:
            defaults |= reads(b)
    for d in getattr(fn, "decorator_list", []):
        defaults |= reads(d)
    return (inner - local) | defaults


def closure_cells(fn):
    """Names ``fn`` binds (parameters, assignments) that a function or lambda defined in it reads:
    Python keeps them in cells, so such a function sees every later rebinding in ``fn``."""
    nested, stack = [], list(fn.body)
    while stack:
        n = stack.pop()
        if isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)):
            nested.append(n)
            stack.extend(getattr(n.args, "defaults", []) + [d for d in n.args.kw_defaults if d is not None])
            continue
        if isinstance(n, _AST):
            for f in _fields(type(n)):
                v = n.__dict__.get(f)
                if isinstance(v, list):
                    stack.extend(v)
                elif isinstance(v, _AST):
                    stack.append(v)
    if not nested:
        return frozenset()
    captured = set()
    for n in nested:
        captured |= free_reads(n)
    return frozenset(captured & (_params(fn) | block_writes(fn.body)))


def _comprehension_reads(node):
    bound = set()
    found = set()
    for gen in node.generators:
        found |= reads(gen.iter) - bound
        bound |= {n.id for n in walk(gen.target) if isinstance(n, gast.Name)}
        for cond in gen.ifs:
            found |= reads(cond) - bound
    elts = [node.key, node.value] if isinstance(node, gast.DictComp) else [node.elt]
    for e in elts:
        found |= reads(e) - bound
    return found


# Per node type: the fields a walk descends into (``ctx`` and ``type_comment`` never hold names).
_FIELDS = {}


def _fields(cls):
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = tuple(f for f in cls._fields if f not in ("ctx", "type_comment"))
    return fields


_AST = gast.AST
_LOAD, _STORE, _DEL = gast.Load, gast.Store, gast.Del


def reads(node):
    """Names loaded (or deleted) anywhere in `node` (not descending into nested scopes' locals)."""
    found = set()
    stack = [node]
    pop, push = stack.pop, stack.extend
    kinds = _READ_KINDS
    while stack:
        n = pop()
        cls = type(n)
        if cls is _NAME:
            if type(n.ctx) is not _STORE:  # `del y` needs y's value as a load does
                found.add(n.id)
            if n.annotation is None:
                continue
        else:
            kind = kinds.get(cls)
            if kind is None:
                kind = _read_kind(cls)
            if kind is not _PLAIN:
                if kind is _SKIP:  # None, str... in a list field
                    continue
                if kind is _DEF:
                    found |= free_reads(n)
                    continue
                if kind is _COMPREHENSION:
                    found |= _comprehension_reads(n)
                    continue
                if type(n.target) is _NAME:  # an AugAssign
                    found.add(n.target.id)
        d = n.__dict__
        for field in _FIELDS.get(cls) or _fields(cls):
            value = d.get(field)
            if type(value) is list:
                push(value)
            elif isinstance(value, _AST):
                stack.append(value)
    return found


_COMPREHENSION, _AUGASSIGN = "comprehension", "augassign"
_READ_KINDS = {}  # what ``reads`` does with a node of each type (see _WRITE_KINDS)


def _read_kind(cls):
    if not issubclass(cls, _AST):
        kind = _SKIP
    elif issubclass(cls, _SCOPES):
        kind = _DEF
    elif issubclass(cls, _COMPREHENSIONS):
        kind = _COMPREHENSION
    elif cls is gast.AugAssign:
        kind = _AUGASSIGN
    else:
        kind = _PLAIN
    _READ_KINDS[cls] = kind
    return kind


def writes(node):
    """Names a statement binds in its own scope."""
    found = set()
    stack = [node]
    pop, push = stack.pop, stack.extend
    kinds = _WRITE_KINDS
    while stack:
        n = pop()
        cls = type(n)
        if cls is _NAME:
            if type(n.ctx) in (_STORE, _DEL):
                found.add(n.id)
            if n.annotation is None:
                continue
            kind = _PLAIN
        else:
            kind = kinds.get(cls)
            if kind is None:
                kind = _write_kind(cls)
            if kind is _SKIP:  # None, str... in a list field; lambdas, comprehensions
                continue
            if kind is not _PLAIN:
                if kind is _DEF:
                    found.add(n.name)
                    continue
                if kind is _IMPORT:
                    found |= {(a.asname or a.name).split(".")[0] for a in n.names}
                elif kind is _HANDLER:
                    if n.name is not None:
                        found.add(n.name.id if isinstance(n.name, gast.Name) else n.name)
                elif kind is _NAMED:
                    found.add(n.target.id)
        # the children, as reads pushes them
        d = n.__dict__
        for field in _FIELDS.get(cls) or _fields(cls):
            value = d.get(field)
            if type(value) is list:
                push(value)
            elif isinstance(value, _AST):
                stack.append(value)
    return found


# What ``writes`` does with a node of each type (found once per type; gast node types have no
# subclasses, so the type decides what the isinstance tests decided).
_PLAIN, _SKIP, _DEF, _IMPORT, _HANDLER, _NAMED = "plain", "skip", "def", "import", "handler", "named"
_WRITE_KINDS = {}
_NAME = gast.Name


def _write_kind(cls):
    if not issubclass(cls, _AST):
        kind = _SKIP
    elif issubclass(cls, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
        kind = _DEF
    elif issubclass(cls, (gast.Lambda,) + _COMPREHENSIONS):
        kind = _SKIP
    elif issubclass(cls, (gast.Import, gast.ImportFrom)):
        kind = _IMPORT
    elif cls is gast.ExceptHandler:
        kind = _HANDLER
    elif cls is gast.NamedExpr:
        kind = _NAMED
    else:
        kind = _PLAIN
    _WRITE_KINDS[cls] = kind
    return kind


def block_reads(stmts):
    """The names a list of statements reads."""
    out = set()
    for s in stmts:
        out |= reads(s)
    return out


def block_writes(stmts):
    """The names a list of statements writes."""
    out = set()
    for s in stmts:
        out |= writes(s)
    return out
