"""``paddle.base.core``: the build queries code asks before choosing a device or a kernel library.
This runtime is numpy on the CPU: no CUDA, ROCm, XPU or oneDNN (mkldnn) build."""
from ..device import CPUPlace, is_compiled_with_cuda

__all__ = ["CPUPlace", "is_compiled_with_cuda", "is_compiled_with_rocm", "is_compiled_with_xpu",
           "is_compiled_with_mkldnn", "is_compiled_with_custom_device"]


def is_compiled_with_rocm():
    """False: no ROCm build."""
    return False


def is_compiled_with_xpu():
    """False: no XPU build."""
    return False


def is_compiled_with_mkldnn():
    """False: no oneDNN kernels."""
    return False


def is_compiled_with_custom_device(device_type):
    """False for every custom device type."""
    return False
