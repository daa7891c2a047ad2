"""More of Paddle's update rules: NAdam, RAdam, Adadelta, Rprop, Lamb and ASGD, with Paddle's
accumulators (names, shapes and initial values, so state dicts carry the same keys) and formulas.
Scalars are taken in the parameter's dtype, as Paddle's kernels compute in it. A compiled training
step runs them through the general update (``Optimizer._apply_grads``), the same code as eager."""
from collections.abc import Callable, Iterable

import numpy as np

from ..regularizer import L2Decay
from ..tensor import Tensor
from .algorithms import beta_pow_specs, check_betas
from .lr import LRScheduler
from .optimizer import Optimizer


class NAdam(Optimizer):
    """Adam with Nesterov momentum (Paddle's ``optimizer.NAdam``): the momentum schedule
    ``mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))``."""

    # what a parameter group may set for itself (Paddle's _update_param_group)
    _group_options = {"beta1": "_beta1", "beta2": "_beta2", "epsilon": "_epsilon", "momentum_decay": "_momentum_decay"}

    _accumulator_names = ("momentum_decay_pow", "beta2_pow", "mu_product", "moment1", "moment2")

    def __init__(self, learning_rate: float | LRScheduler = 0.002, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1.0e-8, momentum_decay: float = 0.004,
                 parameters: Iterable[Tensor] | Iterable[dict] | None = None,
                 weight_decay: float | L2Decay | None = None, grad_clip: Callable | None = None,
                 name: str | None = None) -> None:
        check_betas("NAdam", beta1, beta2, epsilon)
        if momentum_decay < 0:
            raise ValueError(f"NAdam: momentum_decay must be >= 0, got {momentum_decay}")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._beta1, self._beta2, self._epsilon, self._momentum_decay = beta1, beta2, epsilon, momentum_decay

    def _acc_spec(self, acc):
        return {"init": 1.0} if acc in ("momentum_decay_pow", "beta2_pow", "mu_product") else {}

    def _update(self, p, g, lr, group):
        t = g.dtype.type
        decay_pow, b2p, mu_prod = (self._acc(a, p, init=1.0) for a in ("momentum_decay_pow", "beta2_pow", "mu_product"))
        m, v = self._acc("moment1", p), self._acc("moment2", p)
        b1, b2, psi, half = t(self._beta1), t(self._beta2), t(self._momentum_decay), t(0.5)
        decay_pow *= t(0.96)
        mu_t = b1 * (t(1) - half * np.power(decay_pow, psi))
        mu_next = b1 * (t(1) - half * np.power(decay_pow * t(0.96), psi))
        mu_prod *= mu_t
        b2p *= b2
        m *= b1
        m += (t(1) - b1) * g
        v *= b2
        v += (t(1) - b2) * g * g
        m_hat = mu_next * m / (t(1) - mu_prod * mu_next) + (t(1) - mu_t) * g / (t(1) - mu_prod)
        v_hat = v / (t(1) - b2p)
        self._write(p, p._value - t(lr) * m_hat / (np.sqrt(v_hat) + t(self._epsilon)))


class RAdam(Optimizer):
    """Rectified Adam (Paddle's ``optimizer.RAdam``): plain momentum steps while the variance
    estimate is unreliable (``rho_t <= 5``), then Adam steps scaled by the rectification term."""

    # what a parameter group may set for itself (Paddle's _update_param_group)
    _group_options = {"beta1": "_beta1", "beta2": "_beta2", "epsilon": "_epsilon"}

    _accumulator_names = ("beta1_pow", "beta2_pow", "rho", "moment1", "moment2")

    def __init__(self, learning_rate: float | LRScheduler = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1.0e-8, parameters: Iterable[Tensor] | Iterable[dict] | None = None,
                 weight_decay: float | L2Decay | None = None, grad_clip: Callable | None = None,
                 name: str | None = None) -> None:
        check_betas("RAdam", beta1, beta2, epsilon)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon

    def _acc_spec(self, acc):
        return {"init": 1.0} if acc in ("beta1_pow", "beta2_pow", "rho") else {}

    def _update(self, p, g, lr, group):
        t = g.dtype.type
        b1p, b2p, rho = (self._acc(a, p, init=1.0) for a in ("beta1_pow", "beta2_pow", "rho"))
        m, v = self._acc("moment1", p), self._acc("moment2", p)
        b1, b2 = t(self._beta1), t(self._beta2)
        # ``rho`` holds t * beta2^t / (1 - beta2^t) (Paddle's accumulator): the step count comes back from it
        steps = rho * (t(1) - b2p) / b2p + t(1)
        b1p *= b1
        b2p *= b2
        rho[...] = steps * b2p / (t(1) - b2p)
        m *= b1
        m += (t(1) - b1) * g
        v *= b2
        v += (t(1) - b2) * g * g
        m_hat = m / (t(1) - b1p)
        rho_inf = t(2) / (t(1) - b2) - t(1)
        rho_t = rho_inf - t(2) * rho
        safe = np.maximum(rho_t, t(5))  # the rectification only where rho_t > 5 (no sqrt of negatives elsewhere)
        r = np.sqrt((safe - t(4)) * (safe - t(2)) * rho_inf / ((rho_inf - t(4)) * (rho_inf - t(2)) * safe))
        adapt = np.sqrt(t(1) - b2p) / (np.sqrt(v) + t(self._epsilon))
        step = np.where(rho_t > t(5), m_hat * r * adapt, m_hat)
        self._write(p, p._value - t(lr) * step)


