"""Found by the fuzzer's ``closures`` grammar: a function the converted code defines inside a tensor
loop (or a branch in one) closes over cells of the trace's own frames; the guards kept those cells
and what they held while tracing, so every later call found them "changed" and built the Program
again (one Program per call, results still right)."""
import numpy as np

import dy2st
import runtime as rt


def _def_in_loop(x):
    for row in x:
        def f(v):
            return v * x.mean() + row.sum() * 0.25
        x = f(x)
    return x


def _defs_in_branch_in_loop(x, y):
    for row in y:
        if x.mean() > 0.1:
            def fa(v):
                return v * x.mean() * 0.5
            def fb(v):
                return fa(v) + fa(y)
            x = x * 0.75 + fb(y)
        y = y * 0.9 + row * 0.1
    return x + y


def _calls(fn, nargs):
    rng = np.random.default_rng(0)
    static = dy2st.to_static(fn)
    for k in range(4):
        args = [rt.to_tensor(rng.standard_normal((3, 4)).astype("float32") * 0.4) for _ in range(nargs)]
        np.testing.assert_allclose(static(*args).numpy(), fn(*args).numpy(), rtol=1e-5, atol=1e-6)
    return static


def test_a_def_in_a_tensor_loop_builds_one_program():
    assert len(_calls(_def_in_loop, 1).program_cache) == 1


def test_defs_in_a_branch_in_a_tensor_loop_build_one_program():
    assert len(_calls(_defs_in_branch_in_loop, 2).program_cache) == 1


_K = [0.5]


def _outside_cell():
    k = _K  # a cell of the factory's frame: still guarded (its list's item by value)

    def main(x):
        def f(v):
            return v * k[0]
        for _ in x:
            x = f(x)
        return x
    return main


def test_a_cell_from_outside_the_trace_is_still_guarded():
    static = dy2st.to_static(_outside_cell())
    x = rt.to_tensor(np.ones((2, 4), "float32"))
    np.testing.assert_allclose(static(x).numpy(), np.full((2, 4), 0.25, "float32"))
    _K[0] = 2.0
    try:
        np.testing.assert_allclose(static(x).numpy(), np.full((2, 4), 4.0, "float32"))
    finally:
        _K[0] = 0.5
