"""Paddle's top-level in-place functions (``rt.abs_(x)``, ``rt.transpose_(x, perm)``...): each calls the
in-place Tensor method of the same name (runtime/inplace.py), so it writes into ``x`` and returns it."""
from .inplace import DRAWING, ELEMENTWISE, RESHAPING


def _function(name):
    def fn(x, *args, **kwargs):
        kwargs.pop("name", None)
        return getattr(x, name)(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``x.{name}(...)``: x made to hold ``rt.{name[:-1]}(x, ...)``, and returned."
    return fn


# every in-place method but copy_ (Paddle has no top-level copy_)
FUNCTIONS = {name: _function(name) for name in (*ELEMENTWISE, *RESHAPING, *DRAWING) if name != "copy_"}
