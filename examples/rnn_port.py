"""A Paddle 2.x sentence classifier with an LSTM cell unrolled by hand, ported by changing imports.

Its state starts as zeros shaped by the run-time batch size (``rt.zeros([batch_size, H])``) and
the loop runs over the run-time sequence length, so one Program serves every batch size and
every length: ``InputSpec([None, None], "int64")``.  Trains a few steps eagerly and under
``@to_static`` (equal losses), saves, loads in a fresh process and checks two input sizes.

    python examples/rnn_port.py [OUT_DIR]
"""
import os
import sys

import numpy as np

import runtime as rt
import runtime.nn as nn
import runtime.nn.functional as F
from runtime.static import InputSpec

from port_check import check_saved_model, train_both


class SentimentRNN(nn.Layer):
    def __init__(self, vocab_size=50, emb_dim=8, hidden_size=12, num_classes=2):
        super(SentimentRNN, self).__init__()
        self.hidden_size = hidden_size
        self.embedding = nn.Embedding(vocab_size, emb_dim)
        self.cell = nn.LSTMCell(emb_dim, hidden_size)
        self.fc = nn.Linear(hidden_size, num_classes)

    def forward(self, tokens):
        x = self.embedding(tokens)                     # [batch, seq_len, emb]
        batch_size, seq_len = x.shape[0], x.shape[1]
        h = rt.zeros([batch_size, self.hidden_size])
        c = rt.zeros([batch_size, self.hidden_size])
        for t in range(seq_len):
            out, (h, c) = self.cell(x[:, t, :], (h, c))
        return self.fc(h)


INPUT_SPEC = [InputSpec([None, None], "int64", "tokens")]


def main(out_dir="rnn_port_out", steps=3):
    rt.seed(0)
    rng = np.random.default_rng(1)
    batches = [[rt.to_tensor(rng.integers(0, 50, (b, n))), rt.to_tensor(rng.integers(0, 2, (b,)))]
               for b, n in ((6, 5), (4, 7), (6, 3))[:steps]]
    eager, static, losses = train_both(SentimentRNN, batches, F.cross_entropy, INPUT_SPEC, lr=0.05)
    print("losses (eager == to_static):", ", ".join(f"{v:.4f}" for v in losses))
    os.makedirs(out_dir, exist_ok=True)
    calls = [[rng.integers(0, 50, (b, n))] for b, n in ((2, 4), (5, 9))]
    shapes = check_saved_model(eager, static, os.path.join(out_dir, "sentiment_rnn"), INPUT_SPEC, calls)
    print("loaded in a fresh process, equal to eager for inputs", shapes)


if __name__ == "__main__":
    main(*sys.argv[1:])
