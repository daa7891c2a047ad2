"""Shapes holding run-time dims (1-element int tensors, or a whole 1-D int tensor) in eager mode and
in ``rt.static.data`` Programs: the same results as plain ints, one Program for every batch size,
shape inference with -1 exactly where a dim is only known at run time, clear errors otherwise."""
import numpy as np
import pytest

import runtime as rt
from static_helpers import building

_rng = np.random.default_rng(7)


def _x(b):
    return _rng.standard_normal((b, 3, 4)).astype(np.float32)


# name -> (f(x, b), static shape f gives for x [-1, 3, 4]); b is x's run-time batch size, as a
# 0-d int tensor (rt.shape(x)[0]); each f is also run eagerly with b a Python int.
IDIOMS = {
    "reshape_b": (lambda x, b: rt.reshape(x, [b, -1]), [-1, 12]),
    "reshape_b_method": (lambda x, b: x.reshape([b, 2, -1]), [-1, 2, 6]),
    "reshape_whole_tensor": (lambda x, b: rt.reshape(x * 2, rt.shape(x)), [-1, -1, -1]),
    "reshape_other_tensor": (lambda x, b: rt.reshape(rt.flatten(x), [b, 12]), [-1, 12]),
    "zeros": (lambda x, b: rt.zeros([b, 5]), [-1, 5]),
    "ones_int32": (lambda x, b: rt.ones([b if isinstance(b, int) else rt.cast(b, "int32"), 2], dtype="int64"),
                   [-1, 2]),
    "full": (lambda x, b: rt.full([2, b], 3.5), [2, -1]),
    "zeros_shape_tensor": (lambda x, b: rt.zeros(rt.shape(x)), [-1, -1, -1]),
    "expand": (lambda x, b: rt.expand(rt.ones([1, 4]), [b, -1]), [-1, 4]),
    "expand_known": (lambda x, b: rt.expand(x[:, :1], [b, 3, 4]), [-1, 3, 4]),
    "tile": (lambda x, b: rt.tile(rt.ones([2, 1]), [b, 3]), [-1, 3]),
    "slice_stop": (lambda x, b: x[: b - 1], [-1, 3, 4]),
    "slice_all_bounds": (lambda x, b: x[1:b:2, 0], [-1, 4]),
    "slice_ellipsis": (lambda x, b: x[..., : b - 1], [-1, 3, -1]),
    "slice_then_index": (lambda x, b: x[0, 1:, : b + 1], [2, -1]),
    "arith_dims": (lambda x, b: rt.reshape(x, [b * 3, 2, -1]), [-1, 2, -1]),
    "eye_by_batch": (lambda x, b: rt.eye(b, 3), [-1, 3]),
    "paddle_slice": (lambda x, b: rt.slice(x, axes=[0, 2], starts=[1, 0], ends=[b, b + 1]), [-1, 3, -1]),
    "strided_slice": (lambda x, b: rt.strided_slice(x, [0, -1], [b - 1, 3], [-100, 0], [-1, -2]), [-1, 3, 2]),
    "slice_tensor_bounds": (lambda x, b: rt.slice(x, [1], rt.shape(x)[1:2] - 2, rt.shape(x)[1:2]), [-1, -1, 4]),
}


def _build(fn, shape=(-1, 3, 4)):
    main = rt.static.Program()
    with building(main):
        x = rt.static.data("x", list(shape), "float32")
        out = fn(x, rt.shape(x)[0])
    return main, out


@pytest.mark.parametrize("name", sorted(IDIOMS))
def test_idiom_static_matches_eager_at_two_batch_sizes(name):
    fn, static_shape = IDIOMS[name]
    main, out = _build(fn)
    assert out.shape == static_shape
    exe = rt.static.Executor()
    for b in (2, 5):
        x = _x(b)
        got, = exe.run(main, feed={"x": x}, fetch_list=[out])
        want = fn(rt.to_tensor(x), b).numpy()
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
        assert all(s in (-1, d) for s, d in zip(static_shape, got.shape))


def test_eager_lists_take_int_tensors_with_the_same_results():
    x = rt.to_tensor(_x(3))
    for b in (rt.to_tensor(3), rt.to_tensor([3]), rt.shape(x)[0], rt.to_tensor(3, dtype="int32")):
        np.testing.assert_array_equal(rt.reshape(x, [b, -1]).numpy(), x.numpy().reshape(3, -1))
        assert rt.zeros([b, 2]).shape == [3, 2]
        assert rt.randn([b]).shape == [3]
        assert rt.expand(rt.ones([1]), [b]).shape == [3]
        assert rt.tile(rt.ones([1]), [b]).shape == [3]
        np.testing.assert_array_equal(x[: b - 1].numpy(), x.numpy()[:2])
    np.testing.assert_array_equal(rt.zeros(rt.to_tensor([2, 3])).numpy(), np.zeros((2, 3), np.float32))
    np.testing.assert_array_equal(rt.reshape(x, rt.to_tensor([9, -1])).numpy(), x.numpy().reshape(9, -1))


def test_paddle_slice_checks_its_arguments():
    x = rt.ones([2, 3])
    with pytest.raises(ValueError, match=r"strided_slice: ends has 1 entries but axes has 2"):
        rt.slice(x, [0, 1], [0, 0], [1])
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        rt.slice(x, [2], [0], [1])
    with pytest.raises(TypeError, match=r"starts\[0\] must be an int or a 1-element int Tensor, got float"):
        rt.slice(x, [0], [0.5], [1])


