"""``rt.autograd.jacobian`` / ``hessian`` (Paddle's ``Jacobian``/``Hessian`` objects: index them, ``J[:]``,
for the matrix) and the grad-mode switches ``is_grad_enabled`` / ``set_grad_enabled``.

The matrices are built eagerly, one reverse pass per output element, with ``create_graph`` so a
Jacobian of a gradient (the Hessian) differentiates again. Shapes follow Paddle: ``[M, N]`` for
0-/1-D ``ys``/``xs``, ``[B, M, N]`` with ``batch_axis=0``.
"""
import contextlib

from .grad_mode import _GradMode, is_grad_enabled


class set_grad_enabled(contextlib.ContextDecorator):  # noqa: N801  (Paddle's name)
    """Turn gradient recording on or off: at once when called, back to the previous mode at the end of
    a ``with`` block (or of a decorated call)."""

    def __init__(self, mode):
        self._token = _GradMode._enabled.set(bool(mode))
        self._mode = bool(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _GradMode._enabled.reset(self._token)
        return False

    def _recreate_cm(self):
        return self


def _rt():
    import runtime  # noqa: PLC0415  (built after this module is read)
    return runtime


class Jacobian:
    """``d ys / d xs`` as a matrix: ``J[:]``, ``J[i]``, ``J[:, j]`` index it; ``J.shape`` is its shape."""

    def __init__(self, ys, xs, batch_axis=None):
        if batch_axis not in (None, 0):
            raise ValueError(f"batch_axis must be None or 0, got {batch_axis!r}")
        rt = _rt()
        batched = batch_axis == 0
        limit = 2 if batched else 1
        for what, t in (("ys", ys), ("xs", xs)):
            if t.ndim > limit:
                raise ValueError(f"{what}.ndim should be {'1 or 2' if batched else '0 or 1'} "
                                 f"{'with batch_axis=0' if batched else 'when batch_axis is None'}, got {t.ndim}")
        flat = ys if batched else rt.reshape(ys, [-1])
        m = flat.shape[-1] if flat.ndim else 1
        rows = []
        for i in range(m):
            yi = rt.sum(flat[:, i]) if batched else flat[i]
            g, = rt.grad([yi], [xs], retain_graph=True, create_graph=True, allow_unused=True)
            g = rt.zeros_like(xs) if g is None else g
            rows.append(g if batched else rt.reshape(g, [-1]))
        self._value = rt.stack(rows, axis=1 if batched else 0)

    @property
    def shape(self):
        """The matrix's shape: ``[M, N]``, or ``[B, M, N]`` with ``batch_axis=0``."""
        return list(self._value.shape)

    def __getitem__(self, key):
        return self._value[key]


class Hessian(Jacobian):
    """``d2 ys / d xs2`` of a scalar ``ys`` (one per batch row with ``batch_axis=0``)."""

    def __init__(self, ys, xs, batch_axis=None):
        rt = _rt()
        if ys.size != 1 and batch_axis is None:
            raise ValueError(f"hessian: ys must be a scalar (one element), got shape {list(ys.shape)}")
        g, = rt.grad([rt.sum(ys)], [xs], create_graph=True, retain_graph=True)
        super().__init__(g, xs, batch_axis)


def _each(cls, ys, xs, batch_axis):
    if isinstance(ys, (list, tuple)) and isinstance(xs, (list, tuple)):
        return tuple(tuple(cls(y, x, batch_axis) for x in xs) for y in ys)
    if isinstance(ys, (list, tuple)):
        return tuple(cls(y, xs, batch_axis) for y in ys)
    if isinstance(xs, (list, tuple)):
        return tuple(cls(ys, x, batch_axis) for x in xs)
    return cls(ys, xs, batch_axis)


def jacobian(ys, xs, batch_axis=None):
    """The Jacobian of ``ys`` with respect to ``xs`` (tuples of them for lists)."""
    return _each(Jacobian, ys, xs, batch_axis)


def hessian(ys, xs, batch_axis=None):
    """The Hessian of the scalar ``ys`` with respect to ``xs`` (a tuple for a list of xs)."""
    return _each(Hessian, ys, xs, batch_axis)


__all__ = ["Jacobian", "Hessian", "jacobian", "hessian", "is_grad_enabled", "set_grad_enabled"]
