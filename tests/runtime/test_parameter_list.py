"""rt.nn.ParameterList: Paddle's list of Parameters registered with its holder."""
import numpy as np
import pytest

import runtime as rt
from runtime import nn


class Holder(nn.Layer):
    def __init__(self):
        super().__init__()
        self.ps = nn.ParameterList([self.create_parameter([2, 2]) for _ in range(2)])


def test_items_are_the_holders_parameters_and_state():
    h = Holder()
    assert len(h.ps) == 2 and h.ps[-1] is h.ps[1]
    assert [n for n, _ in h.named_parameters()] == ["ps.0", "ps.1"]
    assert sorted(h.state_dict()) == ["ps.0", "ps.1"]
    h.ps.append(h.create_parameter([3]))
    assert len(h.parameters()) == 3 and list(h.ps)[2].shape == [3]
    new = h.create_parameter([2, 2])
    h.ps[0] = new
    assert h.ps[0] is new


def test_bad_items_and_indices_are_refused():
    h = Holder()
    with pytest.raises(TypeError, match="Parameter"):
        h.ps.append(rt.to_tensor(np.ones(2, "float32")))
    with pytest.raises(IndexError, match="out of range"):
        h.ps[2]
