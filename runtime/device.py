"""Devices: runtime computes with numpy on the CPU, so "cpu" is the one device (Paddle's set_device/get_device),
and float32 the one default dtype (set_default_dtype/get_default_dtype)."""

__all__ = ["CPUPlace", "set_device", "get_device", "is_compiled_with_cuda", "set_default_dtype", "get_default_dtype"]


class CPUPlace:
    """The CPU, the only place a runtime Tensor lives."""

    def __repr__(self):
        return "Place(cpu)"

    def __eq__(self, other):
        return isinstance(other, CPUPlace)

    def __hash__(self):
        return hash("cpu")

    def is_cpu_place(self):
        """True (Paddle's ``Place.is_cpu_place``)."""
        return True

    def is_gpu_place(self):
        """False: there is no GPU (Paddle's ``Place.is_gpu_place``)."""
        return False


def set_device(device):
    """Select the device for new tensors; only ``"cpu"`` exists here. Returns its place."""
    if not isinstance(device, str):
        raise TypeError(f"set_device expects a device name such as 'cpu', got {type(device).__name__}")
    if device.strip().lower() != "cpu":
        raise ValueError(f"device {device!r} is not available: runtime computes with numpy on the CPU, "
                         "so the only device is 'cpu'")
    return CPUPlace()


def get_device():
    """The current device name: always ``"cpu"``."""
    return "cpu"


def is_compiled_with_cuda():
    """False: there is no GPU support."""
    return False


def set_default_dtype(d):
    """Paddle's default float dtype for new parameters and Python floats: float32 here, the only
    setting supported (another one raises rather than being ignored)."""
    from .dtypes import convert_dtype  # noqa: PLC0415  (dtypes stays free of device imports)
    name = str(convert_dtype(d))
    if name != "float32":
        raise NotImplementedError(f"set_default_dtype({name!r}): only float32 is supported as the default dtype")


def get_default_dtype():
    """The default float dtype: ``"float32"``."""
    return "float32"
