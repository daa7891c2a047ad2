"""Paddle's test_mnist, test_mnist_amp and test_mnist_pure_fp16, rewritten and shrunk (4-image
batches from a seeded sample reader in place of the MNIST download, three steps, a fifth of the
channels): the LeNet-style
`MNIST` whose `forward(inputs, label=None)` returns the prediction alone or with
`paddle.static.accuracy` and the loss (`cross_entropy(reduction='none', use_softmax=False)`) by a
Python `if` on `label`, fed through `paddle.batch` and `base.dygraph.to_variable` under
`base.dygraph.guard` with the legacy `default_main_program().random_seed`; after training, `eval()`
and the saved model (`input_spec=[img, label]` Tensors, `output_spec=[prediction]`,
`input_names_after_prune=[img.name]`) read back by `static.io.load_inference_model` under
`switch_to_static_graph`, by `paddle.jit.load` and by the legacy predictor. The AMP variants train
under `auto_cast` with a `GradScaler` (and `amp.decorate(level='O2')` with
`build_strategy.enable_inplace = False`): on a CPU build those compute in float32, as Paddle's
CPU build does. Converted training equals eager bitwise in every variant."""
import os

import numpy as np

import dy2st
import runtime as rt
from dy2st.translated_layer import INFER_MODEL_SUFFIX, INFER_PARAMS_SUFFIX
from runtime import base
from runtime.base.dygraph import to_variable
from runtime.base.dygraph.base import switch_to_static_graph
from runtime.nn import Linear
from runtime.optimizer import Adam

from .test_paddle_dy2st_resnet import PredictorTools

SEED = 2020
BATCH = 4
STEPS = 2  # the step after which Paddle's test evaluates and saves (50 there)
WIDTH = 5  # Paddle's channels (20, 50) divided by this


class SimpleImgConvPool(rt.nn.Layer):
    def __init__(self, num_channels, num_filters, filter_size, pool_size, pool_stride, pool_padding=0,
                 pool_type="max", global_pooling=False, conv_stride=1, conv_padding=0, conv_dilation=1,
                 conv_groups=1, act=None, use_cudnn=True, param_attr=None, bias_attr=None):
        super().__init__()
        self._conv2d = rt.nn.Conv2D(in_channels=num_channels, out_channels=num_filters, kernel_size=filter_size,
                                    stride=conv_stride, padding=conv_padding, dilation=conv_dilation,
                                    groups=conv_groups, weight_attr=None, bias_attr=None)
        self._pool2d = rt.nn.MaxPool2D(kernel_size=pool_size, stride=pool_stride, padding=pool_padding)

    def forward(self, inputs):
        x = self._conv2d(inputs)
        x = self._pool2d(x)
        return x


