"""Paddle's layer-level test patterns (test_program_translator.py, test_cache_program.py,
test_param_guard.py, test_partial_program.py, test_grad.py, test_save_load.py): the program
cache per input signature and per train/eval mode, `enable_to_static(False)`, parameters held
in a ParameterList / created with `create_parameter` / lists of layers, training several
optimizer steps equal to eager, `rt.grad` inside converted code, and save/load round trips."""
import numpy as np

import dy2st
import runtime as rt
import runtime.nn.functional as F
from runtime import nn

from .helpers import arr, check


def _pair(cls, *args):
    rt.seed(7)
    eager = cls(*args)
    static = cls(*args)
    static.set_state_dict(eager.state_dict())
    return eager, dy2st.to_static(static)


class CachedNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.drop = nn.Dropout(0.5)

    def forward(self, x, scale=1.0):
        h = self.drop(self.fc(x))
        if h.mean() > 0:
            h = h * scale
        return h


def test_program_cache_per_signature_and_mode():
    eager, net = _pair(CachedNet)
    eager.eval(), net.eval()
    x = rt.to_tensor(arr(2, 4))
    for _ in range(2):
        np.testing.assert_allclose(net(x).numpy(), eager(x).numpy(), rtol=1e-5)
    cache = net.forward.program_cache
    assert len(cache) == 1
    net(rt.to_tensor(arr(2, 4, seed=9)))          # same signature, other values: no new Program
    assert len(cache) == 1
    net(rt.to_tensor(arr(5, 4)))                  # another shape: a second Program
    np.testing.assert_allclose(net(x, 2.0).numpy(), eager(x, 2.0).numpy(), rtol=1e-5)
    assert len(cache) == 3                        # a Python argument is part of the key
    net.train()
    net(x)
    assert len(cache) == 4                        # train mode has its own Program (dropout on)


def test_enable_to_static_false_runs_eagerly():
    eager, net = _pair(CachedNet)
    eager.eval(), net.eval()
    x = rt.to_tensor(arr(2, 4))
    dy2st.enable_to_static(False)
    try:
        out = net(x)
        assert len(net.forward.program_cache) == 0
    finally:
        dy2st.enable_to_static(True)
    np.testing.assert_allclose(out.numpy(), eager(x).numpy(), rtol=1e-6)


def test_get_concrete_program_and_code():
    eager, net = _pair(CachedNet)
    net.eval()
    cp = net.forward.get_concrete_program(dy2st.InputSpec([None, 4], "float32", "x"))
    types = {op.type for b in cp.main_program.blocks for op in b.ops}
    assert "cond" in types and cp.main_program.global_block().vars["x"].shape[0] == -1
    assert "_jst.IfElse" in net.forward.code


class ParamListNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.ws = nn.ParameterList([self.create_parameter([4, 4]) for _ in range(3)])
        self.b = self.create_parameter([4], is_bias=True)
        self.blocks = [nn.Linear(4, 4), nn.Linear(4, 4)]     # a plain list: not registered
        self.layers = nn.LayerList([nn.Linear(4, 4) for _ in range(2)])

    def forward(self, x):
        for w in self.ws:
            x = F.relu(rt.matmul(x, w) + self.b)
        for i in range(len(self.layers)):
            x = self.layers[i](x)
        return x.mean()


def test_parameter_list_and_layer_list_train_like_eager():
    eager, net = _pair(ParamListNet)
    assert len(eager.parameters()) == 3 + 1 + 4
    _train_equal(eager, net, [arr(3, 4, seed=s) for s in range(3)])


def _train_equal(eager, net, batches, label=None):
    oe = rt.optimizer.Adam(learning_rate=0.01, parameters=eager.parameters())
    os_ = rt.optimizer.Adam(learning_rate=0.01, parameters=net.parameters())
    for b in batches:
        for model, opt in ((eager, oe), (net, os_)):
            out = model(rt.to_tensor(b))
            loss = out if label is None else F.cross_entropy(out, rt.to_tensor(label))
            loss.backward()
            opt.step()
            opt.clear_grad()
        for (n, pe), ps in zip(eager.named_parameters(), net.parameters()):
            np.testing.assert_allclose(ps.numpy(), pe.numpy(), rtol=1e-4, atol=1e-6, err_msg=n)


