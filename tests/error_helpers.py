"""Helpers for tests of where an error points: a source line's number, and an error's notes."""
import inspect


def line_of(fn, text):
    """The absolute line number of the first line of ``fn``'s source containing ``text``."""
    lines, first = inspect.getsourcelines(fn)
    for i, line in enumerate(lines):
        if text in line:
            return first + i
    raise AssertionError(text)


def notes(exc):
    """The PEP 678 notes of ``exc``, one per line: where the user's file and line are reported."""
    return "\n".join(getattr(exc, "__notes__", ()))
