"""Found by probing the fuzzer's ``sublayers`` forms: an in-place method on an attribute
(``self.ema.add_(v)``, ``box.v.scale_(c)``) inside a tensor loop or branch was refused with "used
inside an expression ... call it as a statement of its own", though it was one.  It is now written as
``_jst.Inplace(self.ema, 'add_', v)``, as an item's is (``acc[0].add_(v)``): the write reaches the
attribute's holder out of the branch or loop."""
import numpy as np

import dy2st
import runtime as rt


class _Ema(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(4, 4)
        self.register_buffer("ema", rt.zeros([4]))

    def forward(self, x):
        k = 0
        while x.mean() < 1.0 and k < 3:
            k += 1
            x = self.fc(x) + 0.5
            if x.sum() > 0:
                self.ema = self.ema + x.mean(axis=0).detach()
                continue
            self.ema.add_(x.max(axis=0).detach() * 0.1)
        return x + self.ema


class _Box:
    def __init__(self, v):
        self.v = v


def _box_in_branch(x):
    b = _Box(x * 1.0)
    alias = b.v
    if x.mean() > 0:
        b.v.add_(x * 0.5)
    else:
        b.v.scale_(2.0)
    return b.v + alias


def test_an_in_place_method_on_a_buffer_in_a_tensor_loop_matches_eager():
    rt.seed(0)
    eager = _Ema()
    rt.seed(0)
    static = dy2st.to_static(_Ema())
    rng = np.random.default_rng(1)
    for k in range(4):
        xv = rng.standard_normal((3, 4)).astype("float32") + (k - 2) * 0.3
        x1, x2 = rt.to_tensor(xv, stop_gradient=False), rt.to_tensor(xv, stop_gradient=False)
        got, want = static(x1), eager(x2)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(static.ema.numpy(), eager.ema.numpy(), rtol=1e-5, atol=1e-6)
        got.sum().backward()
        want.sum().backward()
        np.testing.assert_allclose(x1.grad.numpy(), x2.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_an_in_place_method_on_an_attribute_in_a_tensor_branch_matches_eager():
    static = dy2st.to_static(_box_in_branch)
    for sign in (1.0, -1.0):
        x = rt.to_tensor(np.full((2, 4), sign, "float32"))
        np.testing.assert_allclose(static(x).numpy(), _box_in_branch(x).numpy())
