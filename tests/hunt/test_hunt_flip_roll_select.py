"""Paddle's flip, roll and masked_select: values (expected ones from Paddle 3.3), methods, gradients,
and one converted function against eager on several inputs."""
import numpy as np
import pytest

import runtime as rt
from tests.compat.helpers import check

X = np.arange(12, dtype="float32").reshape(2, 3, 2)


def test_flip_and_roll_values_as_paddle():
    x = rt.to_tensor(X)
    np.testing.assert_array_equal(rt.flip(x, [0, 2]).numpy(), X[::-1, :, ::-1])
    np.testing.assert_array_equal(x.flip(-1).numpy(), X[:, :, ::-1])
    # paddle.roll(x, 1) (no axis) rolls the flat tensor and keeps the shape
    np.testing.assert_array_equal(rt.roll(x, 1).numpy().ravel(), [11, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    np.testing.assert_array_equal(x.roll([1, -4], axis=[0, 1]).numpy(), np.roll(X, (1, -4), (0, 1)))
    with pytest.raises(ValueError, match="same length"):
        rt.roll(x, [1, 2], axis=0)
    with pytest.raises(ValueError, match="out of range"):
        rt.flip(x, 3)


def test_masked_select_broadcasts_and_its_gradient_scatters_back():
    x = rt.to_tensor(X, stop_gradient=False)
    mask = rt.to_tensor(np.array([True, False]))  # broadcast over the last dim
    out = rt.masked_select(x, mask)
    np.testing.assert_array_equal(out.numpy(), X[..., 0].ravel())
    (out * out).sum().backward()
    want = np.zeros_like(X)
    want[..., 0] = 2 * X[..., 0]
    np.testing.assert_array_equal(x.grad.numpy(), want)
    with pytest.raises(TypeError, match="bool"):
        rt.masked_select(x, rt.to_tensor([1, 0]))


def _uses_all(x):
    y = rt.flip(x, 1) * 2 + x.roll(1, axis=0)
    if y.sum() > 0:
        y = y + rt.roll(y, -1)
    return y, rt.masked_select(y, y > 1.0)


def test_converted_against_eager():
    rng = np.random.default_rng(0)
    sf = check(_uses_all, *[rng.normal(size=(3, 4)).astype("float32") for _ in range(3)], grad=True)
    assert len(sf.program_cache) == 1
