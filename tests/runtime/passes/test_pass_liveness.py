"""Def-use, effects and liveness analyses."""
from helpers_passes import build

import runtime as rt
from runtime.static import passes


def _simple():
    def body():
        x = rt.static.data("x", [3], "float32")
        t = x * 2.0
        u = rt.exp(x)
        y = rt.relu(t)
        return x, t, u, y
    return build(body)


def test_live_ops_follow_outputs_and_keep_effects():
    prog, (x, t, u, y) = _simple()
    gb = prog.global_block()
    kept = passes.live_ops(gb, gb.ops, [y.name])
    outs = {n for op in kept for n in op.output_arg_names}
    assert y.name in outs and t.name in outs and u.name not in outs
    kept_none, needed = passes.analyze(gb, gb.ops, [u.name], keep=None)
    assert [op.type for op in kept_none] == ["exp"] and needed == {x.name}


def test_impure_ops_are_kept_and_persistable_writes_count_as_effects():
    def body():
        x = rt.static.data("x", [4], "float32")
        d = rt.nn.functional.dropout(x, 0.5)  # random: dropping it would shift the generator
        return x, d
    prog, (x, d) = build(body)
    gb = prog.global_block()
    rand = [op for op in gb.ops if passes.is_random(op)]
    assert rand and all(passes.must_keep(gb, op) for op in rand)
    assert [op for op in passes.live_ops(gb, gb.ops, []) if passes.is_random(op)] == rand
    assert passes.live_ops(gb, gb.ops, [], keep=None) == []


def test_external_reads_and_segment_inputs():
    def body():
        x = rt.static.data("x", [3], "float32")
        w = rt.static.data("w", [3], "float32")
        y = rt.static.nn.cond(x.sum() > 0, lambda: x * w, lambda: x - 1.0)
        z = y + 1.0
        return x, w, y, z
    prog, (x, w, y, z) = build(body)
    gb = prog.global_block()
    cond = [op for op in gb.ops if op.type == "cond"][0]
    assert set(passes.op_reads(cond)) >= {x.name, w.name}
    assert passes.external_reads(cond.attrs["true_block"]) == [x.name, w.name]
    k = gb.ops.index(cond) + 1
    assert passes.segment_inputs(gb, [z.name], (k, len(gb.ops))) == [y.name]
    assert [op.type for op in gb.ops[k:]] == ["fill_constant", "add"]
    assert passes.last_uses(gb.ops[k:])[y.name] == 1
    assert passes.segment_inputs(gb, [z.name]) == [x.name, w.name]
