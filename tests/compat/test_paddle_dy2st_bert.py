"""Paddle's test_bert (with bert_dygraph_model.py, the layers it takes from transformer_dygraph_model.py
and bert_utils.py), rewritten and shrunk (hidden size 8, a vocabulary of 64, sentences of 6 to 9
tokens, 3 steps): BERT pretraining whose `forward` is decorated in the class and takes seven
inputs by keyword; `ParamAttr` names and bias attributes given as strings (`bias_attr="pooled_fc.b_0"`),
`TruncatedNormal` initialisers, `paddle.set_default_dtype` in `__init__`, a `PrePostProcessLayer`
whose functors are lambdas and layers chosen by a command string, attention reshaped with Paddle's
`0` (copy this dim), the mask from `matmul(transpose_y=True)` and `scale(bias_after_scale=False)`
stacked per head, `paddle.slice` of the first token, `gather` of the masked positions, dropout
everywhere, `cross_entropy(reduction='none')` and `paddle.static.accuracy`. Fed through
`io.DataLoader(dataset, batch_size=None)` of ready batches and trained with Adam under
`base.dygraph.guard`: converted equals eager bitwise (loss, perplexity, next-sentence accuracy,
parameters). The saved model, the eager model's `state_dict`, `paddle.jit.load` (inputs given
positionally) and the legacy predictor give the same three outputs. A converted call spelled with
keywords traces its inputs in the parameter order (Paddle's), whatever the keywords' order, so the
model saved from it without an input_spec takes its inputs positionally as eager code does."""
import os

import numpy as np

import dy2st
import runtime as rt
from dy2st.translated_layer import INFER_MODEL_SUFFIX, INFER_PARAMS_SUFFIX
from runtime import base
from runtime.nn import Layer, Linear

from .test_paddle_dy2st_resnet import PredictorTools

SEED = 2020
STEP_NUM = 3
BERT_CONFIG = {"attention_probs_dropout_prob": 0.1, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
               "hidden_size": 8, "initializer_range": 0.02, "max_position_embeddings": 32,
               "num_attention_heads": 2, "num_hidden_layers": 2, "type_vocab_size": 2, "vocab_size": 64}


class PrePostProcessLayer(Layer):
    def __init__(self, process_cmd, d_model, dropout_rate):
        super().__init__()
        self.process_cmd = process_cmd
        self.functors = []
        for cmd in self.process_cmd:
            if cmd == "a":  # residual connection
                self.functors.append(lambda x, y: x + y if y is not None else x)
            elif cmd == "n":  # layer normalization
                self.functors.append(self.add_sublayer(
                    "layer_norm_%d" % len([layer for layer in self.children()]),
                    rt.nn.LayerNorm(normalized_shape=d_model,
                                    weight_attr=base.ParamAttr(initializer=rt.nn.initializer.Constant(1.0)),
                                    bias_attr=base.ParamAttr(initializer=rt.nn.initializer.Constant(0.0)))))
            elif cmd == "d" and dropout_rate:  # dropout
                self.dropout = rt.nn.Dropout(p=dropout_rate, mode="downscale_in_infer")
                self.functors.append(lambda x: self.dropout(x))

    def forward(self, x, residual=None):
        for i, cmd in enumerate(self.process_cmd):
            if cmd == "a":
                x = self.functors[i](x, residual)
            else:
                x = self.functors[i](x)
        return x


class MultiHeadAttention(Layer):
    def __init__(self, d_key, d_value, d_model, n_head=1, dropout_rate=0.0, param_initializer=None):
        super().__init__()
        self.n_head, self.d_key, self.d_value, self.d_model = n_head, d_key, d_value, d_model
        self.dropout_rate = dropout_rate
        attr = base.ParamAttr(initializer=param_initializer)
        self.q_fc = Linear(d_model, d_key * n_head, bias_attr=False, weight_attr=attr)
        self.k_fc = Linear(d_model, d_key * n_head, bias_attr=False, weight_attr=attr)
        self.v_fc = Linear(d_model, d_value * n_head, bias_attr=False, weight_attr=attr)
        self.proj_fc = Linear(d_value * n_head, d_model, bias_attr=False, weight_attr=attr)

    def forward(self, queries, keys, values, attn_bias, cache=None):
        keys = queries if keys is None else keys
        values = keys if values is None else values
        q = rt.transpose(x=rt.reshape(x=self.q_fc(queries), shape=[0, 0, self.n_head, self.d_key]), perm=[0, 2, 1, 3])
        k = rt.transpose(x=rt.reshape(x=self.k_fc(keys), shape=[0, 0, self.n_head, self.d_key]), perm=[0, 2, 1, 3])
        v = rt.transpose(x=rt.reshape(x=self.v_fc(values), shape=[0, 0, self.n_head, self.d_value]),
                         perm=[0, 2, 1, 3])
        product = rt.matmul(x=q, y=k, transpose_y=True)
        product = rt.scale(product, scale=self.d_model**-0.5)
        if attn_bias is not None:
            product += attn_bias
        weights = rt.nn.functional.softmax(product)
        if self.dropout_rate:
            weights = rt.nn.functional.dropout(weights, p=self.dropout_rate, training=self.training,
                                               mode="downscale_in_infer")
            out = rt.matmul(weights, v)
        out = rt.transpose(out, perm=[0, 2, 1, 3])
        out = rt.reshape(x=out, shape=[0, 0, out.shape[2] * out.shape[3]])
        return self.proj_fc(out)


