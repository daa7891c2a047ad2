"""Paddle's test_word2vec, rewritten and shrunk: a skip-gram Layer built with a name scope
(`super().__init__(name_scope)`), two embeddings with named `ParamAttr`s, the dot product of the
center and target vectors scored with `binary_cross_entropy_with_logits`, trained with Adam on
batches of two sizes (the last one short). Converted equals eager bitwise and PaddlePaddle 3.3
(losses and predictions recorded below from the same weights)."""
import numpy as np

import dy2st
import runtime as rt
from runtime import nn

VOCAB, EMB = 30, 8
# PaddlePaddle 3.3: loss and the first two predictions of three Adam(0.05) steps from `_weights()`
PADDLE = [(0.6403141021728516, [0.5320295691490173, 0.48299461603164673]),
          (0.6435953378677368, [0.4371768832206726, 0.500884473323822]),
          (0.713895320892334, [0.4889753460884094, 0.5781592726707458])]


class SkipGram(nn.Layer):
    def __init__(self, name_scope, vocab_size, embedding_size):
        super().__init__(name_scope)
        init = nn.initializer.Uniform(low=-0.5 / embedding_size, high=0.5 / embedding_size)
        self.embedding = nn.Embedding(vocab_size, embedding_size,
                                      weight_attr=rt.ParamAttr(name="embedding_para", initializer=init))
        self.embedding_out = nn.Embedding(vocab_size, embedding_size,
                                          weight_attr=rt.ParamAttr(name="embedding_out_para", initializer=init))

    def forward(self, center_words, target_words, label):
        similarity = rt.sum(rt.multiply(self.embedding(center_words), self.embedding_out(target_words)), axis=-1)
        loss = rt.mean(nn.functional.binary_cross_entropy_with_logits(similarity, label))
        return nn.functional.sigmoid(similarity), loss


def _batches():
    rng = np.random.RandomState(0)
    out = []
    for n in (16, 16, 5):
        center = rng.randint(0, VOCAB, (n, 1)).astype("int64")
        target = rng.randint(0, VOCAB, (n, 1)).astype("int64")
        label = rng.randint(0, 2, (n, 1)).astype("float32")
        out.append([rt.to_tensor(a) for a in (center, target, label)])
    return out


def _train(convert):
    model = SkipGram("skip_gram_model", VOCAB, EMB)
    rng = np.random.default_rng(0)
    model.set_state_dict({k: rng.uniform(-0.5, 0.5, v.shape).astype("float32")
                          for k, v in model.state_dict().items()})
    run = dy2st.to_static(model) if convert else model
    adam = rt.optimizer.Adam(learning_rate=0.05, parameters=model.parameters())
    seen = []
    for batch in _batches():
        pred, loss = run(*batch)
        loss.backward()
        adam.minimize(loss)
        model.clear_gradients()
        seen.append((float(loss), pred.numpy().ravel()[:2].tolist()))
    return seen, model


def test_training_matches_eager_and_paddle():
    eager, eager_model = _train(False)
    seen, model = _train(True)
    assert seen == eager
    assert list(model.state_dict()) == ["embedding.weight", "embedding_out.weight"]
    for k, v in eager_model.state_dict().items():
        np.testing.assert_array_equal(model.state_dict()[k].numpy(), v.numpy())
    for (loss, pred), (want_loss, want_pred) in zip(seen, PADDLE):
        np.testing.assert_allclose(loss, want_loss, rtol=1e-6)
        np.testing.assert_allclose(pred, want_pred, rtol=1e-6)
