"""dy2st.save / dy2st.load of functions, methods and loaded models, in the situations Paddle's
jit save/load tests put them in: plain and converted functions, a Layer's other converted methods,
parameter-free layers, InputSpecs checked against the declared ones, re-saving a loaded model, and
a model loaded twice inside a converted forward (see also test_jit_save_load_paddle.py).
"""
import os

import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from runtime import nn
from runtime.static import InputSpec
from runtime.utils import unique_name

IN = 6


class Converted(nn.Layer):
    def __init__(self, n_in=IN, n_out=1):
        super().__init__()
        self._linear = nn.Linear(n_in, n_out)

    @dy2st.to_static
    def forward(self, x):
        return self._linear(x)


def _train(layer):
    """A few SGD steps of a squared-output loss; the last loss."""
    opt = rt.optimizer.SGD(learning_rate=0.01, parameters=layer.parameters())
    rng = np.random.RandomState(7)
    for _ in range(3):
        img = rt.to_tensor(rng.rand(4, IN).astype("float32"))
        loss = (layer(img) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
    return [img], loss


def test_layers_without_parameters(tmp_path):
    class Identity(nn.Layer):
        @dy2st.to_static
        def forward(self, x):
            return x

    class Add(nn.Layer):
        @dy2st.to_static
        def forward(self, x, y):
            return x + y
    x, y = rt.rand([5]), rt.rand([5])
    ident = Identity()
    ident(x)
    dy2st.save(ident, str(tmp_path / "ident"))
    np.testing.assert_array_equal(dy2st.load(str(tmp_path / "ident"))(x).numpy(), x.numpy())
    add = Add()
    want = add(x, y)
    dy2st.save(add, str(tmp_path / "add"))
    loaded = dy2st.load(str(tmp_path / "add"))
    assert loaded.parameters() == []
    np.testing.assert_array_equal(loaded(x, y).numpy(), want.numpy())
    np.testing.assert_array_equal(loaded(rt.rand([3]), rt.ones([3])).shape, [3])  # saved from a call: any size


def _functions():
    """Each way a function reaches dy2st.save, with its input_spec (None: the function knows it)."""
    def tanh(inputs):
        return rt.tanh(inputs)

    def relu(inputs):
        return F.relu(inputs)

    class WithMethod(nn.Layer):
        def __init__(self):
            super().__init__()
            self._linear = nn.Linear(5, 6)

        def forward(self, x):
            return rt.tanh(x)

        def another_forward(self, x):
            return self._linear(x)

        @dy2st.to_static(input_spec=[InputSpec([-1, 5])])
        def declared_forward(self, x):
            return self._linear(x)

        @dy2st.to_static
        def called_forward(self, x):
            return self._linear(x)
    layer = WithMethod()
    _functions.layer = layer  # the methods' Layer stays alive while the test uses them
    return {
        "converted, then called": (dy2st.to_static(tanh), None, 6, True),
        "converted with input_spec": (dy2st.to_static(relu, input_spec=[InputSpec([None, 6], "float32", "x")]),
                                      None, 6, False),
        "plain function": (tanh, [InputSpec([None, 6], "float32", "x")], 6, False),
        "bound method converted": (dy2st.to_static(layer.another_forward, [InputSpec([-1, 5])]), None, 5, False),
        "method declared with input_spec": (layer.declared_forward, None, 5, False),
        "method converted, then called": (layer.called_forward, None, 5, True),
    }


@pytest.mark.parametrize("case", list(_functions()))
def test_functions_and_methods_save_and_load(tmp_path, case):
    fn, spec, width, call_first = _functions()[case]
    x = rt.rand([3, width])
    want = fn(x) if call_first else None
    dy2st.save(fn, str(tmp_path / "f"), input_spec=spec)
    want = fn(x) if want is None else want
    loaded = dy2st.load(str(tmp_path / "f"))
    np.testing.assert_array_equal(loaded(x).numpy(), want.numpy())
    assert len(loaded.parameters()) == (2 if width == 5 else 0)  # a method saves the Layer's parameters


class TwoOutputs(nn.Layer):
    def forward(self, x, y):
        return x * 1.0, y * 1.0


def _declared_two():
    return dy2st.to_static(TwoOutputs(), input_spec=[InputSpec([None, 8], "float32", "x"),
                                                     InputSpec([None, 1], "float64", "y")])


@pytest.mark.parametrize("spec", [None, "same", "compatible"])
def test_input_spec_fitting_the_declared_one(tmp_path, spec):
    layer = _declared_two()
    spec = {"same": [InputSpec([None, 8], "float32", "x"), InputSpec([None, 1], "float64", "y")],
            "compatible": [InputSpec([8, 8], "float32"), InputSpec([8, -1], "float64")]}.get(spec)
    dy2st.save(layer=layer, path=str(tmp_path / "m"), input_spec=spec)
    loaded = dy2st.load(str(tmp_path / "m"))
    x, y = rt.uniform([8, 8], dtype="float32"), rt.uniform([8, 1], dtype="float64")
    for w, g in zip(layer(x, y), loaded(x, y)):
        np.testing.assert_array_equal(w.numpy(), g.numpy())


@pytest.mark.parametrize("spec", [
    [InputSpec([None, 8], "float64"), InputSpec([None, 1], "float64")],  # dtype
    [InputSpec([None, 8, 1], "float32"), InputSpec([None, 1], "float64")],  # rank
    [InputSpec([None, 8], "float32"), InputSpec([None, 2], "float64")],  # a fixed dim
])
def test_input_spec_not_fitting_the_declared_one_is_a_value_error(tmp_path, spec):
    with pytest.raises(ValueError, match="does not fit the declared"):
        dy2st.save(layer=_declared_two(), path=str(tmp_path / "m"), input_spec=spec)
    assert not os.path.exists(tmp_path / "m.pdmodel")


class Branchy(nn.Layer):
    """Two blocks (a tensor `if` on the batch size) and a Tensor attribute."""

    def __init__(self, size):
        super().__init__()
        self._linear_0 = nn.Linear(size, 8)
        self._linear_1_0 = nn.Linear(8, 8)
        self._linear_1_1 = nn.Linear(8, 8)
        self._linear_2 = nn.Linear(8, size)
        self._scale = rt.to_tensor([9.9])

    def forward(self, x):
        y = self._linear_0(x)
        if rt.shape(x)[0] == 1:
            y = self._linear_1_0(y)
        else:
            y += self._linear_1_1(y + self._scale)
        return self._linear_2(y)


def test_a_loaded_model_saved_again_without_running(tmp_path):
    one, two = rt.randn([1, IN]), rt.randn([2, IN])
    with unique_name.guard():
        net = dy2st.to_static(Branchy(IN))
    path = str(tmp_path / "m")
    dy2st.save(net, path, input_spec=[InputSpec([None, IN], "float32")])
    want = net(one), net(two)
    with unique_name.guard():
        dy2st.save(dy2st.load(path), path, input_spec=[InputSpec([None, IN], "float32")])
    again = dy2st.load(path)
    for w, x in zip(want, (one, two)):
        np.testing.assert_array_equal(w.numpy(), again(x).numpy())


def test_two_saves_with_prefixed_names_stay_apart(tmp_path):
    layer = Converted()
    layer(rt.randn([1, IN]))
    path = str(tmp_path / "model")
    dy2st.save(layer, path)
    dy2st.save(layer, path + "_v2")
    assert not hasattr(dy2st.load(path), "v2")


class LoadsTwice(nn.Layer):
    """Two loads of one saved model, each called (one of them twice) in one converted forward."""

    def __init__(self, path):
        super().__init__()
        self._linear = nn.Linear(IN, IN)
        self._load_linear1 = dy2st.load(path)
        self._load_linear2 = dy2st.load(path)

    @dy2st.to_static
    def forward(self, x):
        y = self._load_linear2(self._load_linear1(self._linear(x)))
        return self._linear(self._load_linear1(y))


def test_a_model_loaded_twice_inside_a_converted_forward_trains_and_saves(tmp_path):
    rt.seed(5)
    base = Converted(IN, IN)
    _train(base)
    base(rt.randn([1, IN]))
    path = str(tmp_path / "base")
    dy2st.save(base, path)  # from the last call, a batch of 1: the saved model takes any batch size
    net = LoadsTwice(path)
    names = [t.name for t in net.state_dict().values()]
    assert len(set(names)) == len(names) == 6  # each load has parameters of its own
    eager = LoadsTwice(path)
    eager.set_state_dict(net.state_dict())
    x = rt.randn([3, IN])
    with rt.no_grad():
        dy2st.enable_to_static(False)
        try:
            want = eager(x)
        finally:
            dy2st.enable_to_static(True)
    np.testing.assert_allclose(net(x).numpy(), want.numpy(), rtol=1e-6)
    _, loss = _train(net)  # batches of 4 through the model saved from a batch of 1
    assert np.isfinite(loss.numpy()).all()
    net.eval()
    dy2st.save(net, str(tmp_path / "outer"))
    np.testing.assert_array_equal(dy2st.load(str(tmp_path / "outer"))(x).numpy(), net(x).numpy())


def test_combine_params_and_extra_converted_methods(tmp_path):
    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2 = nn.Linear(4, 4), nn.Linear(4, 4)
            self.bias = 0.4

        @dy2st.to_static(input_spec=[InputSpec([None, 4], "float32")])
        def forward(self, x):
            return F.relu(self.fc1(x)).mean()

        @dy2st.to_static(input_spec=[InputSpec([None, 4], "float32")])
        def infer(self, x):
            return (self.fc2(x) + self.bias).mean()

        @dy2st.to_static(property=True)
        def fbias(self):
            return self.bias + 1

        @dy2st.to_static(property=True)
        def strs(self):
            return ["hello", "world"]
    with unique_name.guard():
        net = Net()
    assert net.fbias() == 1.4 and net.strs() == ["hello", "world"]  # Python values, as written
    dy2st.save(net, str(tmp_path / "m"), combine_params=True)
    assert not os.path.exists(tmp_path / "m.fbias.pdmodel")  # properties are no Programs
    x = rt.randn([2, 4])
    loaded = dy2st.load(str(tmp_path / "m"))
    np.testing.assert_array_equal(loaded(x).numpy(), net(x).numpy())
    np.testing.assert_array_equal(loaded.infer(x).numpy(), net.infer(x).numpy())


class ThreeMethods(nn.Layer):
    def __init__(self, size=IN):
        super().__init__()
        self._linear_0, self._linear_1 = nn.Linear(size, 3), nn.Linear(size, 3)
        self._scale = rt.to_tensor([9.9])

    def forward(self, x):
        return self._linear_0(x)

    def forward_no_param(self, x):
        return x * 1.0

    def forward_general(self, x):
        return self._linear_0(x) + self._linear_1(x) * self._scale


def _three_methods():
    layer = dy2st.to_static(ThreeMethods())
    layer.forward_no_param = dy2st.to_static(layer.forward_no_param)
    layer.forward_general = dy2st.to_static(layer.forward_general)
    return layer


def test_every_converted_method_is_saved_and_loaded(tmp_path):
    layer = _three_methods()
    x = rt.randn([1, IN])
    want = {name: getattr(layer, name)(x) for name in ("forward", "forward_no_param", "forward_general")}
    dy2st.save(layer, str(tmp_path / "m"))
    assert os.path.exists(tmp_path / "m.forward_general.pdmodel")
    loaded = dy2st.load(str(tmp_path / "m"))
    for name, w in want.items():
        np.testing.assert_array_equal(getattr(loaded, name)(x).numpy(), w.numpy())
    assert [list(s.shape) for s in loaded._output_spec("forward_general")] == [[-1, 3]]
    np.testing.assert_array_equal(loaded.forward_general(rt.ones([3, IN])).numpy(),
                                  layer.forward_general(rt.ones([3, IN])).numpy())  # any batch size
    with pytest.raises(ValueError, match="static functions other than 'forward'"):
        dy2st.save(layer, str(tmp_path / "spec"), input_spec=[InputSpec([None, IN])])

    class Helper(nn.Layer):
        def __init__(self):
            super().__init__()
            self._linear = nn.Linear(IN, 2)

        @dy2st.to_static
        def helper(self, x):
            return self._linear(x) * 2.0
    net = Helper()
    with pytest.raises(ValueError, match="No valid transformed program for function: helper"):
        dy2st.save(net, str(tmp_path / "h"), input_spec=None)
    assert not os.path.exists(tmp_path / "h.pdmodel")


def test_skip_forward_saves_only_the_other_methods(tmp_path):
    class NotConverted(nn.Layer):
        def forward(self, x, y):
            return x + y
    dy2st.save(layer=NotConverted(), path=str(tmp_path / "m"), skip_forward=True)
    assert not os.path.exists(tmp_path / "m.pdmodel") and not os.path.exists(tmp_path / "m.pdiparams")
    with pytest.raises(ValueError):
        dy2st.load(path=str(tmp_path / "m"))


class Linear1(nn.Layer):
    def __init__(self):
        super().__init__()
        self._linear = nn.Linear(IN, 1)

    def forward(self, x):
        return self._linear(x)


class Declared1(Linear1):
    @dy2st.to_static(input_spec=[InputSpec([None, IN], "float32")])
    def forward(self, x):
        return self._linear(x)


@pytest.mark.parametrize("cls,spec", [(Linear1, [InputSpec([None, IN])]), (Declared1, None)])
def test_a_data_parallel_wrapper_saves_the_layer_it_wraps(tmp_path, cls, spec):
    layer = rt.DataParallel(cls())
    assert set(layer.state_dict()) == {"_linear.weight", "_linear.bias"}  # the wrapped Layer's keys
    dy2st.save(layer=layer, path=str(tmp_path / "m"), input_spec=spec)
    layer.eval()
    loaded = dy2st.load(str(tmp_path / "m"))
    assert set(loaded.state_dict()) == {"_linear.weight", "_linear.bias"}
    x = rt.rand([1, IN])
    np.testing.assert_array_equal(layer(x).numpy(), loaded(x).numpy())
