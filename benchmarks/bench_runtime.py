"""Eager vs static (Executor) vs hand-written numpy, in one process.

    python benchmarks/bench_runtime.py [--quick]

Cases: a 4-layer MLP forward (batch 8, width 64, ReLU), an RNN-style while loop
(h = tanh(h @ W + x_t @ U), T=16), and an MLP training step (forward + backward).
Each timing is the median of several runs of many repeats (time.perf_counter).
"""
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import runtime as rt  # noqa: E402
from runtime.static import nn as snn  # noqa: E402

B, D, T, LAYERS = 8, 64, 16, 4


def timeit(fn, repeat, runs=5):
    fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        for _ in range(repeat):
            fn()
        times.append((time.perf_counter() - t0) / repeat * 1e6)
    return statistics.median(times)


def static_program(build):
    rt.enable_static()
    prog = rt.static.Program()
    try:
        with rt.static.program_guard(prog, rt.static.Program()):
            fetch = build()
    finally:
        rt.disable_static()
    return prog, fetch


# -- MLP ----------------------------------------------------------------------------------
def mlp_case(repeat):
    rt.seed(0)
    layers = [rt.nn.Linear(D, D) for _ in range(LAYERS)]

    def model(x):
        for lin in layers:
            x = rt.relu(lin(x))
        return x

    xa = np.random.default_rng(0).normal(size=(B, D)).astype("float32")
    xt = rt.to_tensor(xa)
    ws = [(lin.weight.numpy(), lin.bias.numpy()) for lin in layers]

    def eager():
        with rt.no_grad():
            return model(xt)

    prog, (y,) = static_program(lambda: [model(rt.static.data("x", [B, D]))])
    exe = rt.static.Executor()
    feed = {"x": xa}

    def static():
        return exe.run(prog, feed=feed, fetch_list=[y])

    def numpy_fwd():
        h = xa
        for w, b in ws:
            h = np.maximum(h @ w + b, 0)
        return h

    np.testing.assert_allclose(static()[0], numpy_fwd(), rtol=1e-5)
    np.testing.assert_allclose(eager().numpy(), numpy_fwd(), rtol=1e-5)
    res = [("MLP forward", timeit(eager, repeat), timeit(static, repeat), timeit(numpy_fwd, repeat))]

    # training step: loss = mean(model(x)^2), grads of every parameter
    params = [p for lin in layers for p in (lin.weight, lin.bias)]

    def eager_train():
        for p in params:
            p.clear_grad()
        out = model(xt)
        loss = rt.mean(out * out)
        loss.backward()
        return loss

    def build_train():
        out = model(rt.static.data("x", [B, D]))
        loss = rt.mean(out * out)
        pairs = rt.static.append_backward(loss, parameter_list=[p.name for p in params])
        return [loss] + [g for _, g in pairs]
    tprog, tfetch = static_program(build_train)

    def static_train():
        return exe.run(tprog, feed=feed, fetch_list=tfetch)

    def numpy_train():
        hs = [xa]
        for w, b in ws:
            hs.append(np.maximum(hs[-1] @ w + b, 0))
        out = hs[-1]
        loss = np.mean(out * out)
        g = 2 * out / out.size
        grads = []
        for (w, b), h_in, h_out in zip(reversed(ws), reversed(hs[:-1]), reversed(hs[1:])):
            g = g * (h_out > 0)
            grads.append((h_in.T @ g, g.sum(0)))
            g = g @ w.T
        return loss, grads

    got = static_train()
    eager_train()
    np.testing.assert_allclose(got[0], numpy_train()[0], rtol=1e-5)
    np.testing.assert_allclose(got[1], params[0].grad.numpy(), rtol=1e-4, atol=1e-7)
    res.append(("MLP train step (fwd+bwd)", timeit(eager_train, repeat // 2), timeit(static_train, repeat // 2),
                timeit(numpy_train, repeat // 2)))
    return res


# -- RNN while loop -----------------------------------------------------------------------------
def rnn_case(repeat):
    rng = np.random.default_rng(1)
    wa = (rng.normal(size=(D, D)) * 0.1).astype("float32")
    ua = (rng.normal(size=(D, D)) * 0.1).astype("float32")
    xa = rng.normal(size=(T, B, D)).astype("float32")
    W, U, X = rt.to_tensor(wa), rt.to_tensor(ua), rt.to_tensor(xa)
    h0 = np.zeros((B, D), "float32")

    def eager():
        h = rt.to_tensor(h0)
        for t in range(T):
            h = rt.tanh(h @ W + X[t] @ U)
        return h

    def build():
        x = rt.static.data("x", [T, B, D])
        _, h = snn.while_loop(lambda i, h: i < T, lambda i, h: [i + 1, rt.tanh(h @ W + x[i] @ U)],
                              [rt.zeros([], "int64"), rt.zeros([B, D])])
        return [h]
    prog, fetch = static_program(build)
    exe = rt.static.Executor()
    feed = {"x": xa}

    def static():
        return exe.run(prog, feed=feed, fetch_list=fetch)

    def numpy_rnn():
        h = h0
        for t in range(T):
            h = np.tanh(h @ wa + xa[t] @ ua)
        return h

    np.testing.assert_allclose(static()[0], numpy_rnn(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(eager().numpy(), numpy_rnn(), rtol=1e-5, atol=1e-6)
    return [(f"RNN while loop (T={T})", timeit(eager, repeat // 4), timeit(static, repeat // 4),
             timeit(numpy_rnn, repeat // 4))]


def main():
    repeat = 200 if "--quick" in sys.argv else 2000
    rows = mlp_case(repeat) + rnn_case(repeat)
    print("| case | eager µs | static µs | numpy µs | eager/static speedup | static/numpy ratio |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, e, s, n in rows:
        print(f"| {name} | {e:.1f} | {s:.1f} | {n:.1f} | {e / s:.2f}x | {s / n:.2f}x |")


if __name__ == "__main__":
    main()
