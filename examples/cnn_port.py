"""A Paddle 2.x LeNet-style CNN, ported by changing imports (paddle -> runtime as rt,
paddle.jit -> dy2st).  It flattens by the run-time batch size, ``x.shape[0]``.

Trains a few steps eagerly and under ``@to_static`` (equal losses), saves with
``InputSpec([None, 1, 8, 8])``, loads in a fresh process and checks batch sizes 3 and 7.

    python examples/cnn_port.py [OUT_DIR]
"""
import os
import sys

import numpy as np

import runtime as rt
import runtime.nn as nn
import runtime.nn.functional as F
from runtime.static import InputSpec

from port_check import check_saved_model, train_both


class LeNet(nn.Layer):
    def __init__(self, num_classes=10):
        super(LeNet, self).__init__()
        self.features = nn.Sequential(
            nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
            nn.Conv2D(6, 16, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2))
        self.fc = nn.Sequential(nn.Linear(16 * 2 * 2, 32), nn.ReLU(), nn.Linear(32, num_classes))

    def forward(self, inputs):
        x = self.features(inputs)
        x = rt.reshape(x, [x.shape[0], -1])
        return self.fc(x)


INPUT_SPEC = [InputSpec([None, 1, 8, 8], "float32", "image")]


def main(out_dir="cnn_port_out", steps=3):
    rt.seed(0)
    rng = np.random.default_rng(0)
    batches = [[rt.to_tensor(rng.standard_normal((b, 1, 8, 8)).astype("float32")),
                rt.to_tensor(rng.integers(0, 10, (b,)))] for b in (8, 5, 8)[:steps]]
    eager, static, losses = train_both(LeNet, batches, F.cross_entropy, INPUT_SPEC)
    print("losses (eager == to_static):", ", ".join(f"{v:.4f}" for v in losses))
    os.makedirs(out_dir, exist_ok=True)
    calls = [[rng.standard_normal((b, 1, 8, 8)).astype("float32")] for b in (3, 7)]
    shapes = check_saved_model(eager, static, os.path.join(out_dir, "lenet"), INPUT_SPEC, calls)
    print("loaded in a fresh process, equal to eager for inputs", shapes)


if __name__ == "__main__":
    main(*sys.argv[1:])
