"""More of Paddle's learning-rate schedules (``paddle.optimizer.lr``): Noam, natural-exponential,
inverse-time, polynomial, multiplicative, one-cycle, cyclic, cosine with warm restarts and
ReduceOnPlateau. ``runtime.optimizer.lr`` re-exports them; the formulas are Paddle's documented ones,
so a ported training loop sees the same rate at every step."""
import math
from collections.abc import Callable

import numpy as np

from .lr import LRScheduler


class NoamDecay(LRScheduler):
    """``lr * d_model ** -0.5 * min(epoch ** -0.5, epoch * warmup_steps ** -1.5)`` (epoch 0 counts as 1 in the first term)."""

    def __init__(self, d_model: float, warmup_steps: int, learning_rate: float = 1.0, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        if d_model <= 0:
            raise ValueError(f"NoamDecay: d_model must be positive, got {d_model}")
        self.d_model, self.warmup_steps = d_model, warmup_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        first = 1 if self.last_epoch == 0 else self.last_epoch ** -0.5
        second = self.warmup_steps ** -1.5 * self.last_epoch
        return self.base_lr * self.d_model ** -0.5 * min(first, second)


class NaturalExpDecay(LRScheduler):
    """``lr * exp(-gamma * epoch)``."""

    def __init__(self, learning_rate: float, gamma: float, last_epoch: int = -1, verbose: bool = False) -> None:
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * math.exp(-1 * self.gamma * self.last_epoch)


class InverseTimeDecay(LRScheduler):
    """``lr / (1 + gamma * epoch)``."""

    def __init__(self, learning_rate: float, gamma: float, last_epoch: int = -1, verbose: bool = False) -> None:
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr / (1 + self.gamma * self.last_epoch)


class PolynomialDecay(LRScheduler):
    """``(lr - end_lr) * (1 - epoch / decay_steps) ** power + end_lr``; the epoch stops at ``decay_steps``,
    or with ``cycle`` the decay restarts over the next multiple of ``decay_steps``."""

    def __init__(self, learning_rate: float, decay_steps: int, end_lr: float = 0.0001, power: float = 1.0,
                 cycle: bool = False, last_epoch: int = -1, verbose: bool = False) -> None:
        if not decay_steps > 0:
            raise ValueError(f"PolynomialDecay: decay_steps must be positive, got {decay_steps}")
        self.decay_steps, self.end_lr, self.power, self.cycle = decay_steps, float(end_lr), power, cycle
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        epoch, steps = self.last_epoch, self.decay_steps
        if self.cycle:
            steps = self.decay_steps * max(1, math.ceil(float(epoch) / self.decay_steps))
        else:
            epoch = min(epoch, self.decay_steps)
        return (self.base_lr - self.end_lr) * ((1 - float(epoch) / float(steps)) ** self.power) + self.end_lr


class MultiplicativeDecay(LRScheduler):
    """``lr`` times ``lr_lambda(e)`` for every epoch ``e`` from 1 to the current one."""

    def __init__(self, learning_rate: float, lr_lambda: Callable[[int], float], last_epoch: int = -1,
                 verbose: bool = False) -> None:
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        lr = self.base_lr
        for epoch in range(1, self.last_epoch + 1):
            lr = lr * self.lr_lambda(epoch)
        return lr


class OneCycleLR(LRScheduler):
    """Up from ``max_learning_rate / divide_factor`` to ``max_learning_rate`` over ``phase_pct`` of
    ``total_steps``, then down to ``end_learning_rate`` (``three_phase``: back to the start rate first),
    each phase annealed by cosine or linearly."""

    def __init__(self, max_learning_rate: float, total_steps: int, divide_factor: float = 25.0,
                 end_learning_rate: float = 0.0001, phase_pct: float = 0.3, anneal_strategy: str = "cos",
                 three_phase: bool = False, last_epoch: int = -1, verbose: bool = False) -> None:
        if not isinstance(total_steps, int) or total_steps <= 0:
            raise ValueError(f"OneCycleLR: total_steps must be a positive int, got {total_steps!r}")
        if not 0 <= phase_pct <= 1:
            raise ValueError(f"OneCycleLR: phase_pct must be in [0, 1], got {phase_pct}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"OneCycleLR: anneal_strategy must be 'cos' or 'linear', got {anneal_strategy!r}")
        start = float(max_learning_rate) / divide_factor
        self.total_steps = total_steps
        up_end = float(phase_pct * total_steps) - 1
        if three_phase:
            if phase_pct >= 0.5:
                raise ValueError(f"OneCycleLR: three_phase needs phase_pct < 0.5, got {phase_pct}")
            ends = [0, up_end, float(2 * phase_pct * total_steps) - 2, total_steps - 1]
            self._rates = [start, float(max_learning_rate), start, float(end_learning_rate)]
        else:
            ends = [0, up_end, total_steps - 1]
            self._rates = [start, float(max_learning_rate), float(end_learning_rate)]
        self._ends = ends
        self._sizes = [b - a for a, b in zip(ends, ends[1:])]
        self._anneal = self._cos if anneal_strategy == "cos" else self._linear
        super().__init__(start, last_epoch, verbose)

    @staticmethod
    def _cos(start, end, pct):
        return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)

    @staticmethod
    def _linear(start, end, pct):
        return (end - start) * pct + start

    def get_lr(self):
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"OneCycleLR: stepped {step} times, more than total_steps ({self.total_steps})")
        last = len(self._sizes) - 1
        for i, (end, size) in enumerate(zip(self._ends[1:], self._sizes)):
            if step <= end or i == last:  # past the last end (the final step) stays in the last phase
                return self._anneal(self._rates[i], self._rates[i + 1], (step - self._ends[i]) / size)
        return self._rates[-1]


