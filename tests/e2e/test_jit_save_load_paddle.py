"""dy2st.save / dy2st.load in the situations Paddle's own jit save/load tests put them in.

Each test follows one workflow of a Paddle user: train a little, save (with Tensors, InputSpecs
or nothing as input_spec), load, and check the loaded model predicts and fine-tunes like the
original; plus pruning (output_spec, unused inputs), dict inputs and outputs, and the errors.
Functions, methods and loaded models: test_jit_save_load_paddle_methods.py.
"""


import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from runtime import nn
from runtime.static import InputSpec

IN = 6


def _batches(n=3, batch=4, in_size=IN, classes=1):
    rng = np.random.RandomState(7)
    for _ in range(n):
        yield (rt.to_tensor(rng.rand(batch, in_size).astype("float32")),
               rt.to_tensor(rng.randint(0, classes, (batch, 1)).astype("int64")))


def _train(layer, in_size=IN):
    """A few SGD steps of softmax cross-entropy on the layer's output; the last inputs and loss."""
    opt = rt.optimizer.SGD(learning_rate=0.01, parameters=layer.parameters())
    for img, label in _batches(in_size=in_size):
        loss = F.cross_entropy(layer(img), label, reduction="none").mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
    return [img], loss


class Plain(nn.Layer):
    def __init__(self, n_in=IN, n_out=1):
        super().__init__()
        self._linear = nn.Linear(n_in, n_out)

    def forward(self, x):
        return self._linear(x)


class Converted(Plain):
    @dy2st.to_static
    def forward(self, x):
        return self._linear(x)


class Declared(Plain):
    @dy2st.to_static(input_spec=[InputSpec([None, IN], "float32")])
    def forward(self, x):
        return self._linear(x)


class WithLabel(Plain):
    """Returns the prediction and a loss that needs the label: the label is pruned when only the
    prediction is saved."""

    def forward(self, x, label):
        out = self._linear(x)
        return out, F.cross_entropy(out, label, reduction="none", use_softmax=False).mean()


class LabelUnusedByOutput(Plain):
    def forward(self, x, label):
        out = self._linear(x)
        F.cross_entropy(out, label, reduction="none", use_softmax=False).mean()  # computed, not returned
        return out


class LabelIgnored(Plain):
    def forward(self, x, label):
        return self._linear(x)


def _x(n=1):
    return rt.to_tensor(np.random.RandomState(n).rand(n, IN).astype("float32"))


def _same_prediction(layer, path, *extra):
    layer.eval()
    loaded = dy2st.load(path)
    loaded.eval()
    x = _x()
    want = layer(x, *extra)
    want = want[0] if isinstance(want, (list, tuple)) else want
    np.testing.assert_array_equal(want.numpy(), loaded(x).numpy())


def test_trained_layer_saved_with_example_tensors_predicts_and_fine_tunes_alike(tmp_path):
    rt.seed(10)
    layer = Converted()
    examples, _ = _train(layer)
    types = [type(t) for t in examples]
    path = str(tmp_path / "dir" / "model")
    dy2st.save(layer=layer, path=path, input_spec=examples)
    assert [type(t) for t in examples] == types and len(examples) == 1  # the caller's list is untouched
    loaded = dy2st.load(path)
    _same_prediction(layer, path)
    layer.train()
    loaded.train()
    _, want = _train(layer)
    _, got = _train(loaded)
    np.testing.assert_array_equal(want.numpy(), got.numpy())
    # rt.load of the prefix is the state dict, under the Layer's own names
    fresh = Converted()
    state = rt.load(path)
    assert set(fresh.state_dict()) <= set(state)
    fresh.set_state_dict(state)
    fresh.eval()
    layer.eval()
    x = _x()
    np.testing.assert_array_equal(fresh(x).numpy(), loaded(x).numpy())


