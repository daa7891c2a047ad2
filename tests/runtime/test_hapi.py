"""rt.Model / rt.summary / rt.flops / rt.callbacks (Paddle's high-level API).

The reference numbers come from PaddlePaddle 3.3 running the same script (the same data, initial
weights, SGD, CrossEntropyLoss, Accuracy(topk=(1, 2)), shuffle=False): fit's per-epoch logs,
evaluate and predict agree to float32 rounding.  A network converted by dy2st.to_static trains to
bitwise the same losses and parameters as the eager one.
"""
import copy
import os

import numpy as np
import pytest

import dy2st
import runtime as rt

nn = rt.nn

# Paddle 3.3: (train loss, acc_top1, acc_top2), then (eval loss, acc_top1, acc_top2), per epoch
PADDLE_EPOCHS = [((0.9824671745300293, 4 / 11, 17 / 22), (0.6196568608283997, 0.5, 0.8)),
                 ((0.8830965757369995, 4 / 11, 19 / 22), (0.5592807531356812, 0.5, 0.8)),
                 ((0.8780763745307922, 7 / 22, 19 / 22), (0.5622156858444214, 0.5, 0.8))]
PADDLE_EVALUATE = {"loss": [0.5173810720443726], "acc_top1": 0.5, "acc_top2": 0.8}
PADDLE_PREDICT_ROWS = [[0.09712278842926025, -1.0754450559616089, 0.4764620363712311],
                       [0.20218519866466522, -1.3203198909759521, 0.4861883819103241]]


class _DS(rt.io.Dataset):
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __getitem__(self, i):
        return self.x[i], self.y[i]

    def __len__(self):
        return len(self.x)


