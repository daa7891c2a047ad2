"""Saving and loading Programs and inference models (runtime.static.formats.io).

Round trips of Programs with nested cond/while must run identically; every bad
file must fail with a clear error that names the file and what is wrong, and a
pickle payload in the parameters must be refused without running anything.
"""
import io as _io
import json
import os
import pickle
import zipfile

import numpy as np
import pytest

import runtime as rt
from runtime.framework import static_mode_guard
from runtime.static.formats import io as sio
from runtime.static.formats import program_format

D = 4


def _build(with_training=False):
    """x[-1, D] -> fc -> cond(mean > 0: while-loop doubling inside | negate) -> fc -> y."""
    main, startup = rt.static.Program(), rt.static.Program()
    with rt.static.program_guard(main, startup), static_mode_guard(True):
        x = rt.static.data("x", [None, D], "float32")
        h = rt.static.nn.fc(x, 3)

        def true_fn():
            i = rt.full([1], 0, "int64")
            limit = rt.full([1], 3, "int64")

            def cond(i, v):
                return rt.less_than(i, limit)

            def body(i, v):
                return [i + 1, v * 1.5 + 0.25]
            _, out = rt.static.nn.while_loop(cond, body, [i, h])
            return out

        y = rt.static.nn.cond(rt.mean(h) > 0.0, true_fn, lambda: -h)
        out = rt.static.nn.fc(y, 2)
        extra = out * 2.0  # not fetched: pruned away
        loss = None
        if with_training:
            loss = rt.mean(out * out)
            rt.static.append_backward(loss)
    return main, startup, x, out, extra, loss


@pytest.fixture
def built():
    rt.seed(3)
    main, startup, x, out, extra, loss = _build()
    exe = rt.static.Executor()
    exe.run(startup)
    return main, x, out, exe


def _feed(n, seed=0):
    return np.random.default_rng(seed).normal(size=(n, D)).astype("float32")


def _json_round_trip(program):
    text = json.dumps(sio.serialize_program(program), allow_nan=False)
    return sio.deserialize_program(json.loads(text))


# -- Program format ----------------------------------------------------------------
def test_round_trip_preserves_structure_and_runs_identically(built):
    main, x, out, exe = built
    loaded = _json_round_trip(main)
    assert str(loaded) == str(main)
    assert loaded.num_blocks == main.num_blocks >= 3
    types = [op.type for b in loaded.blocks for op in b.ops]
    assert "cond" in types and "while" in types
    for blk in loaded.blocks[1:]:
        assert blk.program is loaded
    for n in (2, 5):
        for seed in (0, 1, 2):  # both branches get taken over these seeds
            feed = {"x": _feed(n, seed)}
            ref = exe.run(main, feed=feed, fetch_list=[out])[0]
            got = exe.run(loaded, feed=feed, fetch_list=[out.name])[0]
            np.testing.assert_array_equal(ref, got)


def test_format_header_and_sub_block_references(built):
    main = built[0]
    data = sio.serialize_program(main)
    assert data["format"] == "dy2st.program" and data["version"] == 1
    refs = [a for b in data["blocks"] for op in b["ops"] for a in op["attrs"].values()
            if isinstance(a, dict) and "block" in a]
    assert refs and all(0 < r["block"] < len(data["blocks"]) for r in refs)
    json.dumps(data, allow_nan=False)  # pure JSON


def test_numpy_and_special_attrs_round_trip():
    p = rt.static.Program()
    with rt.static.program_guard(p), static_mode_guard(True):
        x = rt.static.data("x", [2], "float32")
        rt.scale(x)
    op = p.global_block().ops[-1]
    op.attrs.update(scale=np.float32(2.5), bias=np.int64(1))
    back = _json_round_trip(p).global_block().ops[-1].attrs
    assert back["scale"] == 2.5 and type(back["bias"]) is int
    note = {"arr": np.arange(3, dtype="int32"), "inf": float("-inf"), "t": (1, 2)}
    encoded = json.loads(json.dumps(program_format._encode_attr(note, "note"), allow_nan=False))
    back = program_format._decode_attr(encoded, [], "note")
    np.testing.assert_array_equal(back["arr"], np.arange(3, dtype="int32"))
    assert back["arr"].dtype == np.int32 and back["inf"] == float("-inf")
    assert back["t"] == [1, 2]
    op.attrs["note"] = note  # an attribute the op does not declare is refused on load
    with pytest.raises(sio.ProgramFormatError, match=r"op #0 'scale': attributes \['note'\] unknown"):
        _json_round_trip(p)


def test_non_json_attr_is_rejected_by_name():
    p = rt.static.Program()
    with rt.static.program_guard(p), static_mode_guard(True):
        rt.scale(rt.static.data("x", [2], "float32"))
    p.global_block().ops[-1].attrs["scale"] = object()
    with pytest.raises(TypeError, match=r"op #0 'scale' attribute 'scale'.*object"):
        sio.serialize_program(p)


def _tamper(program, fn):
    data = json.loads(json.dumps(sio.serialize_program(program)))
    fn(data)
    return data


