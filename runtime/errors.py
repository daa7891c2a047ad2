"""One way to attach "where this came from" to an exception, for runtime and the converter alike.

The exception object itself is kept (its type, args and attributes: a KeyError's key, an
OSError's errno and filename). A plain one-string message is extended in place, so ``str(exc)``
(what logs and one-line CLI errors show) carries the context; any other error gets the same
text as a PEP 678 note.
"""

# Errors whose str() is their own rendering of args (a KeyError shows its key's repr): never
# rewrite their args.
_OWN_STR = (KeyError, SyntaxError, UnicodeError)


def add_context(exc, note, sep="\n"):
    """Attach ``note`` to ``exc`` (in its message, or as a PEP 678 note) and return ``exc``."""
    if len(exc.args) == 1 and isinstance(exc.args[0], str) and getattr(exc, "errno", None) is None \
            and not isinstance(exc, _OWN_STR):
        exc.args = (f"{exc.args[0]}{sep}{note}",)
    else:
        exc.add_note(note)
    return exc
