"""Python's and numpy's random draws in converted code (`random.random()`, `np.random.rand()`, a
`random.Random`/`np.random.Generator` kept on a layer): they ran once, while the Program was
built, and every call reused that draw (a stochastic-depth branch taken forever). They are an
error at the user's line; full_graph=False runs the function eagerly instead."""
import random

import numpy as np
import pytest

import dy2st
import runtime as rt
from error_helpers import notes


def _module_random(x):
    if random.random() < 0.5:
        return x * 2
    return x


def _numpy_random(x):
    return x * np.random.rand()


class _DropPath(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.rng = np.random.default_rng(0)

    def forward(self, x):
        if self.training and self.rng.uniform() < 0.5:
            return x * 0
        return x


def _seeded(x):
    random.seed(3)  # not a draw: converts
    return x + 1


@pytest.mark.parametrize("fn, line", [(_module_random, "if random.random() < 0.5:"),
                                      (_numpy_random, "return x * np.random.rand()"),
                                      (_DropPath(), "self.rng.uniform() < 0.5")])
def test_python_and_numpy_random_draws_are_refused_at_the_users_line(fn, line):
    with pytest.raises(TypeError, match="random generator") as info:
        dy2st.to_static(fn)(rt.ones([2]))
    where = notes(info.value)
    assert "test_hunt_python_random.py" in where and line in where


def test_full_graph_false_draws_anew_and_seeding_converts():
    sf = dy2st.to_static(_numpy_random, full_graph=False)
    with pytest.warns(UserWarning):
        outs = {float(sf(rt.ones([1])).numpy()[0]) for _ in range(4)}
    assert len(outs) == 4
    np.testing.assert_array_equal(dy2st.to_static(_seeded)(rt.ones([2])).numpy(), [2.0, 2.0])
