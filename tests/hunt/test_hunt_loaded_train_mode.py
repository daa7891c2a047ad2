"""A loaded model in train() computes what its Layer computes in train mode (batch norm batch
statistics and running-stat updates, dropout), or refuses; it starts in eval()."""
import numpy as np
import pytest

import dy2st
import runtime as rt


def _save_load(layer, tmp_path):
    prefix = str(tmp_path / "m")
    dy2st.save(layer, prefix, input_spec=[dy2st.InputSpec([None, 3], "float32")])
    return dy2st.load(prefix)


def test_batch_norm_model_fine_tunes_in_train_like_the_layer(tmp_path):
    rt.seed(0)
    layer = rt.nn.Sequential(rt.nn.Linear(3, 2), rt.nn.BatchNorm1D(2))
    loaded = _save_load(layer, tmp_path)
    assert not loaded.training
    rng = np.random.RandomState(0)
    layer.train()
    loaded.train()
    opts = [rt.optimizer.Adam(0.05, parameters=m.parameters()) for m in (layer, loaded)]
    for _ in range(3):
        x = rt.to_tensor(rng.randn(5, 3).astype("float32"))
        losses = []
        for m, opt in zip((layer, loaded), opts):
            loss = (m(x) ** 2).mean()
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
        assert losses[0] == pytest.approx(losses[1], rel=1e-6)
    for (k, a), b in zip(layer.state_dict().items(), loaded.state_dict().values()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-7, err_msg=k)


def test_dropout_is_active_in_train_and_off_in_eval(tmp_path):
    layer = rt.nn.Sequential(rt.nn.Dropout(0.5))
    loaded = _save_load(layer, tmp_path)
    x = rt.to_tensor(np.ones((4, 3), "float32"))
    np.testing.assert_array_equal(loaded(x).numpy(), x.numpy())
    out = loaded.train()(x).numpy()
    assert set(np.unique(out)) <= {0.0, 2.0} and 0 < (out == 0).sum() < out.size


class _AuxInTraining(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(3, 2)
        self.aux = rt.nn.Linear(3, 2)

    def forward(self, x):
        if self.training:
            return self.fc(x) + self.aux(x)
        return self.fc(x)


def test_train_mode_needing_parameters_the_saved_program_lacks_refuses(tmp_path):
    loaded = _save_load(_AuxInTraining(), tmp_path)
    x = rt.to_tensor(np.ones((2, 3), "float32"))
    loaded(x)
    loaded.train()
    with pytest.raises(RuntimeError, match="differs in train mode"):
        loaded(x)
