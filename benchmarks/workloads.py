"""The benchmark workloads: one model each, as users write it, plus its hand-written numpy floor.

Each ``make_<name>()`` returns a ``Workload``: engines (name -> zero-argument
callable returning numpy arrays) sharing one set of weights and inputs, and
``floor`` (the same math written directly in numpy), which every engine's
output is checked against before anything is timed.  Peers (PyTorch, JAX) are
added by ``peers.py`` from the weights in ``Workload.weights``.
"""
import os
import tempfile

import numpy as np

import dy2st
import runtime as rt
import runtime.nn.functional as F
from runtime import nn


class Workload:
    """Engines of one workload, the numpy floor, and how many calls make one timing round."""

    def __init__(self, name, floor, engines, repeat, weights=None, inputs=None, tol=1e-4, note="", inference=True):
        self.name, self.floor, self.engines, self.repeat = name, floor, dict(engines), repeat
        self.inference = inference  # timed under rt.no_grad()
        self.weights, self.inputs, self.tol, self.note = weights or {}, inputs or {}, tol, note


def _outs(value):
    if isinstance(value, (list, tuple)):
        return [np.asarray(v) for v in value]
    return [np.asarray(value)]


def _ort_session(layer, spec, threads):
    """A bare ``InferenceSession`` on the model ``dy2st.onnx`` exports (what users call by hand)."""
    import onnxruntime as ort  # noqa: PLC0415  (optional peer)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.onnx")
        dy2st.export_onnx(layer, path, input_spec=spec)
        opts = ort.SessionOptions()
        if threads:
            opts.intra_op_num_threads = threads
        return ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])


def _inference_engines(make_layer, args, spec, threads):
    """eager / static (numpy backend) / static (onnxruntime backend) / bare onnxruntime, same weights."""
    rt.seed(0)
    eager = make_layer()
    eager.eval()
    state = eager.state_dict()
    static = dy2st.to_static(make_layer(), input_spec=spec)
    static.set_state_dict(state)
    static.eval()
    tensors = [rt.to_tensor(a) for a in args]
    engines = {}

    def run(layer):
        def call():  # the worker runs inference workloads under rt.no_grad(), as a server would
            return [o.numpy() for o in _as_list(layer(*tensors))]
        return call

    engines["eager"] = run(eager)
    engines["static"] = run(static)
    engines["static Program alone"] = _program_alone(static, tensors)
    try:
        import onnxruntime  # noqa: F401,PLC0415
    except ImportError:
        return engines, state
    from runtime.static.backends import onnxruntime_options  # noqa: PLC0415
    onnxruntime_options(intra_op_num_threads=threads)
    fast = dy2st.to_static(make_layer(), input_spec=spec, backend="onnxruntime")
    fast.set_state_dict(state)
    fast.eval()
    engines["static (onnxruntime backend)"] = run(fast)
    sess = _ort_session(static, spec, threads)
    feed = {i.name: a for i, a in zip(sess.get_inputs(), args)}
    engines["onnxruntime session.run"] = lambda: sess.run(None, feed)
    return engines, state


def _program_alone(static, tensors):
    """The compiled Program of ``static`` called on the input arrays: the executor's part of a static
    call, without the converter's argument checks, guards and output wrapping."""
    from runtime.static.backends.numpy import numpy_runner  # noqa: PLC0415
    concrete = static.forward.get_concrete_program(*tensors)
    fn = numpy_runner(concrete.main_program, [v.name for v in concrete.inputs], [v.name for v in concrete.outputs])
    arrays = [t.numpy() for t in tensors]
    return lambda: fn(*arrays)


def _as_list(v):
    return list(v) if isinstance(v, (list, tuple)) else [v]


def _np_weights(state):
    return {k: (v.numpy() if hasattr(v, "numpy") else np.asarray(v)) for k, v in state.items()}


# -- MLP 4x64 inference, batch 8 --------------------------------------------------------------
class MLP(nn.Layer):
    def __init__(self, width=64, depth=4):
        super().__init__()
        self.fcs = nn.LayerList([nn.Linear(width, width) for _ in range(depth)])

    def forward(self, x):
        for fc in self.fcs:
            x = F.relu(fc(x))
        return x


def make_mlp(threads=1):
    x = np.random.default_rng(1).normal(size=(8, 64)).astype("float32")
    engines, state = _inference_engines(MLP, [x], [dy2st.InputSpec([None, 64], "float32", "x")], threads)
    w = _np_weights(state)
    layers = [(w[f"fcs.{i}.weight"], w[f"fcs.{i}.bias"]) for i in range(4)]

    def floor():
        h = x
        for wt, b in layers:
            h = np.maximum(h @ wt + b, 0)
        return [h]
    return Workload("MLP 4x64 inference, batch 8", floor, [("numpy floor", floor)] + list(engines.items()),
                    repeat=2000, weights=w, inputs={"x": x})


