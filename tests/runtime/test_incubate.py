"""``rt.incubate``: Paddle's incubate aliases (segment reductions, graph_send_recv, masked softmaxes,
identity_loss) and its LookAhead and ModelAverage optimizers, against values Paddle 3.3 gave
(data/paddle33_incubate.npz; inputs built here the same way) and converted against eager."""
import os

import numpy as np
import pytest

import dy2st
import runtime as rt
from compat.helpers import check

REF = np.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "paddle33_incubate.npz"))


def _run(kind, steps=7, converted=False):
    rng = np.random.default_rng(0)
    lin = rt.nn.Linear(3, 2)
    lin.weight.set_value(rng.standard_normal((3, 2)).astype("float32"))
    lin.bias.set_value(rng.standard_normal(2).astype("float32"))
    # a power-of-two rate: lr * g is exact, so Paddle's fused multiply-add SGD and runtime's agree
    sgd = rt.optimizer.SGD(0.25, parameters=lin.parameters())
    if kind == "lookahead":
        opt = rt.incubate.LookAhead(sgd, alpha=0.3, k=3)
    else:
        opt = rt.incubate.ModelAverage(0.5, parameters=lin.parameters(), min_average_window=2, max_average_window=3)

    def train(cw, cb):
        # a loss linear in the parameters: its gradients are the coefficients exactly, so the
        # trajectory checks the update rules alone
        loss = (lin.weight * cw).sum() + (lin.bias * cb).sum()
        loss.backward()
        if kind != "lookahead":
            sgd.step()
        opt.step()
        opt.clear_grad()
        return loss

    step = dy2st.to_static(train) if converted else train
    traj = []
    for _ in range(steps):
        step(rt.to_tensor(rng.standard_normal((3, 2)).astype("float32")),
             rt.to_tensor(rng.standard_normal(2).astype("float32")))
        if kind != "lookahead":
            with opt.apply():
                traj.append(np.concatenate([lin.weight.numpy().ravel(), lin.bias.numpy()]))
        traj.append(np.concatenate([lin.weight.numpy().ravel(), lin.bias.numpy()]))
    return np.array(traj), opt


@pytest.mark.parametrize("kind", ["lookahead", "model_average"])
def test_lookahead_and_model_average_match_paddle_bitwise_eager_and_converted(kind):
    traj, opt = _run(kind)
    np.testing.assert_array_equal(traj, REF[kind])
    np.testing.assert_array_equal(_run(kind, converted=True)[0], traj)
    state = opt.state_dict()
    if kind == "lookahead":
        assert state["global_step"] == 7 and any(k.endswith("_slow_0") for k in state)
    else:
        assert any(k.endswith("_num_updates_0") and v.dtype == rt.int64 for k, v in state.items())


def test_incubate_optimizer_arguments_are_checked():
    p = rt.nn.Linear(2, 2).parameters()
    with pytest.raises(ValueError, match="alpha"):
        rt.incubate.LookAhead(rt.optimizer.SGD(0.1, parameters=p), alpha=1.5)
    with pytest.raises(ValueError, match="k should"):
        rt.incubate.optimizer.LookAhead(rt.optimizer.SGD(0.1, parameters=p), k=0)
    with pytest.raises(ValueError, match="min_average_window"):
        rt.incubate.ModelAverage(0.1, p, min_average_window=5, max_average_window=2)


def test_softmax_mask_fuse_matches_paddle_and_converts():
    r = np.random.default_rng(1)
    x, mask = r.standard_normal((2, 2, 4, 4)).astype("float32"), r.standard_normal((2, 1, 4, 4)).astype("float32")
    out = rt.incubate.softmax_mask_fuse(rt.to_tensor(x), rt.to_tensor(mask))
    np.testing.assert_allclose(out.numpy(), REF["softmax_mask_fuse"], rtol=1e-6, atol=1e-7)
    check(rt.incubate.softmax_mask_fuse, (x, mask), grad=True)
    # causal: Paddle's kernel is GPU-only, so the reference is its definition
    causal = rt.incubate.softmax_mask_fuse_upper_triangle(rt.to_tensor(x)).numpy()
    want = np.exp(np.where(np.tril(np.ones((4, 4))) > 0, x, -np.inf))
    np.testing.assert_allclose(causal, want / want.sum(-1, keepdims=True), rtol=1e-6)
    assert (causal[..., 0, 1:] == 0).all()
    check(rt.incubate.softmax_mask_fuse_upper_triangle, x, grad=True)