def test_bad_program_dicts(built):
    main = built[0]
    with pytest.raises(sio.ProgramFormatError, match="unknown format 'onnx'"):
        sio.deserialize_program(_tamper(main, lambda d: d.update(format="onnx")))
    with pytest.raises(sio.ProgramFormatError, match="version 7 is not supported"):
        sio.deserialize_program(_tamper(main, lambda d: d.update(version=7)))
    with pytest.raises(sio.ProgramFormatError, match="op type 'os_system' is not registered"):
        sio.deserialize_program(_tamper(main, lambda d: d["blocks"][0]["ops"][0].update(type="os_system")))
    with pytest.raises(sio.ProgramFormatError, match="'ghost' is not a variable"):
        sio.deserialize_program(_tamper(main, lambda d: d["blocks"][0]["ops"][0]["outputs"].update(Out=["ghost"])))
    with pytest.raises(sio.ProgramFormatError, match="field 'shape' should be list"):
        sio.deserialize_program(_tamper(main, lambda d: d["blocks"][0]["vars"][0].update(shape="[1]")))
    with pytest.raises(sio.ProgramFormatError, match="block reference 99"):
        def bad_block(d):
            for b in d["blocks"]:
                for op in b["ops"]:
                    for k, v in op["attrs"].items():
                        if isinstance(v, dict) and "block" in v:
                            op["attrs"][k] = {"block": 99}
        sio.deserialize_program(_tamper(main, bad_block))
    with pytest.raises(sio.ProgramFormatError, match="unknown attribute encoding"):
        sio.deserialize_program(_tamper(main, lambda d: d["blocks"][0]["ops"][0]["attrs"].update(
            evil={"__reduce__": "os.system"})))


# -- prune -----------------------------------------------------------------------
def test_prune_keeps_control_flow_and_drops_unfetched_and_backward_ops():
    rt.seed(5)
    main, startup, x, out, extra, loss = _build(with_training=True)
    exe = rt.static.Executor()
    exe.run(startup)
    plain = _build()[0]
    n_forward = len(plain.global_block().ops)
    assert len(main.global_block().ops) > 2 * n_forward  # backward ops appended
    pruned = sio.prune(main, ["x"], [out.name])
    kept = [op.type for op in pruned.global_block().ops]
    assert kept == [op.type for op in plain.global_block().ops][:n_forward - 2]  # minus the unfetched `extra`
    assert kept.count("cond") == 1
    assert not any("GRAD" in n.upper() for n in pruned.global_block().vars)
    assert extra.name not in pruned.global_block().vars
    # global + true/false branches + while body; the backward's blocks are gone and the rest renumbered densely
    assert pruned.num_blocks == plain.num_blocks == 4 < main.num_blocks
    pruned.verify()
    feed = {"x": _feed(3)}
    np.testing.assert_allclose(exe.run(pruned, feed=feed, fetch_list=[out.name])[0],
                               exe.run(main, feed=feed, fetch_list=[out])[0], rtol=1e-6)


def test_prune_needs_all_inputs():
    p = rt.static.Program()
    with rt.static.program_guard(p), static_mode_guard(True):
        a = rt.static.data("a", [2], "float32")
        b = rt.static.data("b", [2], "float32")
        c = a + b
    with pytest.raises(ValueError, match="need input 'b', which is not among the feeds"):
        sio.prune(p, ["a"], [c.name])


# -- inference model files --------------------------------------------------------
@pytest.fixture
def saved(built, tmp_path):
    main, x, out, exe = built
    prefix = str(tmp_path / "model")
    sio.save_inference_model(prefix, [x], [out], exe, program=main)
    feed = {"x": _feed(4)}
    ref = exe.run(main, feed=feed, fetch_list=[out])[0]
    return prefix, feed, ref


def test_save_load_inference_model(saved):
    prefix, feed, ref = saved
    for suffix in (".pdmodel", ".pdiparams", ".pdiparams.info"):
        assert os.path.exists(prefix + suffix)
    program, feed_names, fetch_vars = sio.load_inference_model(prefix, rt.static.Executor())
    assert feed_names == ["x"]
    got = rt.static.Executor().run(program, feed=feed, fetch_list=fetch_vars)[0]
    np.testing.assert_allclose(got, ref, rtol=1e-6)
    info = json.load(open(prefix + ".pdiparams.info"))
    assert {e["name"] for e in info} == set(program.bound_tensors)
    assert all(set(e) == {"name", "structured_name", "dtype", "shape", "trainable", "stop_gradient"} for e in info)
    with np.load(prefix + ".pdiparams", allow_pickle=False) as z:
        assert set(z.files) == set(program.bound_tensors)


