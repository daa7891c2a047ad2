"""``rt.optimizer.LBFGS`` (Paddle 2.5+'s ``paddle.optimizer.LBFGS``): limited-memory BFGS driven by a
closure, ``opt.step(closure)``, the closure clearing the gradients, computing the loss, calling
``backward()`` and returning the loss.

Paddle's algorithm step for step (a port of PyTorch's): the parameters seen as one flat vector, the
two-loop recursion over the last ``history_size`` (s, y) pairs, a fixed step (``learning_rate``; the
first one scaled by ``min(1, 1 / |g|_1)``) or a strong-Wolfe line search with cubic interpolation.
Values that are 0-D tensors in Paddle are float32 numpy scalars here and Python numbers stay Python
numbers, so numpy's promotion of the two matches Paddle's arithmetic. Paddle's LBFGS ignores
``weight_decay`` and ``grad_clip``; so does this one. The closure may call a converted model.
"""
from collections.abc import Callable, Iterable

import numpy as np

from ..tensor import Tensor, bump_version, enable_grad, no_grad
from ..static.backends import weights_changed
from ..trace_state import converting
from .optimizer import Optimizer

__all__ = ["LBFGS"]


def _dot(x, y):
    return (x * y).sum(axis=-1)


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimum of the cubic through (x1, f1, g1) and (x2, f2, g2), within ``bounds`` (Nocedal &
    Wright, 3.59)."""
    xmin_bound, xmax_bound = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = np.sqrt(d2_square)
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _strong_wolfe(obj_func, xk, alpha, d, loss, grad, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """Paddle's strong-Wolfe line search (bracketing, then zoom): (loss, grad, alpha, evaluations)."""
    d_norm = np.abs(d).max()
    grad = grad.copy()
    loss_new, grad_new = obj_func(xk, alpha, d)
    ls_func_evals = 1
    gtd_new = _dot(grad_new, d)
    t_prev, f_prev, g_prev, gtd_prev = 0, loss, grad, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if loss_new > (loss + c1 * alpha * gtd) or (ls_iter > 1 and loss_new >= f_prev):
            bracket, bracket_f = [t_prev, alpha], [f_prev, loss_new]
            bracket_g, bracket_gtd = [g_prev, grad_new.copy()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [alpha], [loss_new], [grad_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, alpha], [f_prev, loss_new]
            bracket_g, bracket_gtd = [g_prev, grad_new.copy()], [gtd_prev, gtd_new]
            break
        min_step = alpha + 0.01 * (alpha - t_prev)
        max_step = alpha * 10
        tmp = alpha
        alpha = _cubic_interpolate(t_prev, f_prev, gtd_prev, alpha, loss_new, gtd_new, bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, loss_new, grad_new.copy(), gtd_new
        loss_new, grad_new = obj_func(xk, alpha, d)
        ls_func_evals += 1
        gtd_new = _dot(grad_new, d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, alpha], [loss, loss_new], [grad, grad_new]
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        alpha = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1])
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - alpha, alpha - min(bracket)) < eps:
            if insuf_progress or alpha >= max(bracket) or alpha <= min(bracket):
                alpha = max(bracket) - eps if abs(alpha - max(bracket)) < abs(alpha - min(bracket)) \
                    else min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        loss_new, grad_new = obj_func(xk, alpha, d)
        ls_func_evals += 1
        gtd_new = _dot(grad_new, d)
        ls_iter += 1
        if loss_new > (loss + c1 * alpha * gtd) or loss_new >= bracket_f[low_pos]:
            bracket[high_pos], bracket_f[high_pos] = alpha, loss_new
            bracket_g[high_pos], bracket_gtd[high_pos] = grad_new.copy(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos], bracket_gtd[high_pos] = bracket_g[low_pos], bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = alpha, loss_new
            bracket_g[low_pos], bracket_gtd[low_pos] = grad_new.copy(), gtd_new
    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals


