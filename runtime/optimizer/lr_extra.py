"""More of Paddle's learning-rate schedules (``paddle.optimizer.lr``): the same arguments, the same
float arithmetic in the same order (so every step's rate equals Paddle's), the same state_dict keys.
Reached as ``rt.optimizer.lr.NoamDecay`` etc."""
import math
from collections.abc import Callable

from ..trace_state import converting
from .lr import LRScheduler


class NoamDecay(LRScheduler):
    """``lr * d_model ** -0.5 * min(epoch ** -0.5, warmup_steps ** -1.5 * epoch)`` (epoch 0 reads 1
    for the first term), the Transformer paper's schedule."""

    def __init__(self, d_model: int, warmup_steps: int, learning_rate: float = 1.0, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        if d_model <= 0:
            raise ValueError(f"NoamDecay: d_model must be greater than 0, got {d_model}")
        self.d_model, self.warmup_steps = d_model, warmup_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        a = 1 if self.last_epoch == 0 else self.last_epoch ** -0.5
        b = self.warmup_steps ** -1.5 * self.last_epoch
        return self.base_lr * (self.d_model ** -0.5) * min(a, b)


class PolynomialDecay(LRScheduler):
    """``(lr - end_lr) * (1 - epoch / decay_steps) ** power + end_lr``; after ``decay_steps`` it
    stays at end_lr, or with ``cycle`` decay_steps grows to the next multiple of itself."""

    def __init__(self, learning_rate: float, decay_steps: int, end_lr: float = 0.0001, power: float = 1.0,
                 cycle: bool = False, last_epoch: int = -1, verbose: bool = False) -> None:
        if not isinstance(decay_steps, int) or decay_steps <= 0:
            raise ValueError(f"PolynomialDecay: decay_steps must be a positive int, got {decay_steps!r}")
        if power <= 0:
            raise ValueError(f"PolynomialDecay: power must be greater than 0, got {power}")
        self.decay_steps, self.end_lr, self.power, self.cycle = decay_steps, end_lr, power, cycle
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        epoch, steps = self.last_epoch, self.decay_steps
        if self.cycle:
            steps = self.decay_steps * (1 if epoch == 0 else math.ceil(float(epoch) / float(self.decay_steps)))
        else:
            epoch = min(epoch, self.decay_steps)
        return (self.base_lr - self.end_lr) * ((1 - float(epoch) / float(steps)) ** self.power) + self.end_lr


class InverseTimeDecay(LRScheduler):
    """``lr / (1 + gamma * epoch)``."""

    def __init__(self, learning_rate: float, gamma: float, last_epoch: int = -1, verbose: bool = False) -> None:
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr / (1 + self.gamma * self.last_epoch)


class NaturalExpDecay(LRScheduler):
    """``lr * exp(-gamma * epoch)``."""

    def __init__(self, learning_rate: float, gamma: float, last_epoch: int = -1, verbose: bool = False) -> None:
        if gamma <= 0:
            raise ValueError(f"NaturalExpDecay: gamma must be a positive number, got {gamma}")
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * math.exp(-1 * self.gamma * self.last_epoch)


class MultiplicativeDecay(LRScheduler):
    """``lr * lr_lambda(1) * ... * lr_lambda(epoch)``."""

    def __init__(self, learning_rate: float, lr_lambda: Callable[[int], float], last_epoch: int = -1,
                 verbose: bool = False) -> None:
        if not callable(lr_lambda):
            raise TypeError(f"MultiplicativeDecay: lr_lambda must be a function, got {type(lr_lambda).__name__}")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        lr = self.base_lr
        for epoch in range(1, self.last_epoch + 1):
            lr = lr * self.lr_lambda(epoch)
        return lr


class OneCycleLR(LRScheduler):
    """Up from ``max_learning_rate / divide_factor`` to ``max_learning_rate`` over ``phase_pct`` of
    ``total_steps``, then down to ``end_learning_rate`` (``three_phase``: back to the start rate
    first), by cosine or linear annealing."""

    def __init__(self, max_learning_rate: float, total_steps: int, divide_factor: float = 25.0,
                 end_learning_rate: float = 0.0001, phase_pct: float = 0.3, anneal_strategy: str = "cos",
                 three_phase: bool = False, last_epoch: int = -1, verbose: bool = False) -> None:
        if not isinstance(total_steps, int) or total_steps <= 0:
            raise ValueError(f"OneCycleLR: total_steps must be a positive int, got {total_steps!r}")
        if not 0 <= phase_pct <= 1 or (three_phase and phase_pct >= 0.5):
            raise ValueError(f"OneCycleLR: phase_pct must be in [0, 1] (below 0.5 with three_phase), got {phase_pct}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"OneCycleLR: anneal_strategy must be 'cos' or 'linear', got {anneal_strategy!r}")
        if max_learning_rate < 0 or end_learning_rate < 0:
            raise ValueError("OneCycleLR: max_learning_rate and end_learning_rate must not be negative")
        self.total_steps = total_steps
        initial_lr, min_lr, n = max_learning_rate / float(divide_factor), float(end_learning_rate), total_steps
        if three_phase:
            self._step_config = [0, phase_pct * n - 1, 2 * phase_pct * n - 2, n - 1, n - 1]
            c = self._step_config
            self._steps_size = [c[1] - c[0], c[2] - c[1], c[3] - c[2], c[3] - c[2]]
            self._lr_config = [initial_lr, max_learning_rate, initial_lr, min_lr]
        else:
            self._step_config = [0, phase_pct * n - 1, n - 1, n - 1]
            c = self._step_config
            self._steps_size = [c[1] - c[0], c[2] - c[1], c[2] - c[1]]
            self._lr_config = [initial_lr, max_learning_rate, min_lr]
        self.anneal_func = self._cos_annealing if anneal_strategy == "cos" else self._linear_annealing
        super().__init__(initial_lr, last_epoch, verbose)

    @staticmethod
    def _cos_annealing(start_lr, end_lr, pct):
        return end_lr + (start_lr - end_lr) / 2.0 * (math.cos(math.pi * pct) + 1)

    @staticmethod
    def _linear_annealing(start_lr, end_lr, pct):
        return (end_lr - start_lr) * pct + start_lr

    def get_lr(self):
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"OneCycleLR: tried to step {step} times, but total_steps is {self.total_steps}")
        for i, (end_step, size) in enumerate(zip(self._step_config[1:], self._steps_size)):
            if step <= end_step or i == len(self._lr_config) - 2:
                return self.anneal_func(self._lr_config[i], self._lr_config[i + 1], (step - self._step_config[i]) / size)


class CyclicLR(LRScheduler):
    """A triangle between ``base_learning_rate`` and ``max_learning_rate`` (up ``step_size_up``
    steps, down ``step_size_down``), its height scaled by mode "triangular" (1), "triangular2"
    (halved each cycle), "exp_range" (``exp_gamma ** iteration``) or ``scale_fn``."""

    def __init__(self, base_learning_rate: float, max_learning_rate: float, step_size_up: int,
                 step_size_down: int | None = None, mode: str = "triangular", exp_gamma: float = 1.0,
                 scale_fn: Callable[[float], float] | None = None, scale_mode: str = "cycle", last_epoch: int = -1,
                 verbose: bool = False) -> None:
        if max_learning_rate < 0:
            raise ValueError(f"CyclicLR: max_learning_rate must not be negative, got {max_learning_rate}")
        for what, v in (("step_size_up", step_size_up), ("step_size_down", step_size_down)):
            if v is not None and (not isinstance(v, int) or v <= 0):
                raise ValueError(f"CyclicLR: {what} must be a positive int, got {v!r}")
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError(f"CyclicLR: mode {mode!r} is unknown and no scale_fn is given")
        if scale_mode not in ("cycle", "iterations"):
            raise ValueError(f"CyclicLR: scale_mode must be 'cycle' or 'iterations', got {scale_mode!r}")
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.cycle_size = up + down
        self.step_up_pct = up / self.cycle_size
        self.max_lr = float(max_learning_rate)
        self.amplitude = self.max_lr - base_learning_rate
        self.mode, self.gamma = mode, exp_gamma
        if scale_fn is not None:
            self.scale_fn, self.scale_mode = scale_fn, scale_mode
        elif mode == "exp_range":
            self.scale_fn, self.scale_mode = (lambda x: self.gamma ** x), "iterations"
        else:
            self.scale_fn = (lambda x: 1.0) if mode == "triangular" else (lambda x: 1 / (2.0 ** (x - 1)))
            self.scale_mode = "cycle"
        super().__init__(base_learning_rate, last_epoch, verbose)

    def get_lr(self):
        iterations = self.last_epoch
        cycle = 1 + iterations // self.cycle_size
        pct = 1.0 + iterations / self.cycle_size - cycle
        factor = pct / self.step_up_pct if pct <= self.step_up_pct else (1 - pct) / (1 - self.step_up_pct)
        x = cycle if self.scale_mode == "cycle" else iterations
        return self.base_lr + self.amplitude * factor * self.scale_fn(x)


class LinearLR(LRScheduler):
    """From ``lr * start_factor`` to ``lr * end_factor`` linearly over ``total_steps``, then constant
    (computed step by step from the last rate, as Paddle does)."""

    def __init__(self, learning_rate: float, total_steps: int, start_factor: float = 1.0 / 3, end_factor: float = 1.0,
                 last_epoch: int = -1, verbose: bool = False) -> None:
        if not 0 < start_factor <= 1:
            raise ValueError(f"LinearLR: start_factor must be in (0, 1], got {start_factor}")
        if not 0 <= end_factor <= 1:
            raise ValueError(f"LinearLR: end_factor must be in [0, 1], got {end_factor}")
        if total_steps <= 0:
            raise ValueError(f"LinearLR: total_steps must be greater than 0, got {total_steps}")
        self.start_factor, self.end_factor, self.total_steps = start_factor, end_factor, total_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        if self.last_epoch == 0:
            return self.base_lr * self.start_factor
        if self.last_epoch > self.total_steps:
            return self.last_lr
        change = self.end_factor - self.start_factor
        return self.last_lr * (1.0 + change / (self.total_steps * self.start_factor + (self.last_epoch - 1) * change))


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine from ``lr`` down to ``eta_min`` over ``T_0`` epochs, then restarting, each period
    ``T_mult`` times the one before (SGDR)."""

    def __init__(self, learning_rate: float, T_0: int, T_mult: int = 1, eta_min: float = 0, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        if not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError(f"CosineAnnealingWarmRestarts: expected a positive int T_0, got {T_0!r}")
        if not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"CosineAnnealingWarmRestarts: expected an int T_mult >= 1, got {T_mult!r}")
        self.T_0, self.T_i, self.T_mult, self.eta_min, self.T_cur = T_0, T_0, T_mult, eta_min, last_epoch
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.eta_min + (self.base_lr - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2

    def _advance(self, epoch):  # the base's step() calls it (or, in converted code, an op that does)
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur, self.T_i = self.T_cur - self.T_i, self.T_i * self.T_mult
        elif epoch < 0:
            raise ValueError(f"CosineAnnealingWarmRestarts: expected a non-negative epoch, got {epoch}")
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
        self.last_lr = self.get_lr()


class ReduceOnPlateau(LRScheduler):
    """Multiply the rate by ``factor`` (not below ``min_lr``) once the metric passed to
    ``step(metrics)`` has not improved (by ``threshold``, relative or absolute) for more than
    ``patience`` steps, then wait ``cooldown`` steps."""

    _state_keys = ("cooldown_counter", "best", "num_bad_epochs", "last_epoch", "last_lr")

    def __init__(self, learning_rate: float, mode: str = "min", factor: float = 0.1, patience: int = 10,
                 threshold: float = 1e-4, threshold_mode: str = "rel", cooldown: int = 0, min_lr: float = 0,
                 epsilon: float = 1e-8, verbose: bool = False) -> None:
        mode, threshold_mode = mode.lower(), threshold_mode.lower()
        if mode not in ("min", "max"):
            raise ValueError(f"ReduceOnPlateau: mode must be 'min' or 'max', got {mode!r}")
        if factor >= 1.0:
            raise ValueError(f"ReduceOnPlateau: factor must be below 1.0 (new_lr = lr * factor), got {factor}")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"ReduceOnPlateau: threshold_mode must be 'rel' or 'abs', got {threshold_mode!r}")
        if not isinstance(learning_rate, (int, float)):
            raise TypeError(f"ReduceOnPlateau: learning_rate must be a float, got {type(learning_rate).__name__}")
        self.mode, self.factor, self.patience, self.threshold = mode, factor, patience, threshold
        self.threshold_mode, self.cooldown, self.min_lr, self.epsilon = threshold_mode, cooldown, min_lr, epsilon
        self.cooldown_counter, self.best, self.num_bad_epochs = 0, None, 0
        self.base_lr = self.last_lr = float(learning_rate)
        self.last_epoch, self.verbose = 0, verbose  # no first step(): it needs a metric

    def step(self, metrics, epoch=None):
        """Read ``metrics`` (a number or a 1-element Tensor/array) for the epoch that ended."""
        if converting():  # it would run once, while the Program is built
            raise TypeError("ReduceOnPlateau.step(metrics) in a converted function would run once, while the "
                            "Program is built: call it outside the converted function, once per epoch")
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if hasattr(metrics, "numpy") or hasattr(metrics, "size"):
            value = metrics.numpy() if hasattr(metrics, "numpy") else metrics
            if value.size != 1:
                raise ValueError(f"ReduceOnPlateau: metrics must have 1 element, got {value.size} (take the mean first)")
            metrics = float(value.reshape(()))
        elif not isinstance(metrics, (int, float)):
            raise TypeError(f"ReduceOnPlateau: metrics must be a number or a 1-element Tensor, got "
                            f"{type(metrics).__name__}")
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            return
        if self.best is None or self._is_better(metrics, self.best):
            self.best, self.num_bad_epochs = metrics, 0
        else:
            self.num_bad_epochs += 1
        if self.num_bad_epochs > self.patience:
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
            new_lr = max(self.last_lr * self.factor, self.min_lr)
            if self.last_lr - new_lr > self.epsilon:
                self.last_lr = new_lr

    def _is_better(self, current, best):
        margin = best * self.threshold if self.threshold_mode == "rel" else self.threshold
        return current < best - margin if self.mode == "min" else current > best + margin