class CyclicLR(LRScheduler):
    """A triangle between ``base_learning_rate`` and ``max_learning_rate`` (up in ``step_size_up``
    steps, down in ``step_size_down``), its height scaled per cycle or iteration by ``mode``
    ('triangular', 'triangular2', 'exp_range') or ``scale_fn``."""

    def __init__(self, base_learning_rate: float, max_learning_rate: float, step_size_up: int,
                 step_size_down: int | None = None, mode: str = "triangular", exp_gamma: float = 1.0,
                 scale_fn: Callable[[float], float] | None = None, scale_mode: str = "cycle",
                 last_epoch: int = -1, verbose: bool = False) -> None:
        if not isinstance(step_size_up, int) or step_size_up <= 0:
            raise ValueError(f"CyclicLR: step_size_up must be a positive int, got {step_size_up!r}")
        down = step_size_up if step_size_down is None else step_size_down
        if not isinstance(down, int) or down <= 0:
            raise ValueError(f"CyclicLR: step_size_down must be a positive int, got {step_size_down!r}")
        self.cycle_size = step_size_up + down
        self.step_up_pct = step_size_up / self.cycle_size
        self.max_lr = float(max_learning_rate)
        self.amplitude = self.max_lr - base_learning_rate
        self.gamma = exp_gamma
        if scale_fn is not None:
            if scale_mode not in ("cycle", "iterations"):
                raise ValueError(f"CyclicLR: scale_mode must be 'cycle' or 'iterations', got {scale_mode!r}")
            self.scale_fn, self.scale_mode = scale_fn, scale_mode
        elif mode == "triangular":
            self.scale_fn, self.scale_mode = (lambda x: 1.0), "cycle"
        elif mode == "triangular2":
            self.scale_fn, self.scale_mode = (lambda x: 1 / (2.0 ** (x - 1))), "cycle"
        elif mode == "exp_range":
            self.scale_fn, self.scale_mode = (lambda x: self.gamma ** x), "iterations"
        else:
            raise ValueError(f"CyclicLR: mode must be 'triangular', 'triangular2' or 'exp_range', got {mode!r}")
        self.mode = mode
        super().__init__(base_learning_rate, last_epoch, verbose)

    def get_lr(self):
        it = self.last_epoch
        cycle = 1 + it // self.cycle_size
        pct = 1.0 + it / self.cycle_size - cycle
        if pct <= self.step_up_pct:
            factor = pct / self.step_up_pct
        else:
            factor = (1 - pct) / (1 - self.step_up_pct)
        return self.base_lr + self.amplitude * factor * self.scale_fn(cycle if self.scale_mode == "cycle" else it)


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine from ``lr`` to ``eta_min`` over ``T_0`` epochs, restarting; each period ``T_mult`` times the last."""

    def __init__(self, learning_rate: float, T_0: int, T_mult: int = 1, eta_min: float = 0, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        if not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError(f"CosineAnnealingWarmRestarts: T_0 must be a positive int, got {T_0!r}")
        if not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"CosineAnnealingWarmRestarts: T_mult must be an int >= 1, got {T_mult!r}")
        self.T_0, self.T_i, self.T_mult, self.eta_min = T_0, T_0, T_mult, float(eta_min)
        self.T_cur = last_epoch
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.eta_min + (self.base_lr - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2

    def step(self, epoch=None):
        """Advance one epoch (restarting when a period ends), or jump to ``epoch``."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        elif epoch < 0:
            raise ValueError(f"CosineAnnealingWarmRestarts: epoch must be non-negative, got {epoch}")
        elif epoch >= self.T_0:
            if self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:
                n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult ** n
        else:
            self.T_i, self.T_cur = self.T_0, epoch
        self.last_epoch = math.floor(epoch)
        self.last_lr = float(self.get_lr())

    def state_dict(self):
        """The base state plus the position in the current period."""
        return {**super().state_dict(), "T_cur": self.T_cur, "T_i": self.T_i}

    def set_state_dict(self, state_dict):
        """Restore a state from ``state_dict()``."""
        super().set_state_dict(state_dict)
        self.T_cur, self.T_i = state_dict.get("T_cur", self.T_cur), state_dict.get("T_i", self.T_i)

    set_dict = set_state_dict


