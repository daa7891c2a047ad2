"""Errors against the user's own source.

While a Program is built, every appended op records the user line that made
it (``op.origin``, found by walking the stack to the generated code's frame and
mapping it back).  Any exception raised while building or running a converted
function is re-raised as the same object with a note (PEP 678, printed under
the message) giving the user's file, line and a few lines of context::

    ValueError: matmul: the last dim of x (3, x shape [2, 3]) must equal ...
      In user code, while running op 'matmul':
        File "model.py", line 12, in forward
           10 |         h = self.fc(x)
           11 |         if h.mean() > 0:
        >  12 |             h = h @ self.w
           13 |         return h

Generated code and framework frames are dropped from the chain unless
``DY2ST_SHOW_INTERNALS=1`` or ``dy2st.set_verbosity(>=2)``.
"""
import linecache
import os
import sys

from runtime.errors import Origin, add_context, origin_of

from ..frontend import config
from ..pyct import origin_info
from ..pyct.errors import Dy2StError

CONTEXT_LINES = 2


# The one origin type: runtime's, so an op's origin and a converter error's are the same kind.
UserOrigin = Origin


def _from_info(info):
    if info is None:
        return None
    return UserOrigin(info.filename, info.lineno, info.source_line, info.function_name)


def current_origin():
    """The user line whose generated code is executing now (innermost), or None."""
    return _from_info(origin_info.innermost_origin(sys._getframe(1)))


def origin_in_traceback(tb):
    """The innermost generated-code frame of a traceback, mapped to the user's line."""
    found = None
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if origin_info.is_generated(filename):
            info = origin_info.origin_of(filename, tb.tb_lineno)
            if info is not None:
                found = _from_info(info)
        tb = tb.tb_next
    return found


def _origins_in_traceback(tb):
    """The user lines of a traceback's generated-code frames, outermost first."""
    found = []
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if origin_info.is_generated(filename):
            info = origin_info.origin_of(filename, tb.tb_lineno)
            if info is not None:
                found.append(_from_info(info))
        tb = tb.tb_next
    return found


def callers_of(exc, origin):
    """The user lines that called into the function of ``origin`` (the innermost line of ``exc``'s
    traceback), outermost first: ``outer()`` calling ``inner()`` reads as Python's traceback does.
    Lines of the same function (a tensor ``if`` whose branch failed) are left out."""
    chain = _origins_in_traceback(exc.__traceback__)
    if not chain or (chain[-1].filename, chain[-1].lineno) != (origin.filename, origin.lineno):
        return []
    callers = []
    for here, inner in zip(chain, chain[1:]):
        if (here.filename, here.function_name) != (inner.filename, inner.function_name):
            callers.append(here)
    return callers


def innermost_origin(exc):
    """The innermost user line over ``exc`` and its explicit causes (``raise ... from e``).

    A wrapper raised at an outer line (the ``if`` that builds a cond) keeps the real
    failure in its ``__cause__``, whose traceback reaches the line inside the branch.
    """
    found, seen = None, set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        op = getattr(exc, "op", None)
        origin = None
        if op is not None and getattr(op, "origin", None) is not None:
            origin = op.origin if isinstance(op.origin, UserOrigin) else Origin.parse(op.origin)
        origin = origin or origin_in_traceback(exc.__traceback__)
        if origin is not None:
            found = origin
        exc = exc.__cause__
    return found


def format_location(origin, context=CONTEXT_LINES):
    """``File "...", line N, in fn`` plus numbered source lines with a marker."""
    head = f'  File "{origin.filename}", line {origin.lineno}' + \
        (f", in {origin.function_name.split('.')[-1]}" if origin.function_name else "")
    lines = [head]
    start = max(1, origin.lineno - context)
    width = len(str(origin.lineno + context))
    body = []
    for n in range(start, origin.lineno + context + 1):
        text = linecache.getline(origin.filename, n)
        if not text:
            continue
        marker = ">" if n == origin.lineno else " "
        body.append(f"    {marker} {n:>{width}} | {text.rstrip()}")
    if not body and origin.source_line:
        body.append(f"    > {origin.lineno} | {origin.source_line.strip()}")
    return "\n".join(lines + body)


def show_internals():
    """Whether tracebacks keep dy2st's own frames (``DY2ST_SHOW_INTERNALS=1`` or verbosity 2 and up)."""
    return os.environ.get("DY2ST_SHOW_INTERNALS") == "1" or config.verbosity() >= 2


def is_mapped(exc):
    """Whether ``exc`` already carries the user line it came from (``attach_origin``)."""
    return origin_of(exc) is not None


def attach_origin(exc, origin, what, callers=()):
    """``exc`` itself (never a rebuilt copy: type and attributes kept) pointing at the user's line
    ``origin`` (an Origin, kept as ``exc.user_origin``); the one way an error gets its place.

    The place is a PEP 678 note for every kind of error, so ``str(exc)`` stays the error's own
    message and a traceback shows the user's file and line under it, after the lines of the user
    functions that called there (``callers``, outermost first, one source line each)."""
    chain = "".join(format_location(c, context=0) + "\n" for c in callers)
    return add_context(exc, f"  In user code, {what}:\n{chain}{format_location(origin)}", origin=origin)


def to_user_error(exc, phase):
    """``exc`` with a note pointing at the user's line, when one is known."""
    if isinstance(exc, Dy2StError) or is_mapped(exc):
        return exc
    op = getattr(exc, "op", None)
    origin = None
    if op is not None and getattr(op, "origin", None) is not None:
        origin = op.origin if isinstance(op.origin, UserOrigin) else Origin.parse(op.origin)
    callers = ()
    if origin is None:
        origin = innermost_origin(exc)
        callers = callers_of(exc, origin) if origin is not None else ()
    if origin is None:
        return exc
    what = f"{phase}, while running op '{op.type}'" if op is not None else phase
    return attach_origin(exc, origin, what, callers)
