"""The update rules: SGD, Momentum, Adam, AdamW, RMSProp, Adagrad (Paddle's formulas)."""
import numpy as np

from ..static.backends import weights_changed
from ..tensor import bump_version
from .optimizer import Optimizer
from collections.abc import Callable, Iterable
from ..tensor import Tensor
from .lr import LRScheduler
from ..regularizer import L1Decay, L2Decay


def check_betas(what, beta1, beta2, epsilon=None):
    """Paddle's argument checks of the Adam family: betas in [0, 1), epsilon (when given) >= 0."""
    for name, v in (("beta1", beta1), ("beta2", beta2)):
        if not 0 <= v < 1:
            raise ValueError(f"{what}: {name} must be in [0, 1), got {v}")
    if epsilon is not None and epsilon < 0:
        raise ValueError(f"{what}: epsilon must be >= 0, got {epsilon}")


def beta_pow_specs(self, acc):
    """``_acc_spec`` of an optimizer keeping Adam's ``beta1_pow_acc``/``beta2_pow_acc`` ([1], from beta)."""
    if acc == "beta1_pow_acc":
        return {"init": self._beta1, "shape": (1,)}
    if acc == "beta2_pow_acc":
        return {"init": self._beta2, "shape": (1,)}
    return {}


def _check_multi_precision(opt, multi_precision):
    """multi_precision only changes float16/bfloat16 parameters (float32 master weights), which this
    runtime does not keep: refused there rather than updated at low precision; float32 is unchanged."""
    if not multi_precision:
        return
    low = [p.name for p in (opt._parameter_list or []) if str(p.dtype).split(".")[-1] in ("float16", "bfloat16")]
    if low:
        raise NotImplementedError(f"{type(opt).__name__}(multi_precision=True): float32 master weights for the "
                                  f"float16/bfloat16 parameters {low[:3]} are not supported by runtime")



def _refuse_amsgrad(opt, amsgrad):
    """AMSGrad (the running maximum of the second moment) is not implemented: refused, not ignored."""
    if amsgrad:
        raise NotImplementedError(f"{type(opt).__name__}(amsgrad=True) is not supported by runtime")


class SGD(Optimizer):
    """Plain gradient descent: ``p -= lr * grad``. Paddle: ``optimizer.SGD``."""

    def __init__(self, learning_rate: float | LRScheduler = 0.001,
                 parameters: Iterable[Tensor] | Iterable[dict] | None = None,
                 weight_decay: float | L2Decay | None = None, grad_clip: Callable | None = None,
                 multi_precision: bool = False, name: str | None = None) -> None:
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        _check_multi_precision(self, multi_precision)

    def _update(self, p, g, lr, group):
        step = np.asarray(lr, g.dtype) * g
        if not self._write_sub(p, step):
            self._write(p, p._value - step)

    def _fused_update(self, flat, g, lr, group):
        g *= np.asarray(lr, g.dtype)  # g is the group's own gradient buffer (or a sum made for it)
        flat.flat -= g

    def _apply_given(self, grads, spare=frozenset()):
        # The per-parameter eager update (``p -= lr * g``, the same values as the flat group's)
        # without gathering the gradients into one buffer: they arrive one array per parameter.
        # A gradient in ``spare`` (nothing else holds it) is scaled in place: ``g *= lr; p -= g``
        # is bitwise ``p -= lr * g`` without the temporary.
        if self._grad_clip is not None:
            return super()._apply_given(grads, spare)
        todo = []
        base_lr = self.get_lr()
        scales = {}  # (lr, dtype) -> the 0-d array eager multiplies by: made once per step
        for group in self._param_groups:
            if self._group_decay(group) or isinstance(group["weight_decay"], L1Decay):
                return super()._apply_given(grads, spare)
            group_lr = base_lr * group["learning_rate"]
            for p in group["params"]:
                g = grads.get(id(p))
                if g is None or p.stop_gradient:
                    continue
                if getattr(p, "regularizer", None) is not None:  # its own decay: the general update
                    return super()._apply_given(grads, spare)
                v = p._value
                if v.dtype != g.dtype or v.shape != g.shape or not v.flags.writeable:
                    return super()._apply_given(grads, spare)
                attrs = getattr(p, "optimize_attr", None)
                lr = group_lr * (1.0 if attrs is None else attrs.get("learning_rate", 1.0))  # eager's order
                key = (lr, g.dtype)
                scale = scales.get(key)
                if scale is None:
                    scale = scales[key] = np.asarray(lr, g.dtype)
                todo.append((p, v, g, scale, id(p) in spare))
        self._step_count += 1
        for p, v, g, scale, own in todo:
            if own:
                g *= scale
                v -= g
            else:
                v -= scale * g
            bump_version(p)
        weights_changed()


