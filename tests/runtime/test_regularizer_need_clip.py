"""A parameter's own ``ParamAttr(regularizer=..., need_clip=...)`` and ``rt.regularizer.L1Decay``: applied
as Paddle applies them, eagerly and in a converted training step alike (they were ignored)."""
import numpy as np
import pytest

import runtime as rt
import runtime.nn.functional as F
from runtime import nn
from runtime.regularizer import L1Decay, L2Decay
from step_helpers import train_step

_X = np.random.default_rng(0).standard_normal((6, 4)).astype("float32")
_Y = np.array([0, 1, 2, 1, 0, 2], "int64")


def _train(weight_attr, make_opt, convert, steps=3):
    rt.seed(0)
    fc = nn.Linear(4, 3, weight_attr=weight_attr)
    opt = make_opt(fc.parameters())
    w0 = fc.weight.numpy().copy()
    fn = train_step(fc, opt, convert)
    for _ in range(steps):
        fn(rt.to_tensor(_X), rt.to_tensor(_Y))
    return w0, fc.weight.numpy(), fc.bias.numpy()


def _expected_sgd_weight(w0, lr, term):
    """The weight after one SGD step, by hand from the eager gradient of the plain loss."""
    rt.seed(0)
    fc = nn.Linear(4, 3)
    loss = F.cross_entropy(fc(rt.to_tensor(_X)), rt.to_tensor(_Y))
    loss.backward()
    return w0 - np.float32(lr) * (fc.weight.grad.numpy() + term(w0))


@pytest.mark.parametrize("decay", [None, 0.5])
@pytest.mark.parametrize("convert", [False, True])
@pytest.mark.parametrize("reg, term", [(L2Decay(0.1), lambda w: np.float32(0.1) * w),
                                       (L1Decay(0.1), lambda w: np.float32(0.1) * np.sign(w))])
def test_a_parameters_own_regularizer_replaces_the_optimizers_decay(reg, term, convert, decay):
    # the optimizer's weight_decay must not touch the weight: its own regularizer replaces it
    w0, w, _ = _train(rt.ParamAttr(regularizer=reg), lambda ps: rt.optimizer.SGD(0.1, parameters=ps,
                                                                                  weight_decay=decay), convert, steps=1)
    np.testing.assert_allclose(w, _expected_sgd_weight(w0, 0.1, term), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make", [lambda ps: rt.optimizer.SGD(0.1, parameters=ps, weight_decay=L1Decay(0.05)),
                                  lambda ps: rt.optimizer.Adam(0.01, parameters=ps, weight_decay=L1Decay(0.05)),
                                  lambda ps: rt.optimizer.Momentum(0.1, parameters=ps, weight_decay=L2Decay(0.05))])
def test_group_decays_are_the_same_eagerly_and_converted(make):
    eager = _train(None, make, False)
    static = _train(None, make, True)
    for a, b in zip(eager, static):
        assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("clip", [nn.ClipGradByGlobalNorm(1e-4), nn.ClipGradByNorm(1e-4), nn.ClipGradByValue(1e-5)])
@pytest.mark.parametrize("convert", [False, True])
def test_a_parameter_made_with_need_clip_false_keeps_its_gradient(clip, convert):
    make = lambda ps: rt.optimizer.SGD(0.1, parameters=ps, grad_clip=clip)  # noqa: E731
    w0, w, _ = _train(rt.ParamAttr(need_clip=False), make, convert, steps=1)
    np.testing.assert_allclose(w, _expected_sgd_weight(w0, 0.1, lambda w: 0), rtol=1e-5, atol=1e-6)
    _, clipped, _ = _train(None, make, convert, steps=1)
    assert np.abs(clipped - w0).max() < 1e-3 < np.abs(w - w0).max()  # the clip is real for the others


def test_a_regularizer_of_another_kind_is_refused():
    with pytest.raises(TypeError, match="L1Decay or L2Decay"):
        rt.ParamAttr(regularizer=0.1)


@pytest.mark.parametrize("make", [lambda ps: rt.optimizer.SGD(0.1, parameters=ps),
                                  lambda ps: rt.optimizer.Adam(0.01, parameters=ps)])
def test_a_regularizer_given_after_the_first_step_is_applied(make):
    # the flat update (and the update written for a compiled step) were made when it had none
    runs = []
    for convert, late in ((False, True), (True, True), (False, False)):
        rt.seed(0)
        fc = nn.Linear(4, 3)
        fn = train_step(fc, make(fc.parameters()), convert)
        fn(rt.to_tensor(_X), rt.to_tensor(_Y))
        if late:
            fc.weight.regularizer = L1Decay(0.5)
        for _ in range(2):
            fn(rt.to_tensor(_X), rt.to_tensor(_Y))
        runs.append(fc.weight.numpy())
    assert runs[0].tobytes() == runs[1].tobytes()
    assert np.abs(runs[0] - runs[2]).max() > 1e-3
