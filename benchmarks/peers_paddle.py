"""PaddlePaddle peers: the workloads' own Layer classes run on Paddle, eagerly and under ``paddle.jit.to_static``.

The model code in ``workloads.py`` is written against ``runtime``'s Paddle 2.x API, so the
same class source is executed here with ``rt``/``nn``/``F`` bound to ``paddle``,
``paddle.nn`` and ``paddle.nn.functional``: one model text, both frameworks.  Weights are
the workload's arrays (same ``[in, out]`` Linear layout).  ``to_static`` uses
``full_graph=True`` (Paddle's AST converter, the counterpart of ``dy2st``).
"""
import atexit
import importlib.util
import inspect
import os
import shutil
import tempfile


def load(threads):
    """The ``paddle`` module (None when absent); threads follow ``OMP_NUM_THREADS`` set by run.py."""
    try:
        import paddle  # noqa: PLC0415
    except ImportError:
        return None
    paddle.set_device("cpu")
    return paddle


def _classes(paddle, workloads, names):
    """The named classes of ``workloads.py``, their source imported as a module over ``paddle``.

    A real file (not ``exec``): Paddle's converter reads a function's source with ``inspect``.
    """
    src = ["import numpy as np", "import paddle as rt", "from paddle import nn",
           "import paddle.nn.functional as F", ""]
    src += [inspect.getsource(getattr(workloads, name)) for name in names]
    folder = tempfile.mkdtemp(prefix="paddle_peer_")
    # Paddle reads the source when it converts (at the first call), so the file lives until exit
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = os.path.join(folder, f"paddle_{'_'.join(names).lower()}.py")
    with open(path, "w") as f:
        f.write("\n".join(src))
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return vars(module)


def _layer(paddle, cls, weights):
    layer = cls()
    layer.set_state_dict({k: paddle.to_tensor(v) for k, v in weights.items()})
    return layer


def _inference(paddle, make, wl, specs):
    args = [paddle.to_tensor(v) for v in wl.inputs.values()]
    eager = _layer(paddle, make, wl.weights)
    eager.eval()
    static = paddle.jit.to_static(_layer(paddle, make, wl.weights), input_spec=specs, full_graph=True)
    static.eval()

    def run(layer):
        def call():
            with paddle.no_grad():
                return [layer(*args).numpy()]
        return call
    return {"Paddle eager": run(eager), "Paddle to_static": run(static)}


def _train(paddle, cls, wl, lr=0.01):
    F = paddle.nn.functional
    x, y = paddle.to_tensor(wl.inputs["x"]), paddle.to_tensor(wl.inputs["y"])

    def loop(layer):
        opt = paddle.optimizer.SGD(learning_rate=lr, parameters=layer.parameters())

        def step():
            loss = F.cross_entropy(layer(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            return [loss.numpy()]
        return step
    return {"Paddle eager": loop(_layer(paddle, cls, wl.weights)),
            "Paddle to_static": loop(paddle.jit.to_static(_layer(paddle, cls, wl.weights), full_graph=True))}


def make(name, wl, paddle, workloads):
    """``{engine name: callable}`` for workload ``name``."""
    Spec = paddle.static.InputSpec
    if name == "mlp":
        ns = _classes(paddle, workloads, ["MLP"])
        return _inference(paddle, ns["MLP"], wl, [Spec([None, 64], "float32", "x")])
    if name == "rnn":
        ns = _classes(paddle, workloads, ["RNN"])
        xs = wl.inputs["xs"]
        return _inference(paddle, ns["RNN"], wl, [Spec(list(xs.shape), "float32", "xs"), Spec([1], "int64", "n")])
    if name in ("tiny_bert", "small_bert"):
        ns = _classes(paddle, workloads, ["EncoderLayer", "Bert"])
        h, layers = (64, 2) if name == "tiny_bert" else (256, 4)
        seq = wl.inputs["ids"].shape[1]
        return _inference(paddle, lambda: ns["Bert"](h, layers, seq), wl, [Spec([None, seq], "int64", "ids")])
    if name == "train":
        ns = _classes(paddle, workloads, ["Classifier"])
        return _train(paddle, ns["Classifier"], wl)
    return {}
