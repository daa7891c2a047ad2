"""``paddle.set_flags`` / ``paddle.get_flags``: Paddle's global ``FLAGS_*`` settings. The numpy runtime has
no cuDNN, oneDNN or allocator to tune, so a flag is only recorded (training scripts set
``FLAGS_cudnn_deterministic`` and the like and read them back); results never depend on one."""

__all__ = ["get_flags", "set_flags"]

# the flags Paddle's training scripts commonly set, at Paddle's defaults
_FLAGS = {"FLAGS_cudnn_deterministic": False, "FLAGS_use_mkldnn": False, "FLAGS_check_nan_inf": False,
          "FLAGS_eager_delete_tensor_gb": 0.0, "FLAGS_fraction_of_gpu_memory_to_use": 0.92}


def set_flags(flags):
    """Record each ``{"FLAGS_name": value}``; TypeError for a non-dict, ValueError for a name not
    starting with ``FLAGS_``."""
    if not isinstance(flags, dict):
        raise TypeError(f"set_flags expects a dict of flags, got {type(flags).__name__}")
    for name in flags:
        if not isinstance(name, str) or not name.startswith("FLAGS_"):
            raise ValueError(f"set_flags: {name!r} is not a flag name (they start with 'FLAGS_')")
    _FLAGS.update(flags)


def get_flags(flags):
    """``{name: value}`` for a flag name or a list/tuple of them; ValueError for a flag that is neither
    one of the common ones nor set before."""
    names = [flags] if isinstance(flags, str) else list(flags)
    missing = [n for n in names if n not in _FLAGS]
    if missing:
        raise ValueError(f"get_flags: flag {missing[0]!r} cannot get its value through this function "
                         "(it was never set)")
    return {n: _FLAGS[n] for n in names}
