"""Paddle's `jit.save(..., skip_prune_program=True)` config was a TypeError; it is accepted as its
other harmless configs are (the saved Program, pruned to its outputs, computes the same)."""
import numpy as np

import dy2st
import runtime as rt
from dy2st import InputSpec


def test_skip_prune_program_saves_the_same_model(tmp_path):
    rt.seed(2)
    net = rt.nn.Sequential(rt.nn.Linear(3, 4), rt.nn.ReLU(), rt.nn.Linear(4, 2))
    net.eval()
    spec = [InputSpec([None, 3], "float32", "x")]
    dy2st.save(net, str(tmp_path / "a"), input_spec=spec, skip_prune_program=True, combine_params=True)
    loaded = dy2st.load(str(tmp_path / "a"))
    for n in (1, 5):
        x = rt.to_tensor(np.random.default_rng(n).normal(size=(n, 3)).astype("float32"))
        np.testing.assert_allclose(loaded(x).numpy(), net(x).numpy(), rtol=1e-6)
