"""A parameter group's own hyperparameters (Paddle's ``_update_param_group``): ``{"params": [...],
"beta1": 0.5}`` updates that group with beta1 0.5 and the others with the optimizer's own; eagerly,
and in a converted training step (whose written Adam update steps aside for such groups). Expected
values were recorded with PaddlePaddle 3.3."""
import numpy as np
import pytest

import dy2st
import runtime as rt

OPTIONS = {
    "Adam": dict(beta1=0.5, beta2=0.9, epsilon=0.1),
    "AdamW": dict(beta1=0.5, epsilon=0.1),
    "Momentum": dict(momentum=0.5, use_nesterov=True),
    "RMSProp": dict(rho=0.5, epsilon=0.1, momentum=0.3, centered=True),
    "Adagrad": dict(epsilon=0.1, initial_accumulator_value=0.5),
    "Adamax": dict(beta1=0.5, beta2=0.9, epsilon=0.1),
    "Adadelta": dict(epsilon=0.1, rho=0.5),
    "Lamb": dict(beta1=0.5, epsilon=0.1, lamb_weight_decay=0.5),
    "NAdam": dict(beta1=0.5, momentum_decay=0.1),
    "RAdam": dict(beta1=0.5, beta2=0.6),
}
# (the first group's parameter, the second's) after three steps, PaddlePaddle 3.3
PADDLE = {
    "Adam": ([0.707683, -1.707683, 0.207683], [0.744109, -1.706914, 0.197338]),
    "AdamW": ([0.704982, -1.701985, 0.206481], [0.737827, -1.696836, 0.191547]),
    "Momentum": ([0.7147, -1.049, -1.402], [0.70375, -1.0125, -1.475]),
    "RMSProp": ([-0.211607, -0.788337, -0.711668], [0.485665, -1.199262, -0.354756]),
    "Adagrad": ([0.730379, -1.730379, 0.230379], [0.846527, -1.765953, 0.244752]),
    "Adamax": ([0.75468, -1.75468, 0.254681], [0.735714, -1.735714, 0.235714]),
    "Adadelta": ([0.9983, -1.9983, 0.4983], [0.884752, -1.834903, 0.326454]),
    "Lamb": ([0.637065, -1.633381, 0.138906], [0.688457, -1.544421, 0.20876]),
    "NAdam": ([0.701881, -1.701881, 0.201881], [0.63476, -1.63476, 0.134761]),
    "RAdam": ([0.862107, -1.540357, -0.419285], [0.847143, -1.490476, -0.519048]),
}


@pytest.mark.parametrize("kind", sorted(OPTIONS))
def test_a_group_takes_its_own_options_as_paddle(kind):
    init = np.array([1.0, -2.0, 0.5], "float32")
    a, b = rt.Parameter(init.copy()), rt.Parameter(init.copy())
    assert a.name != b.name  # unnamed parameters shared their optimizer state (it is keyed by name)
    opt = getattr(rt.optimizer, kind)(learning_rate=0.1, parameters=[{"params": [a]}, dict(params=[b], **OPTIONS[kind])])
    for t in range(3):
        g = rt.to_tensor(np.array([0.3, -1.0, 2.0], "float32") * (t + 1))
        ((a * g).sum() + (b * g).sum()).backward()
        opt.step()
        opt.clear_grad()
    np.testing.assert_allclose(a.numpy(), PADDLE[kind][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b.numpy(), PADDLE[kind][1], rtol=1e-5, atol=1e-6)
    # the optimizer's own values are back after the step
    assert all(getattr(opt, attr) != OPTIONS[kind][key] for key, attr in type(opt)._group_options.items()
               if key in OPTIONS[kind])


def test_a_converted_training_step_updates_each_group_with_its_options():
    rt.seed(3)
    nets = [rt.nn.Sequential(rt.nn.Linear(4, 5), rt.nn.Tanh(), rt.nn.Linear(5, 2)) for _ in range(2)]
    nets[1].set_state_dict(nets[0].state_dict())
    x = rt.to_tensor(np.random.default_rng(0).standard_normal((3, 4)).astype("float32"))
    for net, model in ((nets[0], nets[0]), (nets[1], dy2st.to_static(nets[1]))):
        opt = rt.optimizer.Adam(0.1, parameters=[{"params": net[0].parameters()},
                                                 {"params": net[2].parameters(), "beta1": 0.5, "epsilon": 0.01}])
        for _ in range(3):
            (model(x) ** 2).mean().backward()
            opt.step()
            opt.clear_grad()
    for k, v in nets[0].state_dict().items():
        np.testing.assert_array_equal(nets[1].state_dict()[k].numpy(), v.numpy(), err_msg=k)
