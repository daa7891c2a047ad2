"""rt.norm / rt.linalg.norm / rt.dist as Paddle's (expected values from Paddle 3.3), a zero gradient at a
zero vector, and a converted function against eager."""
import math

import numpy as np
import pytest

import runtime as rt
from tests.compat.helpers import check

X = np.array([[1.0, -2.0, 0.0], [3.0, 0.0, -4.0]], "float32")


@pytest.mark.parametrize("kw, want", [
    ({}, 5.4772258), ({"p": "fro", "axis": [0, 1]}, 5.4772258), ({"p": 1, "axis": 1}, [3.0, 7.0]),
    ({"p": math.inf}, 4.0), ({"p": 0, "axis": 0}, [2.0, 1.0, 1.0]), ({"p": 2, "axis": 0}, [3.1622777, 2.0, 4.0]),
    ({"p": 3, "axis": -1, "keepdim": True}, [[2.0800838], [4.4979415]]),
])
def test_norm_values_as_paddle(kw, want):
    np.testing.assert_allclose(rt.norm(rt.to_tensor(X), **kw).numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(rt.linalg.norm(rt.to_tensor(X), **kw).numpy(), want, rtol=1e-6)


def test_dist_and_matrix_norms():
    x = rt.to_tensor(X)
    assert float(rt.dist(x, x * 0)) == pytest.approx(5.4772258)
    assert float(x.dist(x * 0, p=math.inf)) == 4.0 and float(rt.dist(x, x * 0, p=0)) == 4.0
    # matrix norms (linalg.matrix_norm), values from Paddle 3.3
    assert float(rt.norm(x, p="nuc")) == pytest.approx(7.179182, rel=1e-6)
    assert float(rt.norm(x, p=2, axis=[0, 1])) == pytest.approx(5.043838, rel=1e-6)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # 0 ** -0.5 inside the p=0.5 gradient
@pytest.mark.parametrize("p", [None, 3.0, 0.5])
def test_the_gradient_at_a_zero_vector_is_zero(p):
    z = rt.to_tensor(np.zeros(3, "float32"), stop_gradient=False)
    rt.norm(z, p=p).backward()
    np.testing.assert_array_equal(z.grad.numpy(), [0.0, 0.0, 0.0])


def _normalized(x):
    n = rt.norm(x, p=2, axis=1, keepdim=True)
    if n.max() > 1.0:
        x = x / (n + 1e-6)
    return x, rt.dist(x, x.mean(0), p=3)


def test_converted_against_eager():
    rng = np.random.default_rng(0)
    check(_normalized, *[rng.normal(size=(3, 4)).astype("float32") * s for s in (0.1, 2.0, 5.0)], grad=True)
