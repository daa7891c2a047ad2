"""`rt.seed(n)` inside a converted function restarts the random stream at every eager call, so its
draws repeat; it ran once, while the Program was built, and the later calls drew new values. It is
a `seed` op now, run in its place before the draws after it."""
import numpy as np

import dy2st
import runtime as rt
import runtime.nn.functional as F


def _seeded_draws(x):
    rt.seed(5)
    return x + rt.rand([3]), F.dropout(x, 0.5)


def test_seed_in_converted_code_repeats_the_draws_at_every_call():
    x = rt.ones([3])
    want = [t.numpy() for t in _seeded_draws(x)]
    want_next = rt.rand([2]).numpy()  # where the eager call leaves the stream
    sf = dy2st.to_static(_seeded_draws)
    for _ in range(3):
        for got, w in zip(sf(x), want):
            np.testing.assert_array_equal(got.numpy(), w)
        np.testing.assert_array_equal(rt.rand([2]).numpy(), want_next)