class Momentum(Optimizer):
    """SGD with momentum ``v = momentum * v + grad``, ``p -= lr * v`` (Nesterov's form with ``use_nesterov``)."""

    # what a parameter group may set for itself (Paddle's _update_param_group)
    _group_options = {"momentum": "_momentum", "use_nesterov": "_use_nesterov", "rescale_grad": "_grad_rescale"}

    _accumulator_names = ("velocity",)
    _flat_elementwise = ("velocity",)

    def __init__(self, learning_rate: float | LRScheduler = 0.001, momentum: float = 0.9,
                 parameters: Iterable[Tensor] | Iterable[dict] | None = None, use_nesterov: bool = False,
                 weight_decay: float | L2Decay | None = None, grad_clip: Callable | None = None,
                 multi_precision: bool = False, rescale_grad: float = 1.0, use_multi_tensor: bool = False,
                 name: str | None = None) -> None:
        # Paddle's order: multi_precision before rescale_grad (a positional call binds the same);
        # use_multi_tensor only batches Paddle's kernels, the values are the same
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        _check_multi_precision(self, multi_precision)
        self._momentum, self._use_nesterov, self._grad_rescale = momentum, use_nesterov, float(rescale_grad)

    def _update(self, p, g, lr, group):
        v = self._acc("velocity", p)
        v *= np.asarray(self._momentum, v.dtype)
        v += g
        lr = np.asarray(lr, g.dtype)
        step = (g + np.asarray(self._momentum, g.dtype) * v) if self._use_nesterov else v
        step = lr * step
        if not self._write_sub(p, step):
            self._write(p, p._value - step)

    def _fused_update(self, flat, g, lr, group):
        v = flat.buffer("velocity")
        v *= np.asarray(self._momentum, v.dtype)
        v += g
        if self._use_nesterov:
            flat.flat -= np.asarray(lr, g.dtype) * (g + np.asarray(self._momentum, g.dtype) * v)
        else:  # g (the group's own gradient buffer) is dead: lr * v goes into it
            flat.flat -= np.multiply(v, np.asarray(lr, g.dtype), out=g)


