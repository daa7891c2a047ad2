"""``Tensor.unfold`` (audio framing) and ``view_as`` over several dims known only when the Program runs:
their reshape took the static shape, two -1 dims, which no reshape can resolve."""
import numpy as np

import dy2st
import runtime as rt
from runtime.static import InputSpec


def _frames(x, y):
    return x.unfold(2, 3, 2), y.view_as(x[:, :, :4])


def test_unfold_and_view_as_over_unknown_batch_and_channels_as_eagerly():
    conv = dy2st.to_static(_frames, input_spec=[InputSpec([None, None, 9]), InputSpec([None, None, 2, 2])])
    rng = np.random.default_rng(0)
    for b, c in ((2, 3), (1, 4)):
        x = rt.to_tensor(rng.standard_normal((b, c, 9)).astype("float32"))
        y = rt.to_tensor(rng.standard_normal((b, c, 2, 2)).astype("float32"))
        want, got = _frames(x, y), conv(x, y)
        assert want[0].shape == [b, c, 4, 3] and want[1].shape == [b, c, 4]
        for w, g in zip(want, got):
            np.testing.assert_array_equal(g.numpy(), w.numpy())
    assert len(conv.program_cache) == 1
