"""Learning-rate schedulers (Paddle's ``paddle.optimizer.lr``).

A scheduler holds ``last_epoch`` and ``last_lr``; ``step()`` advances it and an
optimizer reads ``scheduler()`` at every ``step()``.
"""
import math
from collections.abc import Callable, Sequence

from ..trace_state import PYTHON_NUMBER_VIEWS, converting


class LRScheduler:
    """Base of learning-rate schedules: pass one as an optimizer's ``learning_rate`` and call ``step()`` per epoch
    (or step); calling the scheduler returns the current rate. Paddle: ``optimizer.lr.LRScheduler``.
    """

    def __new__(cls, *args, **kwargs):
        self = super().__new__(cls)
        # A scheduler made while a function is converted lives in that trace only: its reads and writes
        # are the trace's own (its rate is read when the Program runs, see __call__).
        self.__dict__["_made_converting"] = converting()
        return self

    def __init__(self, learning_rate: float = 0.1, last_epoch: int = -1, verbose: bool = False) -> None:
        if not isinstance(learning_rate, (int, float)):
            raise TypeError(f"learning_rate must be a number, got {type(learning_rate).__name__}")
        self.base_lr = float(learning_rate)
        self.last_lr = float(learning_rate)
        self.last_epoch = last_epoch
        self.verbose = verbose
        self._advance(None)

    def __call__(self):
        if converting():  # while a function is converted: the rate read when the Program runs (see Optimizer.get_lr)
            from ..static.train_step import record_lr_read  # noqa: PLC0415
            return record_lr_read(self._current, type(self).__name__)
        return self.last_lr

    def _current(self):
        return self._last_lr

    # ``last_lr`` and ``last_epoch`` read while a function is converted: the values when the Program
    # runs (a ``scheduler.step()`` in it, or between calls, changes them), not the ones at tracing,
    # which the Program would hold as constants.
    @property
    def last_lr(self):
        """The rate of the current epoch (a Python float; in a converted function, read when it runs)."""
        if converting() and not self._made_converting:
            return _run_time_number(self, "_last_lr", "float")
        return self._last_lr

    @last_lr.setter
    def last_lr(self, value):
        _refuse_converting_write(self, "last_lr")
        self._last_lr = value

    @property
    def last_epoch(self):
        """The current epoch (a Python int; in a converted function, read when it runs)."""
        if converting() and not self._made_converting:
            return _run_time_number(self, "_last_epoch", "int")
        return self._last_epoch

    @last_epoch.setter
    def last_epoch(self, value):
        _refuse_converting_write(self, "last_epoch")
        self._last_epoch = value

    def step(self, epoch=None):
        """Advance to the next epoch (or to ``epoch``) and recompute the rate.

        While a function is converted this appends the step to its Program instead
        (``runtime.static.train_step``): it runs at every call of the Program."""
        if converting():
            from ..static.train_step import record_lr_step  # noqa: PLC0415  (static imports optimizers' users)
            record_lr_step(self, epoch)
            return
        self._advance(epoch)

    def _advance(self, epoch):
        self.last_epoch = self.last_epoch + 1 if epoch is None else int(epoch)
        self.last_lr = float(self.get_lr())

    def get_lr(self):
        """The rate at ``self.last_epoch``; each schedule defines it."""
        raise NotImplementedError

    # what state_dict() saves (Paddle's state_keys); a schedule with more state lists it here
    _state_keys = ("last_epoch", "last_lr")

    def state_dict(self):
        """``{"last_epoch", "last_lr"}`` (and a schedule's own state), enough to resume the schedule.
        Also saved in the optimizer's state_dict."""
        return {k: getattr(self, k) for k in self._state_keys}

    def set_state_dict(self, state_dict):
        """Restore a state from ``state_dict()``. Also ``set_dict``. RuntimeError if a key is missing."""
        missing = [k for k in self._state_keys if k not in state_dict]
        if missing:
            raise RuntimeError(f"{type(self).__name__}.set_state_dict: the state has no {missing}")
        for k in self._state_keys:
            setattr(self, k, state_dict[k])
        self.last_epoch = int(state_dict["last_epoch"])
        self.last_lr = float(state_dict["last_lr"])

    set_dict = set_state_dict


