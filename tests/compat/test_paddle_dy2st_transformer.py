"""Paddle's test_transformer (with transformer_dygraph_model.py), rewritten and shrunk (d_model 8, two
heads, one encoder and one decoder layer, vocabularies of 12, 2 sentences): the converted
`beam_search` of the Transformer. Its caches are a list of dicts whose `k`/`v` start with a
zero-length time axis (`fill_constant(shape=[batch, beam, n_head, 0, d_key])`) and grow by one step
per iteration of `for i in range(paddle.to_tensor(max_len))`, written in place by the decoder's
`MultiHeadAttention` (`cache["k"], cache["v"] = k, v`) and rebuilt around it by `map_structure`
(merging and splitting the batch and beam dims, gathering the kept beams); the loop collects the
step's tokens and parents in Python lists, masks finished beams, picks beams with `topk`,
`floor_divide` and `remainder` over `gather_nd` coordinates and breaks when `paddle.all(finished)`.
The sequences come from `gather_tree`. Converted equals eager (sequences and scores) at several
`max_len`s and for inputs of two lengths, the model trained a step by the cross entropy of its
teacher-forced `forward` first. The encoder's position table comes from `NumpyArrayInitializer`
(`fluid.initializer`) with `trainable=False`. Also the same cache written in place by an attention
layer *before* `map_structure` rebuilds the list, in a loop that collects its outputs in a list
(converted, the loop's scratch traces wrote that dict and the Program read a value of a discarded
trace): values and gradients as eagerly."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import base
from runtime.nn import Layer, Linear
from runtime.utils import map_structure

from .test_paddle_dy2st_bert import PrePostProcessLayer

N_HEAD, D_MODEL, D_KEY, VOCAB, MAX_LEN = 2, 8, 4, 12, 16


def position_encoding_init(n_position, d_pos_vec):
    channels = d_pos_vec
    position = np.arange(n_position)
    num_timescales = channels // 2
    log_timescale_increment = np.log(float(1e4) / float(1)) / (num_timescales - 1)
    inv_timescales = np.exp(np.arange(num_timescales)) * -log_timescale_increment
    scaled_time = np.expand_dims(position, 1) * np.expand_dims(inv_timescales, 0)
    signal = np.concatenate([np.sin(scaled_time), np.cos(scaled_time)], axis=1)
    signal = np.pad(signal, [[0, 0], [0, np.mod(channels, 2)]], "constant")
    return signal.astype("float32")


class MultiHeadAttention(Layer):
    def __init__(self, d_key, d_value, d_model, n_head=1, dropout_rate=0.0):
        super().__init__()
        self.n_head, self.d_key, self.d_value, self.d_model = n_head, d_key, d_value, d_model
        self.q_fc = Linear(d_model, d_key * n_head, bias_attr=False)
        self.k_fc = Linear(d_model, d_key * n_head, bias_attr=False)
        self.v_fc = Linear(d_model, d_value * n_head, bias_attr=False)
        self.proj_fc = Linear(d_value * n_head, d_model, bias_attr=False)

    def forward(self, queries, keys, values, attn_bias, cache=None):
        keys = queries if keys is None else keys
        values = keys if values is None else values
        q = rt.transpose(x=rt.reshape(x=self.q_fc(queries), shape=[0, 0, self.n_head, self.d_key]), perm=[0, 2, 1, 3])
        k = rt.transpose(x=rt.reshape(x=self.k_fc(keys), shape=[0, 0, self.n_head, self.d_key]), perm=[0, 2, 1, 3])
        v = rt.transpose(x=rt.reshape(x=self.v_fc(values), shape=[0, 0, self.n_head, self.d_value]),
                         perm=[0, 2, 1, 3])
        if cache is not None:
            cache_k, cache_v = cache["k"], cache["v"]
            k = rt.concat([cache_k, k], axis=2)
            v = rt.concat([cache_v, v], axis=2)
            cache["k"], cache["v"] = k, v
        product = rt.matmul(x=q, y=k, transpose_y=True)
        product = rt.scale(product, scale=self.d_model**-0.5)
        if attn_bias is not None:
            product += attn_bias
        weights = rt.nn.functional.softmax(product)
        out = rt.matmul(weights, v)
        out = rt.transpose(out, perm=[0, 2, 1, 3])
        out = rt.reshape(x=out, shape=[0, 0, out.shape[2] * out.shape[3]])
        return self.proj_fc(out)


class FFN(Layer):
    def __init__(self, d_inner_hid, d_model):
        super().__init__()
        self.fc1 = Linear(d_model, d_inner_hid)
        self.fc2 = Linear(d_inner_hid, d_model)

    def forward(self, x):
        return self.fc2(rt.nn.functional.relu(self.fc1(x)))


class EncoderLayer(Layer):
    def __init__(self):
        super().__init__()
        self.preprocesser1 = PrePostProcessLayer("n", D_MODEL, 0.0)
        self.self_attn = MultiHeadAttention(D_KEY, D_KEY, D_MODEL, N_HEAD)
        self.postprocesser1 = PrePostProcessLayer("da", D_MODEL, 0.1)
        self.preprocesser2 = PrePostProcessLayer("n", D_MODEL, 0.0)
        self.ffn = FFN(2 * D_MODEL, D_MODEL)
        self.postprocesser2 = PrePostProcessLayer("da", D_MODEL, 0.1)

    def forward(self, enc_input, attn_bias):
        attn_output = self.self_attn(self.preprocesser1(enc_input), None, None, attn_bias)
        attn_output = self.postprocesser1(attn_output, enc_input)
        ffn_output = self.ffn(self.preprocesser2(attn_output))
        return self.postprocesser2(ffn_output, attn_output)


class DecoderLayer(EncoderLayer):
    def __init__(self):
        super().__init__()
        self.preprocesser3 = PrePostProcessLayer("n", D_MODEL, 0.0)
        self.cross_attn = MultiHeadAttention(D_KEY, D_KEY, D_MODEL, N_HEAD)
        self.postprocesser3 = PrePostProcessLayer("da", D_MODEL, 0.1)

    def forward(self, dec_input, enc_output, self_attn_bias, cross_attn_bias, cache=None):
        self_attn_output = self.self_attn(self.preprocesser1(dec_input), None, None, self_attn_bias, cache)
        self_attn_output = self.postprocesser1(self_attn_output, dec_input)
        cross_attn_output = self.cross_attn(self.preprocesser3(self_attn_output), enc_output, enc_output,
                                            cross_attn_bias)
        cross_attn_output = self.postprocesser3(cross_attn_output, self_attn_output)
        ffn_output = self.ffn(self.preprocesser2(cross_attn_output))
        return self.postprocesser2(ffn_output, cross_attn_output)


class Embedder(Layer):
    def __init__(self):
        super().__init__()
        self.word_embedder = rt.nn.Embedding(VOCAB, D_MODEL, weight_attr=base.ParamAttr(
            initializer=rt.nn.initializer.Normal(0.0, D_MODEL**-0.5)))
        self.pos_encoder = rt.nn.Embedding(MAX_LEN, D_MODEL, weight_attr=base.ParamAttr(
            initializer=base.initializer.NumpyArrayInitializer(position_encoding_init(MAX_LEN, D_MODEL)),
            trainable=False))

    def forward(self, word, pos):
        word_emb = rt.scale(x=self.word_embedder(word), scale=D_MODEL**0.5)
        pos_enc = self.pos_encoder(pos)
        pos_enc.stop_gradient = True
        return word_emb + pos_enc


class Transformer(Layer):
    def __init__(self):
        super().__init__()
        self.src_embedder, self.trg_embedder = Embedder(), Embedder()
        self.encoder = EncoderLayer()
        self.decoders = [self.add_sublayer("layer_0", DecoderLayer())]
        self.post = PrePostProcessLayer("n", D_MODEL, 0.0)
        self.linear = Linear(D_MODEL, VOCAB, bias_attr=False)
        self.trg_vocab_size, self.n_layer, self.n_head, self.d_key, self.d_value = VOCAB, 1, N_HEAD, D_KEY, D_KEY

    def encode(self, src_word, src_pos, src_slf_attn_bias):
        return self.encoder(self.src_embedder(src_word, src_pos), src_slf_attn_bias)

    def decode(self, trg_word, trg_pos, trg_slf_attn_bias, trg_src_attn_bias, enc_output, caches=None):
        dec_input = self.trg_embedder(trg_word, trg_pos)
        for i, decoder_layer in enumerate(self.decoders):
            dec_output = decoder_layer(dec_input, enc_output, trg_slf_attn_bias, trg_src_attn_bias,
                                       None if caches is None else caches[i])
            dec_input = dec_output
        dec_output = self.post(dec_output)
        dec_output = rt.reshape(dec_output, shape=[-1, dec_output.shape[-1]])
        return self.linear(dec_output)

    def forward(self, src_word, src_pos, src_slf_attn_bias, trg_word, trg_pos, trg_slf_attn_bias,
                trg_src_attn_bias):
        enc_output = self.encode(src_word, src_pos, src_slf_attn_bias)
        return self.decode(trg_word, trg_pos, trg_slf_attn_bias, trg_src_attn_bias, enc_output)

    def beam_search(self, src_word, src_pos, src_slf_attn_bias, trg_word, trg_src_attn_bias, bos_id=0, eos_id=1,
                    beam_size=3, max_len=8):
        def expand_to_beam_size(tensor, beam_size):
            tensor = rt.reshape(tensor, [tensor.shape[0], 1] + list(tensor.shape[1:]))
            tile_dims = [-1] * len(tensor.shape)
            tile_dims[1] = beam_size
            return rt.expand(tensor, tile_dims)

        def merge_batch_beams(tensor):
            var_dim_in_state = 2  # count in beam dim
            tensor = rt.transpose(tensor, list(range(var_dim_in_state, len(tensor.shape)))
                                  + list(range(0, var_dim_in_state)))
            tensor = rt.reshape(tensor, [0] * (len(tensor.shape) - var_dim_in_state) + [batch_size * beam_size])
            return rt.transpose(tensor, list(range((len(tensor.shape) + 1 - var_dim_in_state), len(tensor.shape)))
                                + list(range(0, (len(tensor.shape) + 1 - var_dim_in_state))))

        def split_batch_beams(tensor):
            var_dim_in_state = 1
            tensor = rt.transpose(tensor, list(range(var_dim_in_state, len(tensor.shape)))
                                  + list(range(0, var_dim_in_state)))
            tensor = rt.reshape(tensor, [0] * (len(tensor.shape) - var_dim_in_state) + [batch_size, beam_size])
            return rt.transpose(tensor, list(range((len(tensor.shape) - 1 - var_dim_in_state), len(tensor.shape)))
                                + list(range(0, (len(tensor.shape) - 1 - var_dim_in_state))))

        def mask_probs(probs, finished, noend_mask_tensor):
            finished = rt.cast(finished, dtype=probs.dtype)
            return rt.multiply(rt.expand(rt.unsqueeze(finished, [2]), [-1, -1, self.trg_vocab_size]),
                               noend_mask_tensor) - rt.tensor.math._multiply_with_axis(probs, (finished - 1), axis=0)

        def gather(input, indices, batch_pos):
            topk_coordinates = rt.stack([batch_pos, indices], axis=2)
            return rt.gather_nd(input, topk_coordinates)

        enc_output = self.encode(src_word, src_pos, src_slf_attn_bias)
        batch_size = enc_output.shape[0]
        inf = float(1.0 * 1e7)
        vocab_size_tensor = rt.tensor.fill_constant(shape=[1], dtype="int64", value=self.trg_vocab_size)
        end_token_tensor = rt.to_tensor(np.full([batch_size, beam_size], eos_id, dtype="int64"))
        noend_array = [-inf] * self.trg_vocab_size
        noend_array[eos_id] = 0
        noend_mask_tensor = rt.to_tensor(np.array(noend_array, dtype="float32"))
        batch_pos = rt.expand(rt.unsqueeze(rt.to_tensor(np.arange(0, batch_size, 1, dtype="int64")), [1]),
                              [-1, beam_size])
        predict_ids = []
        parent_ids = []
        log_probs = rt.to_tensor(np.array([[0.0] + [-inf] * (beam_size - 1)] * batch_size, dtype="float32"))
        finished = rt.to_tensor(np.full([batch_size, beam_size], 0, dtype="bool"))
        trg_word = rt.tensor.fill_constant(shape=[batch_size * beam_size, 1], dtype="int64", value=bos_id)
        trg_src_attn_bias = merge_batch_beams(expand_to_beam_size(trg_src_attn_bias, beam_size))
        enc_output = merge_batch_beams(expand_to_beam_size(enc_output, beam_size))
        caches = [{"k": rt.tensor.fill_constant(shape=[batch_size, beam_size, self.n_head, 0, self.d_key],
                                                 dtype=enc_output.dtype, value=0),
                   "v": rt.tensor.fill_constant(shape=[batch_size, beam_size, self.n_head, 0, self.d_value],
                                                 dtype=enc_output.dtype, value=0)}
                  for i in range(self.n_layer)]
        for i in range(rt.to_tensor(max_len)):
            trg_pos = rt.tensor.fill_constant(shape=trg_word.shape, dtype="int64", value=i)
            caches = map_structure(merge_batch_beams, caches)
            logits = self.decode(trg_word, trg_pos, None, trg_src_attn_bias, enc_output, caches)
            caches = map_structure(split_batch_beams, caches)
            step_log_probs = split_batch_beams(rt.log(rt.nn.functional.softmax(logits)))
            step_log_probs = mask_probs(step_log_probs, finished, noend_mask_tensor)
            log_probs = rt.tensor.math._add_with_axis(x=step_log_probs, y=log_probs, axis=0)
            log_probs = rt.reshape(log_probs, [-1, beam_size * self.trg_vocab_size])
            scores = log_probs
            topk_scores, topk_indices = rt.topk(x=scores, k=beam_size)
            beam_indices = rt.floor_divide(topk_indices, vocab_size_tensor)
            token_indices = rt.remainder(topk_indices, vocab_size_tensor)
            caches = map_structure(lambda x: gather(x, beam_indices, batch_pos), caches)
            log_probs = gather(log_probs, topk_indices, batch_pos)
            finished = gather(finished, beam_indices, batch_pos)
            finished = rt.logical_or(finished, rt.equal(token_indices, end_token_tensor))
            trg_word = rt.reshape(token_indices, [-1, 1])
            predict_ids.append(token_indices)
            parent_ids.append(beam_indices)
            if rt.all(finished).numpy():
                break
        predict_ids = rt.stack(predict_ids, axis=0)
        parent_ids = rt.stack(parent_ids, axis=0)
        finished_seq = rt.transpose(rt.nn.functional.gather_tree(predict_ids, parent_ids), [1, 2, 0])
        finished_scores = topk_scores
        return finished_seq, finished_scores


def _src(batch, length, seed):
    rng = np.random.default_rng(seed)
    word = rt.to_tensor(rng.integers(2, VOCAB, (batch, length)).astype("int64"))
    pos = rt.to_tensor(np.tile(np.arange(length), (batch, 1)).astype("int64"))
    bias = rt.to_tensor(np.zeros((batch, N_HEAD, length, length), "float32"))
    cross = rt.to_tensor(np.zeros((batch, N_HEAD, 1, length), "float32"))
    return word, pos, bias, cross


def _trained_model():
    rt.seed(7)
    model = Transformer()
    opt = rt.optimizer.Adam(learning_rate=0.05, parameters=model.parameters())
    word, pos, bias, cross = _src(2, 5, 0)
    trg = rt.to_tensor(np.array([[0, 4, 5, 6], [0, 7, 8, 9]], "int64"))
    trg_pos = rt.to_tensor(np.tile(np.arange(4), (2, 1)).astype("int64"))
    causal = rt.to_tensor(np.triu(np.full((4, 4), -1e9, "float32"), 1)[None, None].repeat(2, 0).repeat(N_HEAD, 1))
    label = rt.to_tensor(np.array([[4], [5], [6], [1], [7], [8], [9], [1]], "int64"))
    cross4 = rt.to_tensor(np.zeros((2, N_HEAD, 4, 5), "float32"))
    logits = model(word, pos, bias, trg, trg_pos, causal, cross4)
    loss = rt.nn.functional.cross_entropy(logits, label)
    loss.backward()
    opt.step()
    assert cross is not None
    model.eval()  # dropout off for decoding
    return model


@pytest.mark.parametrize("max_len", [1, 4, 8])
def test_beam_search_with_growing_caches_as_eagerly(max_len):
    model = _trained_model()
    beam_search = dy2st.to_static(model.beam_search)
    for length, seed in ((5, 1), (3, 2)):
        word, pos, bias, cross = _src(2, length, seed)
        with rt.no_grad():
            dy_seq, dy_scores = model.beam_search(word, pos, bias, None, cross, max_len=max_len)
            st_seq, st_scores = beam_search(word, pos, bias, None, cross, max_len=max_len)
        assert st_seq.shape == dy_seq.shape and st_seq.dtype == dy_seq.dtype
        np.testing.assert_array_equal(st_seq.numpy(), dy_seq.numpy())
        np.testing.assert_array_equal(st_scores.numpy(), dy_scores.numpy())


class CachedAttention(Layer):
    def __init__(self):
        super().__init__()
        self.fc = Linear(4, 4)

    def forward(self, x, cache=None):
        k = rt.reshape(self.fc(x), [0, 0, 2, 2]).transpose([0, 2, 1, 3])
        if cache is not None:
            k = rt.concat([cache["k"], k], axis=2)
            cache["k"] = k
        return k.sum(axis=2)


class CachedDecoder(Layer):
    def __init__(self):
        super().__init__()
        self.att = CachedAttention()

    def forward(self, x, max_len):
        caches = [{"k": rt.full([x.shape[0], 2, 0, 2], 0.0, "float32")}]
        outs = []
        for i in range(rt.to_tensor(max_len)):
            h = self.att(x, caches[0])
            caches = map_structure(lambda t: t * 0.5, caches)
            outs.append(h)
            x = x + h.reshape([x.shape[0], 1, 4]) * 0.1
            if rt.all(h.sum() > 1e6).numpy():
                break
        return rt.stack(outs, 0), caches[0]["k"]


@pytest.mark.parametrize("max_len", [1, 3, 5])
def test_a_cache_written_before_the_list_is_rebuilt_in_a_loop_that_collects(max_len):
    rt.seed(0)
    eager, static = CachedDecoder(), dy2st.to_static(CachedDecoder())
    static.set_state_dict(eager.state_dict())
    value = np.random.default_rng(max_len).standard_normal((2, 1, 4)).astype("float32")
    xs = [rt.to_tensor(value, stop_gradient=False) for _ in range(2)]
    a, b = eager(xs[0], max_len), static(xs[1], max_len)
    for p, q in zip(a, b):
        assert p.shape == q.shape
        np.testing.assert_array_equal(q.numpy(), p.numpy())
    (a[0].sum() + a[1].sum()).backward()
    (b[0].sum() + b[1].sum()).backward()
    np.testing.assert_allclose(xs[1].grad.numpy(), xs[0].grad.numpy(), rtol=1e-6)
    for p, q in zip(eager.parameters(), static.parameters()):
        np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-6)