class ControlFlowClassifier(nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.fc = nn.Linear(8, 4)

    def forward(self, ids):
        h = self.emb(ids).mean(axis=1)
        i = 0
        while i < rt.shape(ids)[1] - 3:
            h = rt.tanh(h) + h
            i += 1
        if h.mean() > 0:
            h = h * 0.5
        return self.fc(h)


def test_training_through_while_and_cond_equals_eager():
    eager, net = _pair(ControlFlowClassifier)
    rng = np.random.default_rng(0)
    batches = [rng.integers(0, 20, (4, L)).astype("int64") for L in (5, 5, 6)]
    _train_equal(eager, net, batches, label=np.array([0, 1, 2, 3], "int64"))


def grad_inside(x):
    x.stop_gradient = False
    y = x * x + rt.sin(x)
    dx = rt.grad([y], [x], create_graph=False)[0]
    return dx


def test_rt_grad_inside_converted_code():
    check(grad_inside, (arr(3),), (arr(3, seed=4),))


class GradLayer(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        x.stop_gradient = False
        y = self.fc(x).sum()
        return rt.grad(y, x)[0]


def test_rt_grad_of_a_layer_output():
    eager, net = _pair(GradLayer)
    for s in (0, 1):
        x = arr(2, 3, seed=s)
        np.testing.assert_allclose(net(rt.to_tensor(x)).numpy(), eager(rt.to_tensor(x)).numpy(),
                                   rtol=1e-5)


def test_save_load_round_trip_matches_static_and_fine_tunes(tmp_path):
    eager, net = _pair(ControlFlowClassifier)
    net.eval()
    path = str(tmp_path / "model")
    spec = [dy2st.InputSpec([None, None], "int64", "ids")]
    dy2st.save(net, path, input_spec=spec)
    loaded = dy2st.load(path)
    loaded.eval()
    for shape in ((2, 5), (3, 7)):
        ids = np.random.default_rng(shape[1]).integers(0, 20, shape).astype("int64")
        np.testing.assert_allclose(loaded(rt.to_tensor(ids)).numpy(), net(rt.to_tensor(ids)).numpy(),
                                   rtol=1e-5, atol=1e-6)
    loaded.train()
    opt = rt.optimizer.SGD(learning_rate=0.1, parameters=loaded.parameters())
    ids = rt.to_tensor(np.zeros((2, 5), "int64"))
    before = [p.numpy().copy() for p in loaded.parameters()]
    loaded(ids).mean().backward()
    opt.step()
    assert any(not np.allclose(b, p.numpy()) for b, p in zip(before, loaded.parameters()))


def test_state_dict_checkpoint_then_static_inference(tmp_path):
    eager, net = _pair(CachedNet)
    rt.save(eager.state_dict(), str(tmp_path / "m.pdparams"))
    fresh = dy2st.to_static(CachedNet())
    fresh.set_state_dict(rt.load(str(tmp_path / "m.pdparams")))
    fresh.eval(), eager.eval()
    x = rt.to_tensor(arr(3, 4))
    np.testing.assert_allclose(fresh(x).numpy(), eager(x).numpy(), rtol=1e-6)


class Predictor(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return rt.argmax(self.fc(x), axis=-1)


def test_layer_with_only_integer_outputs_runs_with_trainable_parameters():
    # Nothing to differentiate: the call runs the forward Program, no backward is built.
    eager, net = _pair(Predictor)
    for s in (0, 1):
        x = rt.to_tensor(arr(5, 4, seed=s))
        np.testing.assert_array_equal(net(x).numpy(), eager(x).numpy())