class LBFGS(Optimizer):
    """Limited-memory BFGS: ``step(closure)`` runs up to ``max_iter`` iterations (``max_eval`` closure
    calls, default ``max_iter * 5 // 4``), stopping early when the gradient's largest entry is at most
    ``tolerance_grad`` or the step or the loss changes by less than ``tolerance_change``.
    ``line_search_fn``: None (fixed steps) or "strong_wolfe"."""

    def __init__(self, learning_rate: float = 1.0, max_iter: int = 20, max_eval: int | None = None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None, parameters: Iterable[Tensor] | Iterable[dict] | None = None,
                 weight_decay: float | None = None, grad_clip: Callable | None = None, name: str | None = None) -> None:
        if isinstance(parameters, Tensor):
            raise TypeError("LBFGS: parameters must be an iterable of Tensors or dicts, got a Tensor")
        if line_search_fn not in (None, "strong_wolfe"):
            raise RuntimeError(f"LBFGS: only line_search_fn='strong_wolfe' (or None) is supported, got {line_search_fn!r}")
        super().__init__(1.0, parameters, weight_decay, grad_clip, name)
        self.learning_rate, self.max_iter = learning_rate, max_iter
        self.max_eval = max_iter * 5 // 4 if max_eval is None else max_eval
        self.tolerance_grad, self.tolerance_change = tolerance_grad, tolerance_change
        self.history_size, self.line_search_fn = history_size, line_search_fn
        self.state = {}
        self._params = self._param_groups[-1]["params"]  # Paddle's: the last group's parameters

    # -- the parameters as one flat vector --------------------------------------------------------
    def _gather_flat_grad(self):
        return np.concatenate([np.zeros(p._value.size, p._value.dtype) if p.grad is None
                               else p.grad._value.reshape(-1) for p in self._params])

    def _add_grad(self, alpha, direction):
        offset = 0
        for p in self._params:
            n = p._value.size
            self._write(p, p._value + direction[offset:offset + n].reshape(p._value.shape) * alpha)
            bump_version(p)  # a graph recorded before this update can no longer give its gradient
            offset += n
        weights_changed()

    def _set_param(self, values):
        for p, v in zip(self._params, values):
            self._write(p, v)
            bump_version(p)
        weights_changed()

    def _directional_evaluate(self, closure, x, alpha, d):
        self._add_grad(alpha, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    def step(self, closure) -> Tensor:
        """Run the iterations of one LBFGS step; ``closure()`` re-evaluates the model (clear the gradients,
        compute the loss, ``backward()``) and returns the loss. Returns the closure's first loss."""
        if converting():  # its iterations and line search branch on loss values, in Python
            raise NotImplementedError(
                "LBFGS.step(closure) inside a converted function: its iterations and line search decide on "
                "the loss and gradient values in Python, which a Program being built does not have; call "
                "opt.step(closure) outside the converted function (the closure may call converted functions)")
        with no_grad():
            return self._step(closure)

    def _step(self, closure):
        def evaluate():
            with enable_grad():
                return closure()

        lr, tol_change, state = self.learning_rate, self.tolerance_change, self.state
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = evaluate()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if np.abs(flat_grad).max() <= self.tolerance_grad:
            return orig_loss
        dt = flat_grad.dtype.type
        d, alpha = state.get("d"), state.get("alpha")
        old_yk, old_sk, ro, h_diag = state.get("old_yk"), state.get("old_sk"), state.get("ro"), state.get("H_diag")
        prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")
        n_iter = 0
        while n_iter < self.max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = -flat_grad
                old_yk, old_sk, ro, h_diag = [], [], [], dt(1.0)
            else:
                y = flat_grad - prev_flat_grad
                s = d * dt(alpha)
                ys = _dot(y, s)
                if ys > 1e-10:
                    if len(old_yk) == self.history_size:
                        old_yk.pop(0)
                        old_sk.pop(0)
                        ro.pop(0)
                    old_yk.append(y)
                    old_sk.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / _dot(y, y)
                al = state.setdefault("al", [None] * self.history_size)
                q = -flat_grad
                for i in range(len(old_yk) - 1, -1, -1):
                    al[i] = _dot(old_sk[i], q) * ro[i]
                    q = q + old_yk[i] * (-al[i])
                d = r = q * h_diag
                for i in range(len(old_yk)):
                    be_i = _dot(old_yk[i], r) * ro[i]
                    r = r + old_sk[i] * (al[i] - be_i)
                d = r
            prev_flat_grad = flat_grad.copy()
            prev_loss = loss
            alpha = min(1.0, 1.0 / np.abs(flat_grad).sum()) * lr if state["n_iter"] == 1 else lr
            gtd = _dot(flat_grad, d)
            if gtd > -tol_change:
                break
            ls_func_evals = 0
            if self.line_search_fn is not None:
                x_init = [p._value.copy() for p in self._params]
                loss, flat_grad, alpha, ls_func_evals = _strong_wolfe(
                    lambda x, a, dd: self._directional_evaluate(evaluate, x, a, dd), x_init, alpha, d, loss,
                    flat_grad, gtd)
                self._add_grad(alpha, d)
                opt_cond = np.abs(flat_grad).max() <= self.tolerance_grad
            else:
                self._add_grad(alpha, d)
                opt_cond = False
                if n_iter != self.max_iter:
                    loss = float(evaluate())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = np.abs(flat_grad).max() <= self.tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals
            if opt_cond or np.abs(d * alpha).max() <= tol_change or abs(loss - prev_loss) < tol_change:
                break
            if current_evals >= self.max_eval or n_iter == self.max_iter:
                break
        state.update(d=d, alpha=alpha, old_yk=old_yk, old_sk=old_sk, ro=ro, H_diag=h_diag,
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss

    def state_dict(self):
        """Paddle's ``{'state': {...}}``: the iteration counts, the last direction and step, the history."""
        return {"state": dict(self.state)}

    def set_state_dict(self, state_dict):
        """Restore what ``state_dict()`` returned."""
        self.state = dict(state_dict["state"])

    set_dict = set_state_dict

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Not how LBFGS is used: call ``step(closure)``."""
        raise NotImplementedError("LBFGS does not minimize a loss: call opt.step(closure), the closure computing "
                                  "the loss and its gradients")
