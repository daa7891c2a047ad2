"""Model-zoo code ported by changing imports (PaddleNLP, PaddleClas, PaddleDetection): a BERT classifier
whose init_weights calls ``paddle.tensor.normal``, a GRU-CRF tagger decoding with
``paddle.text.ViterbiDecoder``, a detection head ending in ``paddle.vision.ops.nms`` per category, a YOLOv3
post-process (``paddle.vision.ops.yolo_box``), and a
MobileNetV3 block (depthwise conv, SE with hardsigmoid, hardswish, L2Decay ParamAttrs). Each trains and
runs converted as eagerly, and serves the same results after ``dy2st.save``/``dy2st.load``."""
import itertools

import numpy as np

import dy2st
import runtime as paddle
import runtime.nn.functional as F
from runtime import nn
from runtime.static import InputSpec

from .helpers import pair, train_same


def _saved(net, tmp_path, name):
    dy2st.save(net, str(tmp_path / name))
    return dy2st.load(str(tmp_path / name))


class BertClassifier(nn.Layer):
    """PaddleNLP's BertModel + BertForSequenceClassification, one layer of width 16."""

    def __init__(self, vocab=30, hidden=16, pad_token_id=0):
        super().__init__()
        self.pad_token_id, self.initializer_range = pad_token_id, 0.02
        self.word_embeddings = nn.Embedding(vocab, hidden, padding_idx=pad_token_id)
        self.position_embeddings = nn.Embedding(32, hidden)
        self.token_type_embeddings = nn.Embedding(2, hidden)
        self.layer_norm = nn.LayerNorm(hidden)
        layer = nn.TransformerEncoderLayer(hidden, 2, 32, dropout=0.1, activation="gelu", attn_dropout=0.1,
                                           act_dropout=0)
        self.encoder = nn.TransformerEncoder(layer, 1)
        self.pooler = nn.Linear(hidden, hidden)
        self.classifier = nn.Linear(hidden, 2)
        self.apply(self.init_weights)

    def init_weights(self, layer):
        if isinstance(layer, (nn.Linear, nn.Embedding)) and isinstance(layer.weight, paddle.Tensor):
            layer.weight.set_value(paddle.tensor.normal(mean=0.0, std=self.initializer_range,
                                                        shape=layer.weight.shape))
        elif isinstance(layer, nn.LayerNorm):
            layer._epsilon = 1e-12

    def forward(self, input_ids, token_type_ids=None, attention_mask=None):
        if attention_mask is None:
            attention_mask = paddle.unsqueeze(
                (input_ids == self.pad_token_id).astype(self.pooler.weight.dtype) * -1e4, axis=[1, 2])
        elif attention_mask.ndim == 2:
            attention_mask = (1.0 - attention_mask.unsqueeze(axis=[1, 2]).astype(paddle.get_default_dtype())) * -1e4
        if token_type_ids is None:
            token_type_ids = paddle.zeros_like(input_ids, dtype="int64")
        ones = paddle.ones_like(input_ids, dtype="int64")
        position_ids = paddle.cumsum(ones, axis=-1) - ones
        position_ids.stop_gradient = True
        emb = (self.word_embeddings(input_ids) + self.position_embeddings(position_ids)
               + self.token_type_embeddings(token_type_ids))
        hidden = self.encoder(F.dropout(self.layer_norm(emb), 0.1, training=self.training), attention_mask)
        pooled = paddle.tanh(self.pooler(hidden[:, 0]))
        return self.classifier(F.dropout(pooled, 0.1, training=self.training))


def _bert_optimizer(params):
    decay = [p.name for p in params if not any(nd in p.name for nd in ["bias", "norm"])]
    lr = paddle.optimizer.lr.LinearWarmup(paddle.optimizer.lr.PolynomialDecay(5e-4, 10, 0.0), 2, 0.0, 5e-4)
    return paddle.optimizer.AdamW(lr, parameters=params, weight_decay=0.01,
                                  apply_decay_param_fun=lambda n: n in decay,
                                  grad_clip=nn.ClipGradByGlobalNorm(1.0))


def test_bert_classifier_initialised_through_paddle_tensor_trains_saves_and_serves_any_length(tmp_path):
    # paddle.tensor.normal raised AttributeError: paddle.tensor held only the tensor-array functions.
    rng = np.random.default_rng(0)
    ids = rng.integers(1, 30, (3, 7))
    ids[0, 5:] = 0
    types = (np.arange(7) > 3).astype("int64")[None].repeat(3, 0)
    eager, net = train_same(BertClassifier, [(ids, types, rng.integers(0, 2, (3,)))] * 2,
                            lambda m, i, t, y: F.cross_entropy(m(i, token_type_ids=t), y), opt=_bert_optimizer)
    eager.eval()
    net.eval()
    spec = [InputSpec([None, None], "int64", "input_ids"), InputSpec([None, None], "int64", "token_type_ids")]
    loaded = _saved(dy2st.to_static(net, input_spec=spec), tmp_path, "bert")
    for n in (7, 4):
        i, t = paddle.to_tensor(ids[:, :n]), paddle.to_tensor(types[:, :n])
        np.testing.assert_allclose(loaded(i, t).numpy(), eager(i, token_type_ids=t).numpy(), rtol=1e-5, atol=1e-6)
    # the 2-D attention mask form, converted
    mask = paddle.to_tensor((ids > 0).astype("int64"))
    np.testing.assert_allclose(dy2st.to_static(net.forward)(paddle.to_tensor(ids), attention_mask=mask).numpy(),
                               eager(paddle.to_tensor(ids), attention_mask=mask).numpy(), rtol=1e-5, atol=1e-6)


