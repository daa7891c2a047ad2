"""The update written out for a compiled training step (``plan_updates``): bitwise the eager update,
with the switch on and off, also when the optimizer's state changes between steps (the written
update's key then refuses it and the general update runs)."""
import numpy as np
import pytest

import runtime as rt
from runtime.static import passes
from step_helpers import MLP, train_step

O = rt.optimizer
_RNG = np.random.default_rng(5)
_BATCHES = [(_RNG.normal(size=(16, 6)).astype("float32"), _RNG.integers(0, 4, 16)) for _ in range(3)]


def _set_lr(opt, net):
    opt.set_lr(0.02)


def _decay(opt, net):
    opt._param_groups[0]["weight_decay"] = 0.1


def _clip(opt, net):
    opt._grad_clip = O.ClipGradByGlobalNorm(0.5)


def _freeze(opt, net):
    net.fc2.bias.stop_gradient = True


def _stale_grad(opt, net):
    net.fc1.bias.grad = rt.to_tensor(np.full(8, 0.25, "float32"))


def _restore(opt, net):
    opt.set_state_dict({k: v for k, v in opt.state_dict().items()})


def _scheduler(opt, net):
    opt.set_lr_scheduler(O.lr.StepDecay(0.05, step_size=1, gamma=0.5))


def _param_lr(opt, net):
    # after the flat group was made: eager's flat update and the written Adam update both applied
    # the group's rate to it (FlatGroup.current and the written tests now see it)
    net.fc1.weight.optimize_attr["learning_rate"] = 0.0


CHANGES = [None, _set_lr, _decay, _clip, _freeze, _stale_grad, _restore, _scheduler, _param_lr]


def _stepper(make_opt, convert):
    """A fresh MLP (6-8-4), its optimizer and the training step over them (converted or eager)."""
    rt.seed(0)
    net = MLP(6, 8, 4)
    opt = make_opt(net.parameters())
    return net, opt, train_step(net, opt, convert)


def _run(make_opt, convert, change):
    """Losses and parameters of 3 rounds of 3 steps, ``change`` applied after the first round
    (and the scheduler, if any, stepped after each round)."""
    net, opt, fn = _stepper(make_opt, convert)
    out = []
    for r in range(3):
        if r == 1 and change is not None:
            change(opt, net)
        for x, y in _BATCHES:
            out.append(fn(rt.to_tensor(x), rt.to_tensor(y)).numpy().copy())
        if isinstance(opt._learning_rate, O.lr.LRScheduler):
            opt._learning_rate.step()
    return out + [p.numpy().copy() for p in net.parameters()], opt


def _same_bits(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.dtype == y.dtype and x.tobytes() == y.tobytes()


@pytest.mark.parametrize("change", CHANGES, ids=lambda c: "none" if c is None else c.__name__.strip("_"))
@pytest.mark.filterwarnings("ignore:.*had a gradient in an earlier step")  # a step skips a parameter on purpose
@pytest.mark.parametrize("name", ["sgd", "adam"])
def test_written_update_equals_eager_on_and_off(name, change):
    make = {"sgd": lambda ps: O.SGD(0.05, parameters=ps), "adam": lambda ps: O.Adam(0.01, parameters=ps)}[name]
    eager, eager_opt = _run(make, False, change)
    for flag in (True, False):
        with passes.features(plan_updates=flag):
            static, opt = _run(make, True, change)
        _same_bits(eager, static)
        assert opt._step_count == eager_opt._step_count


@pytest.mark.parametrize("groups", [1, 2])
@pytest.mark.parametrize("cls", [O.SGD, O.Adam])
def test_the_written_update_runs_and_the_switch_turns_it_off(cls, groups, monkeypatch):
    from runtime.ops import train_ops  # noqa: PLC0415
    calls = []
    real = train_ops.train_update_kernel

    def spy(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr(train_ops, "train_update_kernel", spy)

    def make(ps):
        ps = list(ps)
        return cls(0.02, parameters=[{"params": ps[:2], "learning_rate": 0.5}, {"params": ps[2:]}]
                   if groups == 2 else ps)
    eager, _ = _run(make, False, None)
    for flag, general in ((True, 0), (False, 9)):
        calls.clear()
        with passes.features(plan_updates=flag):
            static, _ = _run(make, True, None)
        _same_bits(eager, static)
        assert len(calls) == general  # on: never the general update (9 steps, one state)



@pytest.mark.parametrize("name", ["sgd", "adam"])
def test_a_learning_rate_of_zero_given_to_a_parameter_mid_training_freezes_it(name):
    make = {"sgd": lambda ps: O.SGD(0.05, parameters=ps), "adam": lambda ps: O.Adam(0.01, parameters=ps)}[name]
    for convert in (False, True):
        net, _, fn = _stepper(make, convert)
        x, y = _BATCHES[0]
        fn(rt.to_tensor(x), rt.to_tensor(y))
        net.fc1.weight.optimize_attr["learning_rate"] = 0.0
        held = net.fc1.weight.numpy().copy()
        for _ in range(3):
            fn(rt.to_tensor(x), rt.to_tensor(y))
        np.testing.assert_array_equal(net.fc1.weight.numpy(), held)
