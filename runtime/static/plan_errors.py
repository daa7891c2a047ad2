"""Which op of a compiled plan an error came from, and the note naming it.

Every plan ``codegen`` compiles is registered here by its generated filename with its line -> op
table; ``annotate`` walks an exception's traceback to the innermost plan line and adds a note
naming that op and where the user's code built it.  Kept apart from ``codegen`` (writing plans):
this is about a plan once it runs (or its constants fold), and reads only that table.
"""
import weakref

from ..errors import add_context

# generated filename -> the generated function, whose ``linemap`` ({line number: Operator}) is read
# when an error is annotated.  Weak: a plan's source, line map and Operators (and through them the
# Program and its parameters) live exactly as long as the compiled function, not forever.
GENERATED = weakref.WeakValueDictionary()


def op_note(op):
    """"[while running op 'type' -> outs (block N), built at origin]": the note added to an error an op raised."""
    outs = op.output_arg_names
    where = f"op '{op.type}'" + (f" -> {', '.join(outs)}" if outs else "") + f" (block {op.block.idx})"
    if getattr(op, "origin", None):
        where += f", built at {op.origin}"
    return f"[while running {where}]"


def failing_op(exc):
    """The innermost op of generated plan code on the traceback of ``exc``, or None."""
    found, tb = None, exc.__traceback__
    while tb is not None:
        linemap = getattr(GENERATED.get(tb.tb_frame.f_code.co_filename), "linemap", None)
        if linemap is not None and tb.tb_lineno in linemap:
            found = linemap[tb.tb_lineno]
        tb = tb.tb_next
    return found


def annotate(exc, op=None):
    """``exc`` itself (never a rebuilt copy: type, attributes, errno kept) naming the failing op
    and its origin, with the op as ``exc.op`` (which also marks it as annotated).

    The op and its origin are a PEP 678 note, for every kind of error (args kept)."""
    op = op or failing_op(exc)
    if op is None or getattr(exc, "op", None) is not None:
        return exc
    add_context(exc, op_note(op))
    exc.op = op
    return exc
