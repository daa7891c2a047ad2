"""Calls that converted code refused though eager runs them: tensor arguments where the kernel takes
a number (rt.scale, rt.linspace) and layers given run-time spatial dims (pixel_shuffle, group_norm).
Each now runs eager-exactly (bitwise) through one cached Program; the others stay clear refusals."""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from error_helpers import notes
from runtime import nn


def _bitwise(eager, static):
    if isinstance(eager, (tuple, list)):
        assert len(eager) == len(static)
        for a, b in zip(eager, static):
            _bitwise(a, b)
        return
    assert str(eager.dtype) == str(static.dtype) and list(eager.shape) == list(static.shape)
    assert eager.numpy().tobytes() == static.numpy().tobytes(), (eager.numpy(), static.numpy())


def _grads(fn, sf, x, *rest):
    """x's gradient (and whether the others get one) through fn eagerly and converted."""
    out = []
    for f in (fn, sf):
        x.stop_gradient = False
        for r in rest:
            r.stop_gradient = False
        f(x, *rest).sum().backward()
        out.append((x.grad.numpy().copy(), [r.grad for r in rest]))
        for v in (x,) + rest:
            v.clear_gradient()
            v.stop_gradient = True
    np.testing.assert_array_equal(out[0][0], out[1][0])
    assert out[0][1] == out[1][1] == [None] * len(rest)  # float() reads: no gradient, as eagerly


def _scaled(x, s, b):
    return rt.scale(x, scale=s, bias=b), rt.scale(x, scale=s, bias=0.25)


def test_scale_by_one_element_tensors_matches_eager_bitwise():
    sf = dy2st.to_static(_scaled)
    for sv, bv in [(1.5, 0.0), (-2.0, 0.5), (0.3, -0.0), (3.0, 1e-8)]:
        s, b = rt.to_tensor(np.array([sv], "float64")), rt.to_tensor(np.array(bv, "float32"))
        for dt in ("float32", "int64", "float16"):  # casts, truncation, float16 computed in float32
            x = rt.to_tensor(np.array([-0.0, 1.25, -3.5, 7.0]).astype(dt))
            _bitwise(_scaled(x, s, b), sf(x, s, b))
    assert len(sf.program_cache) == 3  # one per x dtype, for every scale and bias value
    two = rt.to_tensor(np.array([1.0, 2.0], "float32"))
    with pytest.raises(TypeError, match="float.. needs a tensor with one element") as info:
        sf(two, two, b)  # eagerly float(s) refuses it too
    assert "return rt.scale(x, scale=s, bias=b)" in notes(info.value)
    _grads(lambda x, s: rt.scale(x, scale=s) * x, dy2st.to_static(lambda x, s: rt.scale(x, scale=s) * x),
           rt.to_tensor(np.array([0.5, -2.0], "float32")), rt.to_tensor(np.array([1.5], "float32")))


def _spaced(a, b):
    return rt.linspace(a, b, 7), rt.linspace(a, 2.0, 1), rt.linspace(0, b, 4, dtype="int32"), rt.linspace(a, b, 0)


def test_linspace_between_tensors_matches_eager_bitwise():
    sf = dy2st.to_static(_spaced)
    for av, bv in [(0.0, 1.0), (-3.3, 7.1), (1e-320, 2e-320), (5.0, 5.0), (2.5, -1.25)]:
        a, b = rt.to_tensor(np.array(av, "float64")), rt.to_tensor(np.array([bv], "float32"))
        _bitwise(_spaced(a, b), sf(a, b))
    assert len(sf.program_cache) == 1


def _shuffle(x):
    return F.pixel_shuffle(x, 2) * x.mean()


def _grouped(x):
    return F.group_norm(x, 2) * 3.0


def test_pixel_shuffle_and_group_norm_with_run_time_spatial_dims():
    for fn, c in [(_shuffle, 8), (nn.PixelShuffle(2), 8), (_grouped, 4), (nn.GroupNorm(2, 4), 4)]:
        sf = dy2st.to_static(fn, input_spec=[dy2st.InputSpec([None, c, None, None])])
        for i, shape in enumerate([(2, c, 3, 3), (1, c, 2, 5)]):
            x = rt.to_tensor(np.random.default_rng(i).standard_normal(shape).astype("float32"))
            _bitwise(fn(x), sf(x))
            if fn is _shuffle or fn is _grouped:
                _grads(fn, sf, x)
        cache = sf.program_cache if hasattr(sf, "program_cache") else sf.forward.program_cache
        assert len(cache) == 1


