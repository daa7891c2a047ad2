"""Importing this package registers every op (each module declares its ops once)."""
from . import common, math  # noqa: F401
from . import creation, elementwise, indexing, logic, reduce, shape, slicing, sort  # noqa: F401
from . import nn_ops  # noqa: F401  (neural-network ops)
from . import composite_pad, composites_extra  # noqa: F401  (Paddle functions built from the ops above)
from . import index_extra, math_extra, search  # noqa: F401  (Paddle 2.x extras: erf, einsum, unique...)
from . import linalg, math_composites, norms  # noqa: F401  (Paddle 2.x extras made of the ops above)
from . import train_ops  # noqa: F401  (loss.backward(), opt.step(), opt.clear_grad() in a Program)
from . import tensor_array  # noqa: F401  (Paddle's tensor arrays: rt.tensor.array_write...)
from . import math_more, math_more_composites, math_special  # noqa: F401  (erfinv, lgamma, cummax, logit...)
from . import tensor_extra  # noqa: F401  (atleast_*, tensor_split, hstack, block_diag, *_scatter...)
from . import aliases, random_extra  # noqa: F401  (div, gt, clamp, cat...; poisson, multinomial, rand_like...)
