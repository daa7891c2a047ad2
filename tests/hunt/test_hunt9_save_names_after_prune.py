"""`dy2st.save(layer, path, input_names_after_prune=[...])` without an `input_spec` for save (the
function's declared specs, or its last call, trace the Program) ignored the names: the model kept
every input, and asking to drop an input an output still needs saved a model anyway. The names now
prune the traced Program's feeds whether or not specs are given to save."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from dy2st import InputSpec


class Scorer(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(3, 2)

    @dy2st.to_static(input_spec=[InputSpec([None, 3], "float32", "x"), InputSpec([None], "int64", "label")])
    def forward(self, x, label):
        return self.fc(x), label * 2


def _data(n):
    rng = np.random.default_rng(n)
    return rt.to_tensor(rng.normal(size=(n, 3)).astype("float32")), rt.to_tensor(rng.integers(0, 5, n))


def test_names_after_prune_keep_only_the_named_inputs(tmp_path):
    net = Scorer()
    path = str(tmp_path / "m")
    dy2st.save(net, path, input_names_after_prune=["x"], output_spec=[0])
    loaded = dy2st.load(path)
    assert loaded.feed_names == ["x"]
    for n in (1, 4):
        x, label = _data(n)
        np.testing.assert_allclose(loaded(x).numpy(), net(x, label)[0].numpy(), rtol=1e-6)


def test_names_after_prune_from_the_last_call(tmp_path):
    net = Scorer()
    fn = dy2st.to_static(lambda x, label: (net.fc(x), label * 2))
    x, label = _data(3)
    fn(x, label)
    path = str(tmp_path / "f")
    names = [v.name for v in fn.program_cache.last().inputs]
    dy2st.save(fn, path, input_names_after_prune=[names[1]], output_spec=[1])
    loaded = dy2st.load(path)
    assert loaded.feed_names == [names[1]]
    np.testing.assert_array_equal(loaded(label).numpy(), (label * 2).numpy())


def test_dropping_an_input_an_output_needs_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="label"):
        dy2st.save(Scorer(), str(tmp_path / "m"), input_names_after_prune=["x"])
