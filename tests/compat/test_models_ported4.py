"""Training and deployment scripts ported by changing imports: a PaddleOCR-style CRNN trained with CTC
and served through ``paddle.inference`` (Config / create_predictor / input and output handles), a
segmentation net put through ``nn.SyncBatchNorm.convert_sync_batchnorm`` as multi-card scripts do, a
vocoder upsampler of ``nn.Conv1DTranspose`` layers, and the ``paddle.utils`` / ``paddle.amp`` checks
scripts make at start-up. Losses, parameters and served outputs equal eager bitwise."""
import warnings

import numpy as np
import pytest

import dy2st
import runtime as paddle
import runtime.nn.functional as F
from runtime import inference, nn
from runtime.static import InputSpec

from .helpers import train_same


class CRNN(nn.Layer):
    def __init__(self, classes=6):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2D(1, 4, 3, padding=1), nn.BatchNorm2D(4), nn.ReLU(),
                                  nn.MaxPool2D((2, 1), (2, 1)))
        self.rnn = nn.LSTM(16, 8, direction="bidirectional")
        self.fc = nn.Linear(16, classes)

    def forward(self, x):
        x = self.conv(x)
        b, c, h, w = x.shape
        x, _ = self.rnn(x.reshape([b, c * h, w]).transpose([0, 2, 1]))
        x = self.fc(x)
        return x if self.training else F.softmax(x, axis=2)


def _ctc(model, x, label, label_len):
    logits = model(x).transpose((1, 0, 2))
    t, b, _ = logits.shape
    lengths = paddle.to_tensor([t] * b, dtype="int64")
    return nn.CTCLoss(blank=0, reduction="none")(logits, label.astype("int32"), lengths, label_len).mean()


def test_crnn_trained_with_ctc_is_served_by_an_inference_predictor(tmp_path):
    # paddle.inference did not exist.
    rng = np.random.default_rng(0)
    data = [(rng.standard_normal((2, 1, 8, 10)).astype("float32"), rng.integers(1, 6, (2, 4)), np.array([3, 4]))]
    eager, net = train_same(CRNN, data, _ctc)
    eager.eval()
    net.eval()
    prefix = str(tmp_path / "inference")
    dy2st.save(dy2st.to_static(net, input_spec=[InputSpec([None, 1, 8, None], "float32", "x")]), prefix)
    config = inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    config.disable_gpu()
    config.enable_mkldnn()
    config.set_cpu_math_library_num_threads(2)
    config.switch_use_feed_fetch_ops(False)
    predictor = inference.create_predictor(config)
    handle = predictor.get_input_handle(predictor.get_input_names()[0])
    for width in (10, 6):
        x = rng.standard_normal((3, 1, 8, width)).astype("float32")
        handle.reshape(x.shape)
        handle.copy_from_cpu(x)
        predictor.run()
        probs = predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()
        np.testing.assert_array_equal(probs, eager(paddle.to_tensor(x)).numpy())
    assert predictor.run([paddle.to_tensor(x)])[0].numpy().tolist() == probs.tolist()
    assert inference.Config(str(tmp_path)).model_dir() == str(tmp_path)  # a folder with one model
    np.testing.assert_array_equal(inference.create_predictor(inference.Config(str(tmp_path))).run(
        [paddle.to_tensor(x)])[0].numpy(), probs)


def test_a_predictor_says_which_input_has_no_data(tmp_path):
    net = dy2st.to_static(nn.Linear(3, 2), input_spec=[InputSpec([None, 3], "float32", "feat")])
    dy2st.save(net, str(tmp_path / "m"))
    predictor = inference.create_predictor(inference.Config(str(tmp_path / "m")))
    with pytest.raises(RuntimeError, match="feat"):
        predictor.run()


def test_paddle_jit_load_with_model_and_params_filenames(tmp_path):
    # dy2st.load(folder, model_filename=..., params_filename=...) raised TypeError.
    net = nn.Linear(3, 2)
    dy2st.save(net, str(tmp_path / "m"), input_spec=[InputSpec([None, 3], "float32")])
    loaded = dy2st.load(str(tmp_path), model_filename="m.pdmodel", params_filename="m.pdiparams")
    x = paddle.ones([2, 3])
    np.testing.assert_array_equal(loaded(x).numpy(), net(x).numpy())
    with pytest.raises(ValueError, match="NAME.pdmodel and NAME.pdiparams"):
        dy2st.load(str(tmp_path), model_filename="m.pdmodel", params_filename="other.pdiparams")


class SegNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2D(3, 4, 3, padding=1), nn.BatchNorm2D(4), nn.ReLU(),
                                  nn.Conv2D(4, 4, 3, padding=1), nn.BatchNorm(4, act="relu"))
        self.head = nn.Conv2D(4, 2, 1)

    def forward(self, x):
        return self.head(self.body(x))


class SyncSegNet(SegNet):
    def __init__(self):
        super().__init__()
        self.body = nn.SyncBatchNorm.convert_sync_batchnorm(self.body)


