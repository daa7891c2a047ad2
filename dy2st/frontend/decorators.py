"""Decorated functions: which function to convert, and how to keep the decorator's behaviour.

A wrapper written in user code (`functools.wraps` or not) is converted itself, so what it
adds (scaling an output, a check) stays; the function it wraps is converted when it calls
it.  Library wrappers are looked through (`__wrapped__`), except context-manager decorators
(`@rt.no_grad()`, any `contextlib.ContextDecorator`), whose context is re-entered around the
converted function on every call.
"""
import contextlib
import os
import sysconfig

_LIBRARY_DIRS = tuple(os.path.abspath(p) + os.sep for p in {
    sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"],
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep + "runtime",
    os.path.dirname(os.path.abspath(__file__))})


def _library_code(fn):
    code = getattr(fn, "__code__", None)
    return code is None or os.path.abspath(code.co_filename).startswith(_LIBRARY_DIRS)


def _context_decorator(fn):
    """The ContextDecorator instance behind a `@cm()`-decorated function's wrapper, else None."""
    code = getattr(fn, "__code__", None)
    if code is None or not fn.__closure__ or "self" not in code.co_freevars:
        return None
    cm = fn.__closure__[code.co_freevars.index("self")].cell_contents
    return cm if isinstance(cm, contextlib.ContextDecorator) else None


def unwrap(fn):
    """The function to convert behind bound methods and decorators (see the module docstring)."""
    fn = getattr(fn, "__func__", fn)
    while getattr(fn, "__wrapped__", None) is not None and (_library_code(fn) or not callable(fn)):
        fn = fn.__wrapped__
        fn = getattr(fn, "__func__", fn)
    return fn


def contexts(fn):
    """The context managers of the library decorators between ``fn`` and what ``unwrap`` converts."""
    found = []
    fn = getattr(fn, "__func__", fn)
    while getattr(fn, "__wrapped__", None) is not None and _library_code(fn):
        cm = _context_decorator(fn)
        if cm is not None:
            found.append(cm)
        fn = getattr(fn.__wrapped__, "__func__", fn.__wrapped__)
    return found


def rewrap(original, converted):
    """``converted`` run inside the context managers that decorated ``original`` (outermost first)."""
    managers = contexts(original)
    if not managers:
        return converted

    def call(*args, **kwargs):
        with contextlib.ExitStack() as stack:
            for cm in managers:
                stack.enter_context(cm._recreate_cm())
            return converted(*args, **kwargs)
    call.__name__ = getattr(converted, "__name__", "converted")
    call.__wrapped__ = converted
    return call

