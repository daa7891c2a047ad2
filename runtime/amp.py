"""``rt.amp`` (Paddle's ``paddle.amp``) as Paddle runs it on a CPU-only build: ``auto_cast`` computes in
float32 (Paddle's CPU kernels under auto_cast give float32 results too), ``decorate`` returns the
models and optimizers unchanged, and ``GradScaler`` is disabled (``scale`` returns the loss itself,
``minimize``/``step`` are the optimizer's). So AMP training scripts port and train in float32 here,
with the numbers Paddle gives on a CPU."""
import contextlib
from collections.abc import Sequence

__all__ = ["auto_cast", "amp_guard", "decorate", "GradScaler", "is_float16_supported", "is_bfloat16_supported"]

_LEVELS = ("O0", "OD", "O1", "O2")


@contextlib.contextmanager
def auto_cast(enable: bool = True, custom_white_list: Sequence[str] | None = None,
              custom_black_list: Sequence[str] | None = None, level: str = "O1", dtype: str = "float16",
              use_promote: bool = True):
    """Mixed-precision region: float32 here, as on Paddle's CPU build (``level`` and ``dtype`` are checked)."""
    if level not in _LEVELS:
        raise ValueError(f"auto_cast: level must be one of {_LEVELS}, got {level!r}")
    if dtype not in ("float16", "bfloat16"):
        raise ValueError(f"auto_cast: dtype must be 'float16' or 'bfloat16', got {dtype!r}")
    yield


amp_guard = auto_cast


def is_float16_supported(device=None) -> bool:
    """False: float16 compute needs a GPU (Paddle's CPU build says False too)."""
    return False


def is_bfloat16_supported(device=None) -> bool:
    """False: ``auto_cast`` computes in float32 here, so a script that picks bfloat16 when it is
    supported keeps float32 (Paddle's CPU build says True and runs bfloat16 kernels)."""
    return False


def decorate(models, optimizers=None, level: str = "O1", dtype: str = "float16", master_weight=None,
             save_dtype=None, master_grad: bool = False, excluded_layers=None):
    """``models`` (and ``optimizers``) unchanged: parameters stay float32 on the CPU."""
    if level not in _LEVELS:
        raise ValueError(f"decorate: level must be one of {_LEVELS}, got {level!r}")
    return models if optimizers is None else (models, optimizers)


class GradScaler:
    """Loss scaling, disabled as on Paddle's CPU build: float32 gradients need none."""

    def __init__(self, enable: bool = True, init_loss_scaling: float = 65536.0, incr_ratio: float = 2.0,
                 decr_ratio: float = 0.5, incr_every_n_steps: int = 2000, decr_every_n_nan_or_inf: int = 1,
                 use_dynamic_loss_scaling: bool = True) -> None:
        self._init_loss_scaling = float(init_loss_scaling)

    def scale(self, var):
        """The loss itself (no scaling)."""
        return var

    def minimize(self, optimizer, *args, **kwargs):
        """``optimizer.minimize(*args, **kwargs)``."""
        return optimizer.minimize(*args, **kwargs)

    def step(self, optimizer):
        """``optimizer.step()``."""
        optimizer.step()

    def update(self):
        """Nothing to update: the scale is fixed at 1."""

    def unscale_(self, optimizer):
        """Nothing to unscale."""

    def is_enable(self):
        """False: loss scaling is off."""
        return False

    def is_use_dynamic_loss_scaling(self):
        """False: loss scaling is off."""
        return False

    def get_init_loss_scaling(self):
        """1.0, the scale in use."""
        return 1.0

    def state_dict(self):
        """``{}``: no scaling state (as Paddle's disabled scaler)."""
        return {}

    def load_state_dict(self, state_dict):
        """Nothing to restore."""
