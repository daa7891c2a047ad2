"""`next(it)` in converted code (``_jst.Next``): refused when ``it`` lives outside the converted
call (a global, a closure variable, an attribute of a Layer or config, an argument).

Converted code runs once, while the Program is built: `next(batches)` would take one item then,
and every call of the cached Program would reuse it (a training step on the same batch forever),
where eager code takes the next item each call.  An iterator the converted code makes itself
(`next(iter(d))`, `next(self.named_parameters())`) is made anew each call and is fine, but not
inside a tensor `if` or loop when made before it: each branch and the body are built once.
"""
import os
import sys
import types

import runtime as rt

import dy2st

from dy2st.operators.common import _with_location


_INTERNAL = tuple(os.path.dirname(m.__file__) + os.sep for m in (rt, dy2st))


def _top(frame):
    """The frame of the converted function whose generated code ``frame`` runs (a loop body or a
    branch is a nested function of it, called through the operators)."""
    name, top, f = frame.f_code.co_filename, frame, frame.f_back
    while f is not None:
        file = f.f_code.co_filename
        if file == name:
            top = f
        elif not file.startswith(_INTERNAL):
            break
        f = f.f_back
    return top


def _outside(it, frame, arguments):
    if any(a is it for a in arguments) or any(v is it for v in frame.f_globals.values()):
        return True
    top = _top(frame)
    cells = top.f_locals
    if any(cells.get(name) is it for name in top.f_code.co_freevars if name != "_jst"):  # the user's closure
        return True
    for v in frame.f_locals.values():  # `self.batches`, `cfg.stream`: an attribute of an object the code reads
        d = getattr(v, "__dict__", None)
        if type(d) is dict and not isinstance(v, (types.ModuleType, type, types.FunctionType, rt.Tensor)) \
                and any(a is it for a in d.values()):
            return True
    return False


def Next(it, *default):
    """``next(it, *default)``, unless ``it`` was made outside the converted call (see the module docstring)."""
    from dy2st.frontend import guards  # noqa: PLC0415  (the frontend imports the operators)
    arguments = guards.traced_arguments()
    if arguments is not None and hasattr(it, "__next__") and _outside(it, sys._getframe(1), arguments):
        raise TypeError(_with_location(
            f"next() of a {type(it).__name__} made outside the converted function: converted code runs "
            "once, while the Program is built, so every call of the cached Program would reuse the one "
            "item taken then (eagerly each call takes the next). Take the item outside and pass it in as "
            "an argument, or convert with dy2st.to_static(..., full_graph=False)"))
    if arguments is not None and hasattr(it, "__next__") and rt.framework.current_block().idx != 0 \
            and _from_enclosing(it, sys._getframe(1)):
        raise TypeError(_with_location(
            f"next() of a {type(it).__name__} made before a tensor-dependent `if` or loop, inside it: "
            "converted code builds each branch (and a loop body) once, while the Program is built, so "
            "the items taken would not follow the condition or the number of iterations. Take the items "
            "before the `if` or loop, or convert with dy2st.to_static(..., full_graph=False)"))
    return next(it, *default)


def _from_enclosing(it, frame):
    """Whether ``frame`` (a branch or loop body) got ``it`` from the code around it (an argument or
    a closure variable of the nested function) rather than making it itself."""
    code, local = frame.f_code, frame.f_locals
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount] + code.co_freevars
    return any(local.get(name) is it for name in names)
