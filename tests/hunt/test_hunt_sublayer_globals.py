"""A global a sub-layer's `forward` reads (a flag, a scale) when the layer is called from converted
code (`self.inner(x)` in an outer Layer, `net(x)` in a function, an item of a Sequential): only the globals of functions and
methods called by name were guarded, so changing it reused the Program built for the old value.
The same holds for a global such a forward changes (see test_hunt_trace_side_effects.py)."""
import numpy as np

import dy2st
import runtime as rt

FLAG = [True]
SCALE = 2.0
CALLS = [0]


class _Inner(rt.nn.Layer):
    def forward(self, x):
        CALLS[0] += 1
        if FLAG[0]:
            return x * SCALE
        return x


class _Outer(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.inner = _Inner()

    def forward(self, x):
        return self.inner(x) + 1


class _InSequential(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.seq = rt.nn.Sequential(_Inner(), rt.nn.Identity())

    def forward(self, x):
        return self.seq(x) + 1


_NET = _Inner()


def _calls_layer(x):
    return _NET(x) + 1


def test_globals_a_called_layers_forward_reads_or_changes_are_guarded():
    global SCALE
    for fn in (dy2st.to_static(_calls_layer), dy2st.to_static(_Outer()), dy2st.to_static(_InSequential())):
        for flag, scale in ((True, 2.0), (False, 2.0), (True, 3.0), (True, 3.0)):
            FLAG[0], SCALE = flag, scale
            CALLS[0] = 0
            x = rt.to_tensor(np.array([1.0, 2.0], "float32"), stop_gradient=False)
            out = fn(x)
            out.sum().backward()
            want = scale if flag else 1.0
            np.testing.assert_array_equal(out.numpy(), np.array([1.0, 2.0], "float32") * want + 1)
            np.testing.assert_array_equal(x.grad.numpy(), [want, want])
            assert CALLS == [1]
