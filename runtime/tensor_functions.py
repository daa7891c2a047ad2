"""The module-level functions of ``runtime.tensor`` (Paddle's ``paddle.tensor`` namespace) that are
not Tensor's own: ``fill_constant`` and the lazy look-up of the public tensor functions
(``rt.tensor.array_write``, ``rt.tensor.normal``, ``rt.tensor.math``...), which ``runtime.tensor``
installs as its module ``__getattr__``. Kept apart from the Tensor class; both resolve the op
modules on use because those load after ``runtime.tensor``.
"""


def fill_constant(shape, dtype, value, force_cpu=False, out=None, name=None):
    """A tensor of ``shape`` filled with ``value`` as ``dtype`` (Paddle's ``paddle.tensor.fill_constant``:
    ``rt.full`` with its arguments in that order; ``out``, when given, is written in place)."""
    from .ops.creation import full  # the op modules load after this one: resolved on use
    res = full(shape, value, dtype)
    if out is None:
        return res
    from .assign import assign
    return assign(res, out)


def tensor_module_getattr(name):
    """``rt.tensor.create_array`` / ``array_write`` / ``array_read`` / ``array_length``, and every other
    public tensor function: Paddle's ``paddle.tensor`` package holds its tensor functions, and model
    code calls them there (PaddleNLP's BERT initialises weights with ``paddle.tensor.normal``).
    Looked up on first use because the op modules that define them load after runtime.tensor."""
    from .ops.tensor_array import PUBLIC
    if name in PUBLIC:
        return PUBLIC[name]
    if name == "math":  # paddle.tensor.math, with its axis-aligned elementwise helpers
        from . import tensor_math
        return tensor_math
    import sys
    import types
    pkg = sys.modules[__package__]
    # paddle.tensor also holds the linear-algebra functions (paddle.tensor.cholesky...)
    value = None if name.startswith("_") else getattr(pkg, name, None) or getattr(pkg.linalg, name, None)
    if callable(value) and not isinstance(value, (type, types.ModuleType)):
        return value
    raise AttributeError(f"module {__package__ + '.tensor'!r} has no attribute {name!r}")
