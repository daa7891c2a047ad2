"""Executor features for run-time dims, donated inputs, inlined parameters and loop predicates:
each one off vs on gives bitwise-identical results, and each one shows in the generated code."""
import numpy as np
import pytest
from helpers_passes import build

import dy2st
import runtime as rt
from runtime.ops.nn_norm import _ln_kernel
from runtime.registry import get_op
from runtime.static import passes
from runtime.static.codegen import GENERATED
from runtime.static.passes import kernels

ALL_OFF = {name: False for name in passes.FEATURES}


def _new_sources(fn):
    """(fn(), source of every plan generated while it ran)."""
    before = set(GENERATED.keys())
    out = fn()
    return out, "".join(GENERATED[k].source for k in list(GENERATED.keys()) if k not in before)


def _same(a, b):
    for u, v in zip(a, b):
        u, v = np.asarray(u), np.asarray(v)
        assert u.dtype == v.dtype and u.shape == v.shape
        np.testing.assert_array_equal(u, v)


def _each_feature(prog, feeds, fetch, flags_on=None):
    """Run with every feature off, then each single one off, then all on; all bitwise equal.
    Returns (results with all on, source of the all-on plans)."""
    def run_all(flags):
        with passes.features(**flags):
            return [rt.static.Executor().run(prog, feed=f, fetch_list=fetch) for f in feeds]
    ref = run_all(ALL_OFF)
    for name in passes.FEATURES:
        for a, b in zip(ref, run_all({name: False})):
            _same(a, b)
    on, src = _new_sources(lambda: run_all(flags_on or {}))
    for a, b in zip(ref, on):
        _same(a, b)
    return on, src


def test_runtime_batch_dim_reuses_buffers_at_every_size():
    rt.seed(5)
    layers = [rt.nn.Linear(6, 6) for _ in range(3)]

    def body():
        h = rt.static.data("x", [-1, 6], "float32")
        for lin in layers:
            h = rt.relu(lin(h))
        return [h * 0.5]
    prog, fetch = build(body)
    feeds = [{"x": np.random.default_rng(k).normal(size=(b, 6)).astype("float32")} for k, b in enumerate((1, 4, 0))]
    outs, src = _each_feature(prog, feeds, fetch)
    assert src.count("out=") == 7  # bias add and relu per layer, then the scale
    assert "_B" in src and "._value)" in src  # parameters read where they are used
    assert [o[0].shape for o in outs] == [(1, 6), (4, 6), (0, 6)]


def test_unprovable_broadcast_is_not_written_in_place():
    w = rt.to_tensor(np.eye(3, dtype="float32"))

    def body():
        x = rt.static.data("x", [-1, 3], "float32")
        z = rt.static.data("z", [-1, 3], "float32")
        return [rt.matmul(x, w) + rt.matmul(z, w)]  # batch 1 + batch 4 broadcasts to 4 rows
    prog, fetch = build(body)
    rng = np.random.default_rng(0)
    feeds = [{"x": rng.normal(size=(1, 3)).astype("float32"), "z": rng.normal(size=(4, 3)).astype("float32")},
             {"x": rng.normal(size=(4, 3)).astype("float32"), "z": rng.normal(size=(1, 3)).astype("float32")}]
    outs, _ = _each_feature(prog, feeds, fetch)
    assert outs[0][0].shape == (4, 3) and outs[1][0].shape == (4, 3)


def _attention_program(reuse_input):
    rt.seed(9)
    qkv, ff = rt.nn.Linear(8, 24), rt.nn.Linear(8, 8)
    ln = rt.nn.LayerNorm(8)

    def body():
        x = rt.static.data("x", [-1, 4, 8], "float32")
        q, k, v = rt.split(qkv(x), 3, axis=-1)
        s = rt.matmul(q, k, transpose_y=True) * 0.35
        p = rt.nn.functional.softmax(s, axis=-1)
        h = ln(x + rt.matmul(p, v))
        g = rt.nn.functional.gelu(ff(h))
        y = ln(ff(g) + h)
        return [y, s] if reuse_input else [y]  # fetching s: softmax must not overwrite it
    return build(body)