class MLP(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1, self.act, self.fc2 = nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class StaticMLP(MLP):
    @dy2st.to_static
    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


def _data():
    rng = np.random.RandomState(0)
    x, y = rng.rand(22, 4).astype("float32"), rng.randint(0, 3, (22, 1)).astype("int64")
    xe, ye = rng.rand(10, 4).astype("float32"), rng.randint(0, 3, (10, 1)).astype("int64")
    w = [rng.randn(4, 8).astype("float32") * .5, rng.randn(8).astype("float32") * .1,
         rng.randn(8, 3).astype("float32") * .5, rng.randn(3).astype("float32") * .1]
    return _DS(x, y), _DS(xe, ye), w


class _Record(rt.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.log = []

    def on_epoch_end(self, epoch, logs=None):
        self.log.append(copy.deepcopy(logs))

    def on_eval_end(self, logs=None):
        self.log.append(copy.deepcopy(logs))


def _run(net, epochs=3):
    train, ev, w = _data()
    for p, v in zip(net.parameters(), w):
        p.set_value(v)
    model = rt.Model(net)
    model.prepare(rt.optimizer.SGD(learning_rate=0.5, parameters=model.parameters()), nn.CrossEntropyLoss(),
                  rt.metric.Accuracy(topk=(1, 2)))
    rec = _Record()
    model.fit(train, ev, batch_size=4, epochs=epochs, shuffle=False, verbose=0, callbacks=[rec])
    return model, rec.log, ev


def test_fit_evaluate_predict_match_paddle():
    model, log, ev = _run(MLP())
    got = [(logs["loss"][0], logs["acc_top1"], logs["acc_top2"]) for logs in log]
    want = [v for epoch in PADDLE_EPOCHS for v in epoch]
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert log[0]["batch_size"] == 2 and log[0]["step"] == 5  # the last (partial) batch of 22 samples by 4
    result = model.evaluate(ev, batch_size=3, verbose=0)
    assert sorted(result) == sorted(PADDLE_EVALUATE) and result["acc_top1"] == 0.5 and result["acc_top2"] == 0.8
    np.testing.assert_allclose(result["loss"], PADDLE_EVALUATE["loss"], rtol=1e-6)
    out = model.predict(ev, batch_size=4, verbose=0)
    assert len(out) == 1 and [a.shape for a in out[0]] == [(4, 3), (4, 3), (2, 3)]
    stacked = model.predict(ev, batch_size=4, verbose=0, stack_outputs=True)
    assert stacked[0].shape == (10, 3)
    np.testing.assert_allclose(stacked[0][:2], PADDLE_PREDICT_ROWS, rtol=1e-6, atol=1e-7)
    losses, metrics = model.train_batch([ev.x[:5]], [ev.y[:5]])
    assert losses[0].shape == () and len(metrics) == 1 and len(metrics[0]) == 2


@pytest.mark.parametrize("convert", ["to_static(net)", "decorated forward"])
def test_converted_network_trains_bitwise_like_eager(convert):
    eager_model, eager_log, _ = _run(MLP(), epochs=1)
    net = dy2st.to_static(MLP()) if convert == "to_static(net)" else StaticMLP()
    model, log, ev = _run(net, epochs=1)
    assert log == eager_log  # every loss and metric, exactly
    for p, q in zip(model.parameters(), eager_model.parameters()):
        np.testing.assert_array_equal(p.numpy(), q.numpy())
    np.testing.assert_array_equal(model.predict_batch([ev.x])[0], eager_model.predict_batch([ev.x])[0])


def test_summary_and_flops_count_as_paddle(capsys):
    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Conv2D(3, 4, 3), nn.BatchNorm2D(4), nn.ReLU(), nn.AdaptiveAvgPool2D(2),
                                      nn.Flatten(), nn.Linear(16, 5))
            self.conv, self.pool, self.act = nn.Conv2D(3, 6, 3, padding=1, groups=3), nn.AvgPool2D(2), nn.LeakyReLU()

        def forward(self, x):
            return self.body(x), self.act(self.pool(self.conv(x)))

    net = Net()
    # Paddle 3.3's numbers: the batch norm's running mean and variance count as non-trainable parameters
    assert rt.summary(net, (None, 3, 8, 8)) == {"total_params": 273, "trainable_params": 265}
    text = capsys.readouterr().out
    assert "Layer (type)" in text and "BatchNorm2D-" in text and "[[1, 3, 8, 8]]" in text
    assert "Total params: 273" in text and "Non-trainable params: 8" in text
    assert rt.flops(net, [2, 3, 8, 8]) == 17184
    assert net.training  # both restore the mode
    model = rt.Model(nn.Linear(4, 3), inputs=[rt.static.InputSpec([None, 4], "float32", "x")])
    assert model.summary() == {"total_params": 15, "trainable_params": 15}


def test_save_load_callbacks(tmp_path):
    train, ev, _ = _data()
    net = StaticMLP()
    model = rt.Model(net)
    sched = rt.optimizer.lr.StepDecay(0.1, step_size=2)
    model.prepare(rt.optimizer.Adam(sched, parameters=model.parameters()), nn.CrossEntropyLoss(),
                  rt.metric.Accuracy())
    loader = rt.io.DataLoader(train, batch_size=8)
    model.fit(loader, epochs=2, verbose=0, num_iters=4)
    assert sched.last_epoch == 4  # the default LRScheduler callback steps it per batch; num_iters stops at 4
    model.save(str(tmp_path / "ck"))
    saved = [p.numpy().copy() for p in model.parameters()]
    model.fit(train, batch_size=8, epochs=1, verbose=0)
    model.load(str(tmp_path / "ck.pdparams"))
    for p, v in zip(model.parameters(), saved):
        np.testing.assert_array_equal(p.numpy(), v)
    # an inference model: the network converted with the shapes of the last batch, as paddle.jit.save
    model.save(str(tmp_path / "inf"), training=False)
    x = rt.to_tensor(train[0][0][None])
    net.eval()
    np.testing.assert_array_equal(dy2st.load(str(tmp_path / "inf"))(x).numpy(), net(x).numpy())
    net.train()
    saver = rt.hapi.model.INFERENCE_SAVER[:]
    rt.hapi.model.INFERENCE_SAVER.clear()  # as when dy2st is not imported
    try:
        with pytest.raises(NotImplementedError, match=r"dy2st\.save\(model\.network, path, input_spec=\[InputSpec"):
            model.save(str(tmp_path / "inf"), training=False)
    finally:
        rt.hapi.model.INFERENCE_SAVER[:] = saver
    early = rt.callbacks.EarlyStopping(monitor="acc", patience=0)
    model.fit(train, ev, batch_size=8, epochs=4, verbose=0, callbacks=[early], save_dir=str(tmp_path / "run"))
    assert model.stop_training and early.stopped_epoch < 4
    assert {"0.pdparams", "final.pdparams", "best_model.pdparams"} <= set(os.listdir(tmp_path / "run"))
    with pytest.raises(TypeError, match="is not sub class of Metric"):
        model.prepare(metrics=[object()])


def test_reduce_lr_on_plateau_steps_as_paddle():
    net = nn.Linear(2, 2)
    model = rt.Model(net)
    model.prepare(rt.optimizer.SGD(0.5, parameters=net.parameters()))
    cb = rt.callbacks.ReduceLROnPlateau(patience=1, cooldown=1, verbose=0, factor=0.5, min_lr=0.1)
    cb.set_model(model)
    cb.on_train_begin()
    lrs = []
    for loss in [1.0, 1.0, 1.0, 0.99995, 1.0, 0.5, 0.6]:
        cb.on_eval_end({"loss": [loss]})
        lrs.append(model._optimizer.get_lr())
    assert lrs == [0.5, 0.25, 0.125, 0.1, 0.1, 0.1, 0.1]  # Paddle 3.3's sequence