def test_loading_a_missing_path_is_a_value_error(tmp_path):
    with pytest.raises(ValueError):
        dy2st.load(str(tmp_path / "nowhere" / "model"))
    with pytest.raises(ValueError):
        rt.load(str(tmp_path / "nowhere" / "model"))


@pytest.mark.parametrize("cls,spec", [(Converted, None), (Declared, None), (Plain, "spec"), (Plain, "examples")])
def test_save_after_training_with_or_without_input_spec(tmp_path, cls, spec):
    rt.seed(1)
    layer = cls()
    examples, _ = _train(layer)
    spec = {"spec": [InputSpec([None, IN], "float32")], "examples": examples}.get(spec)
    dy2st.save(layer, str(tmp_path / "m"), input_spec=spec)
    _same_prediction(layer, str(tmp_path / "m"))


def test_nested_outputs_flatten_in_order(tmp_path):
    class Nest(nn.Layer):
        def __init__(self):
            super().__init__()
            self.a, self.b = nn.Linear(IN, IN), nn.Linear(IN, IN)

        def forward(self, x):
            y = self.a(x)
            z = self.b(y)
            return y, [(z, (y + z).mean()), y + z]
    net = Nest()
    x = _x(4)
    want = rt.utils.flatten(net(x))
    net = dy2st.to_static(net, input_spec=[InputSpec([None, IN], name="x")])
    dy2st.save(net, str(tmp_path / "m"))
    got = rt.utils.flatten(dy2st.load(str(tmp_path / "m"))(x))
    assert len(want) == len(got) == 4
    for w, g in zip(want, got):
        np.testing.assert_allclose(w.numpy(), g.numpy(), rtol=1e-6)


