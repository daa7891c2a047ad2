"""Paddle's nn.Fold: ``F.fold`` (col2im) as a layer (no parameters; repr as Paddle's)."""
from ..hints import TensorLike
from . import functional as F
from .layer import Layer


class Fold(Layer):
    """``F.fold``: sliding blocks [N, C * kh * kw, L] summed back into [N, C, H, W]. Note Paddle's argument
    order here (``dilations`` before ``paddings`` and ``strides``), unlike ``F.fold``'s."""

    def __init__(self, output_sizes: int | list[int], kernel_sizes: int | list[int], dilations: int | list[int] = 1,
                 paddings: int | list[int] = 0, strides: int | list[int] = 1, name: str | None = None) -> None:
        super().__init__()
        self.output_sizes, self.kernel_sizes = output_sizes, kernel_sizes
        self.dilations, self.paddings, self.strides = dilations, paddings, strides

    def forward(self, input: TensorLike):  # noqa: A002
        return F.fold(input, self.output_sizes, self.kernel_sizes, self.strides, self.paddings, self.dilations)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_sizes}, dilation={self.dilations}, padding={self.paddings}, "
                f"stride={self.strides}")


__all__ = ["Fold"]
