"""A module global that shares its name with an attribute the converted code reads (a script's loop
variable `shape` beside `x.shape`, a global `training` beside `self.training`) is no global the function
reads: it was guarded as one (``co_names`` holds both kinds), so changing it retraced the function on
every call. Globals the function does read still retrace it when they change."""
import numpy as np

import dy2st
import runtime as rt

shape = (2, 3)   # module globals named like attributes the functions below read
training = True
SCALE = 2.0      # a global the function reads


def _reads_attributes(x):
    return x.sum(axis=-1) * x.shape[-1] * SCALE


class _Net(rt.nn.Layer):
    def forward(self, x):
        return x * 2 if self.training else x


def test_a_global_named_like_an_attribute_is_not_guarded():
    global shape, training, SCALE
    sf = dy2st.to_static(_reads_attributes, input_spec=[rt.static.InputSpec([None, 3], "float32")])
    net = dy2st.to_static(_Net())
    for shape in [(2, 3), (5, 3), (7, 3)]:  # noqa: B007  (the global changes between calls)
        training = not training
        a = np.ones(shape, "float32")
        np.testing.assert_array_equal(sf(rt.to_tensor(a)).numpy(), a.sum(-1) * 3 * SCALE)
        np.testing.assert_array_equal(net(rt.ones([2, 3])).numpy(), np.full([2, 3], 2.0))
    assert len(sf.program_cache) == 1 and len(net.forward.program_cache) == 1
    SCALE = 3.0  # read by the function: the Program baked 2.0 in, so the next call retraces
    try:
        np.testing.assert_array_equal(sf(rt.to_tensor(np.ones((2, 3), "float32"))).numpy(), [27.0, 27.0])
        assert len(sf.program_cache) == 2
    finally:
        SCALE = 2.0
