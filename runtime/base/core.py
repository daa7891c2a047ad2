"""``paddle.base.core``: the build queries code asks before choosing a device or a kernel library.
This runtime is numpy on the CPU: no CUDA, ROCm, XPU or oneDNN (mkldnn) build."""
import types

from ..device import CPUPlace, is_compiled_with_cinn, is_compiled_with_cuda
from ..tensor import Tensor

__all__ = ["CPUPlace", "eager", "is_compiled_with_cuda", "is_compiled_with_rocm", "is_compiled_with_xpu",
           "is_compiled_with_mkldnn", "is_compiled_with_custom_device", "is_compiled_with_cinn", "is_run_with_cinn"]


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


def is_run_with_cinn():
    """False: no Program has run through CINN (``build_cinn_pass`` changes no result here)."""
    return False


# ``base.core.eager.Tensor``: the eager Tensor class under the path Paddle's code type-checks against
eager = types.SimpleNamespace(Tensor=Tensor)