class Adadelta(Optimizer):
    """Adadelta (Paddle's ``optimizer.Adadelta``): steps of ``sqrt((E[dx^2] + eps) / (E[g^2] + eps)) * g``,
    times the learning rate."""

    # what a parameter group may set for itself (Paddle's _update_param_group)
    _group_options = {"epsilon": "_epsilon", "rho": "_rho"}

    _accumulator_names = ("_avg_squared_grad", "_avg_squared_update")

    def __init__(self, learning_rate: float | LRScheduler = 0.001, epsilon: float = 1.0e-6, rho: float = 0.95,
                 parameters: Iterable[Tensor] | Iterable[dict] | None = None,
                 weight_decay: float | L2Decay | None = None, grad_clip: Callable | None = None,
                 name: str | None = None) -> None:
        if learning_rate is None or epsilon is None or rho is None:
            raise ValueError("Adadelta: learning_rate, epsilon and rho must be given")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._epsilon, self._rho = epsilon, rho

    def _update(self, p, g, lr, group):
        t = g.dtype.type
        sq_g, sq_dx = self._acc("_avg_squared_grad", p), self._acc("_avg_squared_update", p)
        rho, eps = t(self._rho), t(self._epsilon)
        sq_g *= rho
        sq_g += (t(1) - rho) * g * g
        update = -np.sqrt((sq_dx + eps) / (sq_g + eps)) * g
        sq_dx *= rho
        sq_dx += (t(1) - rho) * update * update
        self._write(p, p._value + t(lr) * update)


class Rprop(Optimizer):
    """Resilient backpropagation (Paddle's ``optimizer.Rprop``, for full-batch training): a step
    size per element, grown by ``etas[1]`` while the gradient keeps its sign and cut by ``etas[0]``
    (that step skipped) when it flips, within ``learning_rate_range``; the step is ``sign(g) * size``."""

    _accumulator_names = ("prevs", "learning_rates")

    def __init__(self, learning_rate: float | LRScheduler = 0.001, learning_rate_range: tuple = (1e-5, 50),
                 parameters: Iterable[Tensor] | Iterable[dict] | None = None, etas: tuple = (0.5, 1.2),
                 grad_clip: Callable | None = None, multi_precision: bool = False, name: str | None = None) -> None:
        lr0 = learning_rate() if isinstance(learning_rate, LRScheduler) else learning_rate
        if not 0.0 < learning_rate_range[0] <= lr0 <= learning_rate_range[1]:
            raise ValueError("Rprop: 0.0 < learning_rate_range[0] <= learning_rate <= learning_rate_range[1] "
                             f"must hold, got {lr0} and {tuple(learning_rate_range)}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Rprop: 0.0 < etas[0] < 1.0 < etas[1] must hold, got {tuple(etas)}")
        super().__init__(learning_rate, parameters, 0.0, grad_clip, name)
        self._initial_lr, self._range, self._etas = lr0, tuple(learning_rate_range), tuple(etas)

    def _acc_spec(self, acc):
        return {"init": self._initial_lr} if acc == "learning_rates" else {}

    def _update(self, p, g, lr, group):
        t = g.dtype.type
        prev, sizes = self._acc("prevs", p), self._acc("learning_rates", p, init=self._initial_lr)
        prod = g * prev
        grown = np.minimum(sizes * t(self._etas[1]), t(self._range[1]))
        cut = np.maximum(sizes * t(self._etas[0]), t(self._range[0]))
        sizes[...] = np.where(prod > 0, grown, np.where(prod < 0, cut, sizes))
        g = np.where(prod < 0, t(0), g)
        self._write(p, p._value - np.sign(g) * sizes)
        prev[...] = g


