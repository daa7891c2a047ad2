"""Dead-code elimination: semantics kept, dead ops and vars gone, effects stay."""
import numpy as np
from helpers_passes import build, control_flow_program, run

import dy2st
import runtime as rt
from runtime.static import passes


def _all_ops(prog):
    return [op for b in prog.blocks for op in b.ops]


def test_dce_removes_dead_ops_in_every_block_and_keeps_results():
    prog, (y, dead) = control_flow_program()
    feeds = [{"x": np.full((2, 4), v, "float32"), "n": np.array(k)} for v, k in ((0.3, 3), (-0.2, 2), (0.1, 0))]
    before = [run(prog, f, [y])[0] for f in feeds]
    n_ops = len(_all_ops(prog))
    assert passes.eliminate_dead_code(prog, [y.name]) is prog
    assert len(_all_ops(prog)) < n_ops
    assert "exp" not in [op.type for op in prog.global_block().ops]
    assert dead.name not in prog.global_block().vars
    body = [op for op in prog.global_block().ops if op.type == "while"][0].attrs["sub_block"]
    assert [op.type for op in body.ops].count("multiply") == 0  # the unused h2 * 2 inside the loop
    prog.verify()
    for f, want in zip(feeds, before):
        np.testing.assert_array_equal(run(prog, f, [y])[0], want)


def test_dce_keeps_print_assert_and_persistable_writes():
    def body():
        x = rt.static.data("x", [3], "float32")
        rt.static.nn.cond(x.sum() > 0, lambda: x + 1.0, lambda: x)  # result unused
        y = x * 2.0
        return x, y
    prog, (x, y) = build(body)
    gb = prog.global_block()
    gb.append_op("print", {"X": [x.name]}, {}, {"message": "m"})
    gb.create_var(name="state", shape=[3], dtype="float32", persistable=True)
    gb.append_op("relu", {"X": [x.name]}, {"Out": ["state"]}, {})
    assert passes.writes_persistable(gb, gb.ops[-1]) and passes.has_side_effect(gb, gb.ops[-2])
    passes.eliminate_dead_code(prog, [y.name])
    assert [op.type for op in gb.ops] == ["fill_constant", "multiply", "print", "relu"]


def test_traced_program_has_no_dead_leftovers():
    @dy2st.to_static
    def f(x, n):
        s = x * 0
        i = 0
        while i < n:
            s = s + x
            i += 1
        return s
    x, n = rt.to_tensor(np.ones(3, "float32")), rt.to_tensor(4)
    np.testing.assert_array_equal(f(x, n).numpy(), np.full(3, 4.0, "float32"))
    prog = f.get_concrete_program(x, n).main_program
    gb = prog.global_block()
    live = passes.live_ops(gb, gb.ops, [v.name for v in f.get_concrete_program(x, n).outputs])
    assert len(live) == len(gb.ops)  # nothing left for DCE to find
    assert "greater_than" not in [op.type for op in gb.ops]  # `n > 0` taken while tracing, unused
    np.testing.assert_array_equal(f(x, rt.to_tensor(2)).numpy(), np.full(3, 2.0, "float32"))


def test_pipeline_is_listed_with_reasons():
    assert passes.PIPELINE and all(len(e) == 3 and callable(e[1]) and e[2] for e in passes.PIPELINE)
    prog, (y, dead) = control_flow_program()
    assert passes.run_pipeline(prog, [y.name]) is prog
    assert dead.name not in prog.global_block().vars