# -- 40-step tensor while RNN -------------------------------------------------------------------
class RNN(nn.Layer):
    def __init__(self, d=64):
        super().__init__()
        self.w = nn.Linear(d, d, bias_attr=False)
        self.u = nn.Linear(d, d)

    def forward(self, xs, n):
        h = rt.zeros([xs.shape[1], xs.shape[2]], "float32")
        i = rt.zeros([], "int64")
        while i < n:
            h = rt.tanh(self.w(h) + self.u(xs[i]))
            i = i + 1
        return h


def make_rnn(threads=1):
    steps, b, d = 40, 8, 64
    xs = np.random.default_rng(2).normal(size=(steps, b, d)).astype("float32")
    n = np.array([steps], "int64")
    spec = [dy2st.InputSpec([steps, b, d], "float32", "xs"), dy2st.InputSpec([1], "int64", "n")]
    engines, state = _inference_engines(RNN, [xs, n], spec, threads)
    w = _np_weights(state)
    ww, uw, ub = w["w.weight"], w["u.weight"], w["u.bias"]

    def floor():
        h = np.zeros((b, d), "float32")
        for t in range(steps):
            h = np.tanh(h @ ww + (xs[t] @ uw + ub))
        return [h]
    return Workload("40-step tensor while RNN", floor, [("numpy floor", floor)] + list(engines.items()),
                    repeat=100, weights=w, inputs={"xs": xs, "n": n})


# -- BERT encoder ---------------------------------------------------------------------------------
class EncoderLayer(nn.Layer):
    def __init__(self, h, heads):
        super().__init__()
        self.h, self.heads = h, heads
        self.qkv = nn.Linear(h, 3 * h)
        self.proj = nn.Linear(h, h)
        self.ln1, self.ln2 = nn.LayerNorm(h, epsilon=1e-12), nn.LayerNorm(h, epsilon=1e-12)
        self.fc1, self.fc2 = nn.Linear(h, 4 * h), nn.Linear(4 * h, h)

    def forward(self, x):
        s, d = x.shape[1], self.h // self.heads
        qkv = self.qkv(x).reshape([-1, s, 3, self.heads, d]).transpose([2, 0, 3, 1, 4])
        att = F.softmax(rt.matmul(qkv[0], qkv[1], transpose_y=True) * (d ** -0.5), axis=-1)
        ctx = rt.matmul(att, qkv[2]).transpose([0, 2, 1, 3]).reshape([-1, s, self.h])
        x = self.ln1(x + self.proj(ctx))
        return self.ln2(x + self.fc2(F.gelu(self.fc1(x))))


