"""``print("loss %s" % x)`` and ``print("loss {}".format(x))`` inside converted code: with a symbolic
tensor among the arguments the text is an ``FString``, so the print op shows the tensor's value at
every run (as eager print does) instead of the Variable's name formatted once while tracing.

Rewritten: ``%s``/``%r``/``%a`` with flags, width and precision, a float directive (``%.3f``,
``%e``...) of a float tensor and an integer one (``%d``, ``%x``...) of an int tensor; ``{}``, ``{0}``,
``{name}`` with a conversion and a literal spec. Anything else (``%(key)s``, ``%*d``, ``{0.attr}``,
a numeric directive of a Python number among tensors) is formatted by Python as before.
"""
import re
import string

from dy2st.operators.assert_print import FString
from dy2st.operators.common import is_symbolic

_PERCENT = re.compile(r"%(?:\((?P<key>[^)]*)\))?(?P<flags>[-+ 0#]*)(?P<width>\*|\d+)?(?:\.(?P<prec>\*|\d+))?"
                      r"(?P<type>[diouxXeEfFgGcrsa%])")


def _percent_parts(fmt, values):
    """The FString parts of ``fmt % values``, or None for a form left to Python."""
    parts, pos, used = [], 0, 0
    for m in _PERCENT.finditer(fmt):
        text = fmt[pos:m.start()]
        if "%" in text:  # a malformed directive: Python's error
            return None
        parts.append(text)
        pos = m.end()
        kind = m["type"]
        if kind == "%":
            parts.append("%")
            continue
        if m["key"] is not None or "*" in (m["width"] or "", m["prec"] or "") or used >= len(values):
            return None
        piece = _piece(values[used], kind, m["flags"], m["width"] or "", m["prec"])
        if piece is None:
            return None
        parts.append(piece)
        used += 1
    if "%" in fmt[pos:] or used != len(values):
        return None
    parts.append(fmt[pos:])
    return [p for p in parts if p != ""]


_FLOAT_TYPES, _INT_TYPES = "eEfFgG", "diuxXo"


def _piece(value, kind, flags, width, prec):
    """The FString piece ``(value, conversion, spec)`` of one ``%`` directive, or None to leave it to Python.

    ``%s``/``%r``/``%a`` format the str/repr/ascii text; a numeric directive on a symbolic tensor
    is the same format spec (``%08.3f`` -> ``08.3f``) when the tensor's dtype is one Python's ``%``
    would format that way: a float directive of a float tensor, an integer one of an int tensor.
    """
    tail = ("." + prec if prec is not None else "")
    if kind in "sra":
        return value, kind, (("<" if "-" in flags else ">") if width else "") + width + tail
    if not is_symbolic(value):
        return None  # a Python number next to a tensor: only the tensors need the run-time form
    dtype = str(value.dtype)
    if not (kind in _FLOAT_TYPES and dtype.startswith("float") or kind in _INT_TYPES and dtype.startswith("int")):
        return None
    sign = "+" if "+" in flags else " " if " " in flags else ""
    zero = "0" if "0" in flags and "-" not in flags else ""
    spec = ("<" if "-" in flags else "") + sign + ("#" if "#" in flags else "") + zero + width + tail
    return value, "", spec + ("d" if kind in "iu" else kind)


def PercentFormat(fmt, args):
    """``fmt % args`` in a ``print`` argument (see the module docstring)."""
    values = args if isinstance(args, tuple) else (args,)
    if isinstance(args, dict) or not any(is_symbolic(v) for v in values):
        return fmt % args
    parts = _percent_parts(fmt, values)
    return fmt % args if parts is None else FString(parts)


def _format_parts(fmt, args, kwargs):
    parts, auto = [], 0
    try:
        parsed = list(string.Formatter().parse(fmt))
    except ValueError:
        return None
    for text, field, spec, conversion in parsed:
        if text:
            parts.append(text)
        if field is None:
            continue
        if spec and "{" in spec:
            return None
        if field == "":
            key, auto = auto, auto + 1
        elif field.isdigit():
            key = int(field)
        elif field.isidentifier():
            key = field
        else:  # {0.shape}, {x[0]}: Python formats it
            return None
        if isinstance(key, int) and key >= len(args) or isinstance(key, str) and key not in kwargs:
            return None
        parts.append((args[key] if isinstance(key, int) else kwargs[key], conversion or "", spec or ""))
    return parts


def StrFormat(fmt, *args, **kwargs):
    """``fmt.format(*args, **kwargs)`` in a ``print`` argument (see the module docstring)."""
    if not any(is_symbolic(v) for v in (*args, *kwargs.values())):
        return fmt.format(*args, **kwargs)
    parts = _format_parts(fmt, args, kwargs)
    return fmt.format(*args, **kwargs) if parts is None else FString(parts)
