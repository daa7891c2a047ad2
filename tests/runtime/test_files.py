"""Files written and read by runtime and dy2st: crash safety, permissions, 0-d values, bounded reads."""
import io
import json
import os
import stat
import warnings
import zipfile

import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime.serialization import SerializationError
from runtime.static.formats import io as sio
from runtime.static import InputSpec


class ScalarModel(rt.nn.Layer):
    """A model with 0-d parameters and buffers (a learned temperature, a step counter)."""

    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(3, 2)
        self.scale = self.create_parameter([], dtype="float32")
        self.register_buffer("offset", rt.to_tensor(0.25))

    def forward(self, x):
        return self.fc(x) * self.scale + self.offset


def _tiny_program():
    rt.enable_static()
    main = rt.static.Program()
    try:
        with rt.static.program_guard(main, rt.static.Program()):
            x = rt.static.data("x", [None, 3], "float32")
            w = main.global_block().create_var(name="w", shape=[3], dtype="float32", persistable=True)
            out = x * w + 1.0
    finally:
        rt.disable_static()
    return main, x, out


def _run(prefix, feed):
    program, _, fetch = sio.load_inference_model(prefix)
    return rt.static.Executor().run(program, feed=feed, fetch_list=fetch)[0]


# -- crash safety ---------------------------------------------------------------------
def test_a_crash_at_any_step_of_a_save_leaves_the_old_or_the_new_model(tmp_path, monkeypatch):
    main, x, out = _tiny_program()
    prefix = str(tmp_path / "model")
    feed = {"x": np.ones((2, 3), "float32")}
    old_w, new_w = np.array([1, 2, 3], "float32"), np.array([7, 8, 9], "float32")
    old_out, new_out = feed["x"] * old_w + 1, feed["x"] * new_w + 1
    steps = []

    def crashing(real):
        def step(*args, **kwargs):
            steps.append(real.__name__)
            if len(steps) == crash_at:
                raise KeyboardInterrupt("killed mid-save")
            return real(*args, **kwargs)
        return step

    crash_at = 0
    k = 0
    while True:
        k += 1
        for f in os.listdir(tmp_path):
            os.unlink(tmp_path / f)
        sio.save_inference_model(prefix, [x], [out], program=main, params={"w": old_w})
        steps.clear()
        crash_at = k
        with monkeypatch.context() as m:
            for fn in ("replace", "link", "unlink"):
                m.setattr(os, fn, crashing(getattr(os, fn)))
            try:
                sio.save_inference_model(prefix, [x], [out], program=main, params={"w": new_w})
                finished = True
            except KeyboardInterrupt:
                finished = False
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            got = _run(prefix, feed)
        assert np.array_equal(got, old_out) or np.array_equal(got, new_out), f"crash at step {k} ({steps})"
        if finished:
            break
    assert k > 9  # three links, three moves, three removals were each interrupted once
    np.testing.assert_array_equal(_run(prefix, feed), new_out)
    assert sorted(os.listdir(tmp_path)) == ["model.pdiparams", "model.pdiparams.info", "model.pdmodel"]


def test_dy2st_load_picks_the_last_complete_save_after_an_interrupted_one(tmp_path, monkeypatch):
    rt.seed(0)
    model = ScalarModel()
    spec = [InputSpec([None, 3], "float32", "x")]
    path = str(tmp_path / "net")
    dy2st.save(model, path, input_spec=spec)
    x = rt.randn([4, 3])
    want = model(x).numpy()
    state = model.state_dict()
    state["scale"] = rt.to_tensor(np.array(5.0, "float32"))
    model.set_state_dict(state)
    real_replace = os.replace

    def power_cut(src, dst):
        if dst.endswith(".pdmodel"):
            raise OSError("power cut")
        real_replace(src, dst)
    monkeypatch.setattr(os, "replace", power_cut)
    with pytest.raises(OSError, match="power cut"):
        dy2st.save(model, path, input_spec=spec)
    monkeypatch.undo()
    with pytest.warns(RuntimeWarning, match="previous complete save"):
        loaded = dy2st.load(path)
    np.testing.assert_allclose(loaded(x).numpy(), want, rtol=1e-6)


# -- permissions ----------------------------------------------------------------------
@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield 0o644
    os.umask(old)


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_saved_files_get_the_umask_permissions_like_open(tmp_path, umask_022):
    with open(tmp_path / "plain.txt", "w"):
        pass
    assert _mode(tmp_path / "plain.txt") == umask_022
    rt.save({"w": rt.ones([2])}, str(tmp_path / "w.pdparams"))
    assert _mode(tmp_path / "w.pdparams") == umask_022
    rt.seed(0)
    model = ScalarModel()
    dy2st.save(model, str(tmp_path / "net"), input_spec=[InputSpec([None, 3], "float32", "x")])
    for suffix in (".pdmodel", ".pdiparams", ".pdiparams.info"):
        assert _mode(str(tmp_path / "net") + suffix) == umask_022, suffix
    pytest.importorskip("onnx")
    dy2st.export_onnx(model, str(tmp_path / "net.onnx"), input_spec=[InputSpec([None, 3], "float32", "x")])
    assert _mode(str(tmp_path / "net.onnx")) == umask_022