class PositionwiseFeedForwardLayer(Layer):
    def __init__(self, hidden_act, d_inner_hid, d_model, dropout_rate, param_initializer=None, name=""):
        super().__init__()
        self._i2h = Linear(d_model, d_inner_hid, weight_attr=base.ParamAttr(
            name=name + "_fc_0.w_0", initializer=param_initializer), bias_attr=name + "_fc_0.b_0")
        self._h2o = Linear(d_inner_hid, d_model, weight_attr=base.ParamAttr(
            name=name + "_fc_1.w_0", initializer=param_initializer), bias_attr=name + "_fc_1.b_0")
        self._dropout_rate = dropout_rate

    def forward(self, x):
        hidden = self._i2h(x)
        if self._dropout_rate:
            hidden = rt.nn.functional.dropout(hidden, p=self._dropout_rate)
        return self._h2o(hidden)


class EncoderSubLayer(Layer):
    def __init__(self, hidden_act, n_head, d_key, d_value, d_model, d_inner_hid, prepostprocess_dropout,
                 attention_dropout, relu_dropout, preprocess_cmd="n", postprocess_cmd="da",
                 param_initializer=None, name=""):
        super().__init__()
        self._preprocess_layer = PrePostProcessLayer(preprocess_cmd, d_model, prepostprocess_dropout)
        self._multihead_attention_layer = MultiHeadAttention(d_key, d_value, d_model, n_head, attention_dropout,
                                                             param_initializer)
        self._postprocess_layer = PrePostProcessLayer(postprocess_cmd, d_model, prepostprocess_dropout)
        self._preprocess_layer2 = PrePostProcessLayer(preprocess_cmd, d_model, prepostprocess_dropout)
        self._positionwise_feed_forward = PositionwiseFeedForwardLayer(
            hidden_act, d_inner_hid, d_model, relu_dropout, param_initializer, name=name + "_ffn")
        self._postprocess_layer2 = PrePostProcessLayer(postprocess_cmd, d_model, prepostprocess_dropout)

    def forward(self, enc_input, attn_bias):
        pre_process_multihead = self._preprocess_layer(enc_input)
        attn_output = self._multihead_attention_layer(pre_process_multihead, None, None, attn_bias)
        attn_output = self._postprocess_layer(attn_output, enc_input)
        pre_process2_output = self._preprocess_layer2(attn_output)
        ffd_output = self._positionwise_feed_forward(pre_process2_output)
        return self._postprocess_layer2(ffd_output, attn_output)


class EncoderLayer(Layer):
    def __init__(self, hidden_act, n_layer, n_head, d_key, d_value, d_model, d_inner_hid, prepostprocess_dropout,
                 attention_dropout, relu_dropout, preprocess_cmd="n", postprocess_cmd="da",
                 param_initializer=None, name=""):
        super().__init__()
        self._encoder_sublayers = []
        self._n_layer = n_layer
        self._preprocess_layer = PrePostProcessLayer(preprocess_cmd, 3, prepostprocess_dropout)
        for i in range(n_layer):
            self._encoder_sublayers.append(self.add_sublayer(f"esl_{i}", EncoderSubLayer(
                hidden_act, n_head, d_key, d_value, d_model, d_inner_hid, prepostprocess_dropout,
                attention_dropout, relu_dropout, preprocess_cmd, postprocess_cmd, param_initializer,
                name=name + "_layer_" + str(i))))

    def forward(self, enc_input, attn_bias):
        for i in range(self._n_layer):
            enc_output = self._encoder_sublayers[i](enc_input, attn_bias)
            enc_input = enc_output
        return self._preprocess_layer(enc_output)


