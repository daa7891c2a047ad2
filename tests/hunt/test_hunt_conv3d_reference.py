"""``F.conv3d`` / ``nn.Conv3D`` (BMN's proposal head) and ``paddle.static.create_global_var`` (BMN's loss),
which the Paddle BMN test calls: conv3d against a direct numpy convolution, converted against eager
bitwise, with gradients; create_global_var eagerly, and refused with a clear error while converting."""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from tests.error_helpers import line_of, notes


def _reference(x, w, b, stride, pads, dil, groups):
    """Direct 3-D convolution in float64 (pads: front, back, top, bottom, left, right)."""
    x = np.pad(x.astype(np.float64), [(0, 0), (0, 0)] + [(pads[0], pads[1]), (pads[2], pads[3]), (pads[4], pads[5])])
    n, c, d, h, wd = x.shape
    oc, icg, kd, kh, kw = w.shape
    od, oh, ow = [(size - dl * (k - 1) - 1) // s + 1 for size, k, s, dl in zip((d, h, wd), (kd, kh, kw), stride, dil)]
    out = np.zeros((n, oc, od, oh, ow))
    per = oc // groups
    for o in range(oc):
        g = o // per
        for a in range(od):
            for i in range(oh):
                for j in range(ow):
                    patch = x[:, g * icg:(g + 1) * icg,
                              a * stride[0]: a * stride[0] + dil[0] * (kd - 1) + 1: dil[0],
                              i * stride[1]: i * stride[1] + dil[1] * (kh - 1) + 1: dil[1],
                              j * stride[2]: j * stride[2] + dil[2] * (kw - 1) + 1: dil[2]]
                    out[:, o, a, i, j] = (patch * w[o]).sum(axis=(1, 2, 3, 4)) + b[o]
    return out


CASES = [
    (dict(stride=1, padding=0), (1, 1, 1), [0] * 6, (1, 1, 1), 1),
    (dict(stride=(2, 1, 1), padding=(1, 0, 1)), (2, 1, 1), [1, 1, 0, 0, 1, 1], (1, 1, 1), 1),
    (dict(padding=[1, 0, 1, 1, 0, 2], dilation=(2, 1, 2)), (1, 1, 1), [1, 0, 1, 1, 0, 2], (2, 1, 2), 1),
    (dict(padding=1, groups=2), (1, 1, 1), [1] * 6, (1, 1, 1), 2),
]


@pytest.mark.parametrize("kw,stride,pads,dil,groups", CASES)
def test_conv3d_matches_reference_and_static_bitwise(kw, stride, pads, dil, groups):
    r = np.random.RandomState(len(str(kw)))
    x = r.randn(2, 4, 4, 3, 4).astype("float32")
    w = r.randn(4, 4 // groups, 2, 2, 3).astype("float32")
    b = r.randn(4).astype("float32")
    sf = dy2st.to_static(lambda x, w, b: F.conv3d(x, w, b, **kw))
    got = []
    for fn in (lambda x, w, b: F.conv3d(x, w, b, **kw), sf):
        ts = [rt.to_tensor(a, stop_gradient=False) for a in (x, w, b)]
        out = fn(*ts)
        (out * out).sum().backward()
        got.append([out.numpy()] + [t.grad.numpy() for t in ts])
    np.testing.assert_allclose(got[0][0], _reference(x, w, b, stride, pads, dil, groups), rtol=1e-4, atol=1e-4)
    for e, s in zip(got[0], got[1]):
        np.testing.assert_array_equal(e, s)
    # d(sum(out^2))/db = 2 * sum(out) per channel: checks the gradient path end to end
    np.testing.assert_allclose(got[0][3], 2 * got[0][0].sum(axis=(0, 2, 3, 4)), rtol=1e-4)


def test_conv3d_layer_saved_and_loaded(tmp_path):
    rt.seed(3)
    m = rt.nn.Conv3D(3, 5, (2, 1, 1), stride=(2, 1, 1))
    assert [p.shape for p in m.parameters()] == [[5, 3, 2, 1, 1], [5]]
    xs = [rt.randn([n, 3, 4, 3, 3]) for n in (1, 3)]
    eager = [m(x).numpy() for x in xs]  # before to_static, which converts the Layer in place
    st = dy2st.to_static(m, input_spec=[dy2st.InputSpec([None, 3, 4, 3, 3])])
    dy2st.save(st, str(tmp_path / "m"))
    loaded = dy2st.load(str(tmp_path / "m"))
    for x, want in zip(xs, eager):
        np.testing.assert_array_equal(want, loaded(x).numpy())


def _uses_global_var(x):
    g = rt.static.create_global_var(shape=[2], value=3.0, dtype="float32")
    return x + g


def test_create_global_var():
    v = rt.static.create_global_var(shape=[2, 3], value=1.5, dtype="float32", persistable=True)
    assert v.persistable and v.stop_gradient and v.dtype == "float32"
    np.testing.assert_array_equal(v.numpy(), np.full([2, 3], 1.5, "float32"))
    rt.assign(np.zeros([2, 3], "float32"), v)
    np.testing.assert_array_equal(v.numpy(), np.zeros([2, 3], "float32"))
    assert rt.static.create_global_var([2], 3, "int64").numpy().tolist() == [3, 3]
    with pytest.raises(NotImplementedError, match="create_global_var") as info:
        dy2st.to_static(_uses_global_var)(rt.ones([2]))
    assert f"test_hunt_conv3d_reference.py\", line {line_of(_uses_global_var, 'create_global_var')}" in notes(info.value)