# -- 0-d values -------------------------------------------------------------------------
def test_zero_d_tensors_round_trip_as_zero_d(tmp_path):
    path = str(tmp_path / "s.pdparams")
    rt.save({"t": rt.to_tensor(3.5), "a": np.array(2, "int64"), "g": np.float32(1.5), "v": rt.ones([1])}, path)
    back = rt.load(path)
    assert back["t"].shape == [] and float(back["t"]) == 3.5
    assert back["a"].shape == () and back["g"].shape == () and back["v"].shape == [1]
    rt.seed(0)
    model = ScalarModel()
    rt.save(model.state_dict(), str(tmp_path / "m.pdparams"))
    state = rt.load(str(tmp_path / "m.pdparams"))
    assert state["scale"].shape == [] and state["offset"].shape == []
    model.set_state_dict(state)
    dy2st.save(model, str(tmp_path / "net"), input_spec=[InputSpec([None, 3], "float32", "x")])
    loaded = dy2st.load(str(tmp_path / "net"))
    shapes = {k: v.shape for k, v in loaded.state_dict().items()}
    assert shapes["scale"] == [] and shapes["offset"] == [], shapes
    x = rt.randn([2, 3])
    np.testing.assert_allclose(loaded(x).numpy(), model(x).numpy(), rtol=1e-6)


# -- bounded reads ----------------------------------------------------------------------
def _npy(arr):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, arr, allow_pickle=False)
    return buf.getvalue()


def _header(root):
    return np.frombuffer(json.dumps({"format": "runtime.save", "version": 1, "root": root}).encode(), np.uint8)


def test_rt_load_refuses_a_header_that_reuses_one_member(tmp_path):
    path = str(tmp_path / "dup.pdparams")
    items = [[f"k{i}", {"t": "ndarray", "ref": "a0"}] for i in range(1000)]
    with open(path, "wb") as f:
        np.savez(f, __header__=_header({"t": "dict", "items": items}), a0=np.zeros(1 << 16))
    with pytest.raises(SerializationError, match=r"dup\.pdparams.*'a0' more than once"):
        rt.load(path)


def test_rt_load_refuses_members_that_expand_hugely(tmp_path):
    path = str(tmp_path / "bomb.pdparams")
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("__header__.npy", _npy(_header({"t": "ndarray", "ref": "a0"})))
        zf.writestr("a0.npy", _npy(np.zeros(40 << 20, np.uint8)))  # 40 MiB of zeros: ~40 KiB compressed
        zf.writestr("a1.npy", _npy(np.zeros(40 << 20, np.uint8)))
    assert os.path.getsize(path) < 1 << 20
    with pytest.raises(SerializationError, match=r"bomb\.pdparams.*would expand to \d+ bytes"):
        rt.load(path)


def test_a_member_header_claiming_a_huge_shape_is_refused_before_allocating(tmp_path):
    path = str(tmp_path / "huge.pdparams")
    buf = io.BytesIO()  # a valid .npy header claiming 16 TB, followed by 16 bytes of data
    np.lib.format.write_array_header_1_0(buf, {"descr": "<f4", "fortran_order": False, "shape": (4000000000000,)})
    npy = buf.getvalue() + bytes(16)
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("__header__.npy", _npy(_header({"t": "ndarray", "ref": "a0"})))
        zf.writestr("a0.npy", npy)
    with pytest.raises(SerializationError, match=r"huge\.pdparams.*'a0' declares shape \[4000000000000\]"):
        rt.load(path)


def test_dy2st_load_bounds_the_parameter_archive(tmp_path):
    rt.seed(0)
    path = str(tmp_path / "net")
    dy2st.save(ScalarModel(), path, input_spec=[InputSpec([None, 3], "float32", "x")])
    with zipfile.ZipFile(path + ".pdiparams") as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    with zipfile.ZipFile(path + ".pdiparams", "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for n, payload in members.items():
            zf.writestr(n, payload)
        zf.writestr("padding.npy", _npy(np.zeros(100 << 20, np.uint8)))
    with pytest.raises(sio.ProgramFormatError, match=r"net\.pdiparams.*would expand"):
        dy2st.load(path)


def test_errors_name_the_target_not_the_temporary_file(tmp_path):
    import dy2st
    import runtime as rt
    (tmp_path / "m.pdmodel").mkdir()
    net = rt.nn.Linear(3, 2)
    with pytest.raises(IsADirectoryError) as info:
        dy2st.save(net, str(tmp_path / "m"), input_spec=[dy2st.InputSpec([None, 3], "float32", "x")])
    assert str(tmp_path / "m.pdmodel") in str(info.value) and ".tmp" not in str(info.value)
    with pytest.raises(IsADirectoryError) as info:
        rt.save(net.state_dict(), str(tmp_path))
    assert ".tmp" not in str(info.value) and "is a directory" in str(info.value)
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]