def test_shape_tensor_ops_print_and_infer():
    main, out = _build(lambda x, b: rt.zeros([b, 5]) + rt.reshape(x, [b, -1])[:, :5])
    text = str(main)
    assert "shape=[None, 5]" in text and "ShapeTensor=" in text
    # x.shape[0] at the same position is reshape's 0 (copy the input dim): no shape tensor needed
    assert "shape=[0, -1]" in text
    types = [op.type for op in main.global_block().ops]
    assert types.count("reshape") == 1 and "fill_constant" in types


def test_gradients_through_shape_tensor_ops():
    def f(x, b):
        y = rt.reshape(x, [b, 2, -1]) * rt.expand(rt.reshape(x[:, 0, :2], [b, 2, 1]), [b, 2, 6])
        return (rt.tile(y[: b - 1], [1, 1, b]) ** 2).sum()

    main = rt.static.Program()
    with building(main):
        x = rt.static.data("x", [-1, 3, 4], "float32")
        x.stop_gradient = False
        loss = f(x, rt.shape(x)[0])
        gx, = rt.static.gradients(loss, [x])
    exe = rt.static.Executor()
    for b in (2, 4):
        xv = _x(b)
        xe = rt.to_tensor(xv, stop_gradient=False)
        f(xe, b).backward()
        got, = exe.run(main, feed={"x": xv}, fetch_list=[gx])
        np.testing.assert_allclose(got, xe.grad.numpy(), rtol=1e-5)


@pytest.mark.parametrize("call, err, words", [
    (lambda x: rt.reshape(x, [2.5, -1]), TypeError, ["reshape: shape[0]", "float 2.5"]),
    (lambda x: rt.zeros([rt.to_tensor([1, 2]), 3]), ValueError, ["zeros: shape[0]", "int64 Tensor of shape [2]"]),
    (lambda x: rt.full([rt.to_tensor(2.0), 3], 1.0), TypeError, ["full: shape[0]", "float32 Tensor"]),
    (lambda x: rt.expand(x, "abc"), TypeError, ["expand: shape must be a list", "str"]),
    (lambda x: rt.reshape(x, rt.to_tensor([[1, 2]])), TypeError, ["1-D int Tensor", "[1, 2]"]),
    (lambda x: rt.tile(x, [None, 2]), TypeError, ["tile: repeat_times[0]", "NoneType"]),
])
def test_malformed_shapes_say_what_was_expected_and_what_came(call, err, words):
    with pytest.raises(err) as e:
        call(rt.ones([2, 3]))
    for w in words:
        assert w in str(e.value)


def test_static_errors_name_the_expected_and_the_given():
    with pytest.raises(ValueError, match=r"int64 Tensor of shape \[-1\].*run time"):
        _build(lambda x, b: rt.zeros([rt.shape(x)[: b - 2], 3]))
    with pytest.raises(TypeError, match=r"shape\[1\] must be an int or a 1-element int Tensor, got a float32"):
        _build(lambda x, b: rt.zeros([b, x.sum()]))
    with pytest.raises(ValueError, match="unknown length"):
        _build(lambda x, b: rt.zeros(rt.nonzero(rt.shape(x))[:, 0]))
    with pytest.raises(TypeError, match=r"transpose: perm\[0\] must be a Python int when building a static "
                                        r"Program, got a int64 Tensor of shape \[\] whose value is only known"):
        _build(lambda x, b: rt.transpose(x, [b, 0, 1]))
    with pytest.raises(TypeError, match="split: num_or_sections must be a Python int"):
        _build(lambda x, b: rt.split(x, b))
    with pytest.raises(ValueError, match=r"more than one -1.*rt.shape\(x\)\[i\]"):
        _build(lambda x, b: rt.reshape(x, [x.shape[0], -1]))


def test_eager_tensor_in_a_static_shape_is_read_at_run_time():
    n = rt.to_tensor(2)
    main, out = _build(lambda x, b: rt.zeros([n, b]))
    got, = rt.static.Executor().run(main, feed={"x": _x(3)}, fetch_list=[out])
    assert got.shape == (2, 3)
    n._value = np.array(4)  # a bound tensor is read by reference when the Program runs
    got, = rt.static.Executor().run(main, feed={"x": _x(3)}, fetch_list=[out])
    assert got.shape == (4, 3)


def test_program_with_shape_tensors_round_trips_through_the_file_format():
    from runtime.static.formats.program_format import program_from_json, program_to_json
    main, out = _build(lambda x, b: rt.zeros([b, 2]) + x[: b, 0, :2])
    again = program_from_json(program_to_json(main))
    for b in (1, 3):
        xv = _x(b)
        a, = rt.static.Executor().run(main, feed={"x": xv}, fetch_list=[out])
        c, = rt.static.Executor().run(again, feed={"x": xv}, fetch_list=[out.name])
        np.testing.assert_array_equal(a, c)


def test_static_variables_with_a_known_first_dim_unpack():
    main, out = _build(lambda x, b: rt.shape(x))
    with building(main):
        b, n, m = out
        assert [v.shape for v in (b, n, m)] == [[], [], []]
        x = main.global_block().var("x")
        with pytest.raises(TypeError, match="cannot iterate over static Variable 'x'"):
            iter(x)
    got = rt.static.Executor().run(main, feed={"x": _x(5)}, fetch_list=[b, n, m])
    assert [int(v) for v in got] == [5, 3, 4]
