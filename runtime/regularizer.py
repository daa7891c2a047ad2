"""``rt.regularizer`` (Paddle's ``paddle.regularizer``): weight decay added to a gradient.

Given as an optimizer's ``weight_decay`` (every parameter of the group) or as a parameter's
own ``ParamAttr(regularizer=...)``, which then replaces the optimizer's for that parameter,
as in Paddle.  The term is added after gradient clipping::

    L2Decay(c):  g + c * p
    L1Decay(c):  g + c * sign(p)
"""
import numpy as np


class L2Decay:
    """L2 regularisation: ``coeff * param`` added to the gradient."""

    def __init__(self, coeff: float = 0.0) -> None:
        self.coeff = float(coeff)

    def term(self, value, dtype):
        """What this adds to the gradient of a parameter holding ``value``."""
        return np.asarray(self.coeff, dtype) * value

    def __repr__(self):
        return f"L2Decay(coeff={self.coeff})"


class L1Decay:
    """L1 regularisation: ``coeff * sign(param)`` added to the gradient."""

    def __init__(self, coeff: float = 0.0) -> None:
        self.coeff = float(coeff)

    def term(self, value, dtype):
        """What this adds to the gradient of a parameter holding ``value``."""
        return np.asarray(self.coeff, dtype) * np.sign(value).astype(dtype, copy=False)

    def __repr__(self):
        return f"L1Decay(coeff={self.coeff})"


__all__ = ["L1Decay", "L2Decay"]
