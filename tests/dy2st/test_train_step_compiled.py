"""A training step under ``@to_static``: forward, backward and the optimizer update as one Program.

``loss.backward(); opt.step(); opt.clear_grad()`` inside a converted function append gradient
and update ops; each call of the cached Program must leave the parameters, the optimizer's
state, ``.grad`` and the returned loss bitwise equal to the same body run eagerly.
"""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from runtime import nn
from runtime.optimizer import lr as lr_sched
from runtime.tensor import Parameter


class Net(nn.Layer):
    """A small MLP with a tensor-dependent branch (a `cond` op with gradients) and dropout."""

    def __init__(self, dropout=0.0):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(8, 16), nn.Linear(16, 4)
        self.drop = nn.Dropout(dropout) if dropout else None

    def forward(self, x):
        h = F.relu(self.fc1(x))
        if h.mean() > 0.4:
            h = h * 0.5
        if self.drop is not None:
            h = self.drop(h)
        return self.fc2(h)


def _batches(n=5, seed=1):
    rng = np.random.default_rng(seed)
    return [(rng.normal(size=(6, 8)).astype("float32"), rng.integers(0, 4, 6)) for _ in range(n)]


def _loop_step(net, opt):
    """The ordinary Paddle-style step body over ``net`` and ``opt`` (converted or run as written)."""
    def step(x, y):
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    return step


def _trajectory(make_opt, convert, body="loop", steps=5, dropout=0.0, scheduler=None):
    """Per step: the loss, every parameter, the optimizer state and whether each .grad is None."""
    rt.seed(0)
    net = Net(dropout)
    opt = make_opt(net.parameters())

    def step(x, y):
        if body == "step_first":  # the update of the previous call's .grad, then this call's forward
            opt.step()
            opt.clear_grad()
        loss = F.cross_entropy(net(x), y)
        if body == "step_first":
            loss.backward()
        elif body == "stale":  # eager backward() refuses: the step changed what the forward read
            opt.step()
            loss.backward()
        elif body == "layer_clear":
            loss.backward()
            opt.step()
            net.clear_gradients()
        elif body == "minimize":  # Paddle's dygraph idiom: minimize steps from the .grad backward() left
            loss.backward()
            opt.minimize(loss)
            opt.clear_grad()
        else:
            loss.backward()
            opt.step()
            opt.clear_grad()
        return loss

    fn = dy2st.to_static(step) if convert else step
    rt.seed(3)
    out = []
    for x, y in _batches(steps):
        loss = fn(rt.to_tensor(x), rt.to_tensor(y))
        if scheduler is not None:
            scheduler(opt).step()
        state = opt.state_dict()
        accs = [np.asarray(v._value).copy() for k, v in sorted(state.items(), key=_by_parameter(net))
                if hasattr(v, "_value")]
        out.append((loss.numpy().copy(), [p.numpy().copy() for p in net.parameters()], accs,
                    state["global_step"], [p.grad is None for p in net.parameters()]))
    if convert:
        assert len(fn.program_cache) == 1
    return out


def _by_parameter(net):
    """A sort key of optimizer state keys by the parameter's position, then the accumulator: the
    parameters' names carry a global counter ("linear_99" sorts after "linear_100"), so sorting
    the keys themselves ordered the two runs' accumulators differently once the counter crossed
    a power of ten (which depended on the tests run before)."""
    names = [p.name for p in net.parameters()]

    def key(item):
        k = item[0]
        for i, n in enumerate(names):
            if k.startswith(n + "_"):
                return i, k[len(n):]
        return len(names), k
    return key


def _assert_same(a, b):
    assert len(a) == len(b)
    for (la, pa, sa, ga, ca), (lb, pb, sb, gb, cb) in zip(a, b):
        assert la.tobytes() == lb.tobytes()
        assert all(x.tobytes() == y.tobytes() for x, y in zip(pa, pb))
        assert len(sa) == len(sb) and all(x.tobytes() == y.tobytes() for x, y in zip(sa, sb))
        assert ga == gb and ca == cb


O = rt.optimizer


def _with_param_lr(cls, ps, lr):
    ps[1].optimize_attr["learning_rate"] = 0.37  # a per-parameter rate: the update is not fused
    return cls(lr, parameters=ps)
