"""JAX peers: ``jax.jit`` of the same math (``lax.while_loop`` for the RNN, ``value_and_grad`` + SGD for training).

Weights are the workload's own arrays, closed over as device constants; every call
returns numpy arrays (``np.asarray``), as a user comparing with numpy would.  One
thread is set through ``XLA_FLAGS`` before JAX is imported.
"""
import os

import numpy as np


def load(threads):
    """The ``jax`` module (None when absent), single-threaded when ``threads == 1``."""
    if threads == 1:
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                                   " --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1").strip()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    try:
        import jax  # noqa: PLC0415
    except ImportError:
        return None
    return jax


def _mlp(jax, wl):
    jnp = jax.numpy
    ws = [(jnp.asarray(wl.weights[f"fcs.{i}.weight"]), jnp.asarray(wl.weights[f"fcs.{i}.bias"])) for i in range(4)]
    f = jax.jit(lambda h: _relu_stack(jnp, h, ws))
    x = wl.inputs["x"]
    return lambda: [np.asarray(f(x))]


def _relu_stack(jnp, h, ws):
    for w, b in ws:
        h = jnp.maximum(h @ w + b, 0)
    return h


def _rnn(jax, wl):
    jnp, lax = jax.numpy, jax.lax
    ww, uw, ub = (jnp.asarray(wl.weights[k]) for k in ("w.weight", "u.weight", "u.bias"))
    xs, n = wl.inputs["xs"], wl.inputs["n"].astype("int32")

    @jax.jit
    def f(xs, n):
        def body(state):
            i, h = state
            return i + 1, jnp.tanh(h @ ww + (xs[i] @ uw + ub))
        h0 = jnp.zeros(xs.shape[1:], xs.dtype)
        return lax.while_loop(lambda s: s[0] < n[0], body, (jnp.int32(0), h0))[1]
    return lambda: [np.asarray(f(xs, n))]


def _bert(jax, wl, h, layers):
    jnp = jax.numpy
    w = {k: jnp.asarray(v) for k, v in wl.weights.items()}
    heads = max(1, h // 64)
    d = h // heads

    def ln(x, g, b):
        mu = x.mean(-1, keepdims=True)
        xc = x - mu
        return xc / jnp.sqrt((xc * xc).mean(-1, keepdims=True) + 1e-12) * g + b

    @jax.jit
    def f(ids):
        x = ln(w["tok.weight"][ids] + w["pos.weight"], w["ln.weight"], w["ln.bias"])
        b, s = ids.shape
        for i in range(layers):
            p = f"layers.{i}."
            qkv = (x @ w[p + "qkv.weight"] + w[p + "qkv.bias"]).reshape(b, s, 3, heads, d).transpose(2, 0, 3, 1, 4)
            att = jax.nn.softmax(qkv[0] @ qkv[1].transpose(0, 1, 3, 2) * (d ** -0.5), axis=-1)
            ctx = (att @ qkv[2]).transpose(0, 2, 1, 3).reshape(b, s, h)
            x = ln(x + ctx @ w[p + "proj.weight"] + w[p + "proj.bias"], w[p + "ln1.weight"], w[p + "ln1.bias"])
            g = jax.nn.gelu(x @ w[p + "fc1.weight"] + w[p + "fc1.bias"], approximate=False)
            x = ln(x + g @ w[p + "fc2.weight"] + w[p + "fc2.bias"], w[p + "ln2.weight"], w[p + "ln2.bias"])
        return x
    ids = wl.inputs["ids"].astype("int32")
    return lambda: [np.asarray(f(ids))]


def _train(jax, wl, lr=0.01):
    jnp = jax.numpy
    params = {k: jnp.asarray(v) for k, v in wl.weights.items()}
    x, y = jnp.asarray(wl.inputs["x"]), jnp.asarray(wl.inputs["y"].astype("int32"))

    def loss_fn(p):
        z = jnp.maximum(x @ p["fc1.weight"] + p["fc1.bias"], 0) @ p["fc2.weight"] + p["fc2.bias"]
        logp = jax.nn.log_softmax(z, axis=1)
        return -jnp.take_along_axis(logp, y[:, None], axis=1).mean()

    @jax.jit
    def step(p):  # one compiled unit: forward, backward and the SGD update
        loss, g = jax.value_and_grad(loss_fn)(p)
        return loss, jax.tree_util.tree_map(lambda a, b: a - lr * b, p, g)

    state = [params]

    def run():
        loss, state[0] = step(state[0])
        return [np.asarray(loss)]
    return run


def make(name, wl, jax):
    """``{engine name: callable}`` for workload ``name``."""
    if name == "mlp":
        return {"JAX jit": _mlp(jax, wl)}
    if name == "rnn":
        return {"JAX jit": _rnn(jax, wl)}
    if name == "tiny_bert":
        return {"JAX jit": _bert(jax, wl, 64, 2)}
    if name == "small_bert":
        return {"JAX jit": _bert(jax, wl, 256, 4)}
    if name == "train":
        return {"JAX jit": _train(jax, wl)}
    return {}
