"""Paddle 2.x spellings the ResNet test calls: ``Tensor.cpu()`` (the tensor itself on a CPU-only
build, so gradients flow through it), ``Tensor.place`` and iterating ``DataLoader`` by calling it
(``for batch in loader():``), eagerly and converted; ``place.is_cpu_place()`` as the memcpy test reads it."""
import numpy as np

import dy2st
import runtime as rt


def _f(x):
    y = x.cpu() * 3.0
    if y.sum() > 0:
        y = y.cpu() + 1.0
    return y, x.place == rt.CPUPlace()


def test_cpu_is_identity_with_grads_eager_and_converted():
    sf = dy2st.to_static(_f)
    for v in ([1.0, -2.0], [3.0, 4.0], [-5.0, 0.5]):
        got = []
        for fn in (_f, sf):
            x = rt.to_tensor(v, stop_gradient=False)
            y, on_cpu = fn(x)
            assert on_cpu is True or bool(on_cpu)
            y.sum().backward()
            got.append((y.numpy(), x.grad.numpy()))
        np.testing.assert_array_equal(got[0][0], got[1][0])
        np.testing.assert_array_equal(got[0][1], got[1][1])
    x = rt.ones([2])
    assert x.cpu() is x and repr(x.place) == "Place(cpu)"
    assert x.place.is_cpu_place() and not x.place.is_gpu_place()


def test_dataloader_call_iterates_like_iter():
    data = rt.io.TensorDataset([rt.to_tensor(np.arange(10, dtype="float32").reshape(5, 2))])
    loader = rt.io.DataLoader(data, batch_size=2, drop_last=True)
    a = [b[0].numpy() for b in loader()]
    b = [b[0].numpy() for b in loader]
    assert len(a) == len(b) == 2
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