class MNIST(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self._simple_img_conv_pool_1 = SimpleImgConvPool(1, 20 // WIDTH, 5, 2, 2, act="relu")
        self._simple_img_conv_pool_2 = SimpleImgConvPool(20 // WIDTH, 50 // WIDTH, 5, 2, 2, act="relu")
        self.pool_2_shape = 50 // WIDTH * 4 * 4
        SIZE = 10
        scale = (2.0 / (self.pool_2_shape**2 * SIZE)) ** 0.5
        self._fc = Linear(self.pool_2_shape, 10,
                          weight_attr=rt.ParamAttr(initializer=rt.nn.initializer.Normal(mean=0.0, std=scale)))

    def forward(self, inputs, label=None):
        x = self.inference(inputs)
        if label is not None:
            acc = rt.static.accuracy(input=x, label=label)
            loss = rt.nn.functional.cross_entropy(x, label, reduction="none", use_softmax=False)
            avg_loss = rt.mean(loss)
            return x, acc, avg_loss
        else:
            return x

    def inference(self, inputs):
        x = self._simple_img_conv_pool_1(inputs)
        x = self._simple_img_conv_pool_2(x)
        x = rt.reshape(x, shape=[-1, self.pool_2_shape])
        x = self._fc(x)
        x = rt.nn.functional.softmax(x)
        return x


def mnist_like_train():
    """A sample reader as ``paddle.dataset.mnist.train()`` is: (784 floats in [-1, 1], label)."""
    def reader():
        rng = np.random.default_rng(7)
        for _ in range(BATCH * (STEPS + 2)):
            yield rng.uniform(-1, 1, 784).astype("float32"), int(rng.integers(0, 10))
    return reader


def _batch_arrays(data):
    dy_x_data = np.array([x[0].reshape(1, 28, 28) for x in data]).astype("float32")
    y_data = np.array([x[1] for x in data]).astype("int64").reshape(-1, 1)
    return dy_x_data, y_data


def train(to_static, tmp_path):
    train_reader = rt.batch(mnist_like_train(), batch_size=BATCH, drop_last=True)
    loss_data, saved = [], None
    with base.dygraph.guard(base.CPUPlace()):
        base.default_main_program().random_seed = SEED
        base.default_startup_program().random_seed = SEED
        rt.seed(SEED)
        mnist = MNIST()
        if to_static:
            mnist = dy2st.to_static(mnist, full_graph=True)
        adam = Adam(learning_rate=0.001, parameters=mnist.parameters())
        for batch_id, data in enumerate(train_reader()):
            dy_x_data, y_data = _batch_arrays(data)
            img = to_variable(dy_x_data)
            label = to_variable(y_data)
            label.stop_gradient = True
            prediction, acc, avg_loss = mnist(img, label=label)
            avg_loss.backward()
            adam.minimize(avg_loss)
            loss_data.append((float(avg_loss), acc.numpy()))
            mnist.clear_gradients()
            if batch_id == STEPS:
                mnist.eval()
                prediction, acc, avg_loss = mnist(img, label)
                loss_data.append((float(avg_loss), acc.numpy()))
                if to_static:
                    saved = check_jit_save_load(mnist, [dy_x_data], [img, label], prediction, [img.name], tmp_path)
                break
    return loss_data, saved


def check_jit_save_load(model, inputs, input_spec, gt_out, input_names_after_prune, tmp_path):
    model_save_dir = os.path.join(tmp_path, "inference")
    model_save_prefix = os.path.join(model_save_dir, "mnist")
    model_filename = "mnist" + INFER_MODEL_SUFFIX
    params_filename = "mnist" + INFER_PARAMS_SUFFIX
    dy2st.save(layer=model, path=model_save_prefix, input_spec=input_spec, output_spec=[gt_out],
               input_names_after_prune=input_names_after_prune)
    static_infer_out = jit_load_and_run_inference_static(model_save_dir, model_filename, params_filename, inputs)
    np.testing.assert_array_equal(static_infer_out, gt_out.numpy())
    dygraph_infer_out = dy2st.load(model_save_prefix)(inputs[0]).numpy()
    np.testing.assert_array_equal(dygraph_infer_out, gt_out.numpy())
    (predictor_infer_out,) = PredictorTools(model_save_dir, model_filename, params_filename, inputs)()
    np.testing.assert_array_equal(predictor_infer_out, gt_out.numpy())
    # another batch size through the same saved model
    other = np.random.default_rng(3).uniform(-1, 1, (3, 1, 28, 28)).astype("float32")
    out = jit_load_and_run_inference_static(model_save_dir, model_filename, params_filename, [other])
    np.testing.assert_array_equal(out, model(rt.to_tensor(other)).numpy())
    return gt_out.numpy()


@switch_to_static_graph
def jit_load_and_run_inference_static(model_path, model_filename, params_filename, inputs):
    rt.enable_static()
    exe = base.Executor(base.CPUPlace())
    inference_program, feed_target_names, fetch_targets = rt.static.io.load_inference_model(
        path_prefix=model_path, executor=exe, model_filename=model_filename, params_filename=params_filename)
    assert len(inputs) == len(feed_target_names)
    results = exe.run(inference_program, feed=dict(zip(feed_target_names, inputs)), fetch_list=fetch_targets)
    return np.array(results[0])


def _same(dy, st):
    assert len(dy) == len(st)
    for (a_loss, a_acc), (b_loss, b_acc) in zip(dy, st):
        assert a_loss == b_loss
        np.testing.assert_array_equal(b_acc, a_acc)


def test_mnist_to_static(tmp_path):
    dygraph_loss, _ = train(False, tmp_path)
    static_loss, saved = train(True, tmp_path)
    _same(dygraph_loss, static_loss)
    assert saved is not None and rt.in_dynamic_mode()


def train_amp(to_static, pure_fp16=False):
    np.random.seed(SEED)
    rt.seed(SEED)
    rt.framework.random._manual_program_seed(SEED)
    mnist = MNIST()
    if to_static:
        build_strategy = rt.static.BuildStrategy()
        build_strategy.enable_inplace = False
        mnist = dy2st.to_static(mnist, build_strategy=build_strategy)
    optimizer = rt.optimizer.Adam(learning_rate=0.001, parameters=mnist.parameters())
    scaler = rt.amp.GradScaler(init_loss_scaling=1024)
    if pure_fp16:
        mnist, optimizer = rt.amp.decorate(models=mnist, optimizers=optimizer, level="O2", save_dtype="float32")
    loss_data = []
    for batch_id, data in enumerate(rt.batch(mnist_like_train(), batch_size=BATCH, drop_last=True)()):
        dy_x_data, y_data = _batch_arrays(data)
        img = rt.to_tensor(dy_x_data)
        label = rt.to_tensor(y_data)
        label.stop_gradient = True
        with rt.amp.auto_cast(enable=True, custom_white_list=None, custom_black_list=None,
                              level="O2" if pure_fp16 else "O1"):
            prediction, acc, avg_loss = mnist(img, label=label)
        assert prediction.dtype == "float32"
        scaled = scaler.scale(avg_loss)
        scaled.backward()
        scaler.minimize(optimizer, scaled)
        loss_data.append((float(avg_loss), acc.numpy()))
        mnist.clear_gradients()
        if batch_id == STEPS:
            break
    return loss_data


def test_mnist_amp():
    _same(train_amp(False), train_amp(True))


def test_mnist_pure_fp16():
    _same(train_amp(False, pure_fp16=True), train_amp(True, pure_fp16=True))


def test_every_eager_tensor_has_a_name_made_when_first_read():
    a, b = to_variable(np.ones((2, 2), "float32")), rt.to_tensor([1.0]) + 1
    names = a.name, b.name
    assert all(n.startswith("generated_tensor_") for n in names) and names[0] != names[1]
    assert (a.name, b.name) == names  # kept once made
    b.name = "given"
    assert b.name == "given" and rt.nn.Linear(2, 2).weight.name.endswith(".w_0")
    # a converted function names its inputs after its arguments, read names or not
    sf = dy2st.to_static(lambda inputs, scale: inputs * scale)
    sf(a, b)
    assert [v.name for v in sf.concrete_program.inputs] == ["inputs", "scale"]