def _clears(a):
    y = a * 2
    y.clear_gradient()  # eagerly a no-op: a computed value holds no gradient
    y.clear_grad()
    return y * a


def _clears_input(a):
    a.clear_gradient()
    return a * 2


def test_clear_gradient_of_a_computed_value_is_a_no_op_and_of_an_input_refused():
    sf = dy2st.to_static(_clears)
    for v in ([1.5, -2.0], [0.0, 3.0]):
        x = rt.to_tensor(np.array(v, "float32"))
        _bitwise(_clears(x), sf(x))
        _grads(_clears, sf, x)
    # eagerly it clears the caller's tensor's .grad, which a Program does not hold (Paddle 3.3
    # refuses every clear_gradient in converted code with an AssertionError)
    with pytest.raises(AttributeError, match="clearing .grad of the input 'a'") as info:
        dy2st.to_static(_clears_input)(rt.to_tensor(np.array([1.0], "float32")))
    assert "a.clear_gradient()" in notes(info.value)


def _rounds(v):
    return round(v, 2)


def _early(x):
    if x.sum() > 0:
        return x * 2


def test_round_of_a_tensor_and_an_early_return_of_none_stay_refused_at_the_users_line():
    x = rt.to_tensor(np.array([2.345], "float32"))
    with pytest.raises(TypeError, match="doesn't define __round__"):
        _rounds(x)  # eagerly too (Paddle's Tensor has no __round__ either)
    with pytest.raises(TypeError, match="doesn't define __round__") as info:
        dy2st.to_static(_rounds)(x)
    assert "return round(v, 2)" in notes(info.value)
    # a Tensor on one path and None on the other: no Program output can be both (Paddle 3.3 raises
    # the same Dygraph2StaticException for this code)
    with pytest.raises(Exception, match="NoneType None in one branch") as info:
        dy2st.to_static(_early)(x)
    assert type(info.value).__name__ == "Dygraph2StaticException"
    assert "if x.sum() > 0:" in str(info.value) + notes(info.value)


def _counted(n, x):
    return x / max(n, 1)


def _as_int(n, x):
    return x / max(int(n), 1), min(x.sum(), rt.full_like(x.sum(), 0.5))


def test_max_of_a_tensor_and_a_number_is_refused_with_the_two_rewrites_that_work():
    # eagerly a Tensor or a Python int as the values go: x / 1 and x / tensor differ in kind after
    n, x = rt.to_tensor(np.array([3], "int64")), rt.to_tensor(np.array([0.3, 0.7], "float32"))
    with pytest.raises(TypeError, match=r"max\(int\(t\), 1\) for a Python number, or "
                                        r"max\(t, rt.full_like\(t, 1\)\) for a Tensor") as info:
        dy2st.to_static(_counted)(n, x)
    assert "return x / max(n, 1)" in notes(info.value)
    sf = dy2st.to_static(_as_int)
    for nv, xv in [([3], [0.3, 0.7]), ([0], [0.9, -1.0])]:
        args = rt.to_tensor(np.array(nv, "int64")), rt.to_tensor(np.array(xv, "float32"))
        _bitwise(_as_int(*args), sf(*args))
    assert len(sf.program_cache) == 1


def _kron(a):
    return rt.kron(a, a * 2)


def test_kron_and_pixel_shuffle_with_several_run_time_dims():
    for fn, spec, shapes in [(_kron, [None, None], [(2, 3), (3, 1)]),
                             (_shuffle, [None, None, None, None], [(2, 8, 3, 3), (1, 4, 2, 5)])]:
        sf = dy2st.to_static(fn, input_spec=[dy2st.InputSpec(spec)])
        for i, shape in enumerate(shapes):
            x = rt.to_tensor(np.random.default_rng(i).standard_normal(shape).astype("float32"))
            _bitwise(fn(x), sf(x))
            _grads(fn, sf, x)
        assert len(sf.program_cache) == 1