OPTIMIZERS = {
    "sgd": lambda ps: O.SGD(0.1, parameters=ps),
    "sgd_l2_clip_global": lambda ps: O.SGD(0.1, parameters=ps, weight_decay=O.L2Decay(0.01),
                                           grad_clip=O.ClipGradByGlobalNorm(0.5)),
    "sgd_groups_param_lr": lambda ps: O.SGD(0.1, parameters=[{"params": ps[:2], "learning_rate": 0.3},
                                                             {"params": ps[2:]}]),
    "momentum_groups": lambda ps: O.Momentum(0.05, parameters=[{"params": ps[:2], "weight_decay": 0.01},
                                                               {"params": ps[2:], "learning_rate": 0.7}]),
    "adam_one_param_lr": lambda ps: _with_param_lr(O.Adam, ps, 0.01),
    "momentum": lambda ps: O.Momentum(0.05, momentum=0.9, parameters=ps),
    "momentum_nesterov_decay_clip_norm": lambda ps: O.Momentum(0.05, parameters=ps, use_nesterov=True,
                                                               weight_decay=0.001, grad_clip=O.ClipGradByNorm(0.3)),
    "adam": lambda ps: O.Adam(0.01, parameters=ps),
    "adam_decay_clip_value": lambda ps: O.Adam(0.01, parameters=ps, weight_decay=0.01,
                                               grad_clip=O.ClipGradByValue(0.05)),
    "adamw": lambda ps: O.AdamW(0.01, parameters=ps),
    "adamw_decay_clip": lambda ps: O.AdamW(0.01, parameters=ps, weight_decay=0.1,
                                           grad_clip=O.ClipGradByGlobalNorm(0.2)),
    "rmsprop": lambda ps: O.RMSProp(0.01, parameters=ps),
    "adagrad": lambda ps: O.Adagrad(0.05, parameters=ps),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_trajectory_equals_eager(name):
    make = OPTIMIZERS[name]
    _assert_same(_trajectory(make, False), _trajectory(make, True))


@pytest.mark.parametrize("name", ["sgd", "adam", "adamw"])
def test_lr_scheduler_drives_the_compiled_update(name):
    def make(ps):
        opt = OPTIMIZERS[name](ps)
        opt.set_lr_scheduler(lr_sched.StepDecay(0.05, step_size=2, gamma=0.5))
        return opt

    def sched(opt):
        return opt._learning_rate
    eager, static = _trajectory(make, False, scheduler=sched), _trajectory(make, True, scheduler=sched)
    _assert_same(eager, static)
    # the rate really changed between steps: the last update differs from one at the first rate
    assert not np.array_equal(static[0][1][0], static[-1][1][0])


def test_minimize_inside_the_converted_function():
    make = OPTIMIZERS["adam"]
    _assert_same(_trajectory(make, False, body="minimize"), _trajectory(make, True, body="minimize"))


def test_dropout_draws_match_eager():
    make = OPTIMIZERS["momentum"]
    _assert_same(_trajectory(make, False, dropout=0.3), _trajectory(make, True, dropout=0.3))


def test_one_program_with_forward_backward_and_update():
    rt.seed(0)
    net = Net()
    opt = O.Adam(0.01, parameters=net.parameters())

    step = dy2st.to_static(_loop_step(net, opt))

    (x, y), = _batches(1)
    step(rt.to_tensor(x), rt.to_tensor(y))
    types = [op.type for op in step.concrete_program.main_program.global_block().ops]
    assert "cross_entropy" in types and "cross_entropy_grad" in types
    assert types.count("train_update") == 1 and types[-1] == "train_update"
    assert "optimizer_step" not in types and "accumulate_grads" not in types
    out = step(rt.to_tensor(x), rt.to_tensor(y))
    assert out.stop_gradient and out._node is None  # its backward already ran inside the Program


def _grad_body(convert, mode):
    rt.seed(0)
    net = Net()
    opt = O.Momentum(0.05, parameters=net.parameters())

    def step(x, y):
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        if mode == "step_no_clear":
            opt.step()
        return loss

    fn = dy2st.to_static(step) if convert else step
    out = []
    for i, (x, y) in enumerate(_batches(4)):
        fn(rt.to_tensor(x), rt.to_tensor(y))
        if mode == "accumulate" and i % 2 == 1:  # gradient accumulation: eager step every second batch
            opt.step()
            opt.clear_grad()
        out.append([None if p.grad is None else p.grad.numpy().copy() for p in net.parameters()]
                   + [p.numpy().copy() for p in net.parameters()])
    return out


@pytest.mark.parametrize("mode", ["accumulate", "step_no_clear"])
def test_grad_left_in_place_accumulates_as_eager(mode):
    for a, b in zip(_grad_body(False, mode), _grad_body(True, mode)):
        for x, y in zip(a, b):
            assert (x is None) == (y is None)
            assert x is None or x.tobytes() == y.tobytes()


def test_eager_step_and_state_dict_after_compiled_steps():
    def run(convert):
        rt.seed(0)
        net = Net()
        opt = O.Adam(0.01, parameters=net.parameters())
        step = _loop_step(net, opt)
        fn = dy2st.to_static(step) if convert else step
        batches = _batches(6)
        for x, y in batches[:3]:
            fn(rt.to_tensor(x), rt.to_tensor(y))
        saved = {k: (v.numpy().copy() if hasattr(v, "numpy") else v) for k, v in opt.state_dict().items()}
        for x, y in batches[3:]:
            step(rt.to_tensor(x), rt.to_tensor(y))  # eager steps continue from the compiled ones
        # restoring state replaces the accumulator arrays: the compiled step must use the new ones
        opt.set_state_dict({k: (rt.to_tensor(v) if isinstance(v, np.ndarray) else v) for k, v in saved.items()})
        for x, y in batches[:2]:
            fn(rt.to_tensor(x), rt.to_tensor(y))
        return [p.numpy().copy() for p in net.parameters()], saved["global_step"], opt.state_dict()["global_step"]
    (pa, sa, ga), (pb, sb, gb) = run(False), run(True)
    assert sa == sb == 3 and ga == gb == 5
    assert all(x.tobytes() == y.tobytes() for x, y in zip(pa, pb))


def test_set_lr_between_calls():
    def run(convert):
        rt.seed(0)
        net = Net()
        opt = O.SGD(0.1, parameters=net.parameters())
        step = _loop_step(net, opt)
        fn = dy2st.to_static(step) if convert else step
        for i, (x, y) in enumerate(_batches(4)):
            opt.set_lr(0.1 / (i + 1))
            fn(rt.to_tensor(x), rt.to_tensor(y))
        return [p.numpy().copy() for p in net.parameters()]
    assert all(a.tobytes() == b.tobytes() for a, b in zip(run(False), run(True)))


def test_forward_only_conversion_still_trains_as_eager():
    def run(convert):
        rt.seed(0)
        net = dy2st.to_static(Net()) if convert else Net()
        opt = O.Adam(0.01, parameters=net.parameters())
        for x, y in _batches(4):
            loss = F.cross_entropy(net(rt.to_tensor(x)), rt.to_tensor(y))
            loss.backward()
            opt.step()
            opt.clear_grad()
        return [p.numpy().copy() for p in net.parameters()]
    assert all(a.tobytes() == b.tobytes() for a, b in zip(run(False), run(True)))


def test_update_shortcut_equals_the_general_update(monkeypatch):
    """The compiled step hands gradients to the rule directly (SGD: no flat gather); switching that
    shortcut off (the rule's general update over the same gradients) gives the same bits."""
    def run():
        return _trajectory(OPTIMIZERS["sgd_groups_param_lr"], True)
    on = run()
    monkeypatch.setattr(O.SGD, "_apply_given", O.Optimizer._apply_given)  # the general update
    _assert_same(on, run())


def test_parameters_sharing_one_gradient_array():
    """``a + b`` gives both the same upstream gradient: each update must read it unchanged."""
    def run(convert):
        a = Parameter(np.full(3, 0.5, "float32"), name="shared_a")
        b = Parameter(np.full(3, -0.25, "float32"), name="shared_b")
        opt = O.SGD(0.1, parameters=[a, b])

        def step(x):
            loss = ((a + b) * x).sum()
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss
        fn = dy2st.to_static(step) if convert else step
        for i in range(3):
            fn(rt.to_tensor(np.arange(3, dtype="float32") + i))
        return a.numpy().copy(), b.numpy().copy()
    (ea, eb), (sa, sb) = run(False), run(True)
    assert ea.tobytes() == sa.tobytes() and eb.tobytes() == sb.tobytes()


def test_layer_clear_gradients_inside_the_converted_function():
    """``model.clear_gradients()`` (each parameter's ``clear_grad()``) runs at every call, as eagerly."""
    make = OPTIMIZERS["momentum"]
    _assert_same(_trajectory(make, False, body="layer_clear"), _trajectory(make, True, body="layer_clear"))


def test_two_updates_in_one_call_see_each_other():
    """A second forward after ``opt.step()`` in the same call reads the updated parameters."""
    def run(convert, name):
        rt.seed(0)
        net = Net()
        opt = OPTIMIZERS[name](net.parameters())

        def step(x, y):
            first = F.cross_entropy(net(x), y)
            first.backward()
            opt.step()
            opt.clear_grad()
            second = F.cross_entropy(net(x), y)
            second.backward()
            opt.step()
            opt.clear_grad()
            return first, second
        fn = dy2st.to_static(step) if convert else step
        out = []
        for x, y in _batches(3):
            a, b = fn(rt.to_tensor(x), rt.to_tensor(y))
            out.append([a.numpy().copy(), b.numpy().copy()] + [p.numpy().copy() for p in net.parameters()])
        return out
    for name in ("sgd", "adam"):
        for a, b in zip(run(False, name), run(True, name)):
            assert all(x.tobytes() == y.tobytes() for x, y in zip(a, b))


@pytest.mark.parametrize("name", ["sgd", "adam", "momentum_groups"])
def test_step_before_the_backward(name):
    """``opt.step()`` on ``.grad`` left by the previous call, then this call's backward: the forward
    built after the step reads the updated parameters (also when the update re-lays them out)."""
    make = OPTIMIZERS[name]
    _assert_same(_trajectory(make, False, body="step_first"), _trajectory(make, True, body="step_first"))