def test_convert_sync_batchnorm_keeps_the_parameters_and_trains_like_eager():
    # nn.SyncBatchNorm did not exist.
    paddle.seed(0)
    net = SegNet()
    weight = net.body[1].weight
    synced = nn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert synced is net and isinstance(net.body[1], nn.SyncBatchNorm) and net.body[1].weight is weight
    rng = np.random.default_rng(1)
    data = [(rng.standard_normal((2, 3, 6, 6)).astype("float32"), rng.integers(0, 2, (2, 6, 6))) for _ in range(2)]
    train_same(SyncSegNet, data, lambda m, x, y: F.cross_entropy(m(x).transpose([0, 2, 3, 1]), y.unsqueeze(-1)))


class Upsampler(nn.Layer):
    """MelGAN's generator body: weight-normed transposed 1-D convolutions between leaky ReLUs."""

    def __init__(self):
        super().__init__()
        self.pre = nn.Conv1D(4, 8, 3, padding=1)
        self.up = nn.LayerList([nn.utils.weight_norm(nn.Conv1DTranspose(8, 8, 4, stride=2, padding=1)),
                                nn.Conv1DTranspose(8, 4, 5, stride=3, padding=1, output_padding=1)])
        self.post = nn.Conv1D(4, 1, 3, padding=1)

    def forward(self, mel):
        x = self.pre(mel)
        for layer in self.up:
            x = layer(F.leaky_relu(x, 0.2))
        return paddle.tanh(self.post(x))


def test_conv1d_transpose_upsampler_trains_and_serves_any_length(tmp_path):
    # nn.Conv1DTranspose and F.conv1d_transpose did not exist.
    rng = np.random.default_rng(2)
    data = [(rng.standard_normal((2, 4, 5)).astype("float32"), rng.standard_normal((2, 1, 31)).astype("float32"))]
    eager, net = train_same(Upsampler, data * 2, lambda m, mel, wav: F.l1_loss(m(mel), wav))
    dy2st.save(dy2st.to_static(net, input_spec=[InputSpec([None, 4, None], "float32")]), str(tmp_path / "voc"))
    loaded = dy2st.load(str(tmp_path / "voc"))
    mel = paddle.to_tensor(rng.standard_normal((1, 4, 7)).astype("float32"))
    assert eager(mel).shape == [1, 1, 7 * 6 + 1]
    np.testing.assert_array_equal(loaded(mel).numpy(), eager(mel).numpy())


def test_start_up_checks_of_training_scripts():
    # paddle.utils.run_check / try_import / require_version / deprecated and the amp queries did not exist.
    paddle.utils.run_check()
    assert paddle.utils.try_import("json").__name__ == "json"
    with pytest.raises(ImportError, match="pip install no_such_module"):
        paddle.utils.try_import("no_such_module")
    paddle.utils.require_version("2.0.0")
    with pytest.raises(Exception, match="VersionError"):
        paddle.utils.require_version("9.0.0")

    @paddle.utils.deprecated(update_to="paddle.new_api", since="2.1")
    def old_api(x):
        return x + 1

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert old_api(1) == 2
    assert "paddle.new_api" in str(caught[0].message)
    dtype = "bfloat16" if paddle.amp.is_bfloat16_supported() else "float16"
    use_amp = paddle.amp.is_float16_supported()
    net = nn.Linear(3, 2)
    with paddle.amp.auto_cast(enable=use_amp, dtype=dtype):
        out = net(paddle.ones([1, 3]))
    assert out.dtype == paddle.float32


def test_a_trainer_wrapping_its_model_for_distributed_training_runs_single_process(tmp_path):
    # paddle.DataParallel, paddle.distributed.fleet, paddle.callbacks and paddle.utils.download as
    # modules did not exist: the imports at the top of PaddleClas's and PaddleDetection's trainers failed.
    from runtime.callbacks import EarlyStopping
    from runtime.distributed import fleet
    from runtime.utils.download import get_weights_path_from_url

    with pytest.raises(FileNotFoundError, match="nothing is downloaded"):
        get_weights_path_from_url("https://example.com/weights/ResNet_missing.pdparams")
    local = tmp_path / "w.pdparams"
    local.write_bytes(b"")
    assert get_weights_path_from_url(str(local)) == str(local)
    assert EarlyStopping is paddle.callbacks.EarlyStopping

    fleet.init(is_collective=True, strategy=fleet.DistributedStrategy())
    losses = []
    for convert in (False, True):
        paddle.seed(4)
        net = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1D(8), nn.ReLU(), nn.Linear(8, 2))
        model = fleet.distributed_model(paddle.DataParallel(net))
        opt = fleet.distributed_optimizer(paddle.optimizer.Momentum(0.1, parameters=model.parameters()))
        step = dy2st.to_static(model) if convert else model
        rng = np.random.default_rng(5)
        run = []
        for _ in range(2):
            with model.no_sync():
                loss = F.cross_entropy(step(paddle.to_tensor(rng.standard_normal((4, 4)).astype("float32"))),
                                       paddle.to_tensor(rng.integers(0, 2, (4, 1))))
            loss.backward()
            opt.step()
            opt.clear_grad()
            run.append(float(loss))
        losses.append(run)
        assert list(model.state_dict()) == list(net.state_dict())  # no "_layers." prefix, as Paddle's
    assert losses[1] == losses[0]
