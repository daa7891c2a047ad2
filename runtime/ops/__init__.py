"""Importing this package registers every op (each module declares its ops once)."""
from . import common, math  # noqa: F401
from . import creation, elementwise, indexing, logic, reduce, shape, slicing, sort  # noqa: F401
from . import nn_ops  # noqa: F401  (neural-network ops)
from . import composite_pad, composites_extra  # noqa: F401  (Paddle functions built from the ops above)
from . import index_extra, math_extra, put_reduce, search  # noqa: F401  (Paddle 2.x extras: erf, einsum, unique...)
from . import linalg, math_composites, norms, order_stats  # noqa: F401  (Paddle 2.x extras made of the ops above)
from . import linalg_ops, linalg_lu, linalg_api, linalg_norms, linalg_more  # noqa: F401  (paddle.linalg: decompositions, solvers)
from . import train_ops  # noqa: F401  (loss.backward(), opt.step(), opt.clear_grad() in a Program)
from . import tensor_array  # noqa: F401  (Paddle's tensor arrays: rt.tensor.array_write...)
from . import nn_pool_adaptive  # noqa: F401  (adaptive max/avg pooling in 1-D/3-D, LP pooling)
from . import nn_dropout_extra  # noqa: F401  (dropout1d/3d, alpha dropouts, rrelu)
from . import nn_activation_inplace  # noqa: F401  (F.relu_, F.tanh_...: in-place activations)
from . import nn_vision_extra  # noqa: F401  (F.fold, F.affine_grid, F.grid_sample)
from . import nn_misc_extra  # noqa: F401  (F.gumbel_softmax, F.pdist, F.logsigmoid)
from . import nn_ctc, nn_loss_nnapi  # noqa: F401  (F.ctc_loss, margin losses, npair, hsigmoid)
from . import math_more, math_more_composites, math_special  # noqa: F401  (erfinv, lgamma, cummax, logit...)
from . import tensor_extra  # noqa: F401  (atleast_*, tensor_split, hstack, block_diag, *_scatter...)
from . import aliases, random_extra  # noqa: F401  (div, gt, clamp, cat...; poisson, multinomial, rand_like...)
