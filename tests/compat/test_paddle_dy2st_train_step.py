"""Paddle's test_train_step, test_train_step_resnet18_sgd and test_train_step_resnet18_adam, rewritten
(64 rows instead of 10000; 32x32 images for ResNet-18): a whole training step converted with
`full_graph=True` (forward, `loss.backward()`, `opt.step()`, `opt.clear_grad()`), with the net, the
loss function and the optimizer passed as arguments, under every optimizer Paddle's test uses and
every learning-rate scheduler it steps between the calls (`ReduceOnPlateau` stepped with the
returned loss). Converted training equals eager bitwise: the losses, the parameters (and
ResNet-18's BatchNorm statistics)."""
import random
from functools import partial

import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime.vision.models import resnet18

O, LR = rt.optimizer, rt.optimizer.lr


def reset_seed():
    rt.seed(1010)
    np.random.seed(1010)
    random.seed(1010)


def loss_fn_tiny_model(x):
    return x.mean()


def train_step_tiny_model(net, x, loss_fn, opt):
    out = net(x)
    loss = loss_fn(out)
    loss.backward()
    opt.step()
    opt.clear_grad()
    return loss


class TinyModel(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.layer1 = rt.nn.Linear(10, 10)

    def forward(self, data):
        return self.layer1(data)


def _constant():
    return 0.001


CASES = {
    "SGD": (_constant, O.SGD, 5), "Adadelta": (_constant, O.Adadelta, 3), "Adagrad": (_constant, O.Adagrad, 3),
    "Adam": (_constant, O.Adam, 3), "Adamax": (_constant, O.Adamax, 3), "AdamW": (_constant, O.AdamW, 3),
    "Lamb": (_constant, partial(O.Lamb, lamb_weight_decay=0.01), 3), "Momentum": (_constant, O.Momentum, 3),
    "RMSProp": (_constant, O.RMSProp, 3),
    "NoamDecay": (partial(LR.NoamDecay, d_model=0.01, warmup_steps=100), O.SGD, 3),
    "PiecewiseDecay": (partial(LR.PiecewiseDecay, boundaries=[3, 6, 9], values=[0.1, 0.2, 0.3, 0.4]), O.SGD, 3),
    "NaturalExpDecay": (partial(LR.NaturalExpDecay, learning_rate=0.5, gamma=0.1), partial(O.SGD), 3),
    "InverseTimeDecay": (partial(LR.InverseTimeDecay, learning_rate=0.5, gamma=0.1), O.SGD, 3),
    "PolynomialDecay": (partial(LR.PolynomialDecay, learning_rate=0.5, decay_steps=20), O.SGD, 3),
    "LinearWarmup": (partial(LR.LinearWarmup, learning_rate=0.5, warmup_steps=2, start_lr=0, end_lr=0.5),
                     partial(O.SGD), 3),
    "ExponentialDecay": (partial(LR.ExponentialDecay, learning_rate=0.5, gamma=0.9), O.SGD, 3),
    "MultiStepDecay": (partial(LR.MultiStepDecay, learning_rate=0.5, milestones=[2, 4, 6], gamma=0.8), O.SGD, 3),
    "StepDecay": (partial(LR.StepDecay, learning_rate=0.5, step_size=5, gamma=0.8), O.SGD, 3),
    "LambdaDecay": (partial(LR.LambdaDecay, learning_rate=0.5, lr_lambda=lambda x: 0.95**x), O.SGD, 3),
    "ReduceOnPlateau": (partial(LR.ReduceOnPlateau, learning_rate=1.0, factor=0.5, patience=5), O.SGD, 3),
    "CosineAnnealingDecay": (partial(LR.CosineAnnealingDecay, learning_rate=0.5, T_max=10), O.SGD, 3),
    "MultiplicativeDecay": (partial(LR.MultiplicativeDecay, learning_rate=0.5, lr_lambda=lambda x: 0.95), O.SGD, 3),
    "OneCycleLR": (partial(LR.OneCycleLR, max_learning_rate=1.0, total_steps=3), O.SGD, 3),
    "CyclicLR": (partial(LR.CyclicLR, base_learning_rate=0.5, max_learning_rate=1.0, step_size_up=15,
                         step_size_down=5), O.SGD, 3),
    "CosineAnnealingWarmRestarts": (partial(LR.CosineAnnealingWarmRestarts, learning_rate=0.5, T_0=1, T_mult=1),
                                    O.SGD, 3),
}


def get_train_step_losses(func, steps, x, net_creator, lr_creator, optimizer_creator, loss_fn):
    losses = []
    net = net_creator()
    lr = lr_creator()
    optimizer = optimizer_creator(learning_rate=lr, parameters=net.parameters())
    for _ in range(steps):
        loss = func(net, x, loss_fn, optimizer)
        if isinstance(lr, LR.ReduceOnPlateau):
            lr.step(loss)
        elif isinstance(lr, LR.LRScheduler):
            lr.step()
        losses.append(loss)
    state = [p.numpy() for p in net.parameters()] + [b.numpy() for b in net.buffers()]
    return losses, state, optimizer.get_lr()


def _compare(x, steps, **creators):
    reset_seed()
    dygraph = get_train_step_losses(train_step_tiny_model, steps, x, **creators)
    reset_seed()
    static_func = dy2st.to_static(train_step_tiny_model, full_graph=True)
    static = get_train_step_losses(static_func, steps, x, **creators)
    assert len(dygraph[0]) == len(static[0]) == steps
    for a, b in zip(dygraph[0], static[0]):
        assert a.shape == b.shape == [] and a.dtype == b.dtype
        np.testing.assert_array_equal(b.numpy(), a.numpy())
    for a, b in zip(dygraph[1], static[1]):
        np.testing.assert_array_equal(b, a)
    assert static[2] == dygraph[2]
    return static_func


@pytest.mark.parametrize("case", sorted(CASES))
def test_train_step_tiny_model(case):
    lr_creator, optimizer_creator, steps = CASES[case]
    x = rt.randn([64, 10])
    static_func = _compare(x, steps, net_creator=TinyModel, lr_creator=lr_creator,
                           optimizer_creator=optimizer_creator, loss_fn=loss_fn_tiny_model)
    assert len(static_func.program_cache) == 1  # the rate of every step is read when the Program runs


@pytest.mark.slow
@pytest.mark.parametrize("optimizer_creator", [O.SGD, O.Adam])
def test_train_step_resnet18(optimizer_creator):
    _compare(rt.randn([2, 3, 32, 32]), 3, net_creator=resnet18, lr_creator=_constant,
             optimizer_creator=optimizer_creator, loss_fn=loss_fn_tiny_model)
