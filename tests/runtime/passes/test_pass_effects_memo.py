"""``persistables_written`` with a compiler's memo answers as the plain walk does, also after a block grows."""
import runtime as rt
from runtime.static.blocks import new_block
from runtime.static.passes.effects import persistables_written


def test_memo_matches_walk_and_sees_new_ops():
    prog = rt.static.Program()
    top = prog.global_block()
    outer = new_block(prog, 0)
    inner = new_block(prog, outer.idx)
    for name, persistable in (("w", True), ("v", True), ("t", False)):
        top.create_var(name=name, shape=[1], dtype="float32", persistable=persistable)
    inner.append_op("assign", {"X": ["t"]}, {"Out": ["w"]}, {})
    outer.append_op("cond", {"Cond": ["t"], "Input": []}, {"Out": []},
                    {"true_block": inner, "false_block": inner, "true_outs": [], "false_outs": []})
    memo = {}
    assert persistables_written(outer, memo) == persistables_written(outer) == {"w"}
    assert persistables_written(inner, memo) == {"w"}  # answered from the memo
    inner.append_op("assign", {"X": ["t"]}, {"Out": ["v"]}, {})  # the block grew: asked again, not stale
    assert persistables_written(outer, memo) == persistables_written(outer) == {"w", "v"}
