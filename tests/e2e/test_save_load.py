"""dy2st.save / dy2st.load end to end: a model with a cond and a while in forward is
trained a step, saved with an InputSpec [None, D], then loaded in a fresh process
that never imports the model's module, run at two batch sizes and fine-tuned.
"""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import dy2st
import runtime as rt
from dy2st.deploy.translated_layer import TranslatedLayer
from runtime.framework import static_mode_guard
from runtime.static.formats import io as sio


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
D = 6

MODEL_SRC = textwrap.dedent(f"""
    import runtime as rt
    import dy2st
    from runtime import nn

    D = {D}


    class CondWhileNet(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(D, 8)
            self.fc2 = nn.Linear(8, 3)
            self.drop = nn.Dropout(0.5)

        @dy2st.to_static
        def forward(self, x):
            h = rt.tanh(self.fc1(x))
            if h.mean() > 0:
                h = h * 2.0 + 0.5
            else:
                h = h - 1.0
            while rt.abs(h).sum() > 4.0:
                h = h * 0.5
            if self.training:
                h = self.drop(h)
            return self.fc2(h)
""")

CHILD = textwrap.dedent("""
    import json, sys
    import numpy as np
    import runtime as rt
    import dy2st

    prefix, data_dir = sys.argv[1], sys.argv[2]
    layer = dy2st.load(prefix)
    assert "netmod" not in sys.modules
    assert type(layer).__name__ == "TranslatedLayer"
    assert layer.program is layer.program() and layer.program.num_blocks >= 3
    assert sorted(layer.state_dict()) == sorted(json.load(open(data_dir + "/keys.json")))
    layer.eval()
    for n in (3, 7):
        x = np.load(f"{data_dir}/x{n}.npy")
        got = layer(rt.to_tensor(x)).numpy()
        np.testing.assert_allclose(got, np.load(f"{data_dir}/y{n}.npy"), rtol=1e-5, atol=1e-6)

    layer.train()
    before = {k: v.numpy().copy() for k, v in layer.state_dict().items()}
    opt = rt.optimizer.SGD(learning_rate=0.1, parameters=layer.parameters())
    out = layer(rt.to_tensor(np.load(f"{data_dir}/x7.npy")))
    loss = (out * out).mean()
    loss.backward()
    assert all(p.grad is not None for p in layer.parameters())
    opt.step()
    opt.clear_grad()
    assert np.isfinite(float(loss))
    changed = [k for k, v in layer.state_dict().items() if not np.array_equal(v.numpy(), before[k])]
    assert sorted(changed) == sorted(before), changed

    # a fine-tuned TranslatedLayer saves again and reloads with its new weights
    layer.eval()
    x = rt.to_tensor(np.load(f"{data_dir}/x3.npy"))
    want = layer(x).numpy()
    dy2st.save(layer, data_dir + "/resaved")
    again = dy2st.load(data_dir + "/resaved")
    again.eval()
    np.testing.assert_allclose(again(x).numpy(), want, rtol=1e-6)
    print("CHILD OK", float(loss))
""")


def _import_model(src_dir):
    sys.path.insert(0, str(src_dir))
    try:
        import importlib
        sys.modules.pop("netmod", None)
        return importlib.import_module("netmod")
    finally:
        sys.path.remove(str(src_dir))


