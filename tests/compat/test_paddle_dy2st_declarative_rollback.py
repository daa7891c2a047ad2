"""Scenarios of Paddle's test_declarative, test_rollback and test_save_inference_model, rewritten:
methods decorated with nested InputSpecs (a list, a dict, a list holding a dict) and their default
input names, `get_concrete_program` keyed by specs and Python values, programs cached per call
signature, a Layer re-decorated with another spec, buffers reassigned in `forward`, `rollback()` of a
function, of a Layer's forward and of a method converted on the class, and a trained layer (with a
PyLayer) saved with `input_spec=[x]` / `output_spec=[pred]` and run through
`static.io.load_inference_model` and an Executor; a cache entry unpacked as Paddle's
(`_, (concrete_program, partial_layer) = cache.last()`, `cache.last()[-1]`)."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import base
from runtime.autograd import PyLayer
from runtime.static import InputSpec
from dy2st.dy2static.program_translator import StaticFunction
from dy2st.dy2static.utils import func_to_source_code

to_static = dy2st.to_static


class SimpleNet(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.linear = rt.nn.Linear(10, 3)

    @to_static(input_spec=[InputSpec(shape=[None, 10], dtype="float32")], full_graph=True)
    def forward(self, x, a=1, b=2):
        return self.inner_function(x)

    @to_static(full_graph=True)
    def inner_function(self, x):
        return self.linear(x)

    def add_func(self, x, y):
        return x + y

    @to_static(input_spec=[[InputSpec([None, 10]), InputSpec([None, 10])]], full_graph=True)
    def func_with_list(self, l, int_val=1):
        x, y = l
        return x + y + int_val

    @to_static(input_spec=[{"x": InputSpec([None, 10]), "y": InputSpec([None, 10])}], full_graph=True)
    def func_with_dict(self, d):
        return d["x"] + d["y"]

    @to_static(input_spec=[[InputSpec([None]), {"x": InputSpec([None, 10]), "y": InputSpec([None, 10])}]],
               full_graph=True)
    def func_with_list_dict(self, dl):
        return dl[1]["x"] + dl[1]["y"] + dl[0]


def test_decorated_methods_with_nested_specs(tmp_path):
    x, y = rt.to_tensor(np.ones([4, 10], "float32")), rt.to_tensor(np.full([4, 10], 2.0, "float32"))
    net = SimpleNet()
    out = net(x)
    assert len(net.forward.program_cache) == 1
    net.inner_function(x)
    dy2st.save(net, str(tmp_path / "simple_net"))
    np.testing.assert_allclose(dy2st.load(str(tmp_path / "simple_net"))(x).numpy(), out.numpy(), rtol=1e-6)
    net.add_func = to_static(net.add_func)
    assert net.add_func(rt.ones([4, 20]), np.ones([20], "float32")).shape == [4, 20]
    assert len(net.add_func.program_cache) == 1
    np.testing.assert_array_equal(net.func_with_list([x, y], 4.0).numpy(), np.full([4, 10], 7.0))
    np.testing.assert_array_equal(net.func_with_dict({"x": x, "y": y}).numpy(), np.full([4, 10], 3.0))
    np.testing.assert_array_equal(net.func_with_list_dict([np.ones([1], "float32"), {"x": x, "y": y}]).numpy(),
                                  np.full([4, 10], 4.0))
    fresh = SimpleNet()  # kept: a bound converted method holds its Layer weakly
    names = [[s.name for s in getattr(fresh, f).inputs]
             for f in ("forward", "func_with_list", "func_with_dict", "func_with_list_dict")]
    assert names == [["x"], ["l_0", "l_1"], ["x", "y"], ["dl_0", "x", "y"]]
    with pytest.raises(ValueError):
        net(x, a=1, other_kwarg=2)
    with pytest.raises(ValueError):
        net.add_func = to_static(net.add_func, input_spec=[InputSpec([-1, 10]), InputSpec([-1, 10]), InputSpec([10])])
        net.add_func(x, y)


def foo_func(a, b, c=1, d=2):
    return a + b


def test_concrete_programs_by_spec_and_python_values():
    foo = to_static(foo_func)
    first = foo.get_concrete_program(InputSpec([None, 10]), InputSpec([10]))
    assert foo.get_concrete_program(InputSpec([None, 10]), InputSpec([10]), 1, 2) == first
    assert len(foo.program_cache) == 1
    assert foo.get_concrete_program(InputSpec([None, 10]), InputSpec([10]), c=2) != first
    assert foo.get_concrete_program(InputSpec([10]), InputSpec([10])) != first
    assert len(foo.program_cache) == 3
    with pytest.raises(ValueError):
        foo.get_concrete_program(InputSpec([10]))
    with pytest.raises(TypeError):
        foo.get_concrete_program(InputSpec([10]), InputSpec([10]), e=4)

    foo = to_static(foo_func)
    xd, yd, zd = np.ones([16, 10], "float32"), np.full([10], 2.0, "float32"), np.full([10], 2.2, "float32")
    np.testing.assert_allclose(foo(rt.to_tensor(xd), rt.to_tensor(yd)).numpy(), xd + yd)
    first = foo.program_cache.last()
    np.testing.assert_allclose(foo(rt.to_tensor(xd), yd).numpy(), xd + yd)
    np.testing.assert_allclose(foo(rt.to_tensor(xd), zd).numpy(), xd + zd)
    assert len(foo.program_cache) == 1  # numpy arrays are fed like tensors
    foo(rt.to_tensor(xd), zd, 3)
    assert len(foo.program_cache) == 2
    foo(rt.to_tensor(xd), yd)
    assert foo.program_cache.last() == first


def test_layer_redecorated_with_another_spec():
    net = to_static(SimpleNet(), input_spec=[InputSpec([None, 8, 10])])
    assert [list(s.shape) for s in net.forward.inputs] == [[-1, 8, 10]]
    assert len(net.forward.program_cache) == 1
    net = to_static(net, input_spec=[InputSpec([None, 16, 10])])
    assert list(net.forward.inputs[0].shape) == [-1, 16, 10]


class SetBuffers(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = rt.to_tensor([1])
        self.b = rt.to_tensor([2])

    @to_static(full_graph=True)
    def forward(self):
        self.a = self.a + 1
        self.b = None
        self.b = rt.to_tensor([3])
        return self.a, self.b


def test_buffers_reassigned_in_forward():
    net = SetBuffers()
    assert [t.tolist() for t in net()] == [[2], [3]]
    assert [t.tolist() for t in net()] == [[3], [3]]
    assert net.a.tolist() == [3] and net.b.tolist() == [3]


class SubNet(rt.nn.Layer):
    def forward(self, x, flag=True):
        if flag:
            out = x + 1
        else:
            out = x - 1
        return out

    def bar(self, x, flag=True):
        if flag:
            out = x + 2
        else:
            out = x - 2
        return out


def foo(x, flag=False):
    if flag:
        out = x * 2.0
    else:
        out = x / 2.0
    return out


class Net(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.sub = SubNet()

    def forward(self, x):
        return self.sub.bar(foo(self.sub(x)))

    def infer(self, x):
        return foo(self.sub.bar(x))


def test_rollback():
    x = rt.randn([3, 4])
    st_foo = to_static(foo)
    st_out = st_foo(x)
    assert isinstance(st_foo, StaticFunction)
    st_foo = st_foo.rollback()
    assert func_to_source_code(foo) == func_to_source_code(st_foo)
    np.testing.assert_array_equal(st_foo(x).numpy(), st_out.numpy())

    net = to_static(Net())
    st_fwd_out = net(x)
    assert isinstance(net.forward, StaticFunction)
    net.__class__.infer = to_static(net.__class__.infer)
    try:
        st_infer_out = net.infer(x)
        assert isinstance(net.infer, StaticFunction)
        net.forward = net.forward.rollback()
        assert not isinstance(net.forward, StaticFunction)
        np.testing.assert_array_equal(net(x).numpy(), st_fwd_out.numpy())
        net.infer.rollback()
        assert not isinstance(net.infer, StaticFunction)
        np.testing.assert_array_equal(net.infer(x).numpy(), st_infer_out.numpy())
    finally:
        Net.infer = getattr(Net.infer, "dygraph_function", Net.infer)


class SimpleFcLayer(rt.nn.Layer):
    def __init__(self, fc_size):
        super().__init__()
        self._linear = rt.nn.Linear(fc_size, fc_size)

    @to_static(full_graph=True)
    def forward(self, x):
        y = self._linear(x)
        z = self._linear(y)
        return rt.mean(z), y


class cus_tanh(PyLayer):
    @staticmethod
    def forward(ctx, x):
        y = rt.tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dy):
        (y,) = ctx.saved_tensor()
        return dy * (1 - rt.square(y))


class SimplePyLayerNet(SimpleFcLayer):
    @to_static(full_graph=True)
    def forward(self, x):
        out = cus_tanh.apply(self._linear(x))
        return rt.mean(out), out


def _run_inference(path, inputs):
    rt.enable_static()
    try:
        exe = base.Executor(base.CPUPlace())
        program, feeds, fetches = rt.static.io.load_inference_model(
            path_prefix=path, executor=exe, model_filename="model.pdmodel", params_filename="model.pdiparams")
        return np.array(exe.run(program, feed=dict(zip(feeds, inputs)), fetch_list=fetches)[0])
    finally:
        rt.disable_static()


@pytest.mark.parametrize("cls", [SimpleFcLayer, SimplePyLayerNet])
def test_save_inference_model(tmp_path, cls):
    x_data = np.random.default_rng(0).random((8, 8)).astype("float32")
    x = base.dygraph.to_variable(x_data)
    layer = cls(8)
    sgd = rt.optimizer.SGD(learning_rate=0.1, parameters=layer.parameters())
    for _ in range(3):
        loss, pred = layer(x)
        loss.backward()
        sgd.minimize(loss)
        layer.clear_gradients()
    dy2st.save(layer=layer, path=str(tmp_path / "pred" / "model"), input_spec=[x], output_spec=[pred])
    want_loss, want_pred = layer(x)
    np.testing.assert_allclose(_run_inference(str(tmp_path / "pred"), [x_data]), want_pred.numpy(), rtol=1e-6)
    for feed, fetch in ((None, None), (None, [loss]), ([x], None)):
        dy2st.save(layer=layer, path=str(tmp_path / "all" / "model"), input_spec=feed, output_spec=fetch)
        np.testing.assert_allclose(_run_inference(str(tmp_path / "all"), [x_data]), want_loss.numpy(), rtol=1e-6)


@to_static(full_graph=True)
def switch_mode_function():
    return True


class SwitchModeNet(rt.nn.Layer):
    def forward(self, x):
        return x + 1

    def foo(self):
        return True


def test_switch_mode_and_the_cache_entry_as_paddle_unpacks_it():
    switch_mode_function.eval()
    switch_mode_function()
    assert switch_mode_function._training is False
    _, partial_layer = switch_mode_function.program_cache.last()[-1]
    assert partial_layer.training is False
    switch_mode_function.train()
    switch_mode_function()
    key, (concrete, partial_layer) = switch_mode_function.program_cache.last()
    assert partial_layer.training is True and concrete is switch_mode_function.program_cache.last()
    assert switch_mode_function.program_cache[key] is concrete

    net = to_static(SwitchModeNet())
    with pytest.raises(RuntimeError):
        net.forward.eval()
    net.eval()
    with pytest.raises(RuntimeError):
        to_static(net.foo).train()