def _run_time_number(scheduler, attr, kind):
    """``scheduler.<attr>`` as a value of the Program being built, read when it runs (a float64 [],
    cast to int64 for ``last_epoch``), marked as the Python number it is eagerly."""
    from ..static.train_step import record_lr_read  # noqa: PLC0415  (static imports optimizers' users)
    from ..ops.common import cast  # noqa: PLC0415
    value = record_lr_read(lambda: getattr(scheduler, attr), f"{attr[1:]} of {type(scheduler).__name__}")
    if kind == "int":
        value = cast(value, "int64")
    mark = PYTHON_NUMBER_VIEWS.get(kind)
    return mark(value) if mark is not None else value


def _refuse_converting_write(scheduler, attr):
    if converting() and not scheduler._made_converting:
        raise TypeError(f"`{type(scheduler).__name__}.{attr} = ...` in a converted function would set it once, "
                        "while the Program is built, not at every call: use scheduler.step(), or set it outside "
                        "the converted function")


class StepDecay(LRScheduler):
    """``lr * gamma ** (epoch // step_size)``."""

    def __init__(self, learning_rate: float, step_size: int, gamma: float = 0.1, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        self.step_size, self.gamma = int(step_size), gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.gamma ** (self.last_epoch // self.step_size)


class MultiStepDecay(LRScheduler):
    """``lr * gamma ** k`` where k is the number of ``milestones`` passed."""

    def __init__(self, learning_rate: float, milestones: Sequence[int], gamma: float = 0.1, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        self.milestones, self.gamma = sorted(milestones), gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.gamma ** sum(1 for m in self.milestones if self.last_epoch >= m)


class ExponentialDecay(LRScheduler):
    """``lr * gamma ** epoch``."""

    def __init__(self, learning_rate: float, gamma: float, last_epoch: int = -1, verbose: bool = False) -> None:
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.gamma ** self.last_epoch


class CosineAnnealingDecay(LRScheduler):
    """Cosine from ``lr`` down to ``eta_min`` over ``T_max`` epochs."""

    def __init__(self, learning_rate: float, T_max: int, eta_min: float = 0, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        self.T_max, self.eta_min = int(T_max), float(eta_min)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        cos = math.cos(math.pi * self.last_epoch / self.T_max)
        return self.eta_min + (self.base_lr - self.eta_min) * (1 + cos) / 2


class LambdaDecay(LRScheduler):
    """``lr * lr_lambda(epoch)``."""

    def __init__(self, learning_rate: float, lr_lambda: Callable[[int], float], last_epoch: int = -1,
                 verbose: bool = False) -> None:
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.lr_lambda(self.last_epoch)


class PiecewiseDecay(LRScheduler):
    """``values[i]`` while the epoch is below ``boundaries[i]``, then ``values[-1]``.

    Raises ValueError unless ``len(values) == len(boundaries) + 1``.
    """

    def __init__(self, boundaries: Sequence[int], values: Sequence[float], last_epoch: int = -1,
                 verbose: bool = False) -> None:
        if len(values) != len(boundaries) + 1:
            raise ValueError(f"PiecewiseDecay needs len(values) == len(boundaries) + 1, got {len(values)} values "
                             f"and {len(boundaries)} boundaries")
        self.boundaries, self.values = list(boundaries), list(values)
        super().__init__(values[0], last_epoch, verbose)

    def get_lr(self):
        for b, v in zip(self.boundaries, self.values):
            if self.last_epoch < b:
                return v
        return self.values[-1]


class LinearWarmup(LRScheduler):
    """Linear ramp from start_lr to end_lr over warmup_steps, then the wrapped lr (number or scheduler)."""

    def __init__(self, learning_rate: float | LRScheduler, warmup_steps: int, start_lr: float, end_lr: float,
                 last_epoch: int = -1, verbose: bool = False) -> None:
        self.inner = learning_rate if isinstance(learning_rate, LRScheduler) else None
        self.warmup_steps, self.start_lr, self.end_lr = int(warmup_steps), float(start_lr), float(end_lr)
        super().__init__(end_lr if self.inner else learning_rate, last_epoch, verbose)

    def get_lr(self):
        if self.last_epoch < self.warmup_steps:
            return self.start_lr + (self.end_lr - self.start_lr) * self.last_epoch / self.warmup_steps
        if self.inner is not None:
            self.inner._advance(self.last_epoch - self.warmup_steps)
            return self.inner()
        return self.base_lr


# Paddle's other schedules (their own module: this one is long enough); they subclass LRScheduler above.
from .lr_extra import (CosineAnnealingWarmRestarts, CyclicLR, InverseTimeDecay, LinearLR,  # noqa: E402,F401
                       MultiplicativeDecay, NaturalExpDecay, NoamDecay, OneCycleLR, PolynomialDecay, ReduceOnPlateau)
