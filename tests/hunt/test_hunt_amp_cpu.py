"""``rt.amp`` as Paddle runs it on a CPU-only build (the Paddle MNIST-AMP test's training loop):
``auto_cast`` computes in float32 (also inside a converted function), ``decorate`` returns its
arguments, and the disabled ``GradScaler`` makes the AMP loop train exactly as the float32 loop."""
import numpy as np
import pytest

import dy2st
import runtime as rt


class _Net(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(4, 3)

    def forward(self, x):
        with rt.amp.auto_cast(level="O1"):
            y = self.fc(x)
        return rt.nn.functional.softmax(y).mean(), y


def _train(convert, amp):
    rt.seed(4)
    net = _Net()
    if convert:
        net = dy2st.to_static(net)
    opt = rt.optimizer.Adam(learning_rate=0.01, parameters=net.parameters())
    scaler = rt.amp.GradScaler(init_loss_scaling=1024)
    out = []
    for i in range(3):
        x = rt.to_tensor(np.random.RandomState(i).randn(5, 4).astype("float32"))
        if amp:
            with rt.amp.auto_cast():
                loss, y = net(x)
            scaler.scale(loss).backward()
            scaler.minimize(opt, loss)
        else:
            loss, y = net(x)
            loss.backward()
            opt.minimize(loss)
        opt.clear_grad()
        assert y.dtype == "float32"
        out += [loss.numpy(), y.numpy()] + [p.numpy().copy() for p in net.parameters()]
    return out


@pytest.mark.parametrize("convert", [False, True])
def test_amp_loop_trains_as_float32(convert):
    for a, b in zip(_train(convert, amp=True), _train(False, amp=False)):
        np.testing.assert_array_equal(a, b)


def test_amp_api_surface():
    net = rt.nn.Linear(2, 2)
    opt = rt.optimizer.SGD(0.1, parameters=net.parameters())
    assert rt.amp.decorate(models=net, level="O2") is net
    assert rt.amp.decorate(models=net, optimizers=opt) == (net, opt)
    scaler = rt.amp.GradScaler()
    loss = net(rt.ones([1, 2])).sum()
    assert scaler.scale(loss) is loss and not scaler.is_enable() and scaler.state_dict() == {}
    with pytest.raises(ValueError, match="level"):
        with rt.amp.auto_cast(level="O3"):
            pass
