"""Layers converted with InputSpecs whose every dim is unknown (Paddle's
test_dynamic_shape_infermeta.py): one Program serves inputs of any size, eager-exact."""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from runtime.static import InputSpec

from .helpers import arr

ANY4 = [InputSpec(shape=[None, None, None, None], dtype="float32")]


def _eager(fn, *args):
    dy2st.enable_to_static(False)
    try:
        return fn(*args)
    finally:
        dy2st.enable_to_static(True)


@pytest.mark.parametrize("make", [lambda: rt.nn.GroupNorm(2, 4), lambda: rt.nn.GroupNorm(4, 4),
                                  lambda: rt.nn.Conv2D(4, 4, 3, groups=4), lambda: rt.nn.BatchNorm2D(4)],
                         ids=["group_norm2", "group_norm4", "depthwise", "batch_norm"])
def test_layer_with_every_dim_unknown_matches_eager_on_several_sizes(make):
    rt.seed(3)
    net = dy2st.to_static(make(), input_spec=ANY4)
    for i, shape in enumerate([(1, 4, 5, 5), (3, 4, 6, 4), (2, 4, 3, 7)]):
        xe, xs = (rt.to_tensor(arr(*shape, seed=i), stop_gradient=False) for _ in range(2))
        ye, ys = _eager(net, xe), net(xs)
        np.testing.assert_allclose(ys.numpy(), ye.numpy(), rtol=1e-5, atol=1e-6)
        (ye * ye).sum().backward()
        (ys * ys).sum().backward()
        np.testing.assert_allclose(xs.grad.numpy(), xe.grad.numpy(), rtol=1e-4, atol=1e-5)
    assert len(net.forward.program_cache) == 1


def test_group_norm_of_unknown_channels_fails_at_run_time_when_they_do_not_fit_its_parameters():
    net = dy2st.to_static(rt.nn.GroupNorm(2, 4), input_spec=ANY4)
    x = rt.to_tensor(arr(1, 6, 3, 3))  # 6 channels for a layer of 4: eager refuses too
    with pytest.raises(ValueError):
        _eager(net, x)
    with pytest.raises(ValueError):
        net(x)


def _group_norm_no_affine(x):
    return F.group_norm(x, 2)


def test_functional_group_norm_without_parameters_needs_known_channels():
    sf = dy2st.to_static(_group_norm_no_affine, input_spec=ANY4)
    with pytest.raises(ValueError, match="dim 1 of the input must be known"):
        sf(rt.to_tensor(arr(1, 4, 3, 3)))
    sf = dy2st.to_static(_group_norm_no_affine, input_spec=[InputSpec([None, 4, None, None])])
    for shape in [(1, 4, 3, 3), (2, 4, 5, 2)]:
        x = arr(*shape)
        np.testing.assert_allclose(sf(rt.to_tensor(x)).numpy(), _group_norm_no_affine(rt.to_tensor(x)).numpy(),
                                   rtol=1e-5, atol=1e-6)
