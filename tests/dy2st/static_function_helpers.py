"""Helpers shared by the StaticFunction contract tests (test_static_function*.py)."""
import numpy as np

import runtime as rt


def op_types(program):
    """Every op type in every block (sub-blocks of cond/while included)."""
    return [op.type for block in program.blocks for op in block.ops]


def t(a, dtype="float32", stop_gradient=True):
    return rt.to_tensor(np.asarray(a, dtype=dtype), stop_gradient=stop_gradient)


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype("float32")


def branchy(x, n):
    s = rt.zeros([1], "float32")
    i = 0
    while i < n:
        if x.mean() > 0:
            s = s + x.sum()
        else:
            s = s - 1.0
        i += 1
    return s
