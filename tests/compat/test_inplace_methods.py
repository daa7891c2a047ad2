"""Paddle's in-place Tensor methods (``x.add_(y)``, ``x.clip_(...)``, ``x.zero_()``): eager semantics,
and the converted function against eager through tensor ifs and loops, gradients included."""

import numpy as np
import pytest

import dy2st
import runtime as rt
from dy2st.conversion.transform import transform_function
from dy2st.conversion import convert_operators
from tests.compat.helpers import arr, check


# -- eager ---------------------------------------------------------------------------------------
def test_an_inplace_method_changes_every_alias_and_returns_the_tensor():
    x = rt.to_tensor([1.0, -2.0, 3.0])
    alias = x
    assert x.add_(rt.ones([3])) is x
    np.testing.assert_array_equal(alias.numpy(), [2.0, -1.0, 4.0])
    x.clip_(0.0, 3.0).scale_(2.0)
    np.testing.assert_array_equal(alias.numpy(), [4.0, 0.0, 6.0])
    x.zero_()
    np.testing.assert_array_equal(alias.numpy(), [0.0, 0.0, 0.0])
    x.fill_(1.5).unsqueeze_(0)
    assert alias.shape == [1, 3] and alias.numpy().tolist() == [[1.5, 1.5, 1.5]]


def test_gradients_flow_through_an_inplace_write_as_through_its_out_of_place_form():
    xv = np.array([0.5, -1.0, 2.0], "float32")
    x = rt.to_tensor(xv, stop_gradient=False)
    y = x * 2
    y.multiply_(x)       # y = 2x * x
    y.exp_()
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(2 * xv * xv) * 4 * xv, rtol=1e-6)


@pytest.mark.parametrize("call, error, words", [
    (lambda: rt.to_tensor([1, 2]).add_(rt.to_tensor([0.5, 0.5])), TypeError, "dtype from int64 to float32"),
    (lambda: rt.to_tensor([1.0, 2.0]).add_(rt.ones([2, 2])), ValueError, "shape from [2] to [2, 2]"),
    (lambda: rt.to_tensor([1.0], stop_gradient=False).add_(1.0), RuntimeError, "leaf Tensor"),
])
def test_an_inplace_method_never_casts_broadcasts_or_writes_a_leaf_that_needs_a_gradient(call, error, words):
    with pytest.raises(error, match=None) as info:
        call()
    assert words in str(info.value)


# -- converted -----------------------------------------------------------------------------------
def _alias(x):
    y = x * 1
    z = y
    y.add_(rt.ones_like(y))
    return y, z


def _branches(x):
    y = x * 2
    if y.mean() > 0:
        y.multiply_(x)
    else:
        y.clip_(min=-0.5)
    y.unsqueeze_(0)
    return y


def _loop(x, n):
    y = x * 1
    kept = [y]
    i = 0
    while i < n:
        y.add_(x * 0.5)
        i += 1
    return y, kept[0]


def _fills(x):
    y = x.clone()
    if x.sum() > 0:
        y.zero_()
    if x.max() > 5:
        y.fill_(2.0)
    else:
        y.scale_(3.0)
    return y


@pytest.mark.parametrize("fn, extra", [(_alias, ()), (_branches, ()), (_loop, (3,)), (_loop, (0,)),
                                       (_fills, ())])
def test_converted_inplace_methods_match_eager(fn, extra):
    extra = tuple(rt.to_tensor(e) for e in extra)
    args = [(arr(2, 3, seed=s),) + extra for s in range(3)] + [(-np.abs(arr(2, 3, seed=7)),) + extra]
    check(fn, *args, grad=fn is not _fills)


def test_the_inplace_statement_is_written_as_a_rebinding_of_its_name():
    source = transform_function(_branches, helpers=convert_operators).source
    assert "y = _jst.Inplace(y, 'multiply_', x)" in source
    assert "y = _jst.Inplace(y, 'clip_', min=-0.5)" in source


def test_an_inplace_write_into_an_input_changes_the_callers_tensor_as_eagerly():
    def bump(x):
        x.add_(rt.ones_like(x))
        return x * 2

    xv = arr(2, 2)
    x, x_eager = rt.to_tensor(xv), rt.to_tensor(xv)
    got = dy2st.to_static(bump)(x)
    np.testing.assert_array_equal(got.numpy(), bump(x_eager).numpy())
    np.testing.assert_array_equal(x.numpy(), x_eager.numpy())


