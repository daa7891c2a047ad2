"""Gradient clipping strategies an optimizer applies before its update (Paddle's ``nn.ClipGrad*``).

Each takes and returns a list of ``(param, grad_array)`` pairs (numpy, eager); a parameter made
with ``ParamAttr(need_clip=False)`` keeps its gradient as it is (and out of the global norm).
"""
import numpy as np


class ClipGradByGlobalNorm:
    """Scale all gradients by ``clip_norm / max(global_norm, clip_norm)``."""

    def __init__(self, clip_norm: float, group_name: str = "default_group") -> None:
        self.clip_norm = float(clip_norm)

    def __call__(self, params_grads):
        clipped = [(p, g) for p, g in params_grads if getattr(p, "need_clip", True)]
        if not clipped:
            return params_grads
        norm = float(np.sqrt(sum(float(np.sum(np.square(g, dtype=np.float64))) for _, g in clipped)))
        if norm <= self.clip_norm:
            return params_grads
        factor = self.clip_norm / norm
        return [(p, (g * factor).astype(g.dtype) if getattr(p, "need_clip", True) else g) for p, g in params_grads]


class ClipGradByNorm:
    """Clip each gradient to L2 norm ``clip_norm`` separately."""

    def __init__(self, clip_norm: float) -> None:
        self.clip_norm = float(clip_norm)

    def __call__(self, params_grads):
        out = []
        for p, g in params_grads:
            if not getattr(p, "need_clip", True):  # ParamAttr(need_clip=False)
                out.append((p, g))
                continue
            norm = float(np.sqrt(np.sum(np.square(g, dtype=np.float64))))
            out.append((p, (g * (self.clip_norm / norm)).astype(g.dtype) if norm > self.clip_norm else g))
        return out


class ClipGradByValue:
    """Clip every gradient element to [``min``, ``max``] (``min`` defaults to ``-max``). Pass as ``grad_clip``."""

    def __init__(self, max: float, min: float | None = None) -> None:  # noqa: A002  (Paddle's argument names)
        self.max = float(max)
        self.min = -self.max if min is None else float(min)

    def __call__(self, params_grads):
        return [(p, np.clip(g, self.min, self.max) if getattr(p, "need_clip", True) else g) for p, g in params_grads]
