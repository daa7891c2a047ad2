"""``rt.incubate.optimizer`` (Paddle's ``paddle.incubate.optimizer``): ``LookAhead``, which wraps an inner
optimizer and every ``k`` steps pulls the parameters towards slow copies of them, and ``ModelAverage``,
which accumulates each parameter's values over a sliding window of steps and can swap their average in
(``apply()``) and back out (``restore()``). Both follow Paddle's kernels step for step (float32 sums,
int64 counters). Their ``step()`` works eagerly and inside a converted training step (through
``_apply_grads``, as the other optimizers'); like Paddle's, they update the parameters that have a
gradient.
"""
import contextlib
from collections.abc import Iterable

import numpy as np

from ..optimizer.optimizer import Optimizer
from ..static.backends import weights_changed
from ..tensor import Tensor, bump_version

__all__ = ["LookAhead", "ModelAverage"]


def _with_grads(params, grads):
    if grads is None:
        return [p for p in params if p.grad is not None and not p.stop_gradient]
    return [p for p in params if id(p) in grads and not p.stop_gradient]


class LookAhead(Optimizer):
    """Lookahead (Zhang et al. 2019) over ``inner_optimizer``: after the inner step, the first step
    copies each parameter into its slow weights, and every ``k``-th step sets both the parameter and
    its slow weights to ``alpha * param + (1 - alpha) * slow``."""

    _accumulator_names = ("slow",)

    def __init__(self, inner_optimizer: Optimizer, alpha: float = 0.5, k: int = 5, name: str | None = None) -> None:
        if inner_optimizer is None:
            raise ValueError("LookAhead: inner optimizer can not be None")
        if not 0.0 <= alpha <= 1.0:
            raise ValueError(f"LookAhead: alpha should be in [0, 1], got {alpha}")
        if not isinstance(k, int) or k <= 0:
            raise ValueError(f"LookAhead: k should be a positive integer, got {k!r}")
        self.inner_optimizer = inner_optimizer
        super().__init__(alpha, inner_optimizer._parameter_list, None, None, name)
        self.alpha, self.k = alpha, k
        self._lookahead_step = 0

    def _apply_grads(self, grads):
        self.inner_optimizer._apply_grads(grads)
        self._lookahead_step += 1
        t = self._lookahead_step
        for p in _with_grads(self._parameter_list, grads):
            slow = self._acc("slow", p)
            if t == 1:
                slow[...] = p._value
            if t % self.k == 0:
                dt = p._value.dtype.type
                new = dt(self.alpha) * p._value + dt(1.0 - self.alpha) * slow
                self._write(p, new)
                slow[...] = new
                bump_version(p)
        weights_changed()

    def state_dict(self):
        """The slow weights (``{param}_slow_0``) and the step count; the inner optimizer keeps its own."""
        state = super().state_dict()
        state["global_step"] = self._lookahead_step
        return state

    def set_state_dict(self, state_dict):
        """Restore what ``state_dict()`` returned."""
        super().set_state_dict(state_dict)
        self._lookahead_step = int(state_dict.get("global_step", self._lookahead_step))

    set_dict = set_state_dict


_MAX_ACCUMULATES = 16384  # Paddle's kMaxNumAccumulates: sum_1 moves into sum_2 this often, for precision


class ModelAverage(Optimizer):
    """Sliding-window parameter averaging: each ``step()`` adds the parameters to running sums; once the
    window holds at least ``min_average_window`` steps and ``min(max_average_window, steps *
    average_window_rate)``, the sums move to ``sum_3`` and a new window starts. ``apply()`` (a context
    manager) puts ``(sum_1 + sum_2 + sum_3) / (steps in the two windows)`` into the parameters,
    ``restore()`` puts the trained values back."""

    _accumulator_names = ("sum_1", "sum_2", "sum_3", "restore", "num_accumulates", "old_num_accumulates",
                          "num_updates")
    _COUNTERS = ("num_accumulates", "old_num_accumulates", "num_updates")

    def __init__(self, average_window_rate: float, parameters: Iterable[Tensor] | None = None,
                 min_average_window: int = 10000, max_average_window: int = 10000, name: str | None = None) -> None:
        if min_average_window > max_average_window:
            raise ValueError(f"ModelAverage: min_average_window ({min_average_window}) > max_average_window "
                             f"({max_average_window})")
        super().__init__(0.0, parameters, None, None, name)
        self.average_window = average_window_rate
        self.min_average_window, self.max_average_window = int(min_average_window), int(max_average_window)

    def _acc_spec(self, acc):
        return {"shape": (1,), "dtype": np.int64} if acc in self._COUNTERS else {}

    def _apply_grads(self, grads):
        self._step_count += 1
        for p in _with_grads(self._parameter_list, grads):
            s1, s2, s3 = (self._acc(a, p) for a in ("sum_1", "sum_2", "sum_3"))
            acc, old, upd = (self._acc(a, p, **self._acc_spec(a)) for a in self._COUNTERS)
            upd += 1
            acc += 1
            s1 += p._value  # in place, as Paddle's in-place kernel: the moves below see the new sum_1
            if upd[0] % _MAX_ACCUMULATES == 0:
                s2 += s1
                s1[...] = 0
            window = int(np.float32(upd[0]) * np.float32(self.average_window))
            if acc[0] >= self.min_average_window and acc[0] >= min(self.max_average_window, window):
                s3[...] = s1 + s2
                s1[...] = 0
                s2[...] = 0
                old[...] = acc
                acc[...] = 0

    @contextlib.contextmanager
    def apply(self, executor=None, need_restore: bool = True):
        """Put the averaged values into the parameters for the ``with`` block; ``need_restore``: put the
        trained values back when it ends."""
        for p in self._parameter_list:
            count = (self._acc("num_accumulates", p, **self._acc_spec("num_accumulates"))
                     + self._acc("old_num_accumulates", p, **self._acc_spec("old_num_accumulates")))
            if not count.any():  # never accumulated (BatchNorm's statistics, a frozen one): 0 / 0 in Paddle
                continue
            self._acc("restore", p)[...] = p._value
            total = self._acc("sum_1", p) + self._acc("sum_2", p) + self._acc("sum_3", p)
            self._write(p, total.astype(np.float32) / count.astype(np.float32))
            bump_version(p)
        weights_changed()
        try:
            yield
        finally:
            if need_restore:
                self.restore()

    def restore(self, executor=None):
        """Put back the values ``apply()`` replaced."""
        saved = self._accumulators["restore"]
        for p in self._parameter_list:
            if p.name not in saved:  # apply() left it as it was
                continue
            self._write(p, saved[p.name])
            bump_version(p)
        weights_changed()

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """``step()`` (the accumulation; no gradient step)."""
        self.step()
