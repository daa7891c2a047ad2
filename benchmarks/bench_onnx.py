"""Eager vs static (StaticFunction) vs onnxruntime: 1000 single-sample inferences of the demo model.

    python benchmarks/bench_onnx.py [--quick]

The seed article's dynamic / static / ONNX comparison on ``dy2st.tools.demo.DigitsNet``
(eval mode, one [1, 64] image per call, as ``dy2st demo`` times it).  The same
weights serve all three; outputs are checked to agree before timing.  Each time
is the median of several runs of 1000 calls (time.perf_counter).  Needs the
optional extra: pip install onnx onnxruntime.
"""
import os
import statistics
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
try:
    import onnxruntime as ort
except ImportError:
    print("bench_onnx: skipped, onnxruntime is not installed (pip install onnx onnxruntime, or pip install '.[onnx]' from the project folder)")
    sys.exit(0)

import dy2st  # noqa: E402
import runtime as rt  # noqa: E402
from dy2st.tools.demo import DigitsNet  # noqa: E402

N = 1000


def per_1000(call, xs, runs):
    call(xs[0])  # warm-up: builds the Program / the onnxruntime plan once
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        for i in range(N):
            call(xs[i % len(xs)])
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(quick=False):
    runs = 2 if quick else 5
    rt.seed(2024)
    eager = DigitsNet()
    eager.eval()
    static = dy2st.to_static(DigitsNet())
    static.set_state_dict(eager.state_dict())
    static.eval()
    spec = [dy2st.InputSpec([None, 64], "float32", "image")]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "digits.onnx")
        dy2st.export_onnx(static, path, input_spec=spec)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1  # single-sample latency: threads only add hand-off cost
        sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
    xs = [np.random.RandomState(i).rand(1, 64).astype("float32") for i in range(64)]

    def run_eager(x):
        with rt.no_grad():
            return eager(rt.to_tensor(x)).numpy()

    def run_static(x):
        with rt.no_grad():
            return static(rt.to_tensor(x)).numpy()

    def run_onnx(x):
        return sess.run(None, {"image": x})[0]

    for x in xs[:8]:
        ref = run_eager(x)
        np.testing.assert_allclose(run_static(x), ref, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(run_onnx(x), ref, rtol=1e-5, atol=1e-5)

    t = {"eager": per_1000(run_eager, xs, runs), "static (StaticFunction)": per_1000(run_static, xs, runs),
         "onnxruntime": per_1000(run_onnx, xs, runs)}
    print(f"DigitsNet (64-64-64-10 MLP, eval), {N} single-sample inferences, median of {runs} runs; "
          f"onnxruntime {ort.__version__}, 1 intra-op thread\n")
    print("| engine | time per 1000 (ms) | per call (us) | speedup vs eager |\n|---|---|---|---|")
    for name, sec in t.items():
        print(f"| {name} | {sec * 1e3:.1f} | {sec / N * 1e6:.1f} | {t['eager'] / sec:.2f}x |")
    return t


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