class GRUCRF(nn.Layer):
    """PaddleNLP's lexical-analysis tagger: BiGRU emissions, a CRF transition matrix, Viterbi decoding."""

    def __init__(self, tags=5):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.gru = nn.GRU(8, 6, direction="bidirect")
        self.fc = nn.Linear(12, tags)
        self.transitions = self.create_parameter([tags, tags])
        self.decoder = paddle.text.ViterbiDecoder(self.transitions, include_bos_eos_tag=True)

    def forward(self, ids, lengths):
        out, _ = self.gru(self.emb(ids), sequence_length=lengths)
        emission = self.fc(out)
        scores, path = self.decoder(emission, lengths)
        return emission, scores, path


def test_crf_tagger_decodes_with_paddle_text_viterbi_decoder_converted_and_saved(tmp_path):
    # paddle.text did not exist.
    eager, static = pair(GRUCRF)
    net = dy2st.to_static(static, input_spec=[InputSpec([None, None], "int64"), InputSpec([None], "int64")])
    rng = np.random.default_rng(1)
    for shape in ((2, 5), (3, 4)):
        ids = paddle.to_tensor(rng.integers(0, 20, shape))
        lengths = paddle.to_tensor(rng.integers(1, shape[1] + 1, shape[:1]))
        want = eager(ids, lengths)
        assert want[2].shape == [shape[0], int(lengths.max())]  # the path is as long as the longest sequence
        for got, w in zip(net(ids, lengths), want):
            np.testing.assert_allclose(got.numpy(), w.numpy(), rtol=1e-5, atol=1e-6)
    for got, w in zip(_saved(net, tmp_path, "crf")(ids, lengths), want):
        np.testing.assert_allclose(got.numpy(), w.numpy(), rtol=1e-5, atol=1e-6)


def test_viterbi_decode_finds_the_best_path_and_pads_it_with_zeros():
    rng = np.random.default_rng(2)
    pot, trans = rng.standard_normal((3, 4, 3)).astype("float32"), rng.standard_normal((3, 3)).astype("float32")
    lengths = np.array([4, 1, 2])
    scores, path = paddle.text.viterbi_decode(paddle.to_tensor(pot), paddle.to_tensor(trans),
                                              paddle.to_tensor(lengths), include_bos_eos_tag=False)
    for b, n in enumerate(lengths):
        best = max(itertools.product(range(3), repeat=int(n)), key=lambda p: pot[b, range(n), p].sum()
                   + sum(trans[p[t - 1], p[t]] for t in range(1, n)))
        assert path.numpy()[b].tolist() == list(best) + [0] * (4 - n)
        np.testing.assert_allclose(scores.numpy()[b], pot[b, range(n), best].sum()
                                   + sum(trans[best[t - 1], best[t]] for t in range(1, n)), rtol=1e-6)


