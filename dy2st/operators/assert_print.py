"""`_jst.Assert` / `_jst.Print`: a symbolic condition -> an `assert` op checked at every run, a
Python one checked once at trace time; `print` while a Program is built -> a `print` op that
prints at every run exactly what eager `print` would."""
import builtins
import re
import string
import sys

import numpy as np

import runtime as rt
import runtime.static  # noqa: F401  (rt.static.nn: Assert, Print)
from dy2st.operators.common import _bool_var, _with_location, is_symbolic, truth
from dy2st.operators.python_bools import PythonBool
from dy2st.operators.python_semantics import PythonFloat, PythonInt, exact_of
from dy2st.operators.shapes import _SymbolicShape
from dy2st.pyct.undefined import user_location
from dy2st.tools import staging


def Assert(cond, message=None, error=None):
    """``assert cond, message``: an ``assert`` op checked at every run for a symbolic ``cond`` (its message names
    the user's line); checked now otherwise. ``error``: the built-in exception class name it raises
    (``RaiseIf``), AssertionError by default.
    """
    if is_symbolic(cond):
        known = [d for d in cond.shape if d >= 0]
        if len(known) == cond.ndim and int(np.prod(known)) != 1:
            # eager `assert` takes bool() of the tensor, which refuses any other size
            raise TypeError(_with_location(
                f"`assert` on a tensor of shape {list(cond.shape)}: its truth value needs exactly "
                "one element (eager bool() refuses it too); reduce it first (rt.all(c) or rt.any(c))"))
        msg = message if message is not None else "assertion failed"
        file, line, text = user_location()
        if file is not None:
            msg = f"{msg} ({file}, line {line}: {text.strip()})"
        staging.record("assert", "assert op", f"condition is {staging.describe(cond)}: checked at every run")
        return rt.static.nn.Assert(_bool_var(cond), msg, error=error)
    staging.record("assert", None, f"condition is {staging.describe(cond)}: checked once at trace time")
    if not truth(cond):
        raise AssertionError(message) if message is not None else AssertionError()
    return None


def RaiseIf(cond, error, caught=False):
    """`if cond: raise error`: a symbolic condition becomes an `assert` op checked at every run
    (the error's type and message in its text); a Python one raises now, as Python would.
    ``caught``: the raise is in the body of a `try` with `except` clauses, which a run-time check
    would raise past (eagerly the handler runs): refused for a symbolic condition."""
    if isinstance(error, type):
        error = error()  # `raise ValueError` raises an instance too
    if is_symbolic(cond) and caught:
        raise TypeError(_with_location(
            f"`raise {type(error).__name__}` under a tensor condition inside `try` with `except`: the "
            "Program checks it at every run, where the handler cannot catch it. Compute the handler's "
            "value with a tensor `if` instead, or move the try/except out of the converted function"))
    if is_symbolic(cond):
        staging.record("if", "assert op", f"`raise` under a condition that is {staging.describe(cond)}: "
                                          "checked at every run")
        # a built-in exception keeps its type (code catching `ValueError` around the call); another
        # is an AssertionError naming it
        kind = type(error).__name__
        builtin = getattr(builtins, kind, None) is type(error)
        message = str(error) if builtin else (f"{kind}: {error}" if str(error) else kind)
        return Assert(rt.logical_not(_bool_var(cond)), message, kind if builtin else None)
    staging.record("if", None, f"`raise` under a condition that is {staging.describe(cond)}: decided at trace time")
    if truth(cond):
        raise error
    return None


class FString:
    """An f-string inside ``print(...)``: its text pieces and ``(value, conversion, spec)`` pieces.

    The print pass turns ``print(f"loss {y:.3f}")`` into ``_jst.Print(_jst.FString(['loss ',
    (y, '', '.3f')]))`` so a tensor piece is formatted at every run, not once while tracing.
    """

    def __init__(self, parts):
        self.parts = parts

    def has_symbolic(self):
        """Whether a formatted piece is a symbolic tensor (then the print must happen at run time)."""
        return any(isinstance(p, tuple) and is_symbolic(p[0]) for p in self.parts)

    @staticmethod
    def _python(value, conversion, spec):
        value = {"s": str, "r": repr, "a": ascii}.get(conversion, lambda v: v)(value)
        return format(value, spec)

    def __str__(self):
        return "".join(p if isinstance(p, str) else self._python(*p) for p in self.parts)

    def pieces(self, tensors):
        """Yield the pieces as a print op's spec: ``["s", text]`` or ``["t", spec, conversion]``; the tensor of each
        ``"t"`` piece is appended to ``tensors``.
        """
        for p in self.parts:
            if isinstance(p, str):
                yield ["s", p]
            elif is_symbolic(p[0]):
                tensors.append(exact_of(p[0]))  # a carried Python float prints its float64 value
                yield [_kind(p[0]), p[2], p[1] or None]
            else:
                yield ["s", self._python(*p)]


# One `%` conversion: %(key)s, flags, width, precision, length modifier, type.
_PERCENT = re.compile(r"%(\([^)]*\))?([-+ 0#]*)(\*|\d+)?(?:\.(\*|\d*))?[hlL]?([diouxXeEfFgGcrsa%])")


