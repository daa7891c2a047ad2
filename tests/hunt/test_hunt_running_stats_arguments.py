"""F.batch_norm(training=True) on running statistics given to a converted function as arguments: eagerly
the caller's tensors take the updated statistics; the Program used to leave them unchanged (silently) on
every call.  Now each call writes them back (also through the cached fast call), and a write inside a
tensor-dependent branch, which cannot reach the caller, is refused at the user's line."""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F


def _step(t, rm, rv):
    y = F.batch_norm(t, rm, rv, training=True, momentum=0.8)
    return (y * y).mean()


def test_running_statistics_arguments_are_written_back_on_every_call():
    converted = dy2st.to_static(_step)
    stats = [[rt.to_tensor(np.full(3, 0.5, "float32")), rt.to_tensor(np.full(3, 2.0, "float32"))] for _ in range(2)]
    rng = np.random.default_rng(0)
    for _ in range(4):
        x = rng.standard_normal((4, 3, 2, 2)).astype("float32")
        xs = [rt.to_tensor(x, stop_gradient=False) for _ in range(2)]
        losses = [fn(t, *s) for fn, t, s in zip((_step, converted), xs, stats)]
        for loss in losses:
            loss.backward()
        assert float(losses[0]) == float(losses[1])
        np.testing.assert_array_equal(stats[0][0].numpy(), stats[1][0].numpy())
        np.testing.assert_array_equal(stats[0][1].numpy(), stats[1][1].numpy())
        np.testing.assert_allclose(xs[0].grad.numpy(), xs[1].grad.numpy(), rtol=1e-6, atol=1e-7)
    assert converted.get_traced_count() == 1
    assert not np.array_equal(stats[1][0].numpy(), np.full(3, 0.5, "float32"))


def test_a_write_inside_a_tensor_branch_is_refused_at_the_users_line():
    @dy2st.to_static
    def branchy(t, rm, rv):
        if t.mean() > 0:
            y = F.batch_norm(t, rm, rv, training=True)
        else:
            y = t
        return y

    with pytest.raises(TypeError, match="cannot reach the caller") as info:
        branchy(rt.ones([2, 3, 2, 2]), rt.zeros([3]), rt.ones([3]))
    assert "y = F.batch_norm(t, rm, rv, training=True)" in "".join(getattr(info.value, "__notes__", []))


def _increment(x, c):
    rt.increment(c, 2.0)
    return x + c


def _assign(x, out):
    rt.assign(x * 2, output=out)
    return x.sum()


def _set_value(x, out):
    out.set_value(x * 3)
    return x.sum()


@pytest.mark.parametrize("fn,make", [(_increment, lambda: rt.to_tensor([1.0])), (_assign, lambda: rt.zeros([2])),
                                     (_set_value, lambda: rt.zeros([2]))])
def test_increment_assign_output_and_set_value_into_arguments_reach_the_caller(fn, make):
    # the write was dropped from the Program (a fed input was not rebound): the caller's tensor kept its value
    converted = dy2st.to_static(fn)
    eager_arg, static_arg = make(), make()
    for i in range(4):
        x = rt.to_tensor(np.array([i, i + 1.0], "float32"))
        np.testing.assert_array_equal(fn(x, eager_arg).numpy(), converted(x, static_arg).numpy())
        np.testing.assert_array_equal(eager_arg.numpy(), static_arg.numpy())
    assert converted.get_traced_count() == 1


def test_assign_output_into_an_argument_carries_the_gradient():
    converted = dy2st.to_static(_assign)
    grads = []
    for fn in (_assign, converted):
        x, out = rt.to_tensor(np.array([1.0, 2.0], "float32"), stop_gradient=False), rt.zeros([2])
        fn(x, out)
        (out * out).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])
    np.testing.assert_array_equal(grads[0], [8.0, 16.0])
