"""Paddle 3's ``scatter_add(input, dim, index, src)`` and ``scatter_reduce(...)``: ``put_along_axis`` with a
reduction, under PyTorch's argument order (so their op is put_along_axis, in eager mode and in a Program)."""
import runtime as _rt

from .hints import TensorLike


def scatter_add(input: TensorLike, dim: int, index: TensorLike, src: TensorLike) -> TensorLike:  # noqa: A002
    """``input`` with ``src`` added at ``index`` along ``dim`` (``put_along_axis(..., reduce="add")``)."""
    return _rt.put_along_axis(input, index, src, dim, reduce="add")


def scatter_reduce(input: TensorLike, dim: int, index: TensorLike, src: TensorLike, reduce: str,  # noqa: A002
                   *, include_self: bool = True) -> TensorLike:
    """``src`` summed into ``input`` at ``index`` along ``dim`` (``reduce="sum"``; without ``input``'s own
    values there when ``include_self=False``). The other reductions are refused, not approximated."""
    if reduce != "sum":
        raise NotImplementedError(f"scatter_reduce: reduce={reduce!r} is not supported (only 'sum')")
    if not include_self:
        input = _rt.put_along_axis(input, index, 0.0, dim)  # noqa: A001
    return _rt.put_along_axis(input, index, src, dim, reduce="add")
