"""prune on Program objects, and constant folding."""
import numpy as np
import pytest
from helpers_passes import build, control_flow_program, run

import runtime as rt
from runtime.static import passes


def test_prune_is_a_new_program_and_leaves_the_original():
    prog, (y, dead) = control_flow_program()
    n_ops, n_blocks = len(prog.global_block().ops), prog.num_blocks
    pruned = passes.prune(prog, ["x", "n"], [y.name])
    assert pruned is not prog and len(prog.global_block().ops) == n_ops and prog.num_blocks == n_blocks
    assert dead.name not in pruned.global_block().vars
    assert [b.idx for b in pruned.blocks] == list(range(pruned.num_blocks))
    pruned.verify()
    f = {"x": np.full((2, 4), 0.4, "float32"), "n": np.array(3)}
    np.testing.assert_array_equal(run(pruned, f, [y.name])[0], run(prog, f, [y])[0])


def test_prune_from_an_intermediate_feed_and_missing_inputs():
    def body():
        a = rt.static.data("a", [2], "float32")
        b = a * 2.0
        c = b + 1.0
        return a, b, c
    prog, (a, b, c) = build(body)
    pruned = passes.prune(prog, [b.name], [c.name])
    assert [op.type for op in pruned.global_block().ops] == ["fill_constant", "add"]
    assert pruned.global_block().vars[b.name].is_data
    np.testing.assert_array_equal(run(pruned, {b.name: np.ones(2, "float32")}, [c.name])[0], [2.0, 2.0])
    with pytest.raises(ValueError, match="not among the feeds"):
        passes.prune(prog, [], [c.name])


def test_fold_constants_evaluates_constant_chains_once():
    def body():
        x = rt.static.data("x", [3], "float32")
        c = rt.full([3], 2.0, "float32")
        d = c * 3.0
        return x, c, d, x * d
    prog, (x, c, d, y) = build(body)
    gb = prog.global_block()
    values, folded = passes.fold_constants(gb, gb.ops, ["x"])
    np.testing.assert_array_equal(values[d.name], np.full(3, 6.0, "float32"))
    assert y.name not in values and len(folded) == len(gb.ops) - 1
    np.testing.assert_array_equal(run(prog, {"x": np.ones(3, "float32")}, [y])[0], np.full(3, 6.0))
