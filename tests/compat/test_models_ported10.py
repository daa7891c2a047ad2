"""More user code ported by changing imports: MoCo's key queue (a buffer written by slices in
``forward``), ERNIE-style padding masks with a pooler, PP-LCNet / ShuffleNetV2 / HRNet blocks and
DIN / DeepFM CTR models, each converted with ``None`` dims and trained like eager (bitwise), with
outputs PaddlePaddle 3.3 gives for the same weights."""
import numpy as np
import pytest

import dy2st
import runtime as paddle
import runtime.nn.functional as F
from runtime import nn
from runtime.static import InputSpec


def _seeded(net, seed=0):
    """Weights drawn in sorted-name order (Paddle's scratch script draws them the same way)."""
    rng = np.random.default_rng(seed)
    sd = net.state_dict()
    draws = {k: rng.standard_normal(sd[k].shape) * 0.3 for k in sorted(sd) if "float" in str(sd[k].dtype)}
    net.set_state_dict({k: paddle.to_tensor((np.abs(draws[k]) + 0.5 if "variance" in k else draws[k]).astype("float32"))
                        if k in draws else v for k, v in sd.items()})
    return net


def _pair(cls):
    eager = _seeded(cls())
    net = cls()
    net.set_state_dict(eager.state_dict())
    return eager, net


class MoCo(nn.Layer):
    """MoCo v2's momentum key encoder and queue of negatives (PaddleClas / PASSL)."""

    def __init__(self, dim=4, K=6, m=0.9, T=0.2):
        super().__init__()
        self.K, self.m, self.T = K, m, T
        self.encoder_q = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, dim))
        self.encoder_k = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, dim))
        for pk in self.encoder_k.parameters():
            pk.stop_gradient = True
        queue = np.random.default_rng(0).standard_normal((dim, K)).astype("float32")
        self.register_buffer("queue", F.normalize(paddle.to_tensor(queue), axis=0))
        self.register_buffer("queue_ptr", paddle.zeros([1], "int64"))

    @paddle.no_grad()
    def _momentum_update_key_encoder(self):
        for pq, pk in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            paddle.assign(pk * self.m + pq * (1.0 - self.m), pk)

    @paddle.no_grad()
    def _dequeue_and_enqueue(self, keys):
        batch_size = keys.shape[0]
        ptr = int(self.queue_ptr[0])
        self.queue[:, ptr:ptr + batch_size] = keys.transpose([1, 0])
        ptr = (ptr + batch_size) % self.K
        self.queue_ptr[0] = ptr

    def forward(self, im_q, im_k):
        q = F.normalize(self.encoder_q(im_q), axis=1)
        with paddle.no_grad():
            self._momentum_update_key_encoder()
            k = F.normalize(self.encoder_k(im_k), axis=1)
        l_pos = paddle.sum(q * k, axis=1).unsqueeze(-1)
        l_neg = paddle.matmul(q, self.queue.clone().detach())
        logits = paddle.concat((l_pos, l_neg), axis=1) / self.T
        labels = paddle.zeros([logits.shape[0]], dtype="int64")
        self._dequeue_and_enqueue(k)
        return logits, labels


def test_moco_queue_written_by_slices_in_forward_trains_as_paddle():
    # item assignment into a layer's buffer raised "into an eager Tensor while a Program is being built"
    eager, net = _pair(MoCo)
    conv = dy2st.to_static(net, input_spec=[InputSpec([None, 5]), InputSpec([None, 5])])
    rng = np.random.default_rng(1)
    runs = []
    for model, f in ((eager, eager), (net, conv)):
        opt = paddle.optimizer.SGD(0.1, parameters=model.encoder_q.parameters())
        losses = []
        for _ in range(4):
            x = rng.standard_normal((2, 5)).astype("float32")
            logits, labels = f(paddle.to_tensor(x), paddle.to_tensor(x + 0.1))
            loss = F.cross_entropy(logits, labels)
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
        runs.append(losses)
        rng = np.random.default_rng(1)
    assert runs[0] == runs[1]
    for k, v in eager.state_dict().items():
        np.testing.assert_array_equal(net.state_dict()[k].numpy(), v.numpy(), err_msg=k)
    assert int(net.queue_ptr[0]) == 2 and len(conv.forward.program_cache) == 1
    # PaddlePaddle 3.3
    np.testing.assert_allclose(runs[0], [0.541128, 1.305554, 1.192736, 2.901269], rtol=2e-5)
    np.testing.assert_allclose(eager.queue.numpy()[0], [0.642867, 0.726407, 0.687488, 0.708879, 0.750814, 0.914988], rtol=2e-5, atol=1e-6)


class Counter(nn.Layer):
    def __init__(self):
        super().__init__()
        self.register_buffer("hits", paddle.zeros([3]))

    def forward(self, x, k):
        if x.sum() > 0:
            self.hits[k] = self.hits[k] + 1.0
        else:
            self.hits[0] = -1.0
        return x * self.hits.sum()


def test_a_buffer_written_by_item_in_a_tensor_branch_as_eagerly():
    eager, net = Counter(), Counter()
    conv = dy2st.to_static(net)
    for v, k in [(1.0, 1), (2.0, 2), (-1.0, 0), (3.0, 1)]:
        want, got = eager(paddle.to_tensor([v]), paddle.to_tensor(k)), conv(paddle.to_tensor([v]), paddle.to_tensor(k))
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        np.testing.assert_array_equal(net.hits.numpy(), eager.hits.numpy())
    assert eager.hits.numpy().tolist() == [-1.0, 2.0, 1.0] and len(conv.forward.program_cache) == 1
    lin = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="item assignment .* into a trainable parameter"):
        dy2st.to_static(lambda x: lin.weight.__setitem__(0, x))(paddle.ones([2]))