class _Zeroing(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(2, 2)

    def forward(self, x):
        self.fc.weight.zero_()
        return self.fc(x)


def test_an_inplace_write_into_a_parameter_outside_no_grad_raises_as_eager_at_the_users_line():
    with pytest.raises(RuntimeError, match="cannot be changed in place by zero_"):
        _Zeroing()(rt.ones([1, 2]))
    with pytest.raises(RuntimeError) as info:
        dy2st.to_static(_Zeroing())(rt.ones([1, 2]))
    text = str(info.value) + "".join(getattr(info.value, "__notes__", []))
    assert "cannot be changed in place by zero_()" in text and "self.fc.weight.zero_()" in text


def _inside_expression(x):
    y = x * 1
    if x.sum() > 0:
        z = y.add_(1.0) * 2
    else:
        z = y
    return z


def test_an_inplace_method_inside_an_expression_on_an_outer_tensor_is_refused():
    with pytest.raises(TypeError, match="call it as a statement of its own"):
        dy2st.to_static(_inside_expression)(rt.ones([2]))


# -- aliases of a tensor written inside a tensor if or loop (item writes as well) -----------------
def _alias_if(x):
    y = x * 1
    z = y
    kept = [y]
    if x.sum() > 0:
        y[0] = 5.0
    return y, z, kept[0]


def _alias_while(x, n):
    y = x * 1
    kept = {"a": y}
    i = 0
    while i < n:
        if y.sum() > 0:
            y[1] = y[1] - 1.0
        i += 1
    return y, kept["a"]


def _alias_for_rows(x):
    y = x * 1
    z = y
    for r in x:
        if r.sum() > 0:
            y.add_(r)
    return y, z


def _rebinding_is_no_write(x):
    y = x * 1
    z = y
    if x.sum() > 0:
        y = y + 1
    return y, z


@pytest.mark.parametrize("fn, extra", [(_alias_if, ()), (_alias_while, (3,)), (_alias_while, (0,)),
                                       (_alias_for_rows, ()), (_rebinding_is_no_write, ())])
def test_every_alias_of_a_tensor_written_under_tensor_control_flow_sees_the_write(fn, extra):
    # the names and containers holding the same tensor as `y` held the old value under to_static
    extra = tuple(rt.to_tensor(e) for e in extra)
    check(fn, *[(arr(2, 3, seed=s),) + extra for s in range(3)], (-np.abs(arr(2, 3, seed=9)),) + extra, grad=True)


def _bump(t):
    """A helper writing into its tensor argument (as eagerly: the caller's tensor changes)."""
    t[0] = t[0] + 1.0


def _helper_writes(x):
    y = x * 1
    z = y

    if x.sum() > 0:
        _bump(y)
    return y, z


def _written_then_rebound(x):
    y = x * 1
    z = y
    if x.sum() > 0:
        y[0] = 5.0
        y = y * 2
    return y, z


@pytest.mark.parametrize("fn", [_helper_writes, _written_then_rebound])
def test_a_branch_carries_a_write_no_name_holds_as_an_extra_output(fn):
    check(fn, (arr(2, 3, seed=1),), (-np.abs(arr(2, 3, seed=2)),), grad=True)


def _helper_writes_in_loop(x, n):
    y = x * 1

    i = 0
    while i < n:
        _bump(y)
        i += 1
    return y


def test_a_loop_write_the_body_cannot_carry_out_is_refused_not_dropped():
    with pytest.raises(TypeError, match="does not assign by name"):
        dy2st.to_static(_helper_writes_in_loop)(rt.to_tensor(arr(2, 2)), rt.to_tensor(2))


def _helper_write_then_read_in_branch(x):
    y = x * 1

    if x.sum() > -100:
        _bump(y)
        y = y * 2  # reads y, which eagerly holds the write
    return y


def _helper_write_then_read_in_loop(x, n):
    y = x * 1

    i = 0
    while i < n:
        _bump(y)
        y = y * 2
        i += 1
    return y


@pytest.mark.parametrize("fn, extra", [(_helper_write_then_read_in_branch, ()),
                                       (_helper_write_then_read_in_loop, (2,))])
def test_reading_a_tensor_again_after_a_write_the_body_cannot_show_is_refused(fn, extra):
    # the Program would read the value from before the write (it gave zeros where eager gave the write)
    args = (rt.to_tensor(np.zeros((2, 2), "float32")),) + tuple(rt.to_tensor(e) for e in extra)
    with pytest.raises(TypeError, match="is read again after the write"):
        dy2st.to_static(fn)(*args)
