"""``F.bilinear`` (Paddle's ``bilinear_tensor_product``) as a composite: ``out[n, k] = x1[n] @ W[k] @ x2[n]
+ b[k]`` is one matmul of ``x1`` with the filters side by side, then the product with ``x2`` summed over
``in2`` (the order of Paddle's kernel: ``x1 @ W[k]`` first), so gradients, the static form and the
ONNX export come from matmul/multiply/sum.
"""
from ..hints import TensorLike
from ..registry import composite
from .common import same_shape
from .math import add, matmul, multiply
from .reduce import sum as sum_
from .shape import reshape, transpose, unsqueeze


def _check(x1, x2, weight, bias):
    for name, t, rank in (("x1", x1, 2), ("x2", x2, 2), ("weight", weight, 3)):
        if len(t.shape) != rank:
            raise ValueError(f"bilinear: {name} must be a {rank}-D Tensor, got shape {list(t.shape)}")
        if str(t.dtype) not in ("float32", "float64"):
            raise TypeError(f"bilinear: {name} must be float32 or float64 (Paddle's kernels), got {t.dtype}")
    (n1, i1), (n2, i2), (o, w1, w2) = x1.shape, x2.shape, weight.shape
    same_shape(x1, x2, f"bilinear: x1 and x2 must have the same batch size, got {n1} and {n2}", dims=(0,))
    if (i1, i2) != (w1, w2):
        raise ValueError(f"bilinear: weight of shape {list(weight.shape)} must be [out_features, {i1}, {i2}] for "
                         f"x1 [N, {i1}] and x2 [N, {i2}]")
    if bias is not None and (len(bias.shape) != 2 or bias.shape[0] != 1 or bias.shape[1] != o):
        raise ValueError(f"bilinear: bias must be [1, {o}] (a row vector), got shape {list(bias.shape)}")


@composite("bilinear", functional=["bilinear"])
def bilinear(x1: TensorLike, x2: TensorLike, weight: TensorLike, bias: TensorLike | None = None,
             name: str | None = None) -> TensorLike:
    """``x1 [N, in1]``, ``x2 [N, in2]``, ``weight [out, in1, in2]``, ``bias [1, out]`` -> ``[N, out]``:
    ``out[n, k] = sum_ij x1[n, i] * weight[k, i, j] * x2[n, j] + bias[0, k]``."""
    _check(x1, x2, weight, bias)
    o, i1, i2 = weight.shape
    side = reshape(transpose(weight, [1, 0, 2]), [i1, o * i2])  # [in1, out * in2]: W[k] side by side
    left = reshape(matmul(x1, side), [-1, o, i2])  # [N, out, in2]: x1 @ W[k]
    out = sum_(multiply(left, unsqueeze(x2, 1)), axis=2)
    return out if bias is None else add(out, bias)

