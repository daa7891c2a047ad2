"""A text CNN's max over time with ``nn.AdaptiveMaxPool1D(1)`` over a sequence length known only when
the Program runs: it was refused ("spatial dims must be known"), the 2-D global max pool was not."""
import numpy as np

import dy2st
import runtime as rt
import runtime.nn.functional as F
from runtime import nn
from runtime.static import InputSpec


class TextCNN(nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 6)
        self.conv = nn.Conv1D(6, 4, 3, padding=1)
        self.pool = nn.AdaptiveMaxPool1D(1)
        self.fc = nn.Linear(4, 2)

    def forward(self, ids):
        h = F.relu(self.conv(self.emb(ids).transpose([0, 2, 1])))
        return self.fc(self.pool(h).squeeze(-1))


def test_text_cnn_max_over_time_of_any_length_trains_like_eager():
    runs = []
    for convert in (False, True):
        rt.seed(0)
        net = TextCNN()
        f = dy2st.to_static(net, input_spec=[InputSpec([None, None], "int64")]) if convert else net
        opt = rt.optimizer.Adam(0.05, parameters=net.parameters())
        rng, losses = np.random.default_rng(0), []
        for b, t in ((2, 7), (3, 4)):
            ids = rt.to_tensor(rng.integers(0, 20, (b, t)))
            loss = F.cross_entropy(f(ids), rt.to_tensor(rng.integers(0, 2, (b,))))
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
        runs.append((net, losses))
    assert runs[1][1] == runs[0][1]
    for k, v in runs[0][0].state_dict().items():
        np.testing.assert_array_equal(runs[1][0].state_dict()[k].numpy(), v.numpy(), err_msg=k)