def test_graph_and_segment_aliases_and_identity_loss():
    d = np.random.default_rng(2).standard_normal((5, 3)).astype("float32")
    src, dst = np.array([0, 1, 2, 0, 4]), np.array([1, 2, 1, 0, 0])
    for pool in ("sum", "mean", "max", "min"):
        got = rt.incubate.graph_send_recv(rt.to_tensor(d), rt.to_tensor(src), rt.to_tensor(dst), pool, out_size=4)
        want = rt.geometric.send_u_recv(rt.to_tensor(d), rt.to_tensor(src), rt.to_tensor(dst), pool, out_size=4)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    check(lambda v, s, t: rt.incubate.graph_send_recv(v, s, t, "max"), (d, src, dst), grad=True)
    assert rt.incubate.segment_sum is rt.geometric.segment_sum and rt.incubate.segment_min is rt.geometric.segment_min
    with pytest.raises(ValueError, match="pool_type"):
        rt.incubate.graph_send_recv(rt.to_tensor(d), rt.to_tensor(src), rt.to_tensor(dst), "prod")
    x = rt.to_tensor(d)
    assert float(rt.incubate.identity_loss(x, "sum")) == pytest.approx(float(d.sum()), rel=1e-6)
    assert float(rt.incubate.identity_loss(x, 1)) == pytest.approx(float(d.mean()), rel=1e-6)
    assert rt.incubate.identity_loss(x) is x
    check(lambda v: rt.incubate.identity_loss(v * 2, "mean"), d, grad=True)
    with pytest.raises(ValueError, match="reduction"):
        rt.incubate.identity_loss(x, 3)


def test_graph_reindex_matches_paddle_and_converts():
    from runtime.static import InputSpec

    # Paddle 3.3's outputs for these inputs (paddle.geometric.reindex_graph and incubate.graph_reindex)
    src, dst, nodes = rt.incubate.graph_reindex(rt.to_tensor([0, 1, 2]), rt.to_tensor([8, 9, 0, 4, 7, 6, 7]),
                                                rt.to_tensor([2, 3, 2], "int32"))
    assert src.numpy().tolist() == [3, 4, 0, 5, 6, 7, 6] and dst.numpy().tolist() == [0, 0, 1, 1, 1, 2, 2]
    assert nodes.numpy().tolist() == [0, 1, 2, 8, 9, 4, 7, 6] and nodes.dtype == rt.int64
    got = rt.geometric.reindex_graph(rt.to_tensor([5, 3], "int32"), rt.to_tensor([3, 9, 5, 9], "int32"),
                                     rt.to_tensor([1, 3], "int32"))
    assert [t.numpy().tolist() for t in got] == [[1, 2, 0, 2], [0, 1, 1, 1], [5, 3, 9]] and got[0].dtype == rt.int32

    def sample_then_pool(x, nb, cnt, feats):
        s, d, n = rt.geometric.reindex_graph(x, nb, cnt)
        return rt.geometric.send_u_recv(rt.gather(feats, n), s, d, "sum", out_size=x.shape[0]), n

    sf = dy2st.to_static(sample_then_pool, input_spec=[InputSpec([None], "int64"), InputSpec([None], "int64"),
                                                       InputSpec([None], "int32"), InputSpec([10, 2])])
    feats = rt.to_tensor(np.arange(20, dtype="float32").reshape(10, 2))
    for x, nb, cnt in (([0, 1, 2], [8, 9, 0, 4, 7, 6, 7], [2, 3, 2]), ([5, 3], [3, 9, 5, 9], [1, 3])):
        args = (rt.to_tensor(x), rt.to_tensor(nb), rt.to_tensor(cnt, "int32"), feats)
        for a, b in zip(sf(*args), sample_then_pool(*args)):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert len(sf.program_cache) == 1
