"""The shortcuts that make appending ops cheaper build the same IR as the long way: a builder-made
Variable equals ``create_var``'s, fresh names skip blocks only when no block ever held them, slot
names and dtype spellings are read from tables that follow changes, and the def-use and effect
walks give what the plain recursive definitions give."""
import numpy as np
import pytest

import runtime as rt
from runtime import dtypes
from runtime.framework import Program, Variable, program_guard, static_mode_guard
from runtime.registry import Meta, OpDef
from runtime.static import nn
from runtime.static.passes import dce, effects
from runtime.static.passes.defuse import external_reads, op_reads, sub_block_defined


def test_builder_variable_equals_create_var():
    prog = Program()
    blk = prog.global_block()
    a = blk.create_var(name="a", shape=(np.int64(2), 3), dtype="half", stop_gradient=False)
    b = blk._create_built("b", (np.int64(2), 3), "half", False)
    da, db = dict(vars(a)), dict(vars(b))
    assert da.pop("name") == "a" and db.pop("name") == "b"
    assert da == db and type(b._shape[0]) is int and b.dtype is dtypes.float16
    with pytest.raises(ValueError, match="already exists"):
        blk._create_built("a", (), "float32", True)


def test_unique_name_sees_every_way_a_name_enters_a_block():
    prog = Program()
    blk = prog.global_block()
    sub = prog._create_block()
    blk.vars["tmp_0"] = blk.create_var(name="x")  # a direct write, as the renaming passes do
    sub.vars.setdefault("tmp_1", None)
    sub.vars.update({"tmp_2": None})
    assert prog.unique_name("tmp") == "tmp_3"
    del blk.vars["tmp_0"]  # a name deleted since is free again, as before
    prog._names.clear()
    assert prog.unique_name("tmp") == "tmp_0"


def test_meta_converts_dims_and_compares_like_the_dataclass():
    m = Meta([np.int64(2), 3.0], "float32")
    assert m.shape == (2, 3) and type(m.shape[0]) is int
    assert m == Meta((2, 3), "float32") and m != Meta((2, 3), "int64")
    assert repr(m) == "Meta(shape=(2, 3), dtype='float32')"


def test_slot_names_follow_a_changed_declaration():
    op = OpDef(type="t", inputs=["X", "Ys*"], outputs=["Out"])
    assert op.input_slots == ["X", "Ys"] and op.output_slots == ["Out"]
    op.input_slots.append("junk")  # callers get copies
    op.inputs.append("Z*")
    assert op.input_slots == ["X", "Ys", "Z"]


def test_dtype_spellings_convert_the_same_from_the_table():
    for spelling in ("float", "int", "double", "half", "bool", "rt.float32", "paddle.int64", "float64"):
        first, second = dtypes.convert_dtype(spelling), dtypes.convert_dtype(spelling)
        assert first is second is dtypes._convert_dtype(spelling)
    assert dtypes.convert_dtype(np.dtype("float")) is dtypes.float64  # numpy's reading of its own dtype
    with pytest.raises(TypeError):
        dtypes.convert_dtype("float31")
    assert dtypes.float32 == np.float32 and dtypes.float32 != "float" and dtypes.float32 != dtypes.int64
    # numpy's and Paddle's readings: "float" and float are float64, "long" int64, "short" int16
    assert dtypes.convert_dtype("float") is dtypes.convert_dtype(float) is dtypes.float64 == "float"
    assert dtypes.convert_dtype("long") is dtypes.int64 and dtypes.convert_dtype("short") is dtypes.int16


def _reads_reference(block, defined=(), extra_reads=()):
    defined, reads = set(defined), {}
    for op in block.ops:
        for n in op.input_arg_names:
            if n not in defined:
                reads[n] = None
        for sub in op.sub_blocks():
            for n in _reads_reference(sub, sub_block_defined(op, sub)):
                if n not in defined:
                    reads[n] = None
        defined.update(op.output_arg_names)
    for n in extra_reads:
        if n not in defined:
            reads.setdefault(n, None)
    return list(reads)


def _written_reference(block):
    found = set()
    for op in block.ops:
        found.update(n for n in op.output_arg_names if effects.is_persistable(block, n))
        for sub in op.sub_blocks():
            found |= _written_reference(sub)
    return found


def _mentioned_reference(program):
    names = set()
    for b in program.blocks:
        for op in b.ops:
            names.update(op_reads(op))
            names.update(op.output_arg_names)
            for v in op.attrs.values():
                if isinstance(v, str):
                    names.add(v)
                elif isinstance(v, (list, tuple)):
                    names.update(x for x in v if isinstance(x, str))
    return names


def test_def_use_and_effect_walks_match_their_definitions():
    prog = _nested_program()
    assert len(prog.blocks) > 5
    for blk in prog.blocks:
        assert external_reads(blk) == _reads_reference(blk)
        assert external_reads(blk, {"x"}, ["w", "zz"]) == _reads_reference(blk, {"x"}, ["w", "zz"])
        assert effects.persistables_written(blk) == _written_reference(blk)
    assert "w" in effects.persistables_written(prog.global_block())
    assert dce._mentioned(prog) == _mentioned_reference(prog)
    # Sub-blocks missing from the Program's list (only their op refers to them) are still walked.
    prog.blocks = [prog.blocks[0]]
    assert dce._mentioned(prog) == _mentioned_reference(prog)


def _nested_program():
    prog = Program()
    with program_guard(prog), static_mode_guard(True):
        x = rt.static.data("x", [3])
        w = prog.global_block().create_var(name="w", shape=[3], dtype="float32", persistable=True)
        k = rt.full([3], 2.0, "float32")

        def inner():
            return nn.cond(x.mean() > 0, lambda: x * k + w, lambda: rt.assign(x * 2.0, output=w) * 1.0)

        def body(i, acc):
            return i + 1, acc + nn.cond(acc.sum() > 1.0, inner, lambda: acc * k)
        out = nn.while_loop(lambda i, acc: i < 3, body, [rt.full([], 0, "int64"), x])
        nn.cond(x.sum() > 0, lambda: out[1] * 2.0, inner)
    assert isinstance(out[1], Variable)
    return prog
