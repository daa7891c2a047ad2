"""Errors of the public entry points (``dy2st.save``, ``load``, ``onnx.export``, the CLI) at the user's line.

A direct call of a converted function already re-raises a failure at the user's
line (``error.to_user_error``).  The entry points that trace or read on the user's
behalf get the same treatment from ``@user_errors("dy2st.save")``:

- a failure inside the user's converted code names that line (file, line, source
  around it), as a direct call does;
- any other failure (bad arguments, a missing file, an op with no ONNX lowering)
  names the line that called the entry point;
- the exception is the same object (``error.attach_origin``); framework frames are dropped from the traceback
  unless ``DY2ST_SHOW_INTERNALS=1`` (or ``dy2st.set_verbosity(>=2)``).

``one_line(exc)`` is the CLI's form of the same: ``Type: message (file:line: source)``.
"""
import functools
import linecache
import os
import sys

import runtime
from runtime.errors import origin_of

from .error import UserOrigin, attach_origin, innermost_origin, is_mapped, show_internals, to_user_error

__all__ = ["user_errors", "one_line", "map_entry_error"]

# dy2st's and runtime's own folders: a call from there is not the user's.
_PACKAGES = tuple(os.path.dirname(os.path.abspath(m.__file__)) + os.sep for m in (sys.modules[__package__], runtime))


def _internal(filename):
    path = os.path.normpath(os.path.abspath(filename)) if not filename.startswith("<") else filename
    return path.startswith(_PACKAGES) or filename.startswith("<dy2st")


def caller_origin(frame):
    """The user's line that called an entry point: ``frame`` unless it is dy2st's or runtime's own code
    (``dy2st export`` calling ``export_onnx``, ``onnx.export`` calling ``save``): then None."""
    code = frame.f_code
    if _internal(code.co_filename) or code.co_filename.startswith("<frozen"):
        return None
    return UserOrigin(code.co_filename, frame.f_lineno, "", code.co_name)


def map_entry_error(exc, what, caller):
    """``exc`` with a message ending at the user's line: inside converted code if it failed there,
    else at ``caller`` (the line that called ``what``).  Same type; marked as mapped."""
    exc = to_user_error(exc, f"in {what}")
    if is_mapped(exc) or caller is None:
        return exc
    return attach_origin(exc, caller, f"calling {what}")


def user_errors(what):
    """Decorate a public entry point so its errors end at the user's line (see the module doc)."""
    def decorate(fn):
        @functools.wraps(fn)
        def entry(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001  (re-raised, same type)
                caller = caller_origin(sys._getframe(1))
                if show_internals() or caller is None:  # dy2st's own call (the CLI) reports it its way
                    raise
                new = map_entry_error(exc, what, caller)
                raise new.with_traceback(None) from None
        return entry
    return decorate


def _frame_in(tb, path):
    """The innermost traceback entry in the file ``path`` (a user module the CLI imported)."""
    found, target = None, os.path.abspath(path)
    while tb is not None:
        if os.path.abspath(tb.tb_frame.f_code.co_filename) == target:
            found = UserOrigin(tb.tb_frame.f_code.co_filename, tb.tb_lineno, "", tb.tb_frame.f_code.co_name)
        tb = tb.tb_next
    return found


def one_line(exc, in_file=None):
    """``Type: first line of the message (file:line: source)`` for a one-line CLI error.

    The line is the one the error was mapped to, else the innermost converted-code line, else (with
    ``in_file``) the innermost line of that file in the traceback."""
    text = str(exc).strip().splitlines()
    head = f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")
    origin = origin_of(exc) or innermost_origin(exc)
    if origin is None and in_file is not None:
        origin = _frame_in(exc.__traceback__, in_file)
    if origin is None:
        return head
    source = (linecache.getline(origin.filename, origin.lineno) or origin.source_line or "").strip()
    return f"{head} ({origin.filename}:{origin.lineno}{': ' + source if source else ''})"
