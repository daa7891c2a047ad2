"""Resuming an optimizer: state saved for other parameter names is refused, not skipped."""
import numpy as np
import pytest

import runtime as rt


def _train(model, opt, steps):
    for i in steps:
        x = rt.to_tensor(np.random.RandomState(i).randn(4, 3).astype("float32"))
        (model(x) ** 2).mean().backward()
        opt.step()
        opt.clear_grad()


def test_state_for_other_parameter_names_raises():
    a = rt.nn.Linear(3, 2)
    opt_a = rt.optimizer.Adam(0.1, parameters=a.parameters())
    _train(a, opt_a, range(2))
    b = rt.nn.Linear(3, 2)  # created later in the process: other parameter names
    opt_b = rt.optimizer.Adam(0.1, parameters=b.parameters())
    with pytest.raises(ValueError, match="parameters this optimizer does not have"):
        opt_b.set_state_dict(opt_a.state_dict())


def test_state_for_the_same_parameters_resumes_exactly():
    rt.seed(0)
    a = rt.nn.Linear(3, 2)
    opt = rt.optimizer.Adam(0.1, parameters=a.parameters())
    _train(a, opt, range(2))
    saved_params = {k: v.numpy().copy() for k, v in a.state_dict().items()}
    saved_opt = opt.state_dict()
    _train(a, opt, range(2, 4))
    want = {k: v.numpy().copy() for k, v in a.state_dict().items()}
    a.set_state_dict(saved_params)
    opt2 = rt.optimizer.Adam(0.1, parameters=a.parameters())
    opt2.set_state_dict(saved_opt)
    _train(a, opt2, range(2, 4))
    for k, v in a.state_dict().items():
        np.testing.assert_allclose(v.numpy(), want[k], rtol=1e-6)
