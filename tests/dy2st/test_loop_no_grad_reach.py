"""A value rebound under ``no_grad`` in a tensor loop cuts what the earlier steps fed it: after
enough steps eager execution gives no gradient (None, or a result that needs none), and so must
the converted function, decided by how many steps this run made."""
import numpy as np
import pytest

import dy2st
import runtime as rt


def _rebound(x, n):
    y = x * 0.5
    for _ in range(n):
        y = x * 2.0
        with rt.no_grad():
            x = y * 0.9 + 0.4  # from the second step on, `y` depends on no input
    return y * 0.8


def _grad_or_none(fn, xv, nv):
    x = rt.to_tensor(xv, stop_gradient=False)
    out = fn(x, rt.to_tensor(nv, dtype="int64"))
    if out.stop_gradient:
        return out.numpy(), "needs no gradient"
    out.sum().backward()
    return out.numpy(), None if x.grad is None else x.grad.numpy()


@pytest.mark.parametrize("nv", [0, 1, 2, 3, 1])
def test_value_rebound_under_no_grad_in_a_tensor_loop_needs_no_gradient_after_two_steps(nv):
    sf = dy2st.to_static(_rebound)
    xv = np.random.default_rng(nv).standard_normal((3, 4)).astype("float32")
    want, want_grad = _grad_or_none(_rebound, xv, nv)
    got, got_grad = _grad_or_none(sf, xv, nv)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    if isinstance(want_grad, str):
        assert got_grad == want_grad
    else:
        np.testing.assert_allclose(got_grad, want_grad, rtol=1e-6)


class _FirstStepOnly(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(4, 4)

    def forward(self, x, n):
        w = self.fc(x)
        y = x * 0.5
        for _ in range(n):
            y = w * 2.0  # the parameters reach `y` through `w` on the first step only
            with rt.no_grad():
                w = y + 1.0
        return y + x * 0.1


def test_parameter_reached_only_on_a_loops_first_step_gets_none_after_two_steps_like_eager():
    rt.seed(3)
    eager = _FirstStepOnly()
    rt.seed(3)
    static = _FirstStepOnly()
    sf = dy2st.to_static(static)
    xv = np.random.default_rng(0).standard_normal((3, 4)).astype("float32")
    for nv in (2, 1, 0, 3):
        results = []
        for layer, fn in ((eager, eager), (static, sf)):
            for p in layer.parameters():
                p.clear_gradient()
            x = rt.to_tensor(xv, stop_gradient=False)
            out = fn(x, rt.to_tensor(nv, dtype="int64"))
            out.sum().backward()
            results.append([out.numpy(), x.grad.numpy()] + [p.grad for p in layer.parameters()])
        want, got = results
        for g, w in zip(got, want):
            if w is None or g is None:
                assert g is None and w is None, f"n={nv}: a gradient is {g} statically, {w} eagerly"
            else:
                np.testing.assert_allclose(np.asarray(g.numpy() if hasattr(g, "numpy") else g),
                                           np.asarray(w.numpy() if hasattr(w, "numpy") else w), rtol=1e-5)