class Adam(Optimizer):
    """Paddle's Adam: ``p -= lr_t * m / (sqrt(v) + eps * sqrt(1 - beta2^t))`` with bias-corrected ``lr_t``."""

    # what a parameter group may set for itself (Paddle's _update_param_group)
    _group_options = {"beta1": "_beta1", "beta2": "_beta2", "epsilon": "_epsilon"}

    _accumulator_names = ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc")
    _flat_elementwise = ("moment1", "moment2")
    _flat_scalars = ("beta1_pow_acc", "beta2_pow_acc")

    def __init__(self, learning_rate: float | LRScheduler = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-08, parameters: Iterable[Tensor] | Iterable[dict] | None = None,
                 weight_decay: float | L2Decay | None = None, grad_clip: Callable | None = None,
                 lazy_mode: bool = False, multi_precision: bool = False, use_multi_tensor: bool = False,
                 amsgrad: bool = False, name: str | None = None) -> None:
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        _check_multi_precision(self, multi_precision)
        _refuse_amsgrad(self, amsgrad)  # use_multi_tensor only batches Paddle's kernels: same values
        check_betas(type(self).__name__, beta1, beta2, epsilon)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon

    _acc_spec = beta_pow_specs

    def _adam(self, p, g, lr):
        m = self._acc("moment1", p)
        v = self._acc("moment2", p)
        b1p = self._acc("beta1_pow_acc", p, **self._acc_spec("beta1_pow_acc"))
        b2p = self._acc("beta2_pow_acc", p, **self._acc_spec("beta2_pow_acc"))
        step = self._adam_step(m, v, g, b1p, b2p, lr)
        if not self._write_sub(p, step):
            self._write(p, p._value - step)

    def _update(self, p, g, lr, group):
        self._adam(p, g, lr)

    def _adam_flat(self, flat, g, lr):
        if not (flat.uniform("beta1_pow_acc") and flat.uniform("beta2_pow_acc")):
            return False  # parameters at different steps (restored separately): per parameter
        m, v = flat.buffer("moment1"), flat.buffer("moment2")
        b1p, b2p = flat.buffer("beta1_pow_acc"), flat.buffer("beta2_pow_acc")
        flat.flat -= self._adam_step(m, v, g, b1p, b2p, lr, spare=True)  # g: the group's own buffer
        return True

    def _adam_step(self, m, v, g, b1p, b2p, lr, spare=False):
        """The Adam step for gradient ``g``; updates the moments ``m``, ``v`` and the beta powers in
        place. One body for the per-parameter and the flat (fused) update, so both stay bitwise equal.
        ``spare``: nothing else holds ``g``; its buffer and the squares' take the temporaries
        (the same operations on the same values, so the same bits)."""
        b1, b2, c1, c2 = self._betas(g.dtype)
        dt = g.dtype
        sq = np.square(g)
        m *= b1
        m += np.multiply(g, c1, out=g if spare else None)
        v *= b2
        sq *= c2
        v += sq
        corr2 = float(np.sqrt(1 - b2p[0]))
        lr_t = np.asarray(lr * corr2 / (1 - b1p[0]), dt)
        denom = np.sqrt(v, out=sq)
        denom += np.asarray(self._epsilon * corr2, dt)
        step = np.multiply(m, lr_t, out=g if spare else None)
        step /= denom
        b1p *= b1
        b2p *= b2
        return step

    def _betas(self, dt):
        """``beta1``, ``beta2``, ``1 - beta1``, ``1 - beta2`` as ``dt`` scalars, made once per
        (betas, dtype): the same numpy values at every step, without four scalar operations each."""
        key = (self._beta1, self._beta2, dt)
        cached = self.__dict__.get("_betas_cache")
        if cached is None or cached[0] != key:
            b1, b2 = np.asarray(self._beta1, dt), np.asarray(self._beta2, dt)
            cached = self._betas_cache = (key, (b1, b2, 1 - b1, 1 - b2))
        return cached[1]

    def _fused_update(self, flat, g, lr, group):
        if not self._adam_flat(flat, g, lr):
            self._per_parameter(flat, g, lr, group)

    def _per_parameter(self, flat, g, lr, group):
        for i, p in enumerate(flat.params):
            self._update(p, g[flat.offsets[i]:flat.offsets[i + 1]].reshape(p._value.shape), lr, group)


class AdamW(Adam):
    """Adam with decoupled weight decay: ``p *= 1 - lr * coeff`` before the Adam step (default coeff 0.01)."""

    def __init__(self, learning_rate: float | LRScheduler = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-08, parameters: Iterable[Tensor] | Iterable[dict] | None = None,
                 weight_decay: float | L2Decay | None = 0.01, lr_ratio: Callable | None = None,
                 apply_decay_param_fun: Callable | None = None, grad_clip: Callable | None = None,
                 lazy_mode: bool = False, multi_precision: bool = False, name: str | None = None, *,
                 amsgrad: bool = False) -> None:
        # Paddle 3's use_lowprecision_moment (inserted before lr_ratio there) is not taken: a Paddle 2.x
        # positional call keeps binding lr_ratio and the rest as before
        if not isinstance(weight_decay, (int, float)):
            raise TypeError(f"AdamW weight_decay must be a float, got {type(weight_decay).__name__}")
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, weight_decay, grad_clip,
                         multi_precision=multi_precision, amsgrad=amsgrad, name=name)
        self._coeff = float(weight_decay)
        self._apply_decay = apply_decay_param_fun
        self._lr_ratio = lr_ratio

    def _group_decay(self, group):
        return 0.0  # decoupled: never added to the gradient

    def _fusable_now(self, group):
        return self._lr_ratio is None and self._apply_decay is None

    def _fused_update(self, flat, g, lr, group):
        coeff = group["weight_decay"] if group["weight_decay"] is not None else self._coeff
        if not (flat.uniform("beta1_pow_acc") and flat.uniform("beta2_pow_acc")):
            self._per_parameter(flat, g, lr, group)
            return
        if coeff:
            flat.flat *= np.asarray(1.0 - lr * float(coeff), flat.flat.dtype)
        self._adam_flat(flat, g, lr)

    def _update(self, p, g, lr, group):
        if self._lr_ratio is not None:
            lr = lr * self._lr_ratio(p)
        coeff = group["weight_decay"] if group["weight_decay"] is not None else self._coeff
        if coeff and (self._apply_decay is None or self._apply_decay(p.name)):
            factor = np.asarray(1.0 - lr * float(coeff), p._value.dtype)
            if p._value.flags.writeable:
                p._value *= factor
            else:
                self._write(p, p._value * factor)
        self._adam(p, g, lr)


