"""A tiny Paddle 2.x BERT classifier, ported by changing imports.

Multi-head attention reshapes by the run-time batch size and sequence length
(``q.reshape([batch_size, seq_len, num_heads, head_dim])``), position ids come from
``rt.arange(seq_len)`` and the padding mask is broadcast into the attention scores, so one
Program serves every batch size and length: ``InputSpec([None, None], "int64")``.  Trains a few
steps eagerly and under ``@to_static`` (equal losses), saves, loads in a fresh process and checks
two input sizes.

    python examples/bert_port.py [OUT_DIR]
"""
import math
import os
import sys

import numpy as np

import runtime as rt
import runtime.nn as nn
import runtime.nn.functional as F
from runtime.static import InputSpec

from port_check import check_saved_model, train_both


class MultiHeadSelfAttention(nn.Layer):
    def __init__(self, hidden_size, num_heads):
        super(MultiHeadSelfAttention, self).__init__()
        self.num_heads, self.head_dim = num_heads, hidden_size // num_heads
        self.qkv = nn.Linear(hidden_size, 3 * hidden_size)
        self.out = nn.Linear(hidden_size, hidden_size)

    def forward(self, x, attn_bias):
        batch_size, seq_len, hidden = x.shape
        qkv = self.qkv(x).reshape([batch_size, seq_len, 3, self.num_heads, self.head_dim])
        q, k, v = rt.unstack(qkv.transpose([2, 0, 3, 1, 4]), axis=0)
        scores = rt.matmul(q, k, transpose_y=True) / math.sqrt(self.head_dim) + attn_bias
        context = rt.matmul(F.softmax(scores, axis=-1), v)
        context = context.transpose([0, 2, 1, 3]).reshape([batch_size, seq_len, hidden])
        return self.out(context)


class EncoderLayer(nn.Layer):
    def __init__(self, hidden_size, num_heads, ffn_size, dropout=0.1):
        super(EncoderLayer, self).__init__()
        self.attn = MultiHeadSelfAttention(hidden_size, num_heads)
        self.norm1 = nn.LayerNorm(hidden_size)
        self.ffn = nn.Sequential(nn.Linear(hidden_size, ffn_size), nn.GELU(), nn.Linear(ffn_size, hidden_size))
        self.norm2 = nn.LayerNorm(hidden_size)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, attn_bias):
        x = self.norm1(x + self.dropout(self.attn(x, attn_bias)))
        return self.norm2(x + self.dropout(self.ffn(x)))


class TinyBert(nn.Layer):
    def __init__(self, vocab_size=60, hidden_size=16, num_heads=2, num_layers=2, max_len=32, num_classes=3):
        super(TinyBert, self).__init__()
        self.word_embeddings = nn.Embedding(vocab_size, hidden_size)
        self.position_embeddings = nn.Embedding(max_len, hidden_size)
        self.norm = nn.LayerNorm(hidden_size)
        self.layers = nn.LayerList([EncoderLayer(hidden_size, num_heads, 2 * hidden_size)
                                    for _ in range(num_layers)])
        self.pooler = nn.Linear(hidden_size, hidden_size)
        self.classifier = nn.Linear(hidden_size, num_classes)

    def forward(self, input_ids, attention_mask):
        batch_size, seq_len = input_ids.shape
        position_ids = rt.arange(seq_len).unsqueeze(0).expand([batch_size, seq_len])
        x = self.norm(self.word_embeddings(input_ids) + self.position_embeddings(position_ids))
        # 1 keeps a token, 0 masks it: a large negative bias on masked keys, for every head and query
        attn_bias = (1.0 - attention_mask.astype("float32").reshape([batch_size, 1, 1, seq_len])) * -1e4
        for layer in self.layers:
            x = layer(x, attn_bias)
        pooled = F.tanh(self.pooler(x[:, 0]))
        return self.classifier(pooled)


INPUT_SPEC = [InputSpec([None, None], "int64", "input_ids"), InputSpec([None, None], "int64", "attention_mask")]


def _batch(rng, b, n):
    ids = rng.integers(1, 60, (b, n))
    lengths = rng.integers(1, n + 1, (b,))
    mask = (np.arange(n)[None, :] < lengths[:, None]).astype("int64")
    return [ids * mask, mask]


def main(out_dir="bert_port_out", steps=3):
    rt.seed(0)
    rng = np.random.default_rng(2)
    batches = [[rt.to_tensor(a) for a in _batch(rng, b, n)] + [rt.to_tensor(rng.integers(0, 3, (b,)))]
               for b, n in ((4, 6), (3, 9), (4, 5))[:steps]]
    eager, static, losses = train_both(TinyBert, batches, F.cross_entropy, INPUT_SPEC, lr=0.005)
    print("losses (eager == to_static):", ", ".join(f"{v:.4f}" for v in losses))
    os.makedirs(out_dir, exist_ok=True)
    calls = [_batch(rng, b, n) for b, n in ((2, 7), (5, 4))]
    shapes = check_saved_model(eager, static, os.path.join(out_dir, "tiny_bert"), INPUT_SPEC, calls)
    print("loaded in a fresh process, equal to eager for inputs", shapes)


if __name__ == "__main__":
    main(*sys.argv[1:])
