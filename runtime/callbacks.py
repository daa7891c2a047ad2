"""``paddle.callbacks`` as a module (``from paddle.callbacks import EarlyStopping``): the callbacks of
``paddle.Model``, defined in runtime/hapi/callbacks.py."""
from .hapi.callbacks import (Callback, EarlyStopping, LRScheduler, ModelCheckpoint, ProgBarLogger,  # noqa: F401
                             ReduceLROnPlateau, config_callbacks)

__all__ = ["Callback", "ProgBarLogger", "ModelCheckpoint", "LRScheduler", "EarlyStopping", "ReduceLROnPlateau"]
