"""runtime: a numpy-backed deep learning framework with eager tensors and static Programs."""
from . import dtypes
from .dtypes import (DType, bool_ as bool, float16, float32, float64, int8, int16, int32, int64,  # noqa: A004
                     uint8)
from .tensor import Parameter, Tensor, enable_grad, is_grad_enabled, no_grad
from .framework import disable_static, enable_static, in_dynamic_mode
from . import ops
from .ops.common import cast, is_tensor
from .ops.math import add, divide, matmul, multiply, relu, scale, subtract
from . import tensor_methods  # noqa: F401  (attaches operators to Tensor/Variable)
