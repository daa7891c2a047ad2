"""State in tensor loops: writes into dicts/objects/tensors, list append/pop, lists used after
the loop, Python numbers rebound in the body, tuple targets, widening dtypes, module lists,
a local function named `super` (each against eager on several trip counts)."""
import numpy as np
import pytest

import dy2st
import runtime as rt

LOG = []


def _same(a, b):
    if isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
        return
    if rt.is_tensor(a):
        assert b.dtype == a.dtype, (a, b)
        np.testing.assert_allclose(np.asarray(b.numpy(), "float64"), np.asarray(a.numpy(), "float64"),
                                   rtol=1e-6)
    else:
        assert float(b) == float(a)


def _check(fn, inputs, one_program=True):
    sf = dy2st.to_static(fn)
    for x in inputs:
        _same(fn(x), sf(x))
    assert len(sf.program_cache) == 1 if one_program else len(sf.program_cache) <= len(inputs)
    prog = sf.program_cache.last().main_program
    assert any(op.type == "while" for op in prog.global_block().ops)
    return sf


COUNTS = [rt.to_tensor(1), rt.to_tensor(3), rt.to_tensor(6)]


def dict_write_in_while(n):
    d = {"s": rt.to_tensor(0.0), "k": 1}
    i = 0
    while i < n:
        d["s"] = d["s"] + 1.5
        i += 1
    return d["s"]


class Acc:
    pass


def attr_write_in_for(n):
    o = Acc()
    o.acc = rt.to_tensor(1.0)
    for _ in range(n):
        o.acc = o.acc * 2
    return o.acc


def tensor_item_write_in_for(n):
    y = rt.zeros([3])
    for i in range(n):
        y[0] = y[0] + i
        y[2] += 1.0
    return y


def append_then_pop(n):
    lst = [rt.to_tensor(1.0), rt.to_tensor(2.0)]
    for i in range(n):
        lst.append(rt.to_tensor(3.0) * i)
    for i in range(n - 1):
        lst.pop()
    return lst[-1] + 0


def list_used_after_loop(n):
    out = []
    for i in range(n):
        out.append(rt.to_tensor(2.0) * i)
    s = rt.to_tensor(0.0)
    for v in out:
        s = s + v
    return s + out[0] + len(out)


def number_rebound_in_loop(n):
    s = rt.zeros([2])
    k = rt.ones([2])
    i = rt.to_tensor(0)
    while i < n:
        s = s + k
        k = 3
        i = i + 1
    return s


def dtype_widens(n):
    s = rt.to_tensor(1, dtype="int32")
    f = rt.to_tensor(0)
    i = rt.to_tensor(0)
    while i < n:
        s = s + i
        f = 0.5 + f
        i += 1
    return s, f


def module_list_append(n):
    for i in range(2):
        LOG.append(i)
    s = rt.to_tensor(0)
    for i in range(n):
        s = s + i
    return s


@pytest.mark.parametrize("fn", [dict_write_in_while, attr_write_in_for, tensor_item_write_in_for,
                                append_then_pop, list_used_after_loop, number_rebound_in_loop,
                                dtype_widens, module_list_append])
def test_loop_state_matches_eager(fn):
    # The eager calls in between append to the module-level LOG, a global the trace read: the
    # cache's guard on it retraces (correct, if slower) instead of reusing a stale Program.
    _check(fn, COUNTS, one_program=fn is not module_list_append)


def test_dtype_widening_loop_has_one_while_and_wide_carry():
    sf = _check(dtype_widens, COUNTS)
    prog = sf.program_cache.last().main_program
    assert prog.num_blocks == 2  # the first try's body block is dropped
    assert sf(rt.to_tensor(2))[0].dtype == "int64"


def test_tuple_targets_over_2d_tensor_rows():
    def f(x):
        s = rt.to_tensor(0.0)
        for a, b in x:
            s = s + a * b
        return s

    sf = dy2st.to_static(f, input_spec=[dy2st.InputSpec([None, 2], "float32")])
    for rows in (1, 3, 5):
        x = rt.to_tensor(np.arange(rows * 2, dtype="float32").reshape(rows, 2))
        _same(f(x), sf(x))
    assert len(sf.program_cache) == 1


def test_object_writes_in_loop_keep_gradients():
    def f(x, n):
        state = {"h": x}
        for _ in range(n):
            state["h"] = state["h"] * x
        return state["h"].sum()

    sf = dy2st.to_static(f)
    for k in (1, 2, 4):
        a = np.array([0.5, -1.5, 2.0], "float32")
        xe, xs = rt.to_tensor(a, stop_gradient=False), rt.to_tensor(a, stop_gradient=False)
        f(xe, rt.to_tensor(k)).backward()
        sf(xs, rt.to_tensor(k)).backward()
        np.testing.assert_allclose(xs.grad.numpy(), xe.grad.numpy(), rtol=1e-5)


