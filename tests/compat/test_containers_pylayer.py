"""Paddle's container-write, PyLayer and to_tensor test patterns (test_write_python_container.py,
test_pylayer.py, test_to_tensor.py, test_train_step.py): Python dicts and lists written inside
tensor loops and branches, a user PyLayer with its own backward called from converted code,
`to_tensor` of Python data and of shapes inside converted code, and a whole training step."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import nn

from .helpers import arr, check

ROWS = [arr(n, 2) for n in (1, 3, 7)]


def loop_writes_dict(x):
    res = {"a": 1}
    for i in range(rt.shape(x)[0]):
        res["a"] = i
    return res


def branch_writes_dict(x):
    res = {"a": 1}
    if rt.shape(x)[0] > 5:
        res["a"] = 2
    else:
        res["a"] = 3
    return res


def loop_writes_list(x):
    res = [1]
    for i in range(rt.shape(x)[0]):
        res[0] = i
    return res


def branch_writes_list(x):
    res = [1]
    if rt.shape(x)[0] > 5:
        res[0] = 2
    else:
        res[0] = 3
    return res


@pytest.mark.parametrize("fn", [loop_writes_dict, branch_writes_dict, loop_writes_list, branch_writes_list])
def test_container_writes_under_tensor_control_flow(fn):
    # rt.shape(x)[0] is a Tensor: with an InputSpec None dim the branch is taken at run time.
    sf = dy2st.to_static(fn, input_spec=[dy2st.InputSpec([None, 2], "float32", "x")])
    from .helpers import same
    for x in ROWS:
        same(fn(rt.to_tensor(x)), sf(rt.to_tensor(x)))
    assert len(sf.program_cache) == 1


class ScaledTanh(rt.autograd.PyLayer):
    @staticmethod
    def forward(ctx, x, k):
        y = rt.tanh(x) * k
        ctx.save_for_backward(y)
        ctx.k = k
        return y

    @staticmethod
    def backward(ctx, dy):
        y, = ctx.saved_tensor()
        return dy * (ctx.k - y * y / ctx.k)


def uses_pylayer(x):
    y = ScaledTanh.apply(x, 2.0)
    if y.mean() > 0:
        y = y * 3
    return y


def test_user_pylayer_inside_converted_code():
    check(uses_pylayer, (arr(2, 3, lo=0.1, hi=1),), (arr(2, 3, lo=-1, hi=-0.1),), grad=True, programs=1)


def to_tensor_inside(x):
    a = rt.to_tensor([1.0, 2.0, 3.0])
    b = rt.to_tensor(3, dtype="float32")
    c = rt.to_tensor(x.shape, dtype="float32")
    d = rt.to_tensor(x)
    e = rt.to_tensor(np.ones([3], "float32"))
    return x * a + b + c.sum() + d + e


def test_to_tensor_of_python_data_and_shapes_inside_converted_code():
    check(to_tensor_inside, (arr(2, 3),), (arr(4, 3),), grad=True)


class StepNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 1)


def train_step(net, opt, x, y):
    loss = ((net.fc(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
    opt.clear_grad()
    return loss


def test_a_whole_training_step_converted():
    rt.seed(1)
    a, b = StepNet(), StepNet()
    b.set_state_dict(a.state_dict())
    oa = rt.optimizer.SGD(learning_rate=0.1, parameters=a.parameters())
    ob = rt.optimizer.SGD(learning_rate=0.1, parameters=b.parameters())
    step = dy2st.to_static(train_step)
    for s in range(3):
        x, y = rt.to_tensor(arr(4, 3, seed=s)), rt.to_tensor(arr(4, 1, seed=s + 5))
        la, lb = train_step(a, oa, x, y), step(b, ob, x, y)
        assert float(lb) == pytest.approx(float(la), rel=1e-5)
    np.testing.assert_allclose(b.fc.weight.numpy(), a.fc.weight.numpy(), rtol=1e-5)


def returns_loop_list(x, n):
    outs = []
    for i in range(n):
        outs.append(x * i)
    return outs


def test_a_list_built_in_a_tensor_loop_is_returned_as_a_list(tmp_path):
    sf = check(returns_loop_list, (arr(2, 3), rt.to_tensor(3)), (arr(2, 3), rt.to_tensor(1)),
               programs=1, grad=True)
    out = sf(rt.to_tensor(arr(2, 3)), rt.to_tensor(4))
    assert isinstance(out, list) and len(out) == 4
    path = str(tmp_path / "rows")
    dy2st.save(sf, path, input_spec=[dy2st.InputSpec([2, 3], "float32", "x"), dy2st.InputSpec([], "int64", "n")])
    loaded = dy2st.load(path)
    got = loaded(rt.to_tensor(arr(2, 3)), rt.to_tensor(2))
    assert isinstance(got, list) and len(got) == 2
    np.testing.assert_allclose(got[1].numpy(), arr(2, 3), rtol=1e-6)
