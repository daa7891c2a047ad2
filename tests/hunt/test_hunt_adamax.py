"""``rt.optimizer.Adamax`` (the dy2st reinforcement-learning test's optimizer): Paddle's update in
float32 (``1 - beta1`` taken in float32, as Paddle's kernel does: bitwise what Paddle 3.3 gives),
eagerly and inside a converted training step."""
import numpy as np
import pytest

import runtime as rt
from tests.step_helpers import squared_sum, train_step


@pytest.mark.parametrize("convert", [False, True])
def test_adamax_matches_paddles_update(convert):
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal((3, 2)).astype("float32")
    xs = [rng.standard_normal((4, 3)).astype("float32") for _ in range(4)]
    layer = rt.nn.Linear(3, 2, bias_attr=False)
    layer.weight.set_value(w0)
    opt = rt.optimizer.Adamax(learning_rate=0.01, parameters=layer.parameters(), weight_decay=0.01)

    fn = train_step(layer, opt, convert, loss_fn=squared_sum)

    got = []
    for x in xs:
        fn(rt.to_tensor(x))
        got.append(layer.weight.numpy().copy())
    w, want = w0, []
    m = u = np.zeros_like(w0)
    b1p = np.array([0.9], "float32")
    f = np.float32
    for x in xs:
        g = (2 * x.T @ (x @ w)).astype("float32") + f(0.01) * w
        m = f(0.9) * m + (f(1) - f(0.9)) * g
        u = np.maximum(u * f(0.999) + f(1e-8), np.abs(g))
        w = w - (np.asarray(0.01, f) / (f(1) - b1p)) * (m / u)
        b1p = b1p * f(0.9)
        want.append(w)
    for a, b in zip(want, got):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    assert opt.state_dict()["global_step"] == 4
