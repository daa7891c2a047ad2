"""``passes.reached`` over recorded loop steps: each step walked through the branch it took, and a
loop a recorded run entered without recording its steps may not change the answer (else an error,
never zeros where eager gives None)."""
import numpy as np
import pytest

import runtime as rt
from runtime.static import nn, passes
from runtime.trace_state import run_recording_blocks


def _alternating(main):
    """``h = h * 2 if i % 2 == 0 else w + 1`` for ``n`` steps from ``h = x``: after one step the
    result reaches ``x``; from the second on, only ``w`` (step 1 dropped ``h``)."""
    n = rt.static.data("n", [1], "int64")
    x = rt.static.data("x", [3])
    w = rt.static.data("w", [3])

    def body(i, h):
        h = nn.cond(i % 2 == 0, lambda: h * 2.0, lambda: w + 1.0)
        return i + 1, h
    _, out = nn.while_loop(lambda i, h: i < n, body, [rt.zeros([1], "int64"), x])
    return out, [op for op in main.global_block().ops if op.type == "while"][0]


def test_each_recorded_step_is_walked_through_the_branch_it_took(static_mode):
    out, loop = _alternating(static_mode)
    body = loop.attrs["sub_block"]
    cond = [op for op in body.ops if op.type == "cond"][0]
    t, f = frozenset({cond.attrs["true_block"].idx}), frozenset({cond.attrs["false_block"].idx})
    ops, names = static_mode.global_block().ops, ["x", "w"]
    one = frozenset({body.idx, (body.idx, ((t, 1),))})
    two = frozenset({body.idx, (body.idx, ((t, 1), (f, 1)))})
    three = frozenset({body.idx, (body.idx, ((t, 1), (f, 1), (t, 1)))})
    assert passes.reached(ops, [out.name], names, one) == {"x"}
    assert passes.reached(ops, [out.name], names, two) == {"w"}
    assert passes.reached(ops, [out.name], names, three) == {"w"}  # x * 2 of step 2 reads step 1's w + 1
    assert passes.reached(ops, [out.name], names, frozenset()) == {"x"}  # zero steps
    assert passes.reached(ops, [out.name], names) == {"x", "w"}  # any path


def test_a_run_records_the_branch_of_every_step(static_mode):
    out, loop = _alternating(static_mode)
    # recorded like a loop whose steps a gradient replays
    loop.outputs["StepScopes"] = [static_mode.global_block().create_var(name="steps", shape=(), dtype="float32",
                                                                          kind="steps").name]
    exe = rt.static.Executor()
    feed = {"n": np.array([3]), "x": np.ones(3, "float32"), "w": np.ones(3, "float32")}
    _, ran = run_recording_blocks(lambda: exe.run(static_mode, feed=feed, fetch_list=[out]))
    body = loop.attrs["sub_block"]
    (steps,) = [e[1] for e in ran if type(e) is tuple and e[0] == body.idx]
    cond = [op for op in body.ops if op.type == "cond"][0]
    t, f = cond.attrs["true_block"].idx, cond.attrs["false_block"].idx
    assert [(set(rec), k) for rec, k in steps] == [({t}, 1), ({f}, 1), ({t}, 1)]


def test_a_loop_entered_without_its_steps_that_would_change_the_answer_is_an_error(static_mode):
    out, loop = _alternating(static_mode)
    body = loop.attrs["sub_block"]
    cond = [op for op in body.ops if op.type == "cond"][0]
    entered = frozenset({body.idx, cond.attrs["true_block"].idx})  # no step record
    with pytest.raises(RuntimeError, match="cannot tell exactly which inputs get a gradient"):
        passes.reached(static_mode.global_block().ops, [out.name], ["x", "w"], entered)
