"""A loaded model called inside converted code: its Program is inlined into the one being built.

The Paddle workflow this follows: ``jit.load`` a trained backbone, call it from a converted
``forward`` (also inside both branches of a tensor ``if``, and more than once), fine-tune the
whole model, save it, and load the result in turn.
"""
import os

import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from runtime import nn

SIZE = 6


class Saved(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(SIZE, SIZE)
        self.bn = nn.BatchNorm1D(SIZE)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        h = self.drop(F.relu(self.bn(self.fc(x))))
        if h.mean() > 0.3:  # a cond op inside the saved Program
            h = h * 0.5
        return h


class Finetune(nn.Layer):
    def __init__(self, path):
        super().__init__()
        self.first = nn.Linear(SIZE, SIZE)
        self.one = nn.Linear(SIZE, SIZE)
        self.other = nn.Linear(SIZE, SIZE)
        self.scale = rt.to_tensor([0.25])
        self.load_a = dy2st.load(path)
        self.load_b = dy2st.load(path)  # the same files loaded twice: two sets of parameters

    def forward(self, x):
        y = self.load_a(self.first(x))
        if rt.shape(x)[0] == 1:
            y = self.load_a(self.one(y))
        else:
            y = y + self.other(x + self.scale)
            y = self.load_b(y)
        return self.load_a(self.one(y))


@pytest.fixture
def saved_path(tmp_path):
    rt.seed(3)
    net = Saved()
    opt = rt.optimizer.SGD(0.1, parameters=net.parameters())
    for _ in range(2):  # trained a little: BatchNorm's running statistics move
        loss = net(rt.randn([4, SIZE])).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
    path = os.path.join(tmp_path, "saved")
    dy2st.save(net, path, input_spec=[dy2st.InputSpec([None, SIZE], "float32", "x")])
    return path


def _train(net, steps=3):
    opt = rt.optimizer.Adam(0.01, parameters=net.parameters())
    losses = []
    for i in range(steps):
        rt.seed(10 + i)  # the same dropout draws eagerly and converted
        x = rt.to_tensor(np.random.default_rng(i).normal(size=(1 + i % 2 * 3, SIZE)).astype("float32"))
        loss = (net(x) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad(set_to_zero=False)  # a branch's parameters get no gradient at some steps
        losses.append(float(loss))
    return losses


def test_loaded_model_inside_converted_forward_trains_like_eager(saved_path, tmp_path):
    rt.seed(0)
    eager = Finetune(saved_path)
    rt.seed(0)
    static = Finetune(saved_path)
    static.set_state_dict(eager.state_dict())
    converted = dy2st.to_static(static)
    want = _train(eager)
    got = _train(converted)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    for (k, a), b in zip(eager.state_dict().items(), static.state_dict().values()):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5, atol=1e-6, err_msg=k)
    program = converted.forward.concrete_program.main_program
    assert {"cond", "batch_norm", "matmul"} <= {op.type for b in program.blocks for op in b.ops}

    converted.eval()
    eager.eval()
    xs = [rt.to_tensor(np.random.default_rng(7).normal(size=(n, SIZE)).astype("float32")) for n in (1, 3)]
    path = os.path.join(tmp_path, "finetuned")
    dy2st.save(converted, path, input_spec=[dy2st.InputSpec([None, SIZE], "float32", "x")])
    reloaded = dy2st.load(path)
    for x in xs:
        want = eager(x).numpy()
        np.testing.assert_allclose(converted(x).numpy(), want, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(reloaded(x).numpy(), want, rtol=1e-5, atol=1e-6)


def test_loaded_model_inputs_are_checked_at_the_users_line(saved_path):
    loaded = dy2st.load(saved_path)

    @dy2st.to_static
    def wrong_width(x):
        return loaded(x[:, :3])

    with pytest.raises(ValueError, match=r"input 'x' expects dtype float32 with shape \[-1, 6\]"):
        wrong_width(rt.ones([2, SIZE]))


class Loopy(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        i = rt.zeros([1], "int64")
        while x.abs().sum() > 1.0 and i < 10:  # a while op in the saved Program
            x = self.fc(x) * 0.5
            i += 1
        return x, i


class Head(nn.Layer):
    def __init__(self, path):
        super().__init__()
        self.inner = dy2st.load(path)
        self.head = nn.Linear(4, 2)

    def forward(self, x):
        y, n = self.inner(x)
        return self.head(y) + n.astype("float32")


@pytest.mark.parametrize("inner_train", [False, True])
def test_loaded_while_loop_inlined_gives_eagers_values_and_gradients(tmp_path, inner_train):
    """In eval() (as loaded) a loaded model fed values that need no gradient runs as inference, so
    its parameters get none, eagerly and inlined alike; in train() they do."""
    rt.seed(0)
    path = os.path.join(tmp_path, "loopy")
    dy2st.save(Loopy(), path, input_spec=[dy2st.InputSpec([None, 4], "float32", "x")])
    eager, static = Head(path), Head(path)
    static.set_state_dict(eager.state_dict())
    if inner_train:
        eager.inner.train()
        static.inner.train()
    converted = dy2st.to_static(static)
    for k in range(3):  # 0, a few and many trips of the loop, one Program
        x = rt.to_tensor(np.random.default_rng(k).normal(size=(3, 4)).astype("float32") * (k + 1))
        want, got = eager(x), converted(x)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        want.sum().backward()
        got.sum().backward()
        for p, q in zip(eager.parameters(), static.parameters()):
            assert (p.grad is None) == (q.grad is None)  # the loop may not run: no gradient for fc
            if p.grad is not None:
                np.testing.assert_array_equal(q.grad.numpy(), p.grad.numpy())
            p.clear_grad()
            q.clear_grad()
    assert converted.forward.get_traced_count() == 1
    program = converted.forward.concrete_program.main_program
    assert "while" in {op.type for op in program.global_block().ops}