def test_attribute_list_growing_in_tensor_loop_is_refused():
    def f(n):
        o = Acc()
        o.items = [rt.to_tensor(0.0)]
        for i in range(n):
            o.items.append(rt.to_tensor(1.0))
        return o.items[0]

    with pytest.raises(ValueError, match=r"o\.items\[1\] is added inside a tensor-dependent loop") as info:
        dy2st.to_static(f)(rt.to_tensor(3))
    assert "o.items.append(rt.to_tensor(1.0))" in str(info.value) or "for i in range(n)" in str(info.value)


class SuperUser(rt.nn.Layer):
    def forward(self, x):
        def super():
            return x * 2
        return super() + 1


def test_local_function_named_super():
    layer = SuperUser()
    x = rt.to_tensor([1.0, 2.0])
    np.testing.assert_allclose(dy2st.to_static(layer)(x).numpy(), [3.0, 5.0])


def test_module_list_is_not_rebound():
    code = dy2st.to_static(module_list_append).code
    assert "LOG.append(i)" in code and "LOG = " not in code


def test_nested_tuple_targets_with_enumerate():
    def f(x):
        s = rt.to_tensor(0.0)
        for i, (a, b) in enumerate(x):
            s = s + a * b + i
        return s

    sf = dy2st.to_static(f, input_spec=[dy2st.InputSpec([None, 2], "float32")])
    assert "_jst.Unpack(item_0, (None, 2))" in sf.code
    for rows in (1, 4):
        x = rt.to_tensor(np.arange(rows * 2, dtype="float32").reshape(rows, 2))
        _same(f(x), sf(x))
    py = dy2st.to_static(f)  # a Python-sized first dim: unrolled, same unpacking
    x = rt.to_tensor(np.ones([3, 2], "float32"))
    _same(f(x), py(x))


def append_in_branches(x):
    out = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            out.append(x[i] * 2)
        else:
            out.append(-x[i])
    return rt.stack(out)


def append_in_one_branch(x):
    out = []
    for v in x:
        if v > 0:
            out.append(v)
    return len(out)


@pytest.mark.parametrize("fn", [append_in_branches, append_in_one_branch])
def test_list_appended_under_tensor_if_in_tensor_loop(fn):
    sf = dy2st.to_static(fn, input_spec=[dy2st.InputSpec([None], "float32")])
    for a in ([1.0, -2.0, 3.0], [-1.0, 5.0], [-4.0]):
        x = rt.to_tensor(np.array(a, "float32"))
        want, got = fn(x), sf(x)
        np.testing.assert_allclose(np.asarray(got.numpy(), "float64"), np.asarray(want, "float64"))
    assert len(sf.program_cache) == 1


def test_python_list_appended_in_one_branch_of_unrolled_loop_is_refused():
    def f(x):
        out = [x[0]]
        for k in range(2):
            if x[k] > 0:
                out.append(x[k])
        return out

    with pytest.raises(ValueError, match=r"out\[1\] is set in only one branch"):
        dy2st.to_static(f)(rt.to_tensor([1.0, -1.0]))


def test_pop_from_python_list_in_tensor_loop():
    def f(n):
        lst = [rt.to_tensor(1.0), rt.to_tensor(2.0), rt.to_tensor(4.0)]
        s = rt.to_tensor(0.0)
        for _ in range(n):
            v = lst.pop()
            s = s + v
        return s, len(lst)

    sf = dy2st.to_static(f)
    for k in (1, 2, 3):
        want, got = f(rt.to_tensor(k)), sf(rt.to_tensor(k))
        _same(want[0], got[0])
        assert int(got[1]) == want[1]
    assert len(sf.program_cache) == 1


class Total(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.register_buffer("total", rt.to_tensor([0.0]))

    def forward(self, x):
        for v in x:
            self.total = self.total + v
        return self.total * 1


def test_layer_buffer_accumulated_in_tensor_loop_advances_per_call():
    eager, layer = Total(), Total()
    static = dy2st.to_static(layer, input_spec=[dy2st.InputSpec([None], "float32")])
    for a in ([1.0, 2.0], [3.0], [1.0, 1.0, 1.0]):
        x = rt.to_tensor(np.array(a, "float32"))
        _same(eager(x), static(x))
        _same(eager.total, layer.total)
    assert len(static.forward.program_cache) == 1
