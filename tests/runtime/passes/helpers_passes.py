"""Small Programs the pass tests share (built in static mode, run with the Executor)."""
import numpy as np

import runtime as rt
from runtime.framework import static_mode_guard


def build(fn):
    """(Program, result of fn()) with ``fn`` run while ``Program`` is the default main program."""
    prog = rt.static.Program()
    with rt.static.program_guard(prog, rt.static.Program()), static_mode_guard(True):
        out = fn()
    return prog, out


def run(prog, feed, fetch):
    return rt.static.Executor().run(prog, feed=feed, fetch_list=fetch)


def control_flow_program():
    """y = while (i < n) { h = tanh(h @ w + 1) if sum(h) > 0 else h - 1 }; plus dead values."""
    rng = np.random.default_rng(0)
    wa = (rng.normal(size=(4, 4)) * 0.5).astype("float32")

    def body():
        x = rt.static.data("x", [2, 4], "float32")
        n = rt.static.data("n", [], "int64")
        w = rt.to_tensor(wa)
        dead = rt.exp(x) * 3.0  # returned, never fetched by the tests: dead code

        def step(i, h):
            h2 = rt.static.nn.cond(h.sum() > 0, lambda: rt.tanh(h @ w + 1.0), lambda: h - 1.0)
            _unused = h2 * 2.0
            return [i + 1, h2]
        _, y = rt.static.nn.while_loop(lambda i, h: i < n, step, [rt.zeros([], "int64"), x])
        return [y, dead]
    return build(body)