@pytest.mark.parametrize("nested", [False, True])
def test_dict_outputs_come_back_as_values_sorted_by_key_with_a_warning(tmp_path, nested):
    class DictOut(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = nn.LayerDict({k: nn.Linear(IN, 2) for k in "uvwp"})

        def forward(self, x):
            out = {k: self.fc[k](x) for k in "uvwp"}
            if nested:
                out["a"] = {"y": out["p"] * 2.0, "x": out["p"] + 1.0}
            return out
    model = DictOut()
    x = _x(4)
    eager = model(x)
    st = dy2st.to_static(model)
    converted = st(x)
    assert list(converted) == list(eager)  # the converted call keeps the dict and its order
    with pytest.warns(UserWarning, match="Found 'dict' in given outputs, the values will be returned in a "
                                         "sequence sorted in lexicographical order by their keys."):
        dy2st.save(st, str(tmp_path / "m"))
    loaded = dy2st.load(str(tmp_path / "m"))(x)
    want = rt.utils.flatten(eager)
    assert isinstance(loaded, list) and len(loaded) == len(want) == (6 if nested else 4)
    for w, g in zip(want, loaded):
        np.testing.assert_allclose(w.numpy(), g.numpy(), rtol=1e-6)


def test_dict_inputs_save_only_the_inputs_given(tmp_path):
    class DictIn(Plain):
        def forward(self, img, label=None):
            out = self._linear(img["img"])
            if label is not None:
                F.cross_entropy(out, label["label"])
            return out
    net = dy2st.to_static(DictIn(IN, 8), input_spec=[{"img": InputSpec([None, IN], "float32", "img")},
                                                    {"label": InputSpec([None, 1], "int64", "label")}])
    dy2st.save(net, str(tmp_path / "m"), input_spec=[{"img": InputSpec([None, IN], "float32", "img")}])
    loaded = dy2st.load(str(tmp_path / "m"))
    assert loaded.feed_names == ["img"] and len(loaded.fetch_names) == 1
    assert [(s.name, list(s.shape)) for s in loaded._input_spec()] == [("img", [-1, IN])]
    assert len(loaded._output_spec()) == 1
    assert loaded(rt.randn([4, IN])).shape == [4, 8]

    class TwoKeys(Plain):
        def forward(self, img):
            return self._linear(img["img"] + img["img2"])
    spec = [{"img": InputSpec([None, IN], "float32", "img"), "img2": InputSpec([None, IN], "float32", "img2")}]
    dy2st.save(TwoKeys(IN, 8), str(tmp_path / "two"), input_spec=spec)
    a, b = rt.randn([4, IN]), rt.randn([4, IN])
    loaded = dy2st.load(str(tmp_path / "two"))
    assert loaded.feed_names == ["img", "img2"] and loaded(a, b).shape == [4, 8]
    assert len(loaded._input_spec()) == 2


class ReturnLoss(nn.Layer):
    def __init__(self):
        super().__init__()
        self._linear = nn.Linear(IN, IN)

    @dy2st.to_static  # converted again with an input_spec below, as Paddle's test does
    def forward(self, x):
        z = self._linear(self._linear(x))
        return z, z.mean()


class MultiInput(nn.Layer):
    def __init__(self):
        super().__init__()
        self._linear1, self._linear2 = nn.Linear(IN, IN), nn.Linear(IN, IN)

    def forward(self, x, y):
        xo, yo = self._linear1(x), self._linear2(y)
        return xo, yo, (xo + yo).mean()


def test_output_spec_keeps_the_chosen_outputs_after_training(tmp_path):
    rt.seed(2)
    net = ReturnLoss()
    net.forward = dy2st.to_static(net.forward, input_spec=[InputSpec([None, IN], name="x")])
    assert len(net.forward.inputs) == 1 and net.forward.inputs[0].name == "x"
    assert list(net.forward.inputs[0].shape) == [-1, IN]
    adam = rt.optimizer.Adam(learning_rate=0.1, parameters=net.parameters())
    x = _x(4)
    for _ in range(3):
        _, loss = net(x)
        loss.backward()
        adam.step()
        adam.clear_grad()
    dy2st.save(layer=net, path=str(tmp_path / "m"), input_spec=[x], output_spec=net.forward.outputs[:1])
    net.eval()
    loaded = dy2st.load(str(tmp_path / "m"))
    x = _x(4)
    np.testing.assert_array_equal(net(x)[0].numpy(), loaded(x).numpy())


@pytest.mark.parametrize("spec_type", [list, tuple])
def test_multi_input_outputs_pruned_to_one_input(tmp_path, spec_type):
    net = dy2st.to_static(MultiInput(), input_spec=spec_type([InputSpec([None, IN]), InputSpec([None, IN])]))
    ins = net.forward.inputs
    assert len(ins) == 2 and all(list(v.shape) == [-1, IN] for v in ins)
    dy2st.save(net, str(tmp_path / "two"), output_spec=net.forward.outputs[:2])
    x, y = _x(4), rt.randn([4, IN])
    px, py = dy2st.load(str(tmp_path / "two"))(x, y)
    # only x's output, from x alone; Paddle's input_names_after_prune names the inputs kept
    dy2st.save(net, str(tmp_path / "one"), [ins[0]], output_spec=net.forward.outputs[:1])
    np.testing.assert_array_equal(px.numpy(), dy2st.load(str(tmp_path / "one"))(x).numpy())
    dy2st.save(net, str(tmp_path / "named"), list(ins), output_spec=net.forward.outputs[:1],
               input_names_after_prune=[ins[0].name])
    np.testing.assert_array_equal(px.numpy(), dy2st.load(str(tmp_path / "named"))(x).numpy())


@pytest.mark.parametrize("train", [True, False])
def test_label_pruned_when_only_the_prediction_is_saved(tmp_path, train):
    spec = [InputSpec([None, IN], "float32", "image"), InputSpec([None, 1], "int64", "label")]
    layer = dy2st.to_static(WithLabel(), input_spec=spec)
    if train:
        opt = rt.optimizer.SGD(learning_rate=0.01, parameters=layer.parameters())
        for img, label in _batches():
            _, loss = layer(img, label)
            loss.backward()
            opt.step()
            opt.clear_grad()
    dy2st.save(layer, str(tmp_path / "m"), input_spec=spec[:1], output_spec=layer.forward.outputs[:1],
               input_names_after_prune=["image"])
    _same_prediction(layer, str(tmp_path / "m"), rt.zeros([1, 1], "int64"))


@pytest.mark.parametrize("cls", [LabelUnusedByOutput, LabelIgnored])
def test_inputs_the_outputs_do_not_need_can_be_left_out(tmp_path, cls):
    spec = [InputSpec([None, IN], "float32", "image"), InputSpec([None, 1], "int64", "label")]
    layer = dy2st.to_static(cls(), input_spec=spec)
    dy2st.save(layer, str(tmp_path / "m"), input_spec=spec[:1])
    assert dy2st.load(str(tmp_path / "m")).feed_names == ["image"]
    _same_prediction(layer, str(tmp_path / "m"), rt.zeros([1, 1], "int64"))


def test_input_needed_by_the_outputs_cannot_be_left_out(tmp_path):
    with pytest.raises(ValueError):
        dy2st.save(WithLabel(), str(tmp_path / "m"), input_spec=[InputSpec([None, IN], "float32")])
    layer = dy2st.to_static(WithLabel(), input_spec=[InputSpec([None, IN], "float32", "image"),
                                                     InputSpec([None, 1], "int64", "label")])
    layer(*next(_batches()))
    with pytest.raises(ValueError):  # a Tensor that is not an output of the function
        dy2st.save(layer, str(tmp_path / "m"), input_spec=[InputSpec([None, IN], "float32", "image"), True],
                   output_spec=[rt.to_tensor(np.ones((1, 1)))], input_names_after_prune=["image"])


@pytest.mark.parametrize("call", [lambda p: dy2st.save(layer=Converted(), path=p, model_filename=""),
                                  lambda p: dy2st.load(p, separate_params=True)])
def test_unsupported_configs_are_type_and_value_errors(tmp_path, call):
    with pytest.raises(TypeError, match="unexpected keyword") as info:
        call(str(tmp_path / "m"))
    assert isinstance(info.value, ValueError)  # what Paddle raises for them


def test_example_tensors_stand_for_any_batch_size(tmp_path):
    def mean_rows(x):
        return x.sum(axis=0) / x.shape[0]  # the batch size is read when the model runs
    dy2st.save(mean_rows, str(tmp_path / "m"), input_spec=[rt.ones([4, 3])])
    loaded = dy2st.load(str(tmp_path / "m"))
    for n in (4, 2, 7):
        x = rt.to_tensor(np.arange(3 * n, dtype="float32").reshape(n, 3))
        np.testing.assert_array_equal(loaded(x).numpy(), mean_rows(x).numpy())

    def needs_sizes(x):
        return x + rt.to_tensor(np.arange(x.shape[0] * 3, dtype="float32").reshape(x.shape))  # numpy: known sizes
    dy2st.save(needs_sizes, str(tmp_path / "n"), input_spec=[rt.ones([4, 3])])
    fixed = dy2st.load(str(tmp_path / "n"))
    np.testing.assert_array_equal(fixed(rt.ones([4, 3])).numpy(), needs_sizes(rt.ones([4, 3])).numpy())
    with pytest.raises(ValueError, match=r"shape \[4, 3\]"):
        fixed(rt.ones([2, 3]))


def test_an_output_spec_of_as_many_tensors_as_outputs_prunes_nothing(tmp_path):
    rt.seed(4)
    layer = Converted()
    _train(layer)
    stranger = rt.to_tensor(np.random.rand(1, 1).astype("float32"))  # not an output of the layer
    with pytest.warns(UserWarning, match="prune nothing"):
        dy2st.save(layer, str(tmp_path / "m"), output_spec=[stranger])
    _same_prediction(layer, str(tmp_path / "m"))
