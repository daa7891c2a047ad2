"""rt.assign/increment, Tensor.clone/gradient/set_value and devices, eagerly and in Programs."""
import numpy as np
import pytest

import dy2st
import runtime as rt


# -- assign / increment / clone / gradient / set_value / devices ---------------------------------
def test_assign_copies_keeps_tape_and_writes_output():
    x = rt.to_tensor([1.0, 2.0], stop_gradient=False)
    y = rt.assign(x)
    (y * 3).sum().backward()
    assert x.gradient().tolist() == [3.0, 3.0]
    assert rt.assign([1.5, 2.0]).dtype == "float32"
    assert rt.assign(np.ones(2)).dtype == "float64"
    out = rt.zeros([2])
    r = rt.assign(np.array([4.0, 5.0], np.float32), out)
    assert r is out and out.numpy().tolist() == [4.0, 5.0]
    rt.assign(np.ones(3), out)  # output takes x's value, shape and dtype (Paddle)
    assert out.shape == [3] and out.dtype == "float64"


def test_increment_in_place_and_in_static_loop():
    i = rt.to_tensor([3])
    j = rt.increment(i)
    assert j is i and i.numpy().tolist() == [4] and i.dtype == "int64"
    f = rt.to_tensor([1.5])
    rt.increment(f, 2.0)
    assert f.numpy().tolist() == [3.5]
    with pytest.raises(ValueError, match="one-element"):
        rt.increment(rt.to_tensor([1, 2]))

    def loop(n):
        i = rt.zeros([1], "int64")
        s = rt.zeros([1], "int64")
        while i < n:
            s = s + i
            i = rt.increment(i)
        return s

    sf = dy2st.to_static(loop)
    for n in (0, 4, 7):
        assert sf(rt.to_tensor([n])).numpy().tolist() == loop(rt.to_tensor([n])).numpy().tolist()


def test_clone_is_differentiable_and_independent():
    x = rt.to_tensor([1.0, 2.0], stop_gradient=False)
    c = x.clone()
    assert not c.stop_gradient and c.numpy() is not x.numpy()
    (c * c).sum().backward()
    assert x.gradient().tolist() == [2.0, 4.0]
    d = rt.to_tensor([1.0]).clone()
    assert d.stop_gradient


def test_gradient_and_set_value():
    p = rt.nn.Linear(2, 2).weight
    assert p.gradient() is None
    p.set_value(np.full([2, 2], 0.5, np.float32))
    assert p.numpy().tolist() == [[0.5, 0.5], [0.5, 0.5]] and not p.stop_gradient
    p.set_value(rt.ones([2, 2]))
    assert p.numpy().sum() == 4
    with pytest.raises(ValueError, match=r"shape \[2, 2\].*\[3\]"):
        p.set_value(np.ones(3, np.float32))
    with pytest.raises(ValueError, match="dtype float32.*float64"):
        p.set_value(np.ones([2, 2]))
    with pytest.raises(TypeError, match="numpy array or a Tensor"):
        p.set_value([[1.0, 2.0], [3.0, 4.0]])


def test_devices():
    assert rt.get_device() == "cpu"
    assert rt.set_device("cpu") == rt.CPUPlace()
    with pytest.raises(ValueError, match="'gpu:0' is not available"):
        rt.set_device("gpu:0")
    assert not rt.is_compiled_with_cuda()