@pytest.mark.parametrize("fetch_input", [False, True])
def test_donated_inputs_identical(fetch_input):
    prog, fetch = _attention_program(fetch_input)
    feeds = [{"x": (np.random.default_rng(k).normal(size=(b, 4, 8)) * s).astype("float32")}
             for k, (b, s) in enumerate(((2, 1.0), (1, 5.0), (3, 0.1)))]
    before = set(GENERATED.keys())
    outs, src = _each_feature(prog, feeds, fetch)
    kernels_used = {getattr(v, "__qualname__", "") for k in list(GENERATED.keys()) if k not in before
                    for v in GENERATED[k].__globals__.values()}
    assert any(q.startswith("_layer_norm_y") for q in kernels_used)
    assert any(q.startswith("_gelu") for q in kernels_used)
    if fetch_input:
        ref = outs[0][1]
        assert np.isfinite(ref).all() and not np.allclose(ref.sum(-1), 1.0)  # the scores, not probabilities


def test_donating_kernels_match_the_registry_bitwise():
    rng = np.random.default_rng(3)
    for shape, begin in (((2, 5, 16), 2), ((3, 7), 1), ((2, 3, 4, 5), 2)):
        for dtype in ("float32", "float64"):
            x = (rng.normal(size=shape) * 3 + 1).astype(dtype)
            norm = shape[begin:]
            s, b = rng.normal(size=norm).astype(dtype), rng.normal(size=norm).astype(dtype)
            want = _ln_kernel(x, s, b, begin, 1e-5)[0]
            gelu = get_op("gelu").kernel(x)
            for donate in (False, True):
                fn = kernels._layer_norm_y(int(np.prod(norm)), 1e-5, donate, len(norm) == 1, x.dtype)
                got = fn(x.copy(), s, b)
                assert fn.first_only and got.dtype == want.dtype
                np.testing.assert_array_equal(got, want)
                np.testing.assert_array_equal(kernels._softmax(-1, donate)(x.copy()), get_op("softmax").kernel(x))
                if dtype == "float32":  # float64 gelu keeps the registry's exact erf kernel
                    got = kernels._gelu(donate)(x.copy())
                    assert got.dtype == gelu.dtype
                    np.testing.assert_array_equal(got, gelu)


class _Counter(rt.nn.Layer):
    """A parameter read after a branch that writes a buffer: the block keeps hoisted reads."""

    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(3, 3)
        self.register_buffer("count", rt.zeros([1]))

    def forward(self, x):
        if x.mean() > 0:
            self.count = self.count + 1.0
        return self.fc(x) * self.count


def test_inline_params_with_a_branch_writing_a_buffer():
    xs = [np.full((2, 3), v, "float32") for v in (1.0, -1.0, 2.0, 0.5)]
    results = {}
    for label, flags in (("off", ALL_OFF), ("on", {})):
        rt.seed(1)
        net = dy2st.to_static(_Counter())
        with passes.features(**flags), rt.no_grad():
            results[label] = [net(rt.to_tensor(x)).numpy() for x in xs]
    _same(results["off"], results["on"])
    assert float(results["on"][-1][0, 0]) != 0.0


def _loop(pred_reads):
    def body():
        x = rt.static.data("x", [3], "float32")
        n = rt.static.data("n", [1], "int64")
        lim = rt.static.data("lim", [], "float32")

        def step(i, h, flag):
            h = h * 0.5 + 1.0
            cond = (i + 1 < n) if not pred_reads else rt.logical_and(i + 1 < n, h.sum() < lim)
            return [i + 1, h, rt.cast(cond, "float32") if pred_reads else flag]
        i, h, flag = rt.static.nn.while_loop(lambda i, h, f: (i < n) if not pred_reads else (f > 0),
                                             step, [rt.zeros([1], "int64"), x, rt.ones([1])])
        j, s = rt.static.nn.while_loop(lambda j, s: s.sum() < lim, lambda j, s: [j + 1, s + 1.0],
                                       [rt.zeros([], "int64"), rt.zeros([], "float32")])
        return [i, h, j, s]
    return build(body)


@pytest.mark.parametrize("pred_reads", [False, True])
def test_scalar_loop_predicates(pred_reads):
    prog, fetch = _loop(pred_reads)
    feeds = [{"x": np.array([1.0, -2.0, 0.5], "float32"), "n": np.array([k], "int64"),
              "lim": np.array(lim, "float32")} for k, lim in ((0, -1.0), (1, 2.5), (5, 7.0))]
    outs, src = _each_feature(prog, feeds, fetch)
    assert int(outs[0][0][0]) == (1 if pred_reads else 0)  # the flag loop always runs once
    assert ".reshape(())[()]" in src


