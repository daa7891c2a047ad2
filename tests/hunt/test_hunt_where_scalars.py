"""where(cond, a, b) with two Python scalars works as in Paddle (it raised TypeError): float32 for a float,
int64 for ints, bool for bools, broadcast to the condition."""
import dy2st
import runtime as rt


def _where(c):
    return rt.where(c, 1.0, 2.0), rt.where(c, 1, 2), rt.where(c, True, False)


def test_where_with_two_python_scalars_eager_and_converted():
    c = rt.to_tensor([True, False])
    for f, i, b in (_where(c), dy2st.to_static(_where)(c)):
        assert (f.dtype, i.dtype, b.dtype) == ("float32", "int64", "bool")
        assert (f.numpy().tolist(), i.numpy().tolist(), b.numpy().tolist()) == ([1.0, 2.0], [1, 2], [True, False])
