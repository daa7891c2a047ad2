"""Paddle 3's ``scatter_add(input, dim, index, src)`` and ``scatter_reduce(...)``: ``put_along_axis`` with a
reduction, under PyTorch's argument order (so their op is put_along_axis, in eager mode and in a Program)."""
import runtime as _rt

from .hints import TensorLike


def scatter_add(input: TensorLike, dim: int, index: TensorLike, src: TensorLike) -> TensorLike:  # noqa: A002
    """``input`` with ``src`` added at ``index`` along ``dim`` (``put_along_axis(..., reduce="add")``)."""
    return _rt.put_along_axis(input, index, src, dim, reduce="add")


_REDUCES = {"sum": "add", "prod": "mul", "mean": "mean", "amin": "amin", "amax": "amax"}


def scatter_reduce(input: TensorLike, dim: int, index: TensorLike, src: TensorLike, reduce: str,  # noqa: A002
                   *, include_self: bool = True) -> TensorLike:
    """``src`` reduced into ``input`` at ``index`` along ``dim`` (``reduce``: "sum", "prod", "mean", "amin"
    or "amax"; without ``input``'s own values there when ``include_self=False``)."""
    if reduce not in _REDUCES:
        raise ValueError(f"scatter_reduce: reduce must be one of {list(_REDUCES)}, got {reduce!r}")
    return _rt.put_along_axis(input, index, src, dim, reduce=_REDUCES[reduce], include_self=include_self,
                              broadcast=False)
