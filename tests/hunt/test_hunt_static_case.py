"""``rt.static.nn.case`` / ``switch_case`` (Paddle 2.x's many-way branches) eagerly and in a converted
function, where they become nested ``cond`` ops; the chosen branches are the ones PaddlePaddle 3.3 picks."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime.static import InputSpec


def _branches(x, i):
    y = rt.static.nn.switch_case(i, {1: lambda: x * 2.0, 3: lambda: x - 1.0}, default=lambda: x + 0.5)
    z = rt.static.nn.switch_case(i, [lambda: x + 1.0, lambda: x + 2.0, lambda: x + 3.0])  # default: the last
    w = rt.static.nn.case([(x.sum() > 0, lambda: x * 10.0), (i > 1, lambda: -x)], default=lambda: x)
    v = rt.static.nn.case([(x.sum() > 0, lambda: x * 10.0), (i > 100, lambda: -x)])  # the last pair: default
    return y, z, w, v


# PaddlePaddle 3.3, for x = [-3, 1]
_PADDLE = {0: [[-2.5, 1.5], [-2.0, 2.0], [-3.0, 1.0], [3.0, -1.0]],
           1: [[-6.0, 2.0], [-1.0, 3.0], [-3.0, 1.0], [3.0, -1.0]],
           2: [[-2.5, 1.5], [0.0, 4.0], [3.0, -1.0], [3.0, -1.0]],
           3: [[-4.0, 0.0], [0.0, 4.0], [3.0, -1.0], [3.0, -1.0]],
           7: [[-2.5, 1.5], [0.0, 4.0], [3.0, -1.0], [3.0, -1.0]]}


def test_case_and_switch_case_pick_paddles_branch_eagerly_and_converted():
    conv = dy2st.to_static(_branches, input_spec=[InputSpec([None]), InputSpec([1], "int64")])
    for xs in ([1.0, 2.0], [-3.0, 1.0]):
        for i in (0, 1, 2, 3, 7):
            x, idx = rt.to_tensor(xs), rt.to_tensor([i])
            want, got = _branches(x, idx), conv(x, idx)
            for w, g in zip(want, got):
                np.testing.assert_array_equal(g.numpy(), w.numpy())
            if xs[0] < 0:
                assert [w.numpy().tolist() for w in want] == _PADDLE[i]
    assert len(conv.program_cache) == 1
    prog = conv.program_cache.last().main_program
    # one cond per index or predicate but the default, each nested in the false branch of the one before
    assert [op.type for b in prog.blocks for op in b.ops].count("cond") == 2 + 2 + 2 + 1


def test_case_and_switch_case_refuse_malformed_branches():
    x = rt.to_tensor([1.0])
    with pytest.raises(ValueError, match="index 1 appears more than once"):
        rt.static.nn.switch_case(rt.to_tensor([1]), [(1, lambda: x), (1, lambda: x)])
    with pytest.raises(TypeError, match="int32 or int64"):
        rt.static.nn.switch_case(rt.to_tensor([1.0]), [lambda: x])
    with pytest.raises(TypeError, match=r"\(pred, fn\) tuple"):
        rt.static.nn.case([x > 0])
