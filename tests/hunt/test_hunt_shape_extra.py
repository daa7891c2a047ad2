"""Paddle's ZeroPad2D / Pad1D / Pad3D / PixelUnshuffle / ChannelShuffle / Maxout / Unflatten /
Softmax2D and diag_embed, diagflat, inner, addmm, cdist, bincount: Paddle 3.3's values (hard-coded;
they matched its outputs when written), and a model using the layers converted against eager with
gradients."""
import numpy as np

import dy2st
import runtime as rt
import runtime.nn.functional as F
from runtime import nn

_A = np.sin(np.arange(15)).reshape(5, 3).astype("float32")
_B = np.cos(np.arange(12)).reshape(4, 3).astype("float32")
_B[1] = _A[2]


def test_functions_match_paddle():
    x = rt.to_tensor(_A, stop_gradient=False)
    d = rt.cdist(x, rt.to_tensor(_B))
    d.sum().backward()
    np.testing.assert_allclose(d.numpy()[2], [1.9041964, 0.0, 1.6834098, 1.8993013], rtol=1e-6)
    # an equal pair of points adds no gradient (Paddle's), rather than nan
    np.testing.assert_allclose(x.grad.numpy()[2], [-1.0756431, 0.79139507, 1.9308282], rtol=1e-6)
    w = rt.bincount(rt.to_tensor([0, 2, 2, 5]), weights=rt.to_tensor([0.5, 1.0, 1.5, 2.0]))
    assert w.dtype == rt.float32 and w.numpy().tolist() == [0.5, 0.0, 2.5, 0.0, 0.0, 2.0]
    assert rt.bincount(rt.to_tensor([1, 1, 3])).numpy().tolist() == [0, 2, 0, 1]
    e = rt.diag_embed(rt.to_tensor(_A[:2]), offset=1, dim1=0, dim2=2)
    assert e.shape == [4, 2, 4]
    np.testing.assert_allclose(e.numpy()[:, 1, :], [[0, 0.14112, 0, 0], [0, 0, -0.7568025, 0],
                                                    [0, 0, 0, -0.9589243], [0, 0, 0, 0]], rtol=1e-6)
    out = rt.addmm(rt.to_tensor(_B[:1, :2]), rt.to_tensor(_A[:2, :2]), rt.to_tensor(_B[:2, :2]), beta=0.5, alpha=-1.0)
    np.testing.assert_allclose(out.numpy(), [[0.73512, -0.28268403], [0.14741766, 0.69111276]], rtol=1e-5)
    assert rt.diagflat(rt.to_tensor([[1.0, 2], [3, 4]]), 1).numpy()[2, 3] == 3
    assert rt.inner(rt.ones([2, 3]), rt.ones([4, 5, 3])).shape == [2, 4, 5]
    y = F.maxout(rt.arange(16, dtype="float32").reshape([1, 4, 2, 2]), 2)
    assert y.numpy()[0, :, 0, 0].tolist() == [4.0, 12.0]
    assert F.channel_shuffle(rt.arange(6, dtype="float32").reshape([1, 6, 1, 1]), 3).numpy().ravel().tolist() == \
        [0, 2, 4, 1, 3, 5]
    assert F.pixel_unshuffle(rt.arange(16, dtype="float32").reshape([1, 1, 4, 4]), 2).numpy().ravel().tolist()[:6] == \
        [0, 2, 8, 10, 1, 3]


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(2, 8, 3)
        self.body = nn.Sequential(nn.ZeroPad2D([1, 0, 1, 0]), nn.ChannelShuffle(2), nn.Maxout(2), nn.PixelUnshuffle(2),
                                  nn.Softmax2D())
        self.pad3 = nn.Pad3D(1, mode="replicate")
        self.unflat = nn.Unflatten(1, [4, 4])
        self.pad1 = nn.Pad1D([2, 1], mode="reflect")

    def forward(self, x):
        h = self.pad3(self.body(self.conv(x)).unsqueeze(2))  # [N, 16, 2, 2] -> [N, 16, 3, 4, 4]
        return self.pad1(self.unflat(h.flatten(2)).flatten(2))  # [N, 4, 4, 48] -> [N, 4, 195]


def test_layers_convert_with_gradients():
    rt.seed(5)
    eager, conv = Net(), Net()
    conv.set_state_dict(eager.state_dict())
    conv = dy2st.to_static(conv)
    x = np.cos(np.arange(2 * 2 * 5 * 5)).reshape(2, 2, 5, 5).astype("float32")
    for model in (eager, conv):
        out = model(rt.to_tensor(x))
        (out * out).sum().backward()
    np.testing.assert_allclose(conv(rt.to_tensor(x)).numpy(), eager(rt.to_tensor(x)).numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(conv.conv.weight.grad.numpy(), eager.conv.weight.grad.numpy(), rtol=1e-5, atol=1e-7)