class BertModelLayer(Layer):
    def __init__(self, config, return_pooled_out=True, use_fp16=False):
        super().__init__()
        self._emb_size = config["hidden_size"]
        self._n_head = config["num_attention_heads"]
        self._dtype = "float16" if use_fp16 else "float32"
        init = self._param_initializer = rt.nn.initializer.TruncatedNormal(std=config["initializer_range"])
        rt.set_default_dtype(self._dtype)
        self._src_emb = rt.nn.Embedding(config["vocab_size"], self._emb_size,
                                        weight_attr=base.ParamAttr(name="word_embedding", initializer=init))
        self._pos_emb = rt.nn.Embedding(config["max_position_embeddings"], self._emb_size,
                                        weight_attr=base.ParamAttr(name="pos_embedding", initializer=init))
        self._sent_emb = rt.nn.Embedding(config["type_vocab_size"], self._emb_size,
                                         weight_attr=base.ParamAttr(name="sent_embedding", initializer=init))
        self.pooled_fc = Linear(self._emb_size, self._emb_size,
                                weight_attr=base.ParamAttr(name="pooled_fc.w_0", initializer=init),
                                bias_attr="pooled_fc.b_0")
        self.pre_process_layer = PrePostProcessLayer("nd", self._emb_size, config["hidden_dropout_prob"])
        self._encoder = EncoderLayer(
            hidden_act=config["hidden_act"], n_layer=config["num_hidden_layers"], n_head=self._n_head,
            d_key=self._emb_size // self._n_head, d_value=self._emb_size // self._n_head, d_model=self._emb_size,
            d_inner_hid=self._emb_size * 4, prepostprocess_dropout=config["hidden_dropout_prob"],
            attention_dropout=config["attention_probs_dropout_prob"], relu_dropout=0, preprocess_cmd="",
            postprocess_cmd="dan", param_initializer=init)

    def forward(self, src_ids, position_ids, sentence_ids, input_mask):
        emb_out = self._src_emb(src_ids) + self._pos_emb(position_ids)
        emb_out = emb_out + self._sent_emb(sentence_ids)
        emb_out = self.pre_process_layer(emb_out)
        self_attn_mask = rt.matmul(x=input_mask, y=input_mask, transpose_y=True)
        self_attn_mask = rt.scale(x=self_attn_mask, scale=10000.0, bias=-1.0, bias_after_scale=False)
        n_head_self_attn_mask = rt.stack(x=[self_attn_mask] * self._n_head, axis=1)
        n_head_self_attn_mask.stop_gradient = True
        enc_output = self._encoder(emb_out, n_head_self_attn_mask)
        next_sent_feat = rt.slice(input=enc_output, axes=[1], starts=[0], ends=[1])
        next_sent_feat = rt.tanh(self.pooled_fc(next_sent_feat))
        next_sent_feat = rt.reshape(next_sent_feat, shape=[-1, self._emb_size])
        return enc_output, next_sent_feat