class Bert(nn.Layer):
    def __init__(self, h, layers, seq, vocab=1000):
        super().__init__()
        self.tok = nn.Embedding(vocab, h)
        self.pos = nn.Embedding(seq, h)
        self.ln = nn.LayerNorm(h, epsilon=1e-12)
        self.layers = nn.LayerList([EncoderLayer(h, max(1, h // 64)) for _ in range(layers)])
        self.seq = seq

    def forward(self, ids):
        x = self.ln(self.tok(ids) + self.pos.weight)
        for layer in self.layers:
            x = layer(x)
        return x


def _erf(x):
    s, a = np.sign(x), np.abs(x)
    t = 1 / (1 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return s * (1 - poly * np.exp(-a * a))


def _ln(x, g, b):
    mu = x.mean(-1, keepdims=True)
    xc = x - mu
    return xc / np.sqrt((xc * xc).mean(-1, keepdims=True) + np.float32(1e-12)) * g + b


def _bert_floor(w, ids, h, layers):
    heads = max(1, h // 64)
    d = h // heads
    scale = np.float32(d ** -0.5)
    x = _ln(w["tok.weight"][ids] + w["pos.weight"], w["ln.weight"], w["ln.bias"])
    bsz, s = ids.shape
    for i in range(layers):
        p = f"layers.{i}."
        qkv = (x @ w[p + "qkv.weight"] + w[p + "qkv.bias"]).reshape(bsz, s, 3, heads, d).transpose(2, 0, 3, 1, 4)
        sc = (qkv[0] @ qkv[1].transpose(0, 1, 3, 2)) * scale
        sc = np.exp(sc - sc.max(-1, keepdims=True))
        sc /= sc.sum(-1, keepdims=True)
        ctx = (sc @ qkv[2]).transpose(0, 2, 1, 3).reshape(bsz, s, h)
        x = _ln(x + ctx @ w[p + "proj.weight"] + w[p + "proj.bias"], w[p + "ln1.weight"], w[p + "ln1.bias"])
        f = x @ w[p + "fc1.weight"] + w[p + "fc1.bias"]
        f = np.float32(0.5) * f * (1 + _erf(f * np.float32(1 / np.sqrt(2))))
        x = _ln(x + f @ w[p + "fc2.weight"] + w[p + "fc2.bias"], w[p + "ln2.weight"], w[p + "ln2.bias"])
    return [x.astype("float32", copy=False)]


def make_bert(h, layers, seq, name, repeat, threads=1):
    ids = np.random.default_rng(3).integers(0, 1000, size=(1, seq)).astype("int64")
    spec = [dy2st.InputSpec([None, seq], "int64", "ids")]
    engines, state = _inference_engines(lambda: Bert(h, layers, seq), [ids], spec, threads)
    w = _np_weights(state)

    def floor():
        return _bert_floor(w, ids, h, layers)
    return Workload(name, floor, [("numpy floor", floor)] + list(engines.items()), repeat=repeat,
                    weights=w, inputs={"ids": ids}, tol=2e-3,
                    note=f"h{h}, {layers} layers, seq {seq}, batch 1, {max(1, h // 64)} heads, erf gelu")


def make_tiny_bert(threads=1):
    return make_bert(64, 2, 32, "tiny BERT h64 L2 seq32", 300, threads)


def make_small_bert(threads=1):
    return make_bert(256, 4, 128, "small BERT h256 L4 seq128", 10, threads)


# -- MLP 64-128-10 training step, batch 64 ----------------------------------------------------------
class Classifier(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def make_train(threads=1, lr=0.01):
    rng = np.random.default_rng(4)
    x = rng.normal(size=(64, 64)).astype("float32")
    y = rng.integers(0, 10, size=(64,)).astype("int64")
    rt.seed(0)
    init = _np_weights(Classifier().state_dict())

    def loop_step(layer, convert=False):
        """The ordinary training loop body; ``convert``: the same body under ``@dy2st.to_static``."""
        layer.set_state_dict({k: rt.to_tensor(v.copy()) for k, v in init.items()})
        opt = rt.optimizer.SGD(lr, parameters=layer.parameters())
        xt, yt = rt.to_tensor(x), rt.to_tensor(y)

        def train_step(images, labels):
            loss = F.cross_entropy(layer(images), labels)
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss

        run = dy2st.to_static(train_step) if convert else train_step

        def step():
            return [run(xt, yt).numpy()]
        return step

    ws = {k: v.copy() for k, v in init.items()}
    lr32 = np.float32(lr)

    def floor():
        w1, b1, w2, b2 = ws["fc1.weight"], ws["fc1.bias"], ws["fc2.weight"], ws["fc2.bias"]
        h = x @ w1 + b1
        r = np.maximum(h, 0)
        z = r @ w2 + b2
        s = z - z.max(1, keepdims=True)
        e = np.exp(s)
        se = e.sum(1)
        loss = (np.log(se) - s[np.arange(64), y]).mean()
        e /= se[:, None]
        e[np.arange(64), y] -= 1
        e *= np.float32(1 / 64)
        gw2, gb2 = r.T @ e, e.sum(0)
        gr = e @ w2.T
        gr *= h > 0
        gw1, gb1 = x.T @ gr, gr.sum(0)
        for p, g in ((w1, gw1), (b1, gb1), (w2, gw2), (b2, gb2)):
            g *= lr32
            p -= g
        return [np.asarray(loss, "float32")]

    # "static": the loop body above under @dy2st.to_static (forward, backward and update compiled
    # into one Program); "static forward": only the Layer converted, backward and step eager.
    engines = [("numpy floor", floor), ("eager", loop_step(Classifier())),
               ("static", loop_step(Classifier(), convert=True)),
               ("static forward", loop_step(dy2st.to_static(Classifier())))]
    wl = Workload("MLP 64-128-10 training step, batch 64", floor, engines, repeat=300,
                  weights=init, inputs={"x": x, "y": y}, tol=1e-4,
                  note=("SGD lr 0.01; one step = forward, cross_entropy, backward, opt.step(), opt.clear_grad(); "
                        "static: that body under @to_static (one Program: forward, backward, update); "
                        "static forward: only the Layer converted, the rest of the body eager"),
                  inference=False)
    # Each engine trains its own copy from the same start: the check compares the first step's loss.
    return wl


WORKLOADS = {
    "mlp": make_mlp,
    "rnn": make_rnn,
    "tiny_bert": make_tiny_bert,
    "small_bert": make_small_bert,
    "train": make_train,
}
