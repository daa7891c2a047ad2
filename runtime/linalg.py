"""``rt.linalg`` (Paddle's ``paddle.linalg``): the linear-algebra functions runtime has, under that name."""
from .ops.linalg import cross, dot, kron, mm, mv, outer, trace  # noqa: F401
from .ops.math import matmul  # noqa: F401
from .ops.norms import norm  # noqa: F401

__all__ = ["norm", "matmul", "cross", "dot", "kron", "mm", "mv", "outer", "trace"]
