"""MultivariateNormal: ``loc`` with one of ``covariance_matrix``, ``precision_matrix``, ``scale_tril``
(internally the Cholesky factor ``scale_tril``; draws ``loc + L eps``, reparameterised)."""
import math

import runtime as rt
from ..dispatch import apply
from .distribution import Distribution, params, shape_list, to_param


class MultivariateNormal(Distribution):
    """The multivariate normal distribution over the last dim of ``loc``."""

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None):
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise ValueError("MultivariateNormal: exactly one of covariance_matrix, precision_matrix and "
                             "scale_tril must be given")
        loc, mat = params(loc, given[0])
        if loc.ndim < 1:
            loc = rt.reshape(loc, [1])
        if mat.ndim < 2:
            raise ValueError(f"MultivariateNormal: the matrix must have rank >= 2, got shape {list(mat.shape)}")
        self._dtype = str(loc.dtype)
        if scale_tril is not None:
            self.scale_tril = mat
        elif covariance_matrix is not None:
            self.scale_tril = apply("cholesky", mat, upper=False)
        else:  # P = C^-1: L = chol(P^-1)
            self.scale_tril = apply("cholesky", apply("inverse", mat), upper=False)
        self.loc = loc + rt.zeros_like(self.scale_tril[..., 0])
        super().__init__(tuple(self.loc.shape[:-1]), tuple(self.loc.shape[-1:]))

    @property
    def covariance_matrix(self):
        """``L L^T``."""
        return rt.matmul(self.scale_tril, self.scale_tril, transpose_y=True)

    @property
    def precision_matrix(self):
        """The inverse of the covariance."""
        return apply("inverse", self.covariance_matrix)

    @property
    def mean(self):
        """``loc``."""
        return self.loc

    @property
    def variance(self):
        """The diagonal of the covariance: row sums of ``L * L``."""
        return rt.sum(self.scale_tril * self.scale_tril, axis=-1) + rt.zeros_like(self.loc)

    def rsample(self, shape=()):
        """``loc + L eps``, ``eps ~ N(0, I)``."""
        dims = self._draw_dims(shape_list(shape), self.loc)
        eps = rt.randn(dims, dtype=self._dtype)
        return self.loc + rt.squeeze(rt.matmul(self.scale_tril, rt.unsqueeze(eps, -1)), -1)

    def _half_log_det(self):
        from ..ops.index_extra import diagonal  # noqa: PLC0415
        return rt.sum(rt.log(diagonal(self.scale_tril, 0, -2, -1)), axis=-1)

    def _maha(self, diff):
        """``diff^T C^-1 diff`` by one triangular solve."""
        z = apply("triangular_solve", self.scale_tril + rt.zeros_like(rt.unsqueeze(diff, -1)),
                  rt.unsqueeze(diff, -1), upper=False)
        return rt.sum(rt.squeeze(z, -1) ** 2, axis=-1)

    def log_prob(self, value):
        """``-(k log(2 pi) + maha) / 2 - log det L``."""
        v = to_param(value, self._dtype)
        k = float(self.loc.shape[-1])
        return -0.5 * (k * math.log(2 * math.pi) + self._maha(v - self.loc)) - self._half_log_det()

    def entropy(self):
        """``k (1 + log(2 pi)) / 2 + log det L``."""
        k = float(self.loc.shape[-1])
        return 0.5 * k * (1.0 + math.log(2 * math.pi)) + self._half_log_det() + rt.zeros_like(self.loc[..., 0])

    def kl_divergence(self, other):
        """The closed form of KL(MVN || MVN)."""
        k = float(self.loc.shape[-1])
        m = apply("triangular_solve", other.scale_tril + rt.zeros_like(self.scale_tril),
                  self.scale_tril + rt.zeros_like(other.scale_tril), upper=False)
        trace = rt.sum(m * m, axis=[-2, -1])
        return other._half_log_det() - self._half_log_det() + 0.5 * (trace + other._maha(self.loc - other.loc) - k)
