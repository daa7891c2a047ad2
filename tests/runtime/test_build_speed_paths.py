"""The shortcuts that make building and compiling Programs cheaper keep results and errors exact:
a cond branch is compiled when it first runs, plan code is compiled once per source text (each
plan keeps its own file name, so errors still name their op), backward renames reach every op."""
import numpy as np
import pytest

import runtime as rt
from runtime.framework import Program, static_mode_guard
from runtime.static import codegen, nn


@pytest.fixture
def main(static_mode):
    return static_mode


def _compiled_names(monkeypatch):
    names = []
    real = codegen.BlockCompiler.compile

    def counting(self, block, *args, name=None, **kwargs):
        names.append(name or f"block{block.idx}")
        return real(self, block, *args, name=name, **kwargs)
    monkeypatch.setattr(codegen.BlockCompiler, "compile", counting)
    return names


def test_cond_branch_compiled_when_first_taken_and_once(main, monkeypatch):
    x = rt.static.data("x", [3])
    inner = lambda: nn.cond(x.mean() > 5.0, lambda: x * 3.0, lambda: x + 3.0)  # noqa: E731
    out = nn.cond(x.sum() > 0, lambda: x * 2.0, inner)
    names = _compiled_names(monkeypatch)
    exe = rt.static.Executor()
    pos, neg = np.array([1, 2, 3], "float32"), np.array([-1, -2, 0.5], "float32")
    got, = exe.run(main, feed={"x": pos}, fetch_list=[out])
    np.testing.assert_allclose(got, pos * 2)
    taken = [n for n in names if n.startswith(("true_block", "false_block"))]
    assert len(taken) == 1 and taken[0].startswith("true_block")  # the false branch and its nested cond: not yet
    got, = exe.run(main, feed={"x": neg}, fetch_list=[out])
    np.testing.assert_allclose(got, neg + 3)
    got, = exe.run(main, feed={"x": neg}, fetch_list=[out])  # the same plan: nothing compiled again
    branches = [n for n in names if n.startswith(("true_block", "false_block"))]
    assert len(branches) == 3 and sum(n.startswith("false_block") for n in branches) == 2


def test_error_in_a_lazily_compiled_branch_names_its_op(main):
    x = rt.static.data("x", [-1, 3])
    out = nn.cond(x.sum() > 0, lambda: x * 2.0, lambda: rt.reshape(x, [-1, 4]))
    exe = rt.static.Executor()
    exe.run(main, feed={"x": np.ones((2, 3), "float32")}, fetch_list=[out])
    with pytest.raises(ValueError) as info:
        exe.run(main, feed={"x": -np.ones((2, 3), "float32")}, fetch_list=[out])
    assert info.value.op.type == "reshape"


def _failing_program():
    prog = Program()
    with rt.static.program_guard(prog), static_mode_guard(True):
        x = rt.static.data("x", [-1])
        y = rt.reshape(x, [2, 2])
    return prog, y


def test_same_plan_text_twice_keeps_each_plans_file_and_ops():
    first, y1 = _failing_program()
    second, y2 = _failing_program()
    exe = rt.static.Executor()
    for prog, y in ((first, y1), (second, y2)):
        with pytest.raises(ValueError) as info:
            exe.run(prog, feed={"x": np.ones(3, "float32")}, fetch_list=[y])
        assert info.value.op.block.program is prog  # the op of this plan, found through its own file name
    plans = [next(iter(p._exec_plans.values())).fn for p in (first, second)]
    assert plans[0].source == plans[1].source
    assert plans[0].__code__.co_filename != plans[1].__code__.co_filename
    assert all(codegen.GENERATED[f.__code__.co_filename] is f for f in plans)


def test_gradients_through_nested_conds_match_finite_differences(main):
    x = rt.static.data("x", [3])
    x.stop_gradient = False

    def branch(scale):
        return lambda: nn.cond(x.mean() > 0.1, lambda: rt.tanh(x) * scale, lambda: x * x * scale)
    out = nn.cond(x.sum() > 0, branch(2.0), branch(3.0))
    loss = (out * out).sum()
    g, = rt.static.gradients([loss], [x])
    exe = rt.static.Executor()
    for xa in ([0.3, 0.2, 0.4], [-0.3, 0.1, -0.5], [0.05, -0.02, 0.01]):
        xa = np.array(xa, "float64")
        got, = exe.run(main, feed={"x": xa.astype("float32")}, fetch_list=[g])

        def f(v):
            s = 2.0 if v.sum() > 0 else 3.0
            o = np.tanh(v) * s if v.mean() > 0.1 else v * v * s
            return (o * o).sum()
        fd = np.array([(f(xa + 1e-6 * e) - f(xa - 1e-6 * e)) / 2e-6 for e in np.eye(3)])
        np.testing.assert_allclose(got, fd, rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "uint8", "bool"])
def test_static_operands_shortcut_matches_the_general_promotion(dtype):
    """``math.operands`` decides the common static cases itself: the same dtypes and ops as
    ``binary_operands`` (a scalar takes the Variable's dtype, an int meeting a bool widens, ...)."""
    from runtime.ops.common import binary_operands
    from runtime.ops.math import operands

    def built(fn, a, b):
        prog = Program()
        with rt.static.program_guard(prog), static_mode_guard(True):
            x = rt.static.data("x", [2], dtype)
            y = rt.static.data("y", [2], dtype)
            pick = {"x": x, "y": y}
            out = fn(pick.get(a, a), pick.get(b, b))
        ops = [(op.type, sorted(op.attrs.items())) for op in prog.global_block().ops]
        return [(str(v.dtype), v.shape) for v in out], ops

    for a, b in [("x", "y"), ("x", 2.5), ("x", 3), (2.5, "x"), (3, "x"), ("x", True), (-0.0, "x")]:
        assert built(operands, a, b) == built(binary_operands, a, b), (a, b)


def test_static_output_needs_a_gradient_when_any_input_does():
    """append_op's inline walk over the inputs (lists included, None skipped) decides stop_gradient."""
    prog = Program()
    with rt.static.program_guard(prog), static_mode_guard(True):
        a = rt.static.data("a", [2], "float32")
        b = rt.static.data("b", [2], "float32")
        b.stop_gradient = False
        assert (a + a).stop_gradient and not (a + b).stop_gradient and not (b * 2.0).stop_gradient
        assert not rt.concat([a, b]).stop_gradient and rt.concat([a, a]).stop_gradient
        assert rt.cast(b, "int64").stop_gradient  # an integer output never takes a gradient