def test_truncated_model_json(saved):
    prefix = saved[0]
    text = open(prefix + ".pdmodel").read()
    open(prefix + ".pdmodel", "w").write(text[: len(text) // 2])
    with pytest.raises(sio.ProgramFormatError, match=r"model\.pdmodel: truncated or corrupted JSON"):
        sio.load_inference_model(prefix)


def test_unknown_model_version(saved):
    prefix = saved[0]
    data = json.load(open(prefix + ".pdmodel"))
    data["program"]["version"] = 2
    json.dump(data, open(prefix + ".pdmodel", "w"))
    with pytest.raises(sio.ProgramFormatError, match=r"model\.pdmodel.*version 2 is not supported"):
        sio.load_inference_model(prefix)


def test_unknown_op_in_model(saved):
    prefix = saved[0]
    data = json.load(open(prefix + ".pdmodel"))
    data["program"]["blocks"][0]["ops"][0]["type"] = "exec_python"
    json.dump(data, open(prefix + ".pdmodel", "w"))
    with pytest.raises(sio.ProgramFormatError, match="'exec_python' is not registered"):
        sio.load_inference_model(prefix)


def test_missing_params_file(saved):
    prefix = saved[0]
    os.remove(prefix + ".pdiparams")
    with pytest.raises(FileNotFoundError, match=r"model\.pdiparams' does not exist"):
        sio.load_inference_model(prefix)


def test_missing_model_file(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"nothing\.pdmodel"):
        sio.load_inference_model(str(tmp_path / "nothing"))


def test_random_bytes_params(saved):
    prefix = saved[0]
    open(prefix + ".pdiparams", "wb").write(np.random.default_rng(0).bytes(300))
    with pytest.raises(sio.ProgramFormatError, match=r"model\.pdiparams: not a parameter archive"):
        sio.load_inference_model(prefix)


def test_truncated_params(saved):
    prefix = saved[0]
    payload = open(prefix + ".pdiparams", "rb").read()
    open(prefix + ".pdiparams", "wb").write(payload[: len(payload) - 40])
    with pytest.raises(sio.ProgramFormatError, match=r"model\.pdiparams"):
        sio.load_inference_model(prefix)


def _rewrite_params(prefix, change):
    with np.load(prefix + ".pdiparams", allow_pickle=False) as z:
        values = {k: z[k] for k in z.files}
    change(values)
    open(prefix + ".pdiparams", "wb").write(sio.params_to_bytes(values))
    return values


def test_wrong_param_shape_names_both(saved):
    prefix = saved[0]
    name = []

    def change(values):
        name.append(sorted(values)[0])
        values[name[0]] = np.zeros((7, 7), "float32")
    _rewrite_params(prefix, change)
    with pytest.raises(sio.ProgramFormatError, match=rf"'{name[0]}' is float32\[7, 7\].*Program declares float32\["):
        sio.load_inference_model(prefix)


def test_missing_param_is_named(saved):
    prefix = saved[0]
    dropped = []

    def change(values):
        dropped.append(sorted(values)[0])
        del values[dropped[0]]
    _rewrite_params(prefix, change)
    with pytest.raises(sio.ProgramFormatError, match=rf"'{dropped[0]}'"):
        sio.load_inference_model(prefix)


class _Boom:
    """Unpickling this creates a file: the proof that a loader ran code."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_pickle_payload_is_never_executed(saved, tmp_path):
    prefix = saved[0]
    marker = tmp_path / "pwned.txt"
    with np.load(prefix + ".pdiparams", allow_pickle=False) as z:
        names = list(z.files)
    npy = _io.BytesIO()
    np.save(npy, np.array([_Boom(str(marker))], dtype=object), allow_pickle=True)
    buf = _io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for n in names:
            zf.writestr(n + ".npy", npy.getvalue())
    open(prefix + ".pdiparams", "wb").write(buf.getvalue())
    with pytest.raises(sio.ProgramFormatError, match=r"pdiparams: array .* cannot be loaded safely"):
        sio.load_inference_model(prefix)
    assert not marker.exists()
    # a bare pickle in place of the archive is refused as well
    open(prefix + ".pdiparams", "wb").write(pickle.dumps(_Boom(str(marker))))
    with pytest.raises(sio.ProgramFormatError, match="not a parameter archive"):
        sio.load_inference_model(prefix)
    assert not marker.exists()


def test_hostile_names_and_deep_nesting_do_not_run_code(saved, tmp_path):
    """The executor generates Python from a Program: names from a file must never become code."""
    prefix, feed, ref = saved
    marker = tmp_path / "pwned.txt"
    model = json.load(open(prefix + ".pdmodel"))
    victim = model["program"]["blocks"][0]["ops"][0]["outputs"]["Out"][0]
    evil = f"a'); open({str(marker)!r}, 'w'); ('"
    text = json.dumps(model).replace(json.dumps(victim), json.dumps(evil))
    open(prefix + ".pdmodel", "w").write(text)
    program, _, fetch = sio.load_inference_model(prefix)
    assert program.global_block().ops[0].output_arg_names == [evil]
    got = rt.static.Executor().run(program, feed=feed, fetch_list=fetch)[0]
    np.testing.assert_allclose(got, ref, rtol=1e-6)
    assert not marker.exists()
    open(prefix + ".pdmodel", "w").write("[" * 100000 + "]" * 100000)
    with pytest.raises(sio.ProgramFormatError, match="nested too deeply"):
        sio.load_inference_model(prefix)
