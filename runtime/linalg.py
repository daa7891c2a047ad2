"""``rt.linalg`` (Paddle's ``paddle.linalg``): products, norms, decompositions and solvers under Paddle's
names (runtime/ops/linalg_api.py, linalg_norms.py; the decomposition ops in linalg_ops.py, linalg_lu.py)."""
from .ops.index_extra import diagonal  # noqa: F401
from .ops.linalg import cross, dot, kron, mm, mv, outer, trace  # noqa: F401
from .ops.linalg_api import (cholesky, cholesky_solve, corrcoef, cov, det, eig, eigh, eigvals, eigvalsh,  # noqa: F401
                             householder_product, inv, inverse, lstsq, lu, lu_unpack, matrix_exp, matrix_power,
                             matrix_rank, multi_dot, pinv, qr, slogdet, solve, svd, svdvals, tensordot,
                             triangular_solve)
from .ops.linalg_more import (cholesky_inverse, lu_solve, matrix_transpose, ormqr, pca_lowrank,  # noqa: F401
                              svd_lowrank, vecdot)
from .ops.linalg_norms import cond, matrix_norm, vector_norm  # noqa: F401
from .ops.math import matmul  # noqa: F401
from .ops.norms import norm  # noqa: F401

__all__ = ["norm", "vector_norm", "matrix_norm", "cond", "matmul", "cross", "dot", "kron", "mm", "mv", "outer",
           "trace", "diagonal", "inv", "det", "slogdet", "solve", "triangular_solve", "cholesky", "cholesky_solve",
           "lstsq", "qr", "svd", "svdvals", "eig", "eigh", "eigvals", "eigvalsh", "matrix_power", "matrix_rank",
           "pinv", "multi_dot", "cov", "corrcoef", "lu", "lu_unpack", "matrix_exp", "householder_product",
           "cholesky_inverse", "lu_solve", "matrix_transpose", "vecdot", "ormqr", "svd_lowrank", "pca_lowrank"]
