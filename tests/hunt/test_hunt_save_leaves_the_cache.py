"""`dy2st.save` traces the function (from the InputSpecs with the batch dim unknown, in eval mode, and
again in train mode) through the function's own program cache: a Layer called once reported
`len(net.forward.program_cache) == 3` after a save, and a function declared with an input_spec 2.
Saving now traces into a cache of its own (kept, so saving again reuses its Programs): the
function's program cache, its last Program and its traced count stay as the calls left them."""
import logging

import numpy as np

import dy2st
import runtime as rt
from dy2st import InputSpec

class _Net(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(4, 3)
        self.drop = rt.nn.Dropout(0.5)  # train mode differs: save traces it too

    @dy2st.to_static
    def forward(self, x):
        return self.drop(self.fc(x))


def test_saving_a_layer_leaves_its_program_cache(tmp_path, caplog):
    rt.seed(0)
    net = _Net()
    net.eval()
    x = rt.to_tensor(np.ones((2, 4), "float32"))
    want = net(x).numpy()
    sf = net.forward
    last, traced = sf.concrete_program, sf.get_traced_count()
    assert len(sf.program_cache) == 1
    dy2st.save(net, str(tmp_path / "a"))  # the last call's shapes, any batch size
    dy2st.save(net, str(tmp_path / "b"), input_spec=[InputSpec([None, 4], "float32")])
    assert len(sf.program_cache) == 1 and sf.get_traced_count() == traced and sf.concrete_program is last
    with caplog.at_level(logging.INFO, logger="dy2st"):
        dy2st.save(net, str(tmp_path / "c"))  # the Programs of the first save serve again: no trace
    assert not [r for r in caplog.records if "building a Program" in r.getMessage()]
    np.testing.assert_array_equal(net(x).numpy(), want)
    assert len(sf.program_cache) == 1
    np.testing.assert_array_equal(dy2st.load(str(tmp_path / "c"))(x).numpy(), want)


def test_saving_a_function_leaves_its_program_cache(tmp_path):
    @dy2st.to_static(input_spec=[InputSpec([None, 3], "float32", "x")])
    def f(x):
        return x * 2

    assert len(f.program_cache) == 0
    dy2st.save(f, str(tmp_path / "f"))
    assert len(f.program_cache) == 0 and f.get_traced_count() == 0
    f(rt.ones([2, 3]))
    dy2st.save(f, str(tmp_path / "f"))
    assert len(f.program_cache) == 1 and f.get_traced_count() == 1
    np.testing.assert_array_equal(dy2st.load(str(tmp_path / "f"))(rt.ones([5, 3])).numpy(), np.full((5, 3), 2.0))