def test_reshape_with_inferred_dim_is_an_expression_and_errors_name_the_op():
    def body():
        x = rt.static.data("x", [-1, 6], "float32")
        return [rt.reshape(x * 2.0, [-1, 3, 2])]
    prog, fetch = build(body)
    feeds = [{"x": np.arange(6 * b, dtype="float32").reshape(b, 6)} for b in (1, 3)]
    outs, src = _each_feature(prog, feeds, fetch)
    assert ".reshape((-1, 3, 2))" in src and outs[1][0].shape == (3, 3, 2)

    def bad():
        x = rt.static.data("x", [-1, 5], "float32")
        return [rt.reshape(x, [-1, 3])]
    prog, fetch = build(bad)
    with pytest.raises(ValueError, match="reshape"):
        rt.static.Executor().run(prog, feed={"x": np.ones((1, 5), "float32")}, fetch_list=fetch)


def _invariant_loop():
    rng = np.random.default_rng(4)
    w = rt.to_tensor((rng.normal(size=(4, 4)) * 0.5).astype("float32"))

    def body():
        x = rt.static.data("x", [-1, 4], "float32")
        b = rt.static.data("b", [4], "float32")
        n = rt.static.data("n", [], "int64")

        def step(i, h):  # w.T, b * 2 + 1 and x[2] read only outer values: computed once
            return [i + 1, rt.tanh(rt.matmul(h, rt.transpose(w, [1, 0])) + (b * 2.0 + 1.0) + x[2] * 0.5)]
        return rt.static.nn.while_loop(lambda i, h: i < n, step, [rt.zeros([], "int64"), rt.zeros([4])])
    return build(body)


def test_loop_invariants_run_once_before_the_loop():
    prog, fetch = _invariant_loop()
    rng = np.random.default_rng(5)
    feeds = [{"x": rng.normal(size=(3, 4)).astype("float32"), "b": rng.normal(size=4).astype("float32"),
              "n": np.array(k)} for k in (0, 1, 4)]
    outs, src = _each_feature(prog, feeds, fetch)
    head, loop = src.split("while pred_:", 1)
    assert "if pred_:" in head and ".transpose((1, 0))" in head and ".transpose(" not in loop.split("return")[0]
    assert [int(o[0]) for o in outs] == [0, 1, 4]


def test_hoisted_op_errors_only_when_the_loop_steps():
    prog, fetch = _invariant_loop()
    short = {"x": np.ones((2, 4), "float32"), "b": np.ones(4, "float32")}  # x[2] is out of range
    for flags in (ALL_OFF, {}):
        with passes.features(**flags):
            exe = rt.static.Executor()
            i, _ = exe.run(prog, feed=dict(short, n=np.array(0)), fetch_list=fetch)  # no step: no error
            assert int(i) == 0
            with pytest.raises(IndexError) as info:
                exe.run(prog, feed=dict(short, n=np.array(2)), fetch_list=fetch)
            assert "getitem" in str(info.value) + "\n".join(getattr(info.value, "__notes__", ()))


def test_matrix_matmul_is_np_dot_and_matches_the_registry_kernel():
    rng = np.random.default_rng(7)
    w = rt.to_tensor(rng.normal(size=(6, 5)).astype("float32"))
    wt = rt.to_tensor(rng.normal(size=(5, 6)).astype("float32"))

    def body():
        x = rt.static.data("x", [-1, 6], "float32")
        xs = rt.static.data("xs", [2, 3, 6], "float32")
        a = rt.matmul(x, w)                        # two matrices: np.dot
        b = rt.matmul(x, wt, transpose_y=True)     # transposed: the registry's choice
        c = rt.matmul(xs, w)                       # batched: np.matmul
        return [a, b, c, rt.matmul(a, x, transpose_x=True)]
    prog, fetch = build(body)
    feeds = [{"x": rng.normal(size=(n, 6)).astype("float32"), "xs": rng.normal(size=(2, 3, 6)).astype("float32")}
             for n in (1, 4, 0)]
    before = set(GENERATED.keys())
    for feed in feeds:
        with passes.features(fast_kernels=False):
            want = rt.static.Executor().run(prog, feed=feed, fetch_list=fetch)
        got = rt.static.Executor().run(prog, feed=feed, fetch_list=fetch)
        for u, v in zip(got, want):
            assert u.dtype == v.dtype and u.shape == v.shape
            np.testing.assert_allclose(u, v, rtol=1e-5, atol=1e-6)  # one BLAS gemm either way
    used = [v for k in list(GENERATED.keys()) if k not in before for v in GENERATED[k].__globals__.values()
            if v is np.dot or v is np.matmul]
    # with fast kernels: dot for x @ w, matmul for the batched one and (matmul_views) the two transposed
    # ones; without: matmul for x @ w and the batched one
    assert used.count(np.dot) == 1 and used.count(np.matmul) == 5
