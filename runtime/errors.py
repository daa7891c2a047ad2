"""One way to attach "where this came from" to an exception, for runtime and the converter alike.

The exception object itself is kept, whatever its kind (its type, args and attributes: a
KeyError's key, an OSError's errno and filename): the context is a PEP 678 note, which
tracebacks print under the message and ``str(exc)`` leaves alone.  Where the error came from
in the user's source is an ``Origin``, kept on the exception as ``exc.user_origin``.
"""

__all__ = ["Origin", "add_context", "origin_of", "message_with_notes"]


class Origin:
    """A user source location; ``str()`` is ``file:line`` (the form a Program keeps on its ops)."""

    __slots__ = ("filename", "lineno", "source_line", "function_name")

    def __init__(self, filename, lineno, source_line="", function_name=""):
        self.filename = filename
        self.lineno = lineno
        self.source_line = source_line
        self.function_name = function_name

    def __str__(self):
        return f"{self.filename}:{self.lineno}"

    __repr__ = __str__

    @classmethod
    def parse(cls, text):
        """The Origin of a ``file:line`` string (an op's origin in a saved model), or None."""
        filename, _, line = str(text).rpartition(":")
        return cls(filename, int(line)) if filename and line.isdigit() else None


def add_context(exc, note, origin=None):
    """Attach ``note`` to ``exc`` as a PEP 678 note (once) and return ``exc``.

    ``origin``: the user's line the error is reported at, kept as ``exc.user_origin``."""
    if note not in getattr(exc, "__notes__", ()):
        exc.add_note(note)
    if origin is not None:
        exc.user_origin = origin
    return exc


def origin_of(exc):
    """The ``Origin`` an error was reported at (``add_context(..., origin=)``), or None."""
    origin = getattr(exc, "user_origin", None)
    return origin if isinstance(origin, Origin) else None


def message_with_notes(exc):
    """``str(exc)`` followed by its notes, one per line: the whole text a traceback shows under the type."""
    return "\n".join([str(exc), *getattr(exc, "__notes__", ())])
