"""`y[k] = v` inside converted code is seen through every alias of `y`, as in eager."""
import numpy as np

import dy2st
import runtime as rt


def _write_first(t):
    t[0] = 100.0


def _helper_writes_argument(x):
    y = x * 1
    _write_first(y)
    return y


def _alias_name(x):
    y = x * 1
    z = y
    y[0, 0] = 7.0
    return z


def _alias_in_list_and_dict(x):
    y = x * 1
    lst, d = [y], {"k": y}
    y[1] = -1.0
    return lst[0] + d["k"]


def _alias_gradient(x):
    y = x * 2
    keep = [y]
    y[0] = x[1] * 3
    return keep[0].sum()


def _check(fn, *values):
    sf = dy2st.to_static(fn)
    for v in values:
        np.testing.assert_array_equal(sf(rt.to_tensor(v)).numpy(), fn(rt.to_tensor(v)).numpy())


def test_helper_writing_into_its_argument_changes_the_callers_tensor():
    _check(_helper_writes_argument, np.array([1.0, 2.0], "float32"), np.array([-3.0, 4.0], "float32"))
    assert dy2st.to_static(_helper_writes_argument)(rt.to_tensor([1.0, 2.0])).numpy().tolist() == [100.0, 2.0]


def test_second_name_sees_item_write():
    _check(_alias_name, np.arange(6, dtype="float32").reshape(2, 3))


def test_list_and_dict_holding_tensor_see_item_write():
    _check(_alias_in_list_and_dict, np.array([1.0, 2.0], "float32"), np.array([5.0, 0.5], "float32"))


def test_gradient_through_aliased_item_write_equals_eager():
    grads = []
    for fn in (_alias_gradient, dy2st.to_static(_alias_gradient)):
        x = rt.to_tensor([1.0, 2.0], stop_gradient=False)
        loss = fn(x)
        loss.backward()
        grads.append((float(loss), x.grad.numpy().tolist()))
    assert grads[0] == grads[1] == (10.0, [0.0, 5.0])


def _write_into_input(x):
    x[0] = 3.0
    return x * 2


def test_item_write_into_an_input_changes_the_callers_tensor():
    sf = dy2st.to_static(_write_into_input)
    x = rt.to_tensor([1.0, 2.0])
    out = sf(x)  # eagerly the caller's x is written too (execution/input_writes.py)
    assert out.numpy().tolist() == [6.0, 4.0] and x.numpy().tolist() == [3.0, 2.0]