class RMSProp(Optimizer):
    """RMSProp: divides the step by a running root mean square of gradients (``rho`` its decay; ``centered``
    also subtracts the running mean gradient).
    """

    # what a parameter group may set for itself (Paddle's _update_param_group)
    _group_options = {"rho": "_rho", "epsilon": "_epsilon", "momentum": "_momentum", "centered": "_centered"}

    _accumulator_names = ("mean_square", "mean_grad", "momentum")

    def __init__(self, learning_rate: float | LRScheduler, rho: float = 0.95, epsilon: float = 1e-06,
                 momentum: float = 0.0, centered: bool = False,
                 parameters: Iterable[Tensor] | Iterable[dict] | None = None,
                 weight_decay: float | L2Decay | None = None, grad_clip: Callable | None = None,
                 name: str | None = None) -> None:
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._rho, self._epsilon, self._momentum, self._centered = rho, epsilon, momentum, centered

    def _update(self, p, g, lr, group):
        dt = g.dtype
        ms = self._acc("mean_square", p)
        ms[...] = self._rho * ms + (1 - self._rho) * np.square(g)
        if self._centered:
            mg = self._acc("mean_grad", p)
            mg[...] = self._rho * mg + (1 - self._rho) * g
            denom = np.sqrt(ms - np.square(mg) + np.asarray(self._epsilon, dt))
        else:
            denom = np.sqrt(ms + np.asarray(self._epsilon, dt))
        mom = self._acc("momentum", p)
        mom[...] = self._momentum * mom + np.asarray(lr, dt) * g / denom
        self._write(p, p._value - mom)


class Adagrad(Optimizer):
    """Adagrad: divides the step by the root of the sum of all squared gradients so far."""

    # what a parameter group may set for itself (Paddle's _update_param_group)
    _group_options = {"epsilon": "_epsilon", "initial_accumulator_value": "_init"}

    _accumulator_names = ("moment",)

    def __init__(self, learning_rate: float | LRScheduler, epsilon: float = 1e-06,
                 parameters: Iterable[Tensor] | Iterable[dict] | None = None,
                 weight_decay: float | L2Decay | None = None, grad_clip: Callable | None = None,
                 initial_accumulator_value: float = 0.0, name: str | None = None) -> None:
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._epsilon, self._init = epsilon, initial_accumulator_value

    def _acc_spec(self, acc):
        return {"init": self._init}

    def _update(self, p, g, lr, group):
        mom = self._acc("moment", p, init=self._init)
        mom += np.square(g)
        self._write(p, p._value - np.asarray(lr, g.dtype) * g / (np.sqrt(mom) + np.asarray(self._epsilon, g.dtype)))


class Adamax(Optimizer):
    """Paddle's Adamax: ``m = b1 m + (1 - b1) g``, ``u = max(b2 u + eps, |g|)``,
    ``p -= lr / (1 - b1^t) * m / u``."""

    # what a parameter group may set for itself (Paddle's _update_param_group)
    _group_options = {"beta1": "_beta1", "beta2": "_beta2", "epsilon": "_epsilon"}

    _accumulator_names = ("moment", "inf_norm", "beta1_pow_acc")

    def __init__(self, learning_rate: float | LRScheduler = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-08, parameters: Iterable[Tensor] | Iterable[dict] | None = None,
                 weight_decay: float | L2Decay | None = None, grad_clip: Callable | None = None,
                 name: str | None = None) -> None:
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        check_betas("Adamax", beta1, beta2)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon

    def _acc_spec(self, acc):
        return {"init": self._beta1, "shape": (1,)} if acc == "beta1_pow_acc" else {}

    def _update(self, p, g, lr, group):
        dt = g.dtype.type
        m, u = self._acc("moment", p), self._acc("inf_norm", p)
        b1p = self._acc("beta1_pow_acc", p, **self._acc_spec("beta1_pow_acc"))
        m *= dt(self._beta1)
        m += (dt(1) - dt(self._beta1)) * g  # 1 - beta1 in the parameter dtype, as Paddle
        np.maximum(u * dt(self._beta2) + dt(self._epsilon), np.abs(g), out=u)
        lr_t = np.asarray(lr, g.dtype) / (dt(1) - b1p)
        self._write(p, p._value - lr_t * (m / u))
        b1p *= dt(self._beta1)