class DetHead(nn.Layer):
    """A box/class head and PaddleDetection's post-processing: per-class NMS, then the kept boxes."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4 + 3)

    def forward(self, feats):
        out = self.fc(feats)
        xy = out[:, :2] * 10
        boxes = paddle.concat([xy, xy + paddle.exp(out[:, 2:4]) * 5], axis=1)
        prob = F.softmax(out[:, 4:], axis=-1)
        scores, labels = prob.max(-1), prob.argmax(-1)
        keep = paddle.vision.ops.nms(boxes, 0.3, scores=scores, category_idxs=labels, categories=[0, 1, 2], top_k=5)
        return paddle.gather(boxes, keep), paddle.gather(scores, keep), keep


def test_detection_head_with_per_class_nms_serves_any_number_of_boxes(tmp_path):
    # paddle.vision.ops did not exist.
    eager, static = pair(DetHead)
    net = dy2st.to_static(static, input_spec=[InputSpec([None, 8], "float32")])
    rng = np.random.default_rng(3)
    for n in (12, 7, 5):
        x = paddle.to_tensor(rng.standard_normal((n, 8)).astype("float32"))
        want = eager(x)
        assert want[2].shape[0] <= min(n, 5)
        for got, w in zip(net(x), want):
            np.testing.assert_array_equal(got.numpy(), w.numpy())
    assert len(net.forward.program_cache) == 1
    assert "nms" in {op.type for op in net.forward.program_cache.last().main_program.global_block().ops}
    for got, w in zip(_saved(net, tmp_path, "det")(x), want):
        np.testing.assert_array_equal(got.numpy(), w.numpy())


def test_nms_keeps_boxes_by_score_without_and_with_categories():
    boxes = paddle.to_tensor(np.array([[0, 0, 10, 10], [1, 1, 11, 11], [0, 0, 10, 4], [20, 20, 30, 30]], "float32"))
    scores = paddle.to_tensor(np.array([0.5, 0.9, 0.8, 0.1], "float32"))
    assert paddle.vision.ops.nms(boxes, 0.5).numpy().tolist() == [0, 2, 3]  # input order without scores
    assert paddle.vision.ops.nms(boxes, 0.5, scores).numpy().tolist() == [1, 2, 3]
    cats = paddle.to_tensor(np.array([0, 1, 0, 1]))
    assert paddle.vision.ops.nms(boxes, 0.5, scores, cats, [0, 1], top_k=3).numpy().tolist() == [1, 2, 0]


class SEBlock(nn.Layer):
    """PaddleClas MobileNetV3's ResidualUnit: 1x1 expand, depthwise kxk, SE (hardsigmoid 0.2/0.5), 1x1."""

    def __init__(self, c=8, mid=16):
        super().__init__()
        bn_attr = dict(weight_attr=paddle.ParamAttr(regularizer=paddle.regularizer.L2Decay(0.0)),
                       bias_attr=paddle.ParamAttr(regularizer=paddle.regularizer.L2Decay(0.0)))
        self.expand = nn.Sequential(nn.Conv2D(c, mid, 1, bias_attr=False), nn.BatchNorm2D(mid, **bn_attr), nn.Hardswish())
        self.dw = nn.Sequential(nn.Conv2D(mid, mid, 5, padding=2, groups=mid, bias_attr=False),
                                nn.BatchNorm2D(mid, **bn_attr), nn.Hardswish())
        self.pool, self.se1, self.se2 = nn.AdaptiveAvgPool2D(1), nn.Conv2D(mid, mid // 4, 1), nn.Conv2D(mid // 4, mid, 1)
        self.project = nn.Sequential(nn.Conv2D(mid, c, 1, bias_attr=False), nn.BatchNorm2D(c, **bn_attr))
        self.head = nn.Linear(c, 3)

    def forward(self, x):
        y = self.dw(self.expand(x))
        y = paddle.multiply(x=y, y=F.hardsigmoid(self.se2(F.relu(self.se1(self.pool(y)))), slope=0.2, offset=0.5))
        y = paddle.add(x, self.project(y))
        return self.head(paddle.flatten(F.adaptive_avg_pool2d(y, 1), start_axis=1))


def test_mobilenetv3_block_with_l2decay_param_attrs_trains_like_eager():
    rng = np.random.default_rng(4)
    data = [(rng.standard_normal((2, 8, 6, 6)).astype("float32"), rng.integers(0, 3, (2, 1))) for _ in range(2)]
    train_same(SEBlock, data, lambda m, x, y: F.cross_entropy(m(x), y), opt=lambda p: paddle.optimizer.Momentum(
        paddle.optimizer.lr.CosineAnnealingDecay(0.1, T_max=10), momentum=0.9, parameters=p,
        weight_decay=paddle.regularizer.L2Decay(1e-4)))


class YOLOv3Head(nn.Layer):
    """PaddleDetection's YOLOv3 head and post-process: a 1x1 conv, ``yolo_box`` decoding, class-wise NMS."""

    def __init__(self, anchors=(10, 13, 16, 30), classes=2):
        super().__init__()
        self.anchors, self.classes = list(anchors), classes
        self.conv = nn.Conv2D(4, len(anchors) // 2 * (5 + classes), 1)

    def forward(self, feat, im_shape):
        boxes, scores = paddle.vision.ops.yolo_box(self.conv(feat), im_shape.astype("int32"), self.anchors,
                                                   self.classes, conf_thresh=0.3, downsample_ratio=32)
        best, label = scores[0].max(-1), scores[0].argmax(-1)
        keep = paddle.vision.ops.nms(boxes[0], 0.45, best, label, list(range(self.classes)))
        return boxes, scores, paddle.gather(boxes[0], keep)


def test_yolov3_post_process_with_yolo_box_and_nms_is_converted_and_saved(tmp_path):
    # paddle.vision.ops.yolo_box did not exist.
    eager, static = pair(YOLOv3Head)
    spec = [InputSpec([None, 4, None, None], "float32"), InputSpec([None, 2], "float32")]
    net = dy2st.to_static(static, input_spec=spec)
    rng = np.random.default_rng(5)
    for h, w in ((2, 3), (3, 3)):
        feat = paddle.to_tensor(rng.standard_normal((1, 4, h, w)).astype("float32") * 3)
        im_shape = paddle.to_tensor(np.array([[32.0 * h, 32.0 * w]], "float32"))
        want = eager(feat, im_shape)
        assert want[0].shape == [1, 2 * h * w, 4] and float((want[0][0, :, 2] <= 32 * w - 1).all()) == 1
        for got, wv in zip(net(feat, im_shape), want):
            np.testing.assert_array_equal(got.numpy(), wv.numpy())
    for got, wv in zip(_saved(net, tmp_path, "yolo")(feat, im_shape), want):
        np.testing.assert_array_equal(got.numpy(), wv.numpy())
