"""``paddle.jit.dy2static.utils``: the exception Paddle raises for differing returns of a tensor ``if``,
and the source of a function as the converter reads it."""
import inspect
import textwrap

import gast

from ..pyct.errors import Dygraph2StaticException

__all__ = ["Dygraph2StaticException", "func_to_source_code"]


def func_to_source_code(function, dedent=True):
    """The source of ``function`` (a function, method or StaticFunction), dedented and, as Paddle
    prints it, regenerated from its syntax tree: comments and blank lines are gone."""
    function = getattr(function, "dygraph_function", function)
    if not (inspect.isfunction(function) or inspect.ismethod(function)):
        raise TypeError(f"func_to_source_code expects a function or method, got {type(function).__name__}")
    source = inspect.getsource(function)
    if dedent:
        source = textwrap.dedent(source)
    import astor  # noqa: PLC0415  (the code generator dy2st uses)
    return astor.to_source(gast.gast_to_ast(gast.parse(source)))