def test_save_then_load_in_fresh_process(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "netmod.py").write_text(MODEL_SRC)
    netmod = _import_model(src)
    rt.seed(0)
    net = netmod.CondWhileNet()
    opt = rt.optimizer.SGD(learning_rate=0.05, parameters=net.parameters())
    rng = np.random.default_rng(0)
    net.train()
    loss = (net(rt.to_tensor(rng.normal(size=(4, D)).astype("float32"))) ** 2).mean()
    loss.backward()
    opt.step()
    opt.clear_grad()

    data = tmp_path / "data"
    data.mkdir()
    prefix = str(tmp_path / "model" / "net")
    os.makedirs(os.path.dirname(prefix))
    dy2st.save(net, prefix, input_spec=[rt.static.InputSpec([None, D], "float32", "x")])
    assert net.training, "save must restore the layer's mode"
    net.eval()
    for n in (3, 7):
        x = (rng.normal(size=(n, D)) * 2).astype("float32")
        np.save(data / f"x{n}.npy", x)
        np.save(data / f"y{n}.npy", net(rt.to_tensor(x)).numpy())
    (data / "keys.json").write_text(json.dumps(sorted(net.state_dict())))

    model = json.load(open(prefix + ".pdmodel"))
    assert model["feed"] == ["x"] and model["program"]["format"] == "dy2st.program"
    info = json.load(open(prefix + ".pdiparams.info"))
    assert {e["structured_name"] for e in info} == set(net.state_dict())

    env = dict(os.environ, PYTHONPATH=ROOT)
    res = subprocess.run([sys.executable, "-c", CHILD, prefix, str(data)], cwd=str(tmp_path), env=env,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "CHILD OK" in res.stdout


def test_saved_program_is_eval_mode_and_layer_mode_is_restored(tmp_path):
    class Drop(rt.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = rt.nn.Linear(4, 4)
            self.drop = rt.nn.Dropout(0.9)

        def forward(self, x):
            return self.drop(self.fc(x))

    rt.seed(1)
    layer = Drop()
    layer.train()
    prefix = str(tmp_path / "drop")
    dy2st.save(layer, prefix, input_spec=[rt.static.InputSpec([None, 4], "float32", "inp")])
    assert layer.training
    loaded = dy2st.load(prefix)
    loaded.eval()
    x = rt.to_tensor(np.ones((2, 4), "float32"))
    layer.eval()
    np.testing.assert_allclose(loaded(x).numpy(), layer(x).numpy(), rtol=1e-6)
    np.testing.assert_allclose(loaded(x).numpy(), loaded(x).numpy())
    assert loaded.feed_names == ["inp"]


def test_save_plain_function_with_structure(tmp_path):
    @dy2st.to_static
    def f(x, y):
        s = x + y
        if s.sum() > 0:
            s = s * 2.0
        return s, {"neg": -s}

    prefix = str(tmp_path / "fn")
    with pytest.warns(UserWarning, match="Found 'dict' in given outputs"):  # Paddle's: a dict comes back flat
        dy2st.save(f, prefix, input_spec=[rt.static.InputSpec([None, 2], "float32", "a"),
                                          rt.static.InputSpec([None, 2], "float32", "b")])
    loaded = dy2st.load(prefix)
    a = np.array([[1, 2], [3, 4]], "float32")
    b = np.array([[-1, 0], [0, 1]], "float32")
    s, neg = loaded(rt.to_tensor(a), rt.to_tensor(b))
    np.testing.assert_allclose(s.numpy(), (a + b) * 2)
    np.testing.assert_allclose(neg.numpy(), -(a + b) * 2)
    with pytest.raises(ValueError, match=r"input 'a' expects dtype float32 with shape \[-1, 2\]"):
        loaded(rt.to_tensor(np.zeros((2, 3), "float32")), rt.to_tensor(b))


def test_translated_layer_from_hand_built_program_fine_tunes_like_eager(tmp_path):
    """No converter needed: a Program built with rt.static (cond + while_loop) loads as a
    TranslatedLayer whose gradients match the same model run eagerly."""
    rt.seed(2)
    fc1, fc2 = rt.nn.Linear(D, 5), rt.nn.Linear(5, 2)

    def eager(x):
        h = rt.tanh(fc1(x))
        h = h * 2.0 if float(h.mean()) > 0 else h - 1.0
        while float(rt.abs(h).sum()) > 4.0:
            h = h * 0.5
        return fc2(h)

    main = rt.static.Program()
    with rt.static.program_guard(main), static_mode_guard(True):
        x = rt.static.data("x", [None, D], "float32")
        h0 = rt.tanh(fc1(x))
        h1 = rt.static.nn.cond(rt.mean(h0) > 0.0, lambda: h0 * 2.0, lambda: h0 - 1.0)
        h2, = rt.static.nn.while_loop(lambda h: rt.abs(h).sum() > 4.0, lambda h: [h * 0.5], [h1])
        out = fc2(h2)
    names = {p.name: f"{owner}.{attr}" for owner, layer in (("fc1", fc1), ("fc2", fc2))
             for attr, p in layer.named_parameters()}
    prefix = str(tmp_path / "hand")
    sio.save_inference_model(prefix, [x], [out], program=main, structured_names=names)

    layer = TranslatedLayer.load(prefix)
    assert sorted(layer.state_dict()) == sorted(names.values())
    rng = np.random.default_rng(1)
    for n in (2, 9):
        xs = rng.normal(size=(n, D)).astype("float32")
        layer.eval()
        np.testing.assert_allclose(layer(rt.to_tensor(xs)).numpy(), eager(rt.to_tensor(xs)).numpy(), rtol=1e-5)
        layer.train()
        loss = (layer(rt.to_tensor(xs)) ** 2).mean()
        loss.backward()
        ref = (eager(rt.to_tensor(xs)) ** 2).mean()
        ref.backward()
        np.testing.assert_allclose(float(loss), float(ref), rtol=1e-5)
        params = dict(layer.named_parameters())
        for owner, orig in (("fc1", fc1), ("fc2", fc2)):
            for attr, p in orig.named_parameters():
                np.testing.assert_allclose(params[f"{owner}.{attr}"].grad.numpy(), p.grad.numpy(),
                                           rtol=1e-4, atol=1e-6)
        layer.clear_gradients()
        fc1.clear_gradients()
        fc2.clear_gradients()
    opt = rt.optimizer.SGD(learning_rate=0.1, parameters=layer.parameters())
    before = {k: v.numpy().copy() for k, v in layer.state_dict().items()}
    (layer(rt.to_tensor(xs)) ** 2).mean().backward()
    opt.step()
    assert all(not np.array_equal(before[k], v.numpy()) for k, v in layer.state_dict().items())
    layer.eval()
    after = layer(rt.to_tensor(xs)).numpy()  # the next run reads the updated parameters
    assert not np.allclose(after, eager(rt.to_tensor(xs)).numpy())


def test_save_without_input_spec_uses_declared_or_last_traced_signature(tmp_path):
    @dy2st.to_static(input_spec=[rt.static.InputSpec([None, 3], "float32", "v")])
    def declared(v):
        return v * 3.0

    dy2st.save(declared, str(tmp_path / "declared"))
    loaded = dy2st.load(str(tmp_path / "declared"))
    assert loaded.feed_names == ["v"]
    np.testing.assert_allclose(loaded(rt.to_tensor(np.ones((5, 3), "float32"))).numpy(), 3.0)

    @dy2st.to_static
    def traced(v):
        return v - 1.0

    with pytest.raises(ValueError, match="needs input_spec"):
        dy2st.save(traced, str(tmp_path / "traced"))
    traced(rt.to_tensor(np.zeros((2, 2), "float32")))
    dy2st.save(traced, str(tmp_path / "traced"))
    np.testing.assert_allclose(dy2st.load(str(tmp_path / "traced"))(np.zeros((2, 2), "float32")).numpy(), -1.0)


def test_load_accepts_the_pdmodel_file_path(tmp_path):
    layer = rt.nn.Linear(3, 2)
    prefix = str(tmp_path / "lin")
    dy2st.save(layer, prefix, input_spec=[dy2st.InputSpec([None, 3], "float32", "x")])
    x = rt.to_tensor(np.ones((2, 3), "float32"))
    a = dy2st.load(prefix)
    b = dy2st.load(prefix + ".pdmodel")
    a.eval()
    b.eval()
    np.testing.assert_array_equal(a(x).numpy(), b(x).numpy())
