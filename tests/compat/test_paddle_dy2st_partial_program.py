"""Scenarios of Paddle's test_partial_program, rewritten: nested inputs (lists and dicts holding
tensors, strings and numbers) and nested outputs (a dict of lists with Python values kept Python),
a converted Layer switched between train and eval and back (dropout on, off, on), run under
`rt.no_grad()` in train mode, and a model whose unused parameters and constant tensor stay out of
the result. Converted equals eager in values and gradients."""
import numpy as np
import pytest

import dy2st
import runtime as rt

from .helpers import same


def _data(shape, seed):
    return rt.to_tensor(np.random.default_rng(seed).random(shape).astype("float32"), stop_gradient=False)


def nested_in(x, y):
    total = x + y[0]
    pair = y[3]["z"]
    diff = pair[0] - pair[1]
    product = y[-1]["d"]["da"] * y[-1]["d"]["dc"]
    mean = rt.mean
    return mean(diff) + mean(total) + mean(product)


def _nested_args():
    y = [_data([10, 16], 1), "preprocess_cmd", 64,
         {"z": [_data([10, 12], 2), _data([10, 12], 3)], "c": _data([10, 10], 4),
          "d": {"da": 12, "dc": _data([10, 10], 5)}}]
    return _data([10, 16], 0), y


def test_nested_input_values_and_gradients():
    grads = []
    for fn in (nested_in, dy2st.to_static(nested_in, full_graph=True)):
        x, y = _nested_args()
        out = fn(x, y)
        out.backward()
        leaves = [x, y[0], *y[3]["z"], y[3]["c"], y[3]["d"]["dc"]]
        grads.append((out, [t.grad for t in leaves]))
    same(grads[0][0], grads[1][0])
    for a, b in zip(grads[0][1], grads[1][1]):
        assert (a is None) == (b is None)  # y[3]["c"] is not used: no gradient either way
        if a is not None:
            np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-6)


def nested_out(x, y):
    out = {}
    out["z"] = x + y
    out["a"] = [x - y, 64, [x * y, "cmd"]]
    return out


def test_nested_output_keeps_python_values():
    x, y = _data([10, 16], 0), _data([10, 16], 1)
    eager, static = nested_out(x, y), dy2st.to_static(nested_out, full_graph=True)(x, y)
    same(eager, static)
    flat = rt.utils.flatten(static)
    assert [type(v).__name__ for v in flat] == [type(v).__name__ for v in rt.utils.flatten(eager)]
    assert static["a"][1] == 64 and static["a"][2][1] == "cmd"


class DropoutHead(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(10, 3)
        self.drop = rt.nn.Dropout(0.5)

    def forward(self, x):
        pre = self.drop(rt.nn.functional.relu(self.fc(x)))
        return pre, rt.mean(pre)


def _pair():
    rt.seed(8)
    eager = DropoutHead()
    static = DropoutHead()
    static.set_state_dict(eager.state_dict())
    return eager, dy2st.to_static(static, full_graph=True)


def test_train_eval_train_switches():
    eager, static = _pair()
    x = rt.to_tensor(np.random.default_rng(0).random((4, 10)).astype("float32"))
    for mode in ("train", "eval", "train", "eval"):
        getattr(eager, mode)()
        getattr(static, mode)()
        rt.seed(99)
        want = eager(x)
        rt.seed(99)
        same(want, static(x))
        plain = rt.nn.functional.relu(eager.fc(x)).numpy()  # what eval mode gives: no dropout
        assert np.array_equal(want[0].numpy(), plain) == (mode == "eval")


def test_train_mode_under_no_grad():
    eager, static = _pair()
    x = rt.to_tensor(np.random.default_rng(1).random((5, 10)).astype("float32"))
    with rt.no_grad():
        eager.train()
        static.train()
        rt.seed(5)
        want = eager(x)
        rt.seed(5)
        got = static(x)
    same(want, got)
    assert got[0].stop_gradient and got[1].stop_gradient
    rt.seed(5)
    again = static(x)  # with gradients again: the same Program serves it
    assert not again[0].stop_gradient
    rt.seed(5)
    same(eager(x), again)


class FirstSplit(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.embedding0 = rt.nn.Embedding(20, 16)
        self.embedding1 = rt.nn.Embedding(20, 32)
        self.lm_head_weight = rt.to_tensor(np.random.default_rng(0).random((2, 3)).astype("float32"))

    def forward(self, x):
        x = rt.reshape(x, shape=[-1, 6])
        x1, x2, x3 = rt.split(x=x, axis=1, num_or_sections=3)
        return x1


@pytest.mark.parametrize("mode", ["eval", "train"])
def test_unused_parameters_stay_out(mode):
    model = dy2st.to_static(FirstSplit())
    getattr(model, mode)()
    ids = rt.to_tensor(np.array([[15, 11, 6, 3, 18, 13]], "float32"))
    np.testing.assert_array_equal(model(ids).numpy(), [[15, 11]])
    ops = {op.type for op in model.forward.program_cache.last().main_program.global_block().ops}
    assert not any("lookup" in t or "embedding" in t for t in ops)
