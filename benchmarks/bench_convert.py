"""Conversion cost: converting a 50-line function, tracing it, and a cache hit.

    python benchmarks/bench_convert.py

Measures, in one process:
- convert: parse + all passes + codegen + load of a 50-line function with nested
  if/while/for/break/continue/return (``transform_function``, nothing cached);
- first call: conversion, then tracing the Program + compiling its plan + running it;
- cache hit: a later call of the StaticFunction with new values, against running
  the cached compiled Program directly (the floor) and the same function eagerly;
- the first call of the seed MNIST model (class defined, converted, traced, run);
- the cache-hit overhead alone, on a one-op function and a Linear layer (min over rounds).
"""
import importlib.util
import inspect
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import runtime as rt  # noqa: E402
import dy2st  # noqa: E402
from dy2st.conversion.transform import transform_function  # noqa: E402


def nested(x, n):
    """50 lines of nested control flow (the function being converted)."""
    total = rt.zeros([1], "float32")
    i = 0
    while i < n:
        if x.mean() > 0:
            total = total + x.sum()
        elif x.max() > 1:
            total = total - 1.0
        else:
            total = total * 0.5
        j = 0
        while j < 3:
            if total.sum() > 100:
                break
            if j == 1:
                j += 1
                continue
            total = total + 0.1
            j += 1
        i += 1
    for k in range(3):
        if k == 2:
            break
        total = total + k
    acc = x * 0
    for row in x:
        acc = acc + row
        if acc.sum() > 50:
            break
    y = x * 2 if total.sum() > 0 else x - 1
    flag = total.sum() > 0 and x.mean() < 10
    if flag:
        y = y + 1
    if y.mean() > 1000:
        return y * 0
    z = y
    m = 0
    while m < 2:
        z = rt.tanh(z)
        if z.mean() > 0.5:
            z = z * 0.9
        m += 1
    res = z + acc.sum()
    if res.sum() < -1000:
        res = res * -1
    out = res + total
    return out


def tiny(x):
    """One op: what a cache hit costs beyond running the Program shows plainly."""
    return x + 1


def hit_overhead(repeat):
    """µs a cache hit adds to its compiled Program: a one-op function and a Linear Layer (min of rounds)."""
    x = rt.to_tensor(np.ones((2, 4), "float32"))
    fn = dy2st.to_static(tiny)
    layer = dy2st.to_static(rt.nn.Linear(4, 4))
    layer.eval()
    out = {}
    with rt.no_grad():
        for name, call, sf in (("one-op function", lambda: fn(x), fn), ("Linear layer", lambda: layer(x), layer.forward)):
            call()
            call()
            run = sf.concrete_program.partial_program.runner
            arrays = [x.numpy()]
            best_call = min(median_time(call, repeat, runs=1) for _ in range(7))
            best_run = min(median_time(lambda r=run, a=arrays: r(*a), repeat, runs=1) for _ in range(7))
            out[name] = (best_call - best_run) * 1e6
    return out


def median_time(fn, repeat, runs=5):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        for _ in range(repeat):
            fn()
        times.append((time.perf_counter() - t0) / repeat)
    return statistics.median(times)


def mnist_first_call():
    """Seconds to the first result of the seed MNIST model (``examples/seed_mnist_port.py``), fresh class."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")
    spec = importlib.util.spec_from_file_location("seed_mnist_port_bench", os.path.join(root, "seed_mnist_port.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x = rt.to_tensor(np.random.default_rng(0).normal(size=(16, 64)).astype("float32"))
    t0 = time.perf_counter()
    model = module.MNIST()
    model(x)
    return time.perf_counter() - t0


def measure(quick=False):
    """The conversion figures as {label with unit: value}."""
    t_convert = median_time(lambda: transform_function(nested), 3 if quick else 10)

    x = rt.to_tensor(np.random.default_rng(0).normal(size=(4, 8)).astype("float32"))
    n = rt.to_tensor(3)
    sf = dy2st.to_static(nested)
    t0 = time.perf_counter()
    _ = sf.converted  # conversion alone, once more, for this StaticFunction
    t1 = time.perf_counter()
    sf(x, n)
    t_first = time.perf_counter() - t0
    t_trace = time.perf_counter() - t1

    xs = [rt.to_tensor(np.random.default_rng(s).normal(size=(4, 8)).astype("float32")) for s in range(8)]
    state = {"i": 0}

    def hit():
        state["i"] += 1
        sf(xs[state["i"] % 8], n)

    repeat = 300 if quick else 2000
    with rt.no_grad():
        t_hit = median_time(hit, repeat)
        run = sf.concrete_program.partial_program.runner
        arrays = [xs[0]._value, n._value]
        t_floor = median_time(lambda: run(*arrays), repeat)
        t_eager = median_time(lambda: nested(xs[1], n), repeat // 10)
    assert len(sf.program_cache) == 1
    return {
        "convert (parse, passes, codegen, load), ms": t_convert * 1e3,
        "trace + compile + run, first call after conversion, ms": t_trace * 1e3,
        "first call in all (convert + trace + compile + run), ms": t_first * 1e3,
        "first call of the seed MNIST model (examples/seed_mnist_port.py), ms": mnist_first_call() * 1e3,
        "cache hit, whole call, µs": t_hit * 1e6,
        "compiled Program alone (floor), µs": t_floor * 1e6,
        "per-call overhead of a cache hit, µs": (t_hit - t_floor) * 1e6,
        "same function run eagerly, µs": t_eager * 1e6,
        **{f"per-call overhead of a cache hit, {name}, µs": v for name, v in hit_overhead(repeat).items()},
    }


def main():
    lines = len(inspect.getsource(nested).splitlines())
    print(f"function: {lines} lines\n")
    print("| measure | value |\n|---|---:|")
    for label, value in measure(quick="--quick" in sys.argv).items():
        print(f"| {label} | {value:.2f} |")


if __name__ == "__main__":
    main()
