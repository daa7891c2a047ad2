"""A config object with __slots__ (a `@dataclass(slots=True)`) read by traced code is guarded like
a plain object: changing its field retraces (the Program had baked the old value in)."""
import dataclasses

import numpy as np

import dy2st
import runtime as rt


@dataclasses.dataclass(slots=True)
class _Cfg:
    scale: float = 2.0
    mode: str = "mul"


CFG = _Cfg()


def _scaled(x):
    if CFG.mode == "mul":
        return x * CFG.scale
    return x + CFG.scale


class _Net(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.cfg = _Cfg()

    def forward(self, x):
        return x * self.cfg.scale


def test_global_slots_config():
    sf = dy2st.to_static(_scaled)
    x = rt.to_tensor(np.array([1.0, -2.0], "float32"))
    try:
        for scale, mode in ((2.0, "mul"), (2.0, "mul"), (5.0, "mul"), (5.0, "add")):
            CFG.scale, CFG.mode = scale, mode
            np.testing.assert_array_equal(sf(x).numpy(), _scaled(x).numpy())
        assert len(sf.program_cache) == 3
    finally:
        CFG.scale, CFG.mode = 2.0, "mul"


def test_layer_slots_config():
    net = _Net()
    sf = dy2st.to_static(net)
    x = rt.to_tensor(np.array([1.0, -2.0], "float32"))
    for scale in (2.0, 3.0):
        net.cfg.scale = scale
        np.testing.assert_array_equal(sf(x).numpy(), _Net.forward(net, x).numpy())
