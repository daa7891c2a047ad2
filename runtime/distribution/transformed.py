"""``Independent`` (batch dims read as event dims) and ``TransformedDistribution`` (a base distribution
pushed through elementwise transforms)."""
import runtime as rt
from .distribution import Distribution
from .transform import ChainTransform, Transform


def _sum_rightmost(x, n):
    return rt.sum(x, axis=list(range(-n, 0))) if n > 0 else x


class Independent(Distribution):
    """``base`` with its last ``reinterpreted_batch_rank`` batch dims read as event dims."""

    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, Distribution):
            raise TypeError(f"Independent: base must be a Distribution, got {type(base).__name__}")
        r = int(reinterpreted_batch_rank)
        if not 0 < r <= len(base.batch_shape):
            raise ValueError(f"Expected 0 < reinterpreted_batch_rank <= {len(base.batch_shape)}, but got "
                             f"{reinterpreted_batch_rank}")
        self._base, self._reinterpreted_batch_rank = base, r
        shape = tuple(base.batch_shape) + tuple(base.event_shape)
        cut = len(base.batch_shape) - r
        super().__init__(shape[:cut], shape[cut:])

    @property
    def mean(self):
        """The base's mean."""
        return self._base.mean

    @property
    def variance(self):
        """The base's variance."""
        return self._base.variance

    def sample(self, shape=()):
        """The base's draws."""
        return self._base.sample(shape)

    def rsample(self, shape=()):
        """The base's reparameterised draws."""
        return self._base.rsample(shape)

    def log_prob(self, value):
        """The base's log_prob summed over the reinterpreted dims."""
        return _sum_rightmost(self._base.log_prob(value), self._reinterpreted_batch_rank)

    def entropy(self):
        """The base's entropy summed over the reinterpreted dims."""
        return _sum_rightmost(self._base.entropy(), self._reinterpreted_batch_rank)


class TransformedDistribution(Distribution):
    """The distribution of ``transforms[-1](...transforms[0](x))`` for ``x`` drawn from ``base``."""

    def __init__(self, base, transforms):
        if not isinstance(base, Distribution):
            raise TypeError(f"Expected type of 'base' is Distribution, but got {type(base)}.")
        if not isinstance(transforms, (list, tuple)):
            raise TypeError(f"Expected type of 'transforms' is Sequence[Transform] or Chain, but got "
                            f"{type(transforms)}.")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("All element of transforms must be Transform type.")
        self._transforms = list(transforms)
        self._chain = chain = ChainTransform(self._transforms)
        self._base = base
        if not self._transforms:
            super().__init__(base.batch_shape, base.event_shape)
            return
        shape = tuple(base.batch_shape) + tuple(base.event_shape)
        if len(shape) < chain.domain_event_rank:
            raise ValueError(f"'base' needs to have shape with size at least {chain.domain_event_rank}, "
                             f"bug got {len(shape)}.")
        if chain.domain_event_rank > len(base.event_shape):  # the base's batch dims the chain reads as events
            base = Independent(base, chain.domain_event_rank - len(base.event_shape))
        out = tuple(chain.forward_shape(tuple(base.batch_shape) + tuple(base.event_shape)))
        rank = chain.codomain_event_rank + max(len(base.event_shape) - chain.domain_event_rank, 0)
        super().__init__(out[:len(out) - rank], out[len(out) - rank:])

    def sample(self, shape=()):
        """Transformed base draws (no gradient)."""
        return self._chain.forward(self._base.sample(shape))

    def rsample(self, shape=()):
        """Transformed reparameterised base draws."""
        return self._chain.forward(self._base.rsample(shape))

    def log_prob(self, value):
        """``base.log_prob(x) - sum log|f'(x)|`` at ``x = f^-1(value)``, each summed over its event dims."""
        lp, y = 0.0, value
        rank = len(self.event_shape)
        for t in reversed(self._transforms):
            x = t.inverse(y)
            rank += t.domain_event_rank - t.codomain_event_rank
            lp = lp - _sum_rightmost(t.forward_log_det_jacobian(x), rank - t.domain_event_rank)
            y = x
        return lp + _sum_rightmost(self._base.log_prob(y), rank - len(self._base.event_shape))