class Lamb(Optimizer):
    """LAMB (Paddle's ``optimizer.Lamb``): the bias-corrected Adam direction plus
    ``lamb_weight_decay * p``, scaled per parameter by ``||p|| / ||direction||``. Parameters for
    which ``exclude_from_weight_decay_fn`` is true get no decay; without decay there is no scaling
    either unless ``always_adapt``."""

    # what a parameter group may set for itself (Paddle's _update_param_group)
    _group_options = {"beta1": "_beta1", "beta2": "_beta2", "epsilon": "_epsilon", "lamb_weight_decay": "_lamb_weight_decay",
                      "exclude_from_weight_decay_fn": "_exclude"}

    _accumulator_names = ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc")

    def __init__(self, learning_rate: float | LRScheduler = 0.001, lamb_weight_decay: float = 0.01, beta1: float = 0.9,
                 beta2: float = 0.999, epsilon: float = 1e-6, parameters: Iterable[Tensor] | Iterable[dict] | None = None,
                 grad_clip: Callable | None = None, exclude_from_weight_decay_fn: Callable | None = None,
                 multi_precision: bool = False, always_adapt: bool = False, name: str | None = None) -> None:
        check_betas("Lamb", beta1, beta2, epsilon)
        super().__init__(learning_rate, parameters, None, grad_clip, name)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        self._lamb_weight_decay, self._exclude, self.always_adapt = lamb_weight_decay, exclude_from_weight_decay_fn, \
            always_adapt

    _acc_spec = beta_pow_specs  # Adam's beta1_pow_acc/beta2_pow_acc

    def _update(self, p, g, lr, group):
        t = g.dtype.type
        m, v = self._acc("moment1", p), self._acc("moment2", p)
        b1p = self._acc("beta1_pow_acc", p, **self._acc_spec("beta1_pow_acc"))
        b2p = self._acc("beta2_pow_acc", p, **self._acc_spec("beta2_pow_acc"))
        b1, b2 = t(self._beta1), t(self._beta2)
        excluded = self._exclude is not None and self._exclude(p)
        wd = t(0) if excluded else t(self._lamb_weight_decay)
        m *= b1
        m += (t(1) - b1) * g
        v *= b2
        v += (t(1) - b2) * g * g
        m_hat, v_hat = m / (t(1) - b1p), v / (t(1) - b2p)
        r = m_hat / (np.sqrt(v_hat) + t(self._epsilon)) + wd * p._value
        ratio = t(1)
        if wd > 0 or self.always_adapt:  # Paddle's kernel: no trust ratio without decay unless always_adapt
            p_norm, r_norm = np.sqrt(np.sum(np.square(p._value))), np.sqrt(np.sum(np.square(r)))
            if p_norm > 0 and r_norm > 0:
                ratio = p_norm / r_norm
        self._write(p, p._value - t(lr) * ratio * r)
        b1p *= b1
        b2p *= b2


class ASGD(Optimizer):
    """Averaged SGD (Paddle's ``optimizer.ASGD``): the step is the mean of the last ``batch_num``
    gradients of each parameter (fewer during the first steps), kept as their running sum ``d`` and
    the ring of them ``y``: ``d = d - y[m % batch_num] + g``, ``y[m % batch_num] = g``,
    ``p -= lr / min(m + 1, batch_num) * d`` at the parameter's step ``m`` (from 0)."""

    _accumulator_names = ("d", "y", "m")

    def __init__(self, learning_rate: float | LRScheduler = 0.001, batch_num: int = 1,
                 parameters: Iterable[Tensor] | Iterable[dict] | None = None,
                 weight_decay: float | L2Decay | None = None, grad_clip: Callable | None = None,
                 multi_precision: bool = False, name: str | None = None) -> None:
        if batch_num is None or not batch_num > 0:
            raise ValueError(f"ASGD: batch_num should be greater than 0, got {batch_num}")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._n = int(batch_num)

    def _acc_spec(self, acc):
        return {"shape": (1,), "dtype": np.int64} if acc == "m" else {}

    def _acc(self, name, p, init=0.0, shape=None, dtype=None):
        if name == "y" and shape is None:  # set_state_dict's look-up: the ring's shape needs the parameter
            shape = (self._n,) + p._value.shape
        return super()._acc(name, p, init, shape, dtype)

    def _update(self, p, g, lr, group):
        t = g.dtype.type
        d, ys, m = self._acc("d", p), self._acc("y", p), self._acc("m", p, shape=(1,), dtype=np.int64)
        slot = int(m[0]) % self._n
        m += 1
        d[...] = d - ys[slot] + g  # Paddle's order: (d - y) + g
        ys[slot] = g
        self._write(p, p._value - t(lr) / t(min(int(m[0]), self._n)) * d)