class ReduceOnPlateau(LRScheduler):
    """Multiply the rate by ``factor`` when ``step(metrics)`` has not improved for more than ``patience``
    calls (improving: below the best by ``threshold``, relative or absolute; above it in mode 'max'),
    then wait ``cooldown`` calls; never below ``min_lr``, and no change smaller than ``epsilon``."""

    def __init__(self, learning_rate: float, mode: str = "min", factor: float = 0.1, patience: int = 10,
                 threshold: float = 1e-4, threshold_mode: str = "rel", cooldown: int = 0, min_lr: float = 0,
                 epsilon: float = 1e-8, verbose: bool = False) -> None:
        mode, threshold_mode = mode.lower(), threshold_mode.lower()
        if mode not in ("min", "max"):
            raise ValueError(f"ReduceOnPlateau: mode must be 'min' or 'max', got {mode!r}")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"ReduceOnPlateau: threshold_mode must be 'rel' or 'abs', got {threshold_mode!r}")
        if factor >= 1.0:
            raise ValueError(f"ReduceOnPlateau: factor must be < 1.0 (new_lr = lr * factor), got {factor}")
        if not isinstance(learning_rate, (int, float)):
            raise TypeError(f"ReduceOnPlateau: learning_rate must be a number, got {type(learning_rate).__name__}")
        self.mode, self.factor, self.patience, self.threshold = mode, factor, patience, threshold
        self.threshold_mode, self.cooldown, self.min_lr, self.epsilon = threshold_mode, cooldown, min_lr, epsilon
        self.cooldown_counter, self.best, self.num_bad_epochs = 0, None, 0
        # no first step(): the rate only changes when a metric is given
        self.base_lr = self.last_lr = float(learning_rate)
        self.last_epoch, self.verbose = 0, verbose

    def step(self, metrics, epoch=None):
        """Record this epoch's ``metrics`` (a number or a 1-element Tensor/array) and reduce the rate on a plateau."""
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        value = np.asarray(metrics.numpy() if hasattr(metrics, "numpy") else metrics)
        if value.size != 1:
            raise TypeError(f"ReduceOnPlateau.step: metrics must be a number or hold one value, got shape {value.shape}")
        value = value.reshape(()).item()
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            return
        if self.best is None or self._better(value, self.best):
            self.best, self.num_bad_epochs = value, 0
        else:
            self.num_bad_epochs += 1
        if self.num_bad_epochs > self.patience:
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
            new_lr = max(self.last_lr * self.factor, self.min_lr)
            if self.last_lr - new_lr > self.epsilon:
                self.last_lr = new_lr

    def _better(self, current, best):
        margin = best * self.threshold if self.threshold_mode == "rel" else self.threshold
        return current < best - margin if self.mode == "min" else current > best + margin

    def state_dict(self):
        """The plateau state: counters, best metric, epoch and rate."""
        return {"cooldown_counter": self.cooldown_counter, "best": self.best, "num_bad_epochs": self.num_bad_epochs,
                "last_epoch": self.last_epoch, "last_lr": self.last_lr}

    def set_state_dict(self, state_dict):
        """Restore a state from ``state_dict()``."""
        for k in ("cooldown_counter", "best", "num_bad_epochs", "last_epoch", "last_lr"):
            if k in state_dict:
                setattr(self, k, state_dict[k])

    set_dict = set_state_dict
