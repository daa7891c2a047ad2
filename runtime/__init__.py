"""runtime: a numpy-backed deep learning framework with eager tensors and static Programs."""
from .version import __version__
from . import dtypes
from .dtypes import (DType, bool_ as bool, float16, float32, float64, int8, int16, int32, int64,  # noqa: A004
                     uint8)
from .tensor import Parameter, Tensor, enable_grad, is_grad_enabled, no_grad
from .framework import disable_static, enable_static, in_dynamic_mode
from . import ops
from .ops.common import cast, is_tensor
from .ops.math import add, add_n, divide, matmul, multiply, relu, scale, subtract
from .ops.elementwise import (abs, ceil, clip, cos, exp, floor, floor_divide, gelu, log, maximum,  # noqa: A004
                              minimum, mod, neg, pow, reciprocal, remainder, round, rsqrt, sigmoid, sign, sin,
                              sqrt, square, tanh)
from .ops.reduce import all, any, argmax, argmin, cumsum, max, mean, min, numel, prod, sum  # noqa: A004
from .ops.shape import (broadcast_to, chunk, concat, expand, expand_as, flatten, gather, index_add, reshape,
                        shape, split, squeeze, stack, tile, transpose, unsqueeze, unstack)
from .ops.logic import (bitwise_and, bitwise_not, bitwise_or, bitwise_xor, equal, greater_equal, greater_than,
                        isfinite, isinf, isnan, less_equal, less_than, logical_and, logical_not, logical_or,
                        logical_xor, nonzero, not_equal, where)
from .ops.sort import argsort, put_along_axis_add, sort, take_along_axis, topk
from .ops.creation import (arange, empty, empty_like, eye, full, full_like, linspace, normal, ones, ones_like,
                           rand, randint, randn, randperm, standard_normal, to_tensor, uniform, zeros,
                           zeros_like)
from .random import seed
from . import tensor_methods  # noqa: F401  (attaches operators to Tensor/Variable)
from . import nn, optimizer  # noqa: E402  (layers and optimizers build on the ops above)
from .nn import ParamAttr  # noqa: E402
from .serialization import load, save  # noqa: E402
from . import static  # noqa: E402,F401