class PretrainModelLayer(Layer):
    def __init__(self, config, return_pooled_out=True, weight_sharing=False, use_fp16=False):
        super().__init__()
        self._emb_size = config["hidden_size"]
        init = rt.nn.initializer.TruncatedNormal(std=config["initializer_range"])
        self.bert_layer = BertModelLayer(config=config, return_pooled_out=True, use_fp16=use_fp16)
        self.pre_process_layer = PrePostProcessLayer("n", self._emb_size, config["hidden_dropout_prob"])
        self.pooled_fc = Linear(self._emb_size, self._emb_size,
                                weight_attr=base.ParamAttr(name="mask_lm_trans_fc.w_0", initializer=init),
                                bias_attr="mask_lm_trans_fc.b_0")
        self.out_fc = Linear(self._emb_size, config["vocab_size"],
                             weight_attr=base.ParamAttr(name="mask_lm_out_fc.w_0", initializer=init),
                             bias_attr=base.ParamAttr(name="mask_lm_out_fc.b_0",
                                                      initializer=rt.nn.initializer.Constant(value=0.0)))
        self.next_sent_fc = Linear(self._emb_size, 2,
                                   weight_attr=base.ParamAttr(name="next_sent_fc.w_0", initializer=init),
                                   bias_attr="next_sent_fc.b_0")

    @dy2st.to_static
    def forward(self, src_ids, position_ids, sentence_ids, input_mask, mask_label, mask_pos, labels):
        mask_pos = rt.cast(x=mask_pos, dtype="int32")
        enc_output, next_sent_feat = self.bert_layer(src_ids, position_ids, sentence_ids, input_mask)
        reshaped_emb_out = rt.reshape(x=enc_output, shape=[-1, self._emb_size])
        mask_feat = rt.gather(reshaped_emb_out, index=mask_pos)
        mask_trans_feat = rt.tanh(self.pooled_fc(mask_feat))
        mask_trans_feat = self.pre_process_layer(mask_trans_feat)
        fc_out = self.out_fc(mask_trans_feat)
        mask_lm_loss = rt.nn.functional.cross_entropy(input=fc_out, label=mask_label, reduction="none")
        mean_mask_lm_loss = rt.mean(mask_lm_loss)
        next_sent_fc_out = self.next_sent_fc(next_sent_feat)
        next_sent_softmax = rt.nn.functional.softmax(next_sent_fc_out)
        next_sent_loss = rt.nn.functional.cross_entropy(input=next_sent_fc_out, label=labels, reduction="none")
        next_sent_acc = rt.static.accuracy(input=next_sent_softmax, label=labels)
        mean_next_sent_loss = rt.mean(next_sent_loss)
        loss = mean_next_sent_loss + mean_mask_lm_loss
        return next_sent_acc, mean_mask_lm_loss, loss


