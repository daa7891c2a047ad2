"""Channel dropout in 1-D/3-D, the alpha dropouts and RReLU (runtime/ops/nn_dropout_extra.py,
runtime/nn/layers_dropout_extra.py): Paddle 3.3's constants and rules (hard-coded below, from
paddle.nn.functional in a scratch script), converted against eager after the same seed bitwise with
gradients, fresh draws at every call of converted code, eval mode saved and loaded; errors."""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from nnapi_helpers import check_saved, run_with_grads

X = np.linspace(-2, 2, 40, dtype="float32").reshape(2, 4, 5)


def _seeded(fn, *arrays):
    rt.seed(7)
    return run_with_grads(fn, arrays)


@pytest.mark.parametrize("fn", [lambda x: F.alpha_dropout(x, 0.3), lambda x: F.feature_alpha_dropout(x, 0.4),
                                lambda x: F.rrelu(x, 0.1, 0.3), lambda x: F.dropout1d(x, 0.5),
                                lambda x: F.dropout3d(x.reshape([2, 4, 1, 1, 5]), 0.5)],
                         ids=["alpha", "feature_alpha", "rrelu", "dropout1d", "dropout3d"])
def test_converted_draws_as_eager_and_fresh_per_call(fn):
    eager, static = _seeded(fn, X), _seeded(dy2st.to_static(fn), X)
    for e, s in zip(eager[0] + eager[1], static[0] + static[1]):
        np.testing.assert_array_equal(s, e)
    sf = dy2st.to_static(fn)
    assert not np.array_equal(sf(rt.to_tensor(X)).numpy(), sf(rt.to_tensor(X)).numpy())


def test_alpha_dropout_constants_match_paddle():
    # Paddle 3.3, F.alpha_dropout(x, 0.3): dropped entries are a * alpha_p + b = -1.0595481589864801, kept ones
    # a * x + b with a = 0.8609526162463561, b = 0.4540920681370629
    rt.seed(1)
    y = F.alpha_dropout(rt.to_tensor(X), 0.3).numpy()
    dropped = np.isclose(y, -1.0595481589864801)
    np.testing.assert_allclose(y[~dropped], 0.8609526162463561 * X[~dropped] + 0.4540920681370629, rtol=1e-6)
    assert 0.1 < dropped.mean() < 0.5
    feat = F.feature_alpha_dropout(rt.ones([4, 3, 2]), 0.5).numpy()  # Paddle: 1.6655989 kept, -0.7791938 dropped
    assert (np.isclose(feat, 1.6655989) | np.isclose(feat, -0.7791938)).all()
    assert (feat[..., 0] == feat[..., 1]).all()
    np.testing.assert_array_equal(F.alpha_dropout(rt.to_tensor(X), 1.0).numpy(), np.zeros_like(X))
    np.testing.assert_array_equal(F.alpha_dropout(rt.to_tensor(X), 0.3, training=False).numpy(), X)


def test_channel_dropout_masks_as_paddle():
    # Paddle's dropout1d draws one mask over the channels for the whole batch; dropout3d one per (sample, channel)
    one = F.dropout1d(rt.ones([3, 8, 2]), 0.5).numpy()
    assert (one == one[:1]).all() and set(one.ravel()) <= {0.0, 2.0}
    assert F.dropout1d(rt.ones([8, 2]), 0.5).shape == [8, 2]
    three = F.dropout3d(rt.ones([64, 3, 1, 2, 1]), 0.5, data_format="NCDHW").numpy()
    assert (three[:, :, :, 0] == three[:, :, :, 1]).all() and not (three == three[:1]).all()
    last = F.dropout3d(rt.ones([4, 1, 2, 1, 6]), 0.5, data_format="NDHWC").numpy()
    assert (last[:, :, 0] == last[:, :, 1]).all()


def test_rrelu_matches_paddle():
    # Paddle 3.3: F.rrelu(x, training=False) is x * (0.125 + 1/3) / 2 below 0; its gradient at 0 is 1
    np.testing.assert_allclose(F.rrelu(rt.to_tensor(X), training=False).numpy().ravel()[:4],
                               [-0.45833334, -0.43482906, -0.4113248, -0.3878205], rtol=1e-6)
    x = rt.to_tensor(np.array([[-1.0, 0.0, 2.0]], "float32"), stop_gradient=False)
    F.rrelu(x, 0.2, 0.2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0.2, 1, 1]], rtol=1e-6)
    slopes = F.rrelu(rt.to_tensor(X)).numpy()[X < 0] / X[X < 0]
    assert 0.125 <= slopes.min() and slopes.max() < 1 / 3 and np.unique(slopes).size > 10


def test_layers_train_eval_reprs_save_and_onnx(tmp_path):
    assert repr(rt.nn.RReLU(0.1, 0.3)) == "RReLU(lower=0.1, upper=0.3, training=True, dtype=float32)"
    assert repr(rt.nn.Dropout3D(0.3)) == "Dropout3D(p=0.3, data_format=NCDHW)"
    assert repr(rt.nn.FeatureAlphaDropout(0.2)) == "FeatureAlphaDropout(p=0.2)"
    m = rt.nn.Sequential(rt.nn.AlphaDropout(0.2), rt.nn.FeatureAlphaDropout(0.3), rt.nn.RReLU())
    assert not np.array_equal(m(rt.to_tensor(X)).numpy(), X)
    m.eval()
    np.testing.assert_array_equal(m(rt.to_tensor(X)).numpy(), np.where(X >= 0, X, X * np.float32(0.22916667)))

    def make():
        return rt.nn.Sequential(rt.nn.Dropout3D(), rt.nn.RReLU(0.1, 0.2))
    check_saved(make(), X.reshape(2, 4, 1, 1, 5), tmp_path)  # (their eval rows export to ONNX: test_ops_registry)


def test_errors():
    with pytest.raises(ValueError, match="upper value must be no greater than one"):
        F.rrelu(rt.to_tensor(X), 0.1, 1.5)
    with pytest.raises(TypeError, match="must be float type"):
        F.rrelu(rt.to_tensor(X), 1, 0.5)
    with pytest.raises(RuntimeError, match="dropout1d expects 2D or 3D input, got 4D"):
        F.dropout1d(rt.ones([1, 2, 3, 4]))
    with pytest.raises(ValueError, match="dropout3d: dimensions of x should be 5"):
        F.dropout3d(rt.to_tensor(X))
    with pytest.raises(ValueError, match="p must be in"):
        F.alpha_dropout(rt.to_tensor(X), 2.0)
