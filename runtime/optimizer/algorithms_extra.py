"""Adadelta and Lamb (Paddle's ``paddle.optimizer.Adadelta`` / ``Lamb``), per parameter, in the parameter dtype."""
from collections.abc import Callable, Iterable

import numpy as np

from ..regularizer import L2Decay
from ..tensor import Tensor
from .lr import LRScheduler
from .optimizer import Optimizer


class Adadelta(Optimizer):
    """Adadelta: ``E[g^2] = rho E[g^2] + (1 - rho) g^2``, ``u = -sqrt((E[u^2] + eps) / (E[g^2] + eps)) g``,
    ``E[u^2] = rho E[u^2] + (1 - rho) u^2``, ``p += lr * u``."""

    _accumulator_names = ("avg_squared_grad", "avg_squared_update")

    def __init__(self, learning_rate: float | LRScheduler = 0.001, epsilon: float = 1e-06, rho: float = 0.95,
                 parameters: Iterable[Tensor] | Iterable[dict] | None = None,
                 weight_decay: float | L2Decay | None = None, grad_clip: Callable | None = None,
                 name: str | None = None) -> None:
        if learning_rate is None or epsilon is None or rho is None:
            raise ValueError("Adadelta: learning_rate, epsilon and rho must be given")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._epsilon, self._rho = epsilon, rho

    def _update(self, p, g, lr, group):
        dt = g.dtype.type
        rho, eps = dt(self._rho), dt(self._epsilon)
        sq_g, sq_u = self._acc("avg_squared_grad", p), self._acc("avg_squared_update", p)
        sq_g[...] = rho * sq_g + (dt(1) - rho) * np.square(g)
        update = -(np.sqrt((sq_u + eps) / (sq_g + eps)) * g)
        sq_u[...] = rho * sq_u + (dt(1) - rho) * np.square(update)
        self._write(p, p._value + np.asarray(lr, g.dtype) * update)


class Lamb(Optimizer):
    """LAMB: the Adam direction ``r = m_hat / (sqrt(v_hat) + eps) + lamb_weight_decay * p`` scaled by the
    trust ratio ``||p|| / ||r||`` (1 when either norm is 0): ``p -= lr * ratio * r``.  Parameters for
    which ``exclude_from_weight_decay_fn(p)`` is true get no decay term."""

    _accumulator_names = ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc")

    def __init__(self, learning_rate: float | LRScheduler = 0.001, lamb_weight_decay: float = 0.01,
                 beta1: float = 0.9, beta2: float = 0.999, epsilon: float = 1e-06,
                 parameters: Iterable[Tensor] | Iterable[dict] | None = None, grad_clip: Callable | None = None,
                 exclude_from_weight_decay_fn: Callable | None = None, multi_precision: bool = False,
                 always_adapt: bool = False, name: str | None = None) -> None:
        super().__init__(learning_rate, parameters, None, grad_clip, name)
        self._decay, self._beta1, self._beta2, self._epsilon = lamb_weight_decay, beta1, beta2, epsilon
        self._exclude = exclude_from_weight_decay_fn
        self._always_adapt = always_adapt

    def _acc_spec(self, acc):
        if acc == "beta1_pow_acc":
            return {"init": self._beta1, "shape": (1,)}
        if acc == "beta2_pow_acc":
            return {"init": self._beta2, "shape": (1,)}
        return {}

    def _update(self, p, g, lr, group):
        dt = g.dtype.type
        b1, b2, eps = dt(self._beta1), dt(self._beta2), dt(self._epsilon)
        decay = 0.0 if self._exclude is not None and self._exclude(p) else self._decay
        m, v = self._acc("moment1", p), self._acc("moment2", p)
        b1p = self._acc("beta1_pow_acc", p, **self._acc_spec("beta1_pow_acc"))
        b2p = self._acc("beta2_pow_acc", p, **self._acc_spec("beta2_pow_acc"))
        m[...] = b1 * m + (dt(1) - b1) * g
        v[...] = b2 * v + (dt(1) - b2) * np.square(g)
        m_hat = m / (dt(1) - b1p)
        v_hat = v / (dt(1) - b2p)
        r = m_hat / (np.sqrt(v_hat) + eps) + dt(decay) * p._value
        ratio = dt(1)
        if decay > 0 or self._always_adapt:
            p_norm, r_norm = np.sqrt(np.sum(np.square(p._value))), np.sqrt(np.sum(np.square(r)))
            if p_norm > 0 and r_norm > 0:
                ratio = p_norm / r_norm
        self._write(p, p._value - np.asarray(lr, g.dtype) * ratio * r)
        b1p *= b1
        b2p *= b2
