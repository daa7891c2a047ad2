"""The staging report: which constructs became graph ops and which stayed Python, and why.

``sf.explain(*args)`` traces the function once more with a recorder switched
on.  The runtime interface (``convert_operators``) records every decision it
makes while the Program is built — a Tensor condition makes a ``cond`` op, a
Python bool is decided at trace time — against the user line that made it.
The report lists every ``if``/``while``/``for``/``and``/``or``/ternary/
``assert``/``print`` of the function's source with those decisions, plus the
variables left undefined on some path::

    staging report for f  (model.py)
      line  5  if x.mean() > 0:        -> cond op       condition `x.mean() > 0` is a Tensor (bool[])
      line  9  for i in range(3):      -> Python        `range(3)` is a Python iterable: unrolled (3 iterations)
      line 14  if flag:                -> Python        `flag` is a Python bool: decided at trace time (True)
"""
import ast
import collections
import contextlib
import inspect
import os
import textwrap

from .error import current_origin

# op: the graph op the construct became ("cond op", ...), or None when it stayed Python.
Decision = collections.namedtuple("Decision", ["kind", "op", "reason", "lineno", "filename"])


class _Recorder:
    active = None


_recorder = _Recorder()


@contextlib.contextmanager
def recording():
    """Collect decisions made while the ``with`` body traces a function."""
    old = _recorder.active
    _recorder.active = []
    try:
        yield _recorder.active
    finally:
        _recorder.active = old


def record(kind, op, reason):
    """Called by the runtime interface at each decision (a no-op unless a report is being made)."""
    decisions = _recorder.active
    if decisions is None:
        return
    origin = current_origin()
    if origin is None:
        return
    decisions.append(Decision(kind, op, reason, origin.lineno, origin.filename))


def describe(value):
    """How a condition's value reads in the report: a Tensor's dtype/shape or a Python type."""
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        symbolic = any(cls.__name__ == "Variable" for cls in type(value).__mro__)
        what = "Tensor" if symbolic else "eager Tensor (constant while tracing)"
        return f"a {what} ({value.dtype}{list(value.shape)})"
    return f"a Python {type(value).__name__} ({value!r})" if isinstance(value, (bool, int, float, type(None))) \
        else f"a Python {type(value).__name__}"


_CONSTRUCTS = (
    (ast.If, "if"), (ast.While, "while"), (ast.For, "for"), (ast.IfExp, "ternary"),
    (ast.Assert, "assert"),
)


def constructs(fn):
    """(lineno, kind, text) for every construct of ``fn``'s source the report covers."""
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return []
    tree = ast.parse(textwrap.dedent("".join(lines)))
    out = []
    for node in ast.walk(tree):
        kind = None
        for cls, name in _CONSTRUCTS:
            if isinstance(node, cls):
                kind = name
        if isinstance(node, ast.BoolOp):
            kind = "and" if isinstance(node.op, ast.And) else "or"
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            kind = "not"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
            kind = "print"
        if kind is None:
            continue
        if kind in ("if", "while"):
            text = f"{kind} {ast.unparse(node.test)}:"
        elif kind == "for":
            text = f"for {ast.unparse(node.target)} in {ast.unparse(node.iter)}:"
        else:
            text = ast.unparse(node)
        out.append((node.lineno + first - 1, kind, text))
    out.sort()
    return out


# Which recorded decisions answer for a construct found in the source.
_DECIDED_BY = {"if": ("if",), "ternary": ("if",), "while": ("while",), "for": ("for",), "and": ("and",),
               "or": ("or",), "not": ("not",), "assert": ("assert",), "print": ("print",)}


def _verdict(matches):
    if not matches:
        return "not reached", "never evaluated while tracing (e.g. inside a branch decided in Python)"
    ops = list(dict.fromkeys(m.op for m in matches))
    if ops == [None]:
        verdict = "Python"
    elif None in ops:
        verdict = "mixed: " + ", ".join(o for o in ops if o) + " / Python"
    else:
        verdict = ", ".join(ops)
    reasons = list(dict.fromkeys(m.reason for m in matches))
    reason = "; ".join(reasons[:2]) + (f" (+{len(reasons) - 2} more)" if len(reasons) > 2 else "")
    if len(matches) > 1:
        reason += f" (this line was traced {len(matches)} times: once per Python-level loop iteration or call)"
    return verdict, reason


def format_report(fn, decisions, title):
    """The report text from the source constructs and the recorded decisions."""
    filename = inspect.getsourcefile(fn) or "<unknown>"
    if os.path.isabs(filename) and not os.path.relpath(filename).startswith(".."):
        filename = os.path.relpath(filename)  # shorter, and still opens from here
    by_line = collections.defaultdict(list)
    undefined = []
    for d in decisions:
        if d.kind == "undefined":
            if (d.reason, d.lineno) not in undefined:
                undefined.append((d.reason, d.lineno))
        else:
            by_line[(d.lineno, d.kind)].append(d)
    rows = []
    for lineno, kind, text in constructs(fn):
        matches = [m for k in _DECIDED_BY[kind] for m in by_line.get((lineno, k), [])]
        verdict, reason = _verdict(matches)
        short = text if len(text) <= 32 else text[:29] + "..."
        rows.append(f"  line {lineno:>4}  {short:<32}  -> {verdict:<14} {reason}")
    lines = [f"staging report for {title}  ({filename})"]
    lines += rows or ["  (no control flow, logical operators, assert or print)"]
    if undefined:
        lines.append("variables undefined on some path:")
        for name, lineno in undefined:
            lines.append(f"  {name}: after the `if` at line {lineno} it is set on one branch only; "
                         "using it there is an error")
    return "\n".join(lines)


def guard_report(cache, key, fresh, last_retrace=None):
    """The ``program cache:`` part of ``explain()``: whether ``cache`` holds a valid Program for ``key``,
    what it (or ``fresh``, the Program just traced) is guarded on, and the last retrace's reason."""
    lines = ["program cache:"]
    cached, failed = cache.lookup(key)
    if cached is not None:
        lines.append("  the cached Program for these arguments is valid; it is reused while:")
    elif failed is not None:
        lines.append(f"  the cached Program for these arguments is stale and will be retraced: {failed}")
        lines.append("  a new Program would be reused while:")
    else:
        lines.append("  no Program cached for these arguments yet; once traced it is reused while:")
    guards = (cached or fresh).guards
    lines += [f"    {line}" for line in (guards.summary() if guards is not None else [])] or ["    (no guards)"]
    if last_retrace:
        lines.append(f"  last retrace: {last_retrace}")
    return "\n".join(lines)