def PercentFormat(fmt, values):
    """`"text %.3f" % v` as an argument of `print`: Python's own formatting for Python values, an
    FString (formatted at every run) when a value is traced. The conversions of a traced value that
    format exactly as eager `%` does are `%s`/`%r`/`%a` (no width), the float ones and, for an int
    value, the int ones; any other is a TypeError at the user's line (eager prints the value of
    each call, a string made while tracing would print the first call's text once)."""
    items = values if type(values) is tuple else (values,)
    if not any(is_symbolic(v) for v in items):
        return fmt % values
    parts, pos, k = [], 0, 0
    for m in _PERCENT.finditer(fmt):
        key, flags, width, prec, kind = m.groups()
        parts.append(fmt[pos:m.start()])
        pos = m.end()
        if kind == "%":
            parts.append("%")
            continue
        if key or width == "*" or prec == "*" or k >= len(items):
            raise TypeError(_with_location(f"print of {fmt!r} % (...) with a traced value: write it as an f-string"))
        v = items[k]
        k += 1
        if not is_symbolic(v):
            parts.append(m.group(0) % (v,))
        elif kind in "sra" and not (flags or width or prec is not None):
            parts.append((v, kind, ""))
        elif kind in "fFeEgG" or (kind in "diouxX" and v.dtype.np.kind in "iu"):
            spec = ("<" if "-" in flags else "") + ("+" if "+" in flags else " " if " " in flags else "") \
                + ("#" if "#" in flags else "") + ("0" if "0" in flags and "-" not in flags else "") \
                + (width or "") + (f".{prec or 0}" if prec is not None else "") + {"i": "d", "u": "d"}.get(kind, kind)
            parts.append((v, "", spec))
        else:
            raise TypeError(_with_location(
                f"print of {m.group(0)!r} % a traced {v.dtype} value: eager `%` converts it first (int(), str()), "
                "which a print op cannot mimic; write it as an f-string (f\"{{int(x)}}\" converts at every run)"))
    if k != len(items):
        raise TypeError(_with_location("not all arguments converted during string formatting"))
    parts.append(fmt[pos:])
    return FString([p for p in parts if p != ""])


def StrFormat(fmt, *args, **kwargs):
    """`"text {:.3f}".format(v)` as an argument of `print`: ``str.format`` for Python values, an
    FString (formatted at every run) when a value is traced; a field the print op cannot format
    (an attribute or item of the value, a nested spec) is a TypeError at the user's line."""
    if not any(is_symbolic(v) for v in (*args, *kwargs.values())):
        return fmt.format(*args, **kwargs)
    parts, auto = [], 0
    for text, field, spec, conversion in string.Formatter().parse(fmt):
        parts.append(text)
        if field is None:
            continue
        if field == "":
            field, auto = str(auto), auto + 1
        value = args[int(field)] if field.isdigit() else kwargs.get(field, _MISSING_FIELD)
        if value is _MISSING_FIELD or "{" in (spec or ""):
            raise TypeError(_with_location(f"print of {fmt!r}.format(...) with a traced value: the field "
                                               f"{{{field}}} cannot be formatted at run time; write an f-string"))
        if is_symbolic(value):
            parts.append((value, conversion or "", spec or ""))
        else:
            parts.append(("{0" + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}").format(value))
    return FString([p for p in parts if p != ""])


_MISSING_FIELD = object()


def _kind(v):
    """The print piece of a traced value: "p" for one standing for a Python number (a loop counter,
    float(t), a flag a tensor loop sets), which prints as that number; "t" for a tensor, printed as eager prints Tensors."""
    return "p" if isinstance(v, (PythonInt, PythonFloat, PythonBool)) else "t"


def Print(*values, sep=" ", end="\n", file=None, flush=False):
    """Python values print now; symbolic tensors through a `print` op at every run, formatted
    as eager ``print`` formats them."""
    # A shape with unknown dims prints as the `shape` op's value, at run time.
    values = [v.as_tensor() if isinstance(v, _SymbolicShape) else v for v in values]
    # While a Program is being built every print becomes an op, Python values included: the
    # Program runs on every call (and a print in an untaken tensor branch must not show at all).
    if not rt.in_dynamic_mode():
        if file is not None and file is not sys.stdout:
            raise TypeError("print(..., file=...) of a Tensor inside a converted function: the print op "
                            "writes to standard output; print the tensor outside the converted function, "
                            "or use to_static(full_graph=False)")
        tensors, template = [], []
        for i, v in enumerate(values):
            if i:
                template.append(["s", "" if sep is None else str(sep)])
            if isinstance(v, FString):
                template.extend(v.pieces(tensors))
            elif is_symbolic(v):
                tensors.append(exact_of(v))
                template.append([_kind(v), "", None])
            else:
                template.append(["s", str(v)])
        staging.record("print", "print op", "prints at every run, as eager print would")
        rt.static.nn.print_template(tensors, template, end="\n" if end is None else str(end))
        return None
    values = [str(v) if isinstance(v, FString) else v for v in values]
    print(*values, sep=sep, end=end, file=file, flush=flush)
    return None
