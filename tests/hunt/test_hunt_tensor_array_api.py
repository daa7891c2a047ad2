"""Paddle's tensor arrays (`rt.tensor.create_array`, `array_write`, `array_read`, `array_length`):
Python lists eagerly, as in Paddle's dygraph; under to_static a write at a tensor index inside a
tensor loop is the `array_write` op on the loop-carried list. Reference values are PaddlePaddle
3.3's, eager and `paddle.jit.to_static` alike. An index past the end is an IndexError, never a
clamped read or write."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.compat.helpers import check
from tests.error_helpers import line_of, notes


def _loop_array(x, n):
    arr = rt.tensor.create_array("float32")
    i = rt.zeros([1], "int64")
    while i < n:
        rt.tensor.array_write(x * (i.astype("float32") + 1), i, array=arr)  # the statement form
        i = rt.increment(i)
    j = rt.zeros([1], "int64")
    s = rt.zeros([3], "float32")
    while j < rt.tensor.array_length(arr):
        s = s + rt.tensor.array_read(arr, j)
        j = j + 1
    return s, rt.concat(arr), rt.tensor.array_read(arr, n - 1)


def test_loop_built_array_matches_paddle_values_and_gradients():
    x = np.array([0.5, -1.0, 2.0], "float32")
    # PaddlePaddle 3.3, eager and to_static: outputs and d(2 * sum(s) + sum(last ** 2))/dx
    want = ([3.0, -6.0, 12.0], [0.5, -1.0, 2.0, 1.0, -2.0, 4.0, 1.5, -3.0, 6.0], [1.5, -3.0, 6.0])
    sf = dy2st.to_static(_loop_array)
    for fn in (_loop_array, sf):
        xt = rt.to_tensor(x, stop_gradient=False)
        out = fn(xt, rt.to_tensor([3]))
        for o, w in zip(out, want):
            np.testing.assert_allclose(o.numpy(), w, rtol=1e-6)
        (out[0].sum() * 2 + (out[2] * out[2]).sum()).backward()
        np.testing.assert_allclose(xt.grad.numpy(), [21.0, -6.0, 48.0], rtol=1e-6)
    ops = [op.type for b in sf.concrete_program.main_program.blocks for op in b.ops]
    assert "array_write" in ops and "array_read" in ops


def test_loop_built_array_converted_vs_eager_on_several_lengths():
    x = np.array([0.5, -1.0, 2.0], "float32")
    check(_loop_array, *[(x, np.array([n])) for n in (1, 2, 5)], grad=True, programs=1)


def _overwrite(x, n):
    arr = rt.tensor.create_array("float32", [x, x * 2, x * 3])
    for k in range(n):  # `k` is a tensor: writes at tensor indices, the last one past the old end
        arr = rt.tensor.array_write(arr[k] + 1.0, k + 1, arr)
    if x.sum() > 0:
        rt.tensor.array_write(-x, rt.zeros([1], "int64"), array=arr)
    return rt.stack(arr), rt.tensor.array_length(arr)


def test_overwrites_and_appends_at_tensor_indices():
    x = np.array([1.0, 2.0], "float32")
    check(_overwrite, (x, np.array(2)), (-x, np.array(3)), (x, np.array(0)), grad=True)


def _write_past_end(x, n):
    arr = rt.tensor.create_array("float32")
    i = rt.zeros([1], "int64")
    while i < n:
        arr = rt.tensor.array_write(x, i * 2, arr)
        i = i + 1
    return rt.stack(arr)


def _read_past_end(x, n):
    arr = []
    for k in range(n):
        arr.append(x + k)
    return rt.tensor.array_read(arr, n)


def test_write_and_read_past_the_end_are_index_errors_at_the_users_line():
    x, n = rt.ones([2]), rt.to_tensor([2])
    with pytest.raises(IndexError, match="index 2 is out of range for a tensor array of length 1"):
        _write_past_end(x, n)  # eager (a list), as Paddle's dygraph refuses it
    with pytest.raises(IndexError, match="index 2 is out of range for a tensor array of length 1") as info:
        dy2st.to_static(_write_past_end)(x, n)
    assert f"line {line_of(_write_past_end, 'array_write(x, i * 2')}" in notes(info.value)
    with pytest.raises(IndexError, match="index 2 is out of range for a tensor array of length 2"):
        dy2st.to_static(_read_past_end)(x, rt.to_tensor(2))
    with pytest.raises(IndexError, match="index 2 is out of range for a tensor array of length 2"):
        _read_past_end(x, rt.to_tensor(2))


def _outside_loop(x):
    i = rt.zeros([1], "int64")
    arr = rt.tensor.array_write(x, i=i)  # Paddle's test_len: a write at a run-time index, no loop
    return len(arr), rt.tensor.array_length(arr), rt.tensor.array_read(arr, i)


def test_array_written_outside_a_loop_and_its_length():
    x = rt.to_tensor(np.array([[1.0, 2.0]], "float32"))
    eager = _outside_loop(x)
    assert eager[:2] == (1, 1)  # Paddle's dygraph: Python ints
    n, length, item = dy2st.to_static(_outside_loop)(x)
    assert int(n) == 1 and length.dtype == "int64" and length.shape == [1] and int(length) == 1
    np.testing.assert_array_equal(item.numpy(), x.numpy())


def test_onnx_lowering_appends_and_fails_past_the_end():
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    from runtime.static.onnx.export import build_model

    main = rt.static.Program()
    with rt.static.program_guard(main):
        a = rt.static.data("a", [-1, 2], "float32")
        x = rt.static.data("x", [2], "float32")
        i = rt.static.data("i", [1], "int64")
        out = rt.tensor.array_write(x, i, a)
    model = build_model(main, ["a", "x", "i"], [out.name])
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    av, xv = np.arange(4, dtype="float32").reshape(2, 2), np.array([7.0, 8.0], "float32")
    for k in (0, 1, 2, -1, -2):
        got = sess.run(None, {"a": av, "x": xv, "i": np.array([k])})[0]
        want = rt.tensor.array_write(rt.to_tensor(xv), k, [rt.to_tensor(r) for r in av])
        np.testing.assert_array_equal(got, np.stack([w.numpy() for w in want]))
    for k in (3, -3):
        with pytest.raises(Exception, match="out of bounds|invalid|Gather"):
            sess.run(None, {"a": av, "x": xv, "i": np.array([k])})


def _write_in_one_branch(x):
    arr = [x, x + 1]
    if x.sum() > 0:  # this branch makes the list a tensor array, the other leaves it a list
        rt.tensor.array_write(x * 2, rt.zeros([1], "int64"), array=arr)
    return rt.stack(arr), rt.tensor.array_read(arr, rt.ones([1], "int64"))


def _branches_in_a_loop(x, n):
    arr = rt.tensor.create_array("float32", [x])
    i = rt.zeros([1], "int64")
    while i < n:
        i = i + 1
        if i % 2 == 0:
            rt.tensor.array_write(x * i.astype("float32"), i, array=arr)
        else:
            rt.tensor.array_write(-x, i, array=arr)
    return rt.concat(arr)


def test_writes_under_tensor_ifs():
    x = np.array([1.0, 2.0], "float32")
    check(_write_in_one_branch, (x,), (-x,), grad=True)
    check(_branches_in_a_loop, (x, np.array([3])), (x, np.array([0])), grad=True)


def _index_then_append(x, n):
    arr = [x, x * 2, x * 3]
    for k in range(n):  # `arr[k]`: a tensor index into a list the loop grows
        arr.append(arr[k] + 1.0)
    return rt.stack(arr)


def _slice_then_append(x, n):
    arr = [x, x * 2, x * 3]
    for k in range(n):  # a slice with tensor bounds
        arr.append(rt.stack(arr[k:k + 2]).sum(0))
    return rt.stack(arr)


def test_list_indexed_by_a_loop_tensor_is_carried_as_an_array():
    x = np.array([1.0, 2.0], "float32")
    check(_index_then_append, (x, np.array(2)), (-x, np.array(4)), grad=True)
    check(_slice_then_append, (x, np.array(2)), (x, np.array(3)), grad=True)


def _result_and_array(x):
    arr = [x]
    out = rt.tensor.array_write(x * 2, rt.ones([1], "int64"), arr)  # eagerly `arr` is `out`
    return rt.stack(arr), rt.stack(out)


class _Holder(rt.nn.Layer):
    def forward(self, x, at_tensor):
        self.arr = [x]
        rt.tensor.array_write(x + 1, rt.ones([1], "int64") if at_tensor else 1, self.arr)
        return rt.stack(self.arr)


def test_the_written_array_is_the_result_and_an_attribute_write_is_refused_at_a_tensor_index():
    x = np.array([1.0, 2.0], "float32")
    check(_result_and_array, (x,), grad=True)
    xt = rt.to_tensor(x)
    np.testing.assert_array_equal(dy2st.to_static(_Holder())(xt, False).numpy(), _Holder()(xt, False).numpy())
    with pytest.raises(TypeError, match="held by an attribute or a global") as info:
        dy2st.to_static(_Holder())(xt, True)
    assert f"line {line_of(_Holder.forward, 'x + 1, rt.ones')}" in str(info.value)