def fake_batches(n, batch=3, vocab=64):
    """bert_utils' fake reader, shrunk: padded token ids, positions, sentence ids, input mask, masked
    labels and their positions in the flattened batch, next-sentence labels."""
    rng = np.random.RandomState(SEED)
    out = []
    for _ in range(n):
        lens = rng.randint(6, 10, size=batch)
        max_len = int(lens.max())
        src = np.zeros((batch, max_len), "int64")
        pos = np.zeros((batch, max_len), "int64")
        sent = np.zeros((batch, max_len), "int64")
        mask = np.zeros((batch, max_len, 1), "float32")
        mask_label, mask_pos = [], []
        for b, n_tok in enumerate(lens):
            src[b, :n_tok] = rng.randint(4, vocab, size=n_tok)
            pos[b, :n_tok] = np.arange(n_tok)
            sent[b, n_tok // 2:n_tok] = 1
            mask[b, :n_tok] = 1.0
            for t in rng.choice(np.arange(1, n_tok), size=2, replace=False):
                mask_label.append(src[b, t])
                mask_pos.append(b * max_len + t)
                src[b, t] = 3  # [MASK]
        out.append([src, pos, sent, mask, np.array(mask_label, "int64").reshape(-1, 1),
                    np.array(mask_pos, "int64").reshape(-1, 1), rng.randint(0, 2, (batch, 1)).astype("int64")])
    return out


class FakeBertDataset(rt.io.Dataset):
    def __init__(self, steps):
        self.batches = fake_batches(steps + 1)

    def __getitem__(self, idx):
        return self.batches[idx]

    def __len__(self):
        return len(self.batches)


def train(to_static, paths):
    dy2st.enable_to_static(to_static)
    try:
        with base.dygraph.guard(base.CPUPlace()):
            base.default_main_program().random_seed = SEED
            base.default_startup_program().random_seed = SEED
            rt.seed(SEED)
            data_loader = rt.io.DataLoader(FakeBertDataset(STEP_NUM), places=base.CPUPlace(), batch_size=None)
            bert = PretrainModelLayer(config=BERT_CONFIG, weight_sharing=False, use_fp16=False)
            optimizer = rt.optimizer.Adam(parameters=bert.parameters())
            steps = []
            for step_idx, input_data in enumerate(data_loader()):
                src_ids, pos_ids, sent_ids, input_mask, mask_label, mask_pos, labels = input_data
                next_sent_acc, mask_lm_loss, total_loss = bert(
                    src_ids=src_ids, position_ids=pos_ids, sentence_ids=sent_ids, input_mask=input_mask,
                    mask_label=mask_label, mask_pos=mask_pos, labels=labels)
                total_loss.backward()
                optimizer.minimize(total_loss)
                bert.clear_gradients()
                acc = np.mean(np.array(next_sent_acc.numpy()))
                loss = np.mean(np.array(total_loss.numpy()))
                ppl = np.mean(np.exp(np.array(mask_lm_loss.numpy())))
                steps.append((acc, loss, ppl))
                if step_idx + 1 == STEP_NUM:
                    if to_static:
                        dy2st.save(bert, paths["prefix"])
                    else:
                        rt.save(bert.state_dict(), paths["dygraph"] + ".pdparams")
                    break
            return steps, [p.numpy() for p in bert.parameters()]
    finally:
        dy2st.enable_to_static(True)


def predict_dygraph(data, paths):
    dy2st.enable_to_static(False)
    try:
        with base.dygraph.guard(base.CPUPlace()):
            bert = PretrainModelLayer(config=BERT_CONFIG, weight_sharing=False, use_fp16=False)
            bert.set_dict(rt.load(paths["dygraph"] + ".pdparams"))
            bert.eval()
            src_ids, pos_ids, sent_ids, input_mask, mask_label, mask_pos, labels = [
                base.dygraph.to_variable(x) for x in data]
            return [v.numpy() for v in bert(src_ids=src_ids, position_ids=pos_ids, sentence_ids=sent_ids,
                                             input_mask=input_mask, mask_label=mask_label, mask_pos=mask_pos,
                                             labels=labels)]
    finally:
        dy2st.enable_to_static(True)


def predict_static(data, paths):
    rt.enable_static()
    try:
        exe = base.Executor(base.CPUPlace())
        program, feeds, fetches = rt.static.io.load_inference_model(
            paths["dir"], executor=exe, model_filename=paths["model"], params_filename=paths["params"])
        return exe.run(program, feed=dict(zip(feeds, data)), fetch_list=fetches)
    finally:
        rt.disable_static()


def test_bert_trains_saves_and_predicts_as_eagerly(tmp_path):
    paths = {"dir": os.path.join(tmp_path, "inference"), "prefix": os.path.join(tmp_path, "inference", "bert"),
             "model": "bert" + INFER_MODEL_SUFFIX, "params": "bert" + INFER_PARAMS_SUFFIX,
             "dygraph": os.path.join(tmp_path, "bert.dygraph")}
    static_steps, static_params = train(True, paths)
    dygraph_steps, dygraph_params = train(False, paths)
    assert rt.get_default_dtype() == "float32"
    for a, b in zip(dygraph_steps, static_steps):
        assert a == b
    for a, b in zip(dygraph_params, static_params):
        np.testing.assert_array_equal(b, a)
    for data in fake_batches(2)[1:]:  # a batch of another length than the last one trained on
        st = predict_static(data, paths)
        dy = predict_dygraph(data, paths)
        bert = dy2st.load(paths["prefix"])
        bert.eval()
        jit = [v.numpy() for v in bert(*[rt.to_tensor(x) for x in data])]
        predictor = PredictorTools(paths["dir"], paths["model"], paths["params"], data)()
        for s, d, j, p in zip(st, dy, jit, predictor):
            np.testing.assert_array_equal(s, d)
            np.testing.assert_array_equal(j, s)
            np.testing.assert_array_equal(p, s)


class KeywordNet(Layer):
    def __init__(self):
        super().__init__()
        self.emb = rt.nn.Embedding(10, 4)
        self.fc = Linear(4, 2)

    @dy2st.to_static
    def forward(self, src_ids, input_mask, labels, scale=2.0):
        out = self.fc(self.emb(src_ids)) * input_mask
        return out.sum(axis=[1, 2]) * scale + labels.astype("float32").reshape([-1])


def test_a_call_by_keywords_traces_its_inputs_in_the_parameter_order(tmp_path):
    rt.seed(3)
    net = KeywordNet()
    ids = rt.to_tensor(np.array([[1, 2, 3], [4, 5, 6]], "int64"))
    mask = rt.to_tensor(np.array([[[1.0], [1.0], [0.0]], [[1.0], [0.0], [0.0]]], "float32"))
    labels = rt.to_tensor(np.array([[1], [0]], "int64"))
    out = net(labels=labels, input_mask=mask, src_ids=ids)
    assert [(v.name, str(v.dtype)) for v in net.forward.concrete_program.inputs] == [
        ("src_ids", "int64"), ("input_mask", "float32"), ("labels", "int64")]
    np.testing.assert_array_equal(net(ids, mask, labels).numpy(), out.numpy())
    assert len(net.forward.program_cache) == 1  # positional and keyword spellings share the Program
    dy2st.save(net, os.path.join(tmp_path, "kw"))
    loaded = dy2st.load(os.path.join(tmp_path, "kw"))
    loaded.eval()
    np.testing.assert_array_equal(loaded(ids, mask, labels).numpy(), out.numpy())
