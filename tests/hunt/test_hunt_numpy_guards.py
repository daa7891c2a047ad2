"""A numpy array the traced code reads (a global, a Layer attribute, an item of a global list, an
attribute of a config object) is baked into the Program as constants; written in place it keeps
its identity, so the identity guard reused the stale Program. Its bytes are guarded too."""
import numpy as np

import dy2st
import runtime as rt

MASKS = [np.array([1.0, 0.0], "float32")]
SCALE = np.array([2.0, 2.0], "float32")


class _Cfg:
    pass


CFG = _Cfg()
CFG.shift = np.array([0.0, 0.0], "float32")


def _reads_arrays(x):
    return x * rt.to_tensor(MASKS[0]) + x * SCALE + CFG.shift


class _Masked(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.mask = np.array([1.0, 0.0], "float32")
        self.table = np.ones((512, 64), "float32")  # 128 KiB: guarded by a sample of its elements

    def forward(self, x):
        return x * rt.to_tensor(self.mask) + rt.to_tensor(self.table[0, :2])


def _same_as_eager(fn, sf, x):
    a, b = fn(x), sf(x)
    np.testing.assert_array_equal(b.numpy(), a.numpy())
    return b


def test_arrays_written_in_place_retrace():
    sf = dy2st.to_static(_reads_arrays)
    x = rt.to_tensor(np.array([1.0, 2.0], "float32"), stop_gradient=False)
    writes = [lambda: None, lambda: MASKS[0].__setitem__(1, 3.0), lambda: SCALE.__setitem__(0, -0.0),
              lambda: CFG.shift.__setitem__(slice(None), 7.0), lambda: None]
    for write in writes:
        write()
        out = _same_as_eager(_reads_arrays, sf, x)
        out.sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), MASKS[0] + SCALE)
        x.clear_gradient()
    assert len(sf.program_cache) == 4  # the last call changed nothing: the Program is reused
    assert "written in place" in sf._last_retrace


def test_a_layer_attribute_array_written_in_place_retraces():
    net = _Masked()
    snet = dy2st.to_static(net)
    x = rt.to_tensor(np.array([3.0, 4.0], "float32"))
    for value in (0.0, 5.0, 5.0):
        net.mask[1] = value
        np.testing.assert_array_equal(snet(x).numpy(), _Masked.forward(net, x).numpy())
    net.table[:] = 3.0  # rewritten whole
    np.testing.assert_array_equal(snet(x).numpy(), _Masked.forward(net, x).numpy())
    assert snet.forward.get_traced_count() == 3
