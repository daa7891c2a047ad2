"""Random control-flow programs run with every executor feature off and on: bitwise the same.

Programs come from the random-program grammar (``test_random_programs.generate``);
each is converted twice, once per feature setting, so each gets its own plans.
Outputs (inference plan, with compiled loops) and input gradients (forward+backward
plan) must be identical, not just close.
"""
import os

import numpy as np
import pytest
from test_random_programs import _inputs, _load, _loss, generate

import dy2st
import runtime as rt
from runtime.static import passes

ALL_OFF = {name: False for name in passes.FEATURES}
N_PROGRAMS = int(os.environ.get("DY2ST_FEATURE_PROGRAMS", 3))  # more: DY2ST_FEATURE_PROGRAMS=60


def _run(sf, cases, flag):
    outs = []
    for xv, nv in cases:
        with rt.no_grad():  # the inference plan (compiled loops) ...
            out = sf(rt.to_tensor(xv), rt.to_tensor(nv, dtype="int64"), flag)
        outs.append([o.numpy() for o in (out if isinstance(out, (tuple, list)) else (out,))])
        x = rt.to_tensor(xv, stop_gradient=False)  # ... and the forward+backward one
        out = sf(x, rt.to_tensor(nv, dtype="int64"), flag)
        _loss(out).backward()
        got = out if isinstance(out, (tuple, list)) else (out,)
        outs.append([o.numpy() for o in got] + [None if x.grad is None else x.grad.numpy()])
    return outs


@pytest.mark.parametrize("seed", range(0, 7 * N_PROGRAMS, 7))
def test_features_do_not_change_results(seed, tmp_path):
    src, _ = generate(seed)
    mod = _load(src, tmp_path, seed)
    rng = np.random.default_rng(seed)
    cases = [_inputs(rng, k) for k in range(2)]
    results = {}
    for label, flags in (("off", ALL_OFF), ("on", {})):
        sf = dy2st.to_static(mod.main)
        with passes.features(**flags):
            results[label] = [_run(sf, cases, flag) for flag in (True, False)]
    for off, on in zip(results["off"], results["on"]):
        for a_case, b_case in zip(off, on):
            for a, b in zip(a_case, b_case):
                if a is None or b is None:
                    assert a is None and b is None
                    continue
                assert a.dtype == b.dtype
                np.testing.assert_array_equal(a, b, err_msg=f"\n--- program (seed {seed}) ---\n{src}")
