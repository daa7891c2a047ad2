"""Writes into dicts, lists, objects and tensors inside a tensor-dependent `if` follow the
branch taken (each case against eager, on inputs taking both branches)."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from error_helpers import notes

INPUTS = [np.array([1.0, 2.0], "float32"), np.array([3.0, 4.0], "float32"),
          np.array([-5.0, 9.5], "float32")]


def _value(v):
    if isinstance(v, dict):
        return {k: _value(e) for k, e in v.items()}
    if isinstance(v, (list, tuple)):
        return [_value(e) for e in v]
    if rt.is_tensor(v):
        return np.asarray(v.numpy()).tolist()
    return v


def _check(fn, inputs=INPUTS):
    sf = dy2st.to_static(fn)
    for a in inputs:
        assert _value(sf(rt.to_tensor(a))) == _value(fn(rt.to_tensor(a))), a
    assert len(sf.program_cache) == 1


def dict_int_write(x):
    res = {"a": 1, "b": x}
    if x.sum() > 4:
        res["a"] = 2
    else:
        res["a"] = 3
    return res


def dict_tensor_write_one_branch(x):
    res = {"a": x}
    k = "a"
    if x.mean() > 2:
        res[k] = x * 2
    return res["a"] + 1


def tensor_item_write(x):
    y = x * 1
    if x.sum() > 4:
        y[0] = 0.0
    else:
        y[1] += 10.0
    return y


class Box:
    pass


def object_attr_write(x):
    o = Box()
    o.v = x
    if x.sum() > 4:
        o.v = x * 2
    else:
        o.v = x * 3
    return o.v


def list_append_both(x):
    out = [x]
    if x.sum() > 4:
        out.append(x * 2)
    else:
        out.append(x - 1)
    return out[0] + out[1]


def list_item_write(x):
    vals = [x, x + 1]
    if x.sum() > 4:
        vals[1] = x * 5
    return vals


def nested_write(x):
    state = {"h": x, "log": {"n": x.sum()}}
    if x.sum() > 4:
        state["log"]["n"] = x.max()
        if x.max() > 3.5:
            state["h"] = x - 1
    return state["h"], state["log"]["n"]


@pytest.mark.parametrize("fn", [dict_int_write, dict_tensor_write_one_branch, tensor_item_write,
                                object_attr_write, list_append_both, list_item_write, nested_write])
def test_write_follows_taken_branch(fn):
    _check(fn)


def test_writes_are_cond_outputs_with_gradients():
    def f(x):
        res = {"y": x}
        if x.sum() > 4:
            res["y"] = x * x
        else:
            res["y"] = x * 3
        return res["y"].sum()

    sf = dy2st.to_static(f)
    for a in INPUTS:
        xe, xs = rt.to_tensor(a, stop_gradient=False), rt.to_tensor(a, stop_gradient=False)
        f(xe).backward()
        sf(xs).backward()
        np.testing.assert_allclose(xs.grad.numpy(), xe.grad.numpy(), rtol=1e-6)
    ops = [op.type for op in sf.get_concrete_program(rt.to_tensor(INPUTS[0])).main_program.global_block().ops]
    assert "cond" in ops


def test_generated_code_names_written_objects():
    code = dy2st.to_static(dict_int_write).code
    assert "writes={'res': res}" in code
    assert "res = _jst.SetItem(res, 'a', 2)" in code


def test_key_set_in_one_branch_only_is_refused_at_user_line():
    def f(x):
        res = {}
        if x.sum() > 4:
            res["new"] = x
        return res

    with pytest.raises(ValueError, match=r"res\['new'\] is set in only one branch") as info:
        dy2st.to_static(f)(rt.to_tensor(INPUTS[0]))
    assert 'res["new"] = x' in notes(info.value)


def test_item_write_on_traced_tensor_outside_control_flow():
    def f(x):
        y = x + 0
        y[1:] = x[:1] * 4
        return y * 2

    sf = dy2st.to_static(f)
    for a in INPUTS:
        np.testing.assert_allclose(sf(rt.to_tensor(a)).numpy(), f(rt.to_tensor(a)).numpy())


def test_item_write_gradients_match_eager():
    def f(x, w):
        y = x * w
        if x.sum() > 4:
            y[0] = w[1] * 3.0
        return (y * y).sum()

    sf = dy2st.to_static(f)
    for a in INPUTS:
        we, ws = rt.to_tensor([0.5, -2.0], stop_gradient=False), rt.to_tensor([0.5, -2.0], stop_gradient=False)
        f(rt.to_tensor(a), we).backward()
        sf(rt.to_tensor(a), ws).backward()
        np.testing.assert_allclose(ws.grad.numpy(), we.grad.numpy(), rtol=1e-6)


class Stateful(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.state = {"v": rt.to_tensor([0.0])}

    def update(self, x):
        self.state["v"] = x.sum().reshape([1])

    def forward(self, x):
        if x.mean() > 0:
            self.update(x)
        else:
            self.update(-x * 2)
        return self.state["v"] + 1


def test_writes_made_by_called_functions_follow_the_branch():
    eager, layer = Stateful(), Stateful()
    static = dy2st.to_static(layer)
    for a in INPUTS + [np.array([-1.0, -1.0], "float32")]:
        x = rt.to_tensor(a)
        np.testing.assert_allclose(static(x).numpy(), eager(x).numpy())
        np.testing.assert_allclose(layer.state["v"].numpy(), eager.state["v"].numpy())


def _accumulate(d, x):
    d["acc"] = d["acc"] + x


def test_writes_made_by_called_functions_in_a_tensor_loop():
    def f(x, n):
        d = {"acc": rt.to_tensor(0.0)}
        for _ in range(n):
            _accumulate(d, x)
        return d["acc"]

    sf = dy2st.to_static(f)
    for k in (1, 3, 4):
        np.testing.assert_allclose(sf(rt.to_tensor(2.0), rt.to_tensor(k)).numpy(),
                                   f(rt.to_tensor(2.0), rt.to_tensor(k)).numpy())
    assert len(sf.program_cache) == 1


def test_item_write_into_an_input_returns_the_callers_written_tensor():
    def f(x):
        x[0] = 0.0
        return x

    x = rt.to_tensor([1.0, 2.0])
    out = dy2st.to_static(f)(x)
    assert out is x and x.numpy().tolist() == [0.0, 2.0]  # as eagerly: the caller's tensor, written


def test_item_write_into_an_outside_tensor_writes_it_as_eagerly():
    # it was refused; a layer's buffer written by item (MoCo's queue) is the common case
    w, w_eager = rt.to_tensor([1.0, 2.0]), rt.to_tensor([1.0, 2.0])

    def f(x, t):
        t[0] = t[1] + x.sum()
        return x * t

    sf = dy2st.to_static(lambda x: f(x, w))
    for v in (1.0, 3.0):
        got, want = sf(rt.to_tensor([v, 2.0])), f(rt.to_tensor([v, 2.0]), w_eager)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        np.testing.assert_array_equal(w.numpy(), w_eager.numpy())
    w.stop_gradient = False  # a leaf that needs a gradient is not written in place, eagerly either
    with pytest.raises(TypeError, match="item assignment") as info:
        dy2st.to_static(lambda x: f(x, w))(rt.to_tensor([1.0, 2.0]))
    assert "t[0] = t[1] + x.sum()" in notes(info.value)


def _write_in_branch_and_loops(x, w):
    if x.sum() > 0:
        w[0] = w[0] + x.sum()
    i = 0
    while i < rt.shape(x)[0]:
        w[i + 1] = w[i + 1] + x[i]
        i += 1
    for j in range(rt.shape(x)[0]):
        w[j + 1] = w[j + 1] * 2.0
    return x * w.sum()


def test_item_writes_into_an_outside_tensor_in_tensor_branches_and_loops_reach_it():
    # the loops' writes stayed in the Program: the tensor kept its old value (no error), and the
    # branch's cond output took the name over, so later writes missed the tensor too
    w, w_eager = rt.zeros([5]), rt.zeros([5])
    sf = dy2st.to_static(lambda x: _write_in_branch_and_loops(x, w), input_spec=[rt.static.InputSpec([None])])
    for v in ([1.0, 2.0], [-3.0, 1.0, 4.0], [2.0]):
        got, want = sf(rt.to_tensor(v)), _write_in_branch_and_loops(rt.to_tensor(v), w_eager)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        np.testing.assert_array_equal(w.numpy(), w_eager.numpy())
    assert len(sf.program_cache) == 1
