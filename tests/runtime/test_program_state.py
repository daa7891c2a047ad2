"""Program.state_dict / set_state_dict and rt.save / rt.load of a Program (no pickle)."""
import json
import warnings

import numpy as np
import pytest

import dy2st
import runtime as rt


def _fc_program():
    main, start = rt.static.Program(), rt.static.Program()
    with rt.static.program_guard(main, start):
        rt.enable_static()
        try:
            x = rt.static.data("x", [None, 3], "float32")
            y = rt.static.nn.fc(rt.static.nn.fc(x, 4, activation="relu"), 2)
        finally:
            rt.disable_static()
    return main, start, x, y


def test_state_dict_round_trip_through_files(tmp_path):
    main, start, x, y = _fc_program()
    scope = rt.static.Scope()
    with rt.static.scope_guard(scope):
        exe = rt.static.Executor()
        exe.run(start)
        sd = main.state_dict()
        assert sorted(sd) == ["fc_0.b_0", "fc_0.w_0", "fc_1.b_0", "fc_1.w_0"]
        assert sd["fc_0.w_0"].shape == [3, 4] and sorted(main.state_dict("param")) == sorted(sd)
        assert main.state_dict("opt") == {}
        feed = {"x": np.random.RandomState(0).randn(5, 3).astype(np.float32)}
        want, = exe.run(main, feed=feed, fetch_list=[y])
        rt.save(sd, str(tmp_path / "m.pdparams"))
        rt.save(main, str(tmp_path / "m.pdmodel"))
    prog = rt.load(str(tmp_path / "m.pdmodel"))
    assert isinstance(prog, rt.static.Program) and str(prog) == str(main)
    fresh = rt.static.Scope()
    with rt.static.scope_guard(fresh):
        prog.set_state_dict(rt.load(str(tmp_path / "m.pdparams")))
        got, = rt.static.Executor().run(prog, feed=feed, fetch_list=[prog.global_block().var(y.name)])
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_set_state_dict_changes_results_and_checks():
    main, start, x, y = _fc_program()
    with rt.static.scope_guard(rt.static.Scope()):
        exe = rt.static.Executor()
        exe.run(start)
        feed = {"x": np.ones((2, 3), np.float32)}
        zeros = {k: np.zeros(v.shape, np.float32) for k, v in main.state_dict().items()}
        zeros["fc_1.b_0"] = np.array([1.5, -2.0], np.float32)
        main.set_state_dict(zeros)
        out, = exe.run(main, feed=feed, fetch_list=[y])
        np.testing.assert_allclose(out, [[1.5, -2.0], [1.5, -2.0]])
        with pytest.raises(ValueError, match=r"'fc_0.w_0' has shape \[3, 4\].*\[4, 3\]"):
            main.set_state_dict({"fc_0.w_0": np.zeros((4, 3), np.float32)})
        with pytest.raises(ValueError, match="float32 in the Program, the value is float64"):
            main.set_state_dict({"fc_0.w_0": np.zeros((3, 4))})
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            main.set_state_dict({"nope": np.zeros(1, np.float32), **zeros})
        assert any("skipping 'nope'" in str(w.message) for w in caught)
    with rt.static.scope_guard(rt.static.Scope()):
        with pytest.raises(ValueError, match="run the startup program"):
            main.state_dict()
    with pytest.raises(ValueError, match="mode"):
        main.state_dict("weights")


def test_traced_program_state_is_the_layers_tensors():
    rt.seed(0)
    layer = rt.nn.Sequential(rt.nn.Linear(3, 4), rt.nn.BatchNorm1D(4))
    layer.eval()
    sf = dy2st.to_static(layer)
    x = rt.to_tensor(np.random.RandomState(1).randn(6, 3).astype(np.float32))
    before = sf(x).numpy()
    prog = sf.forward.get_concrete_program(x).main_program
    sd = prog.state_dict()
    params = prog.state_dict("param")
    assert {id(t) for t in params.values()} == {id(p) for p in layer.parameters()}
    assert len(sd) == len(params) == 6  # the running mean and variance are parameters, as in Paddle
    new = {k: v.numpy() * 2 for k, v in params.items() if k != layer[1]._mean.name}
    with pytest.warns(UserWarning, match="no value given for.*w_1"):
        prog.set_state_dict(new)
    assert not np.allclose(sf(x).numpy(), before)
    np.testing.assert_allclose(layer[0].weight.numpy(), new[layer[0].weight.name])


def test_corrupt_program_entry_is_a_clear_error(tmp_path):
    main, _, _, _ = _fc_program()
    path = str(tmp_path / "p.pdmodel")
    rt.save({"prog": main, "n": 1}, path)
    loaded = rt.load(path)
    assert loaded["n"] == 1 and str(loaded["prog"]) == str(main)
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    header = json.loads(arrays["__header__"].tobytes().decode())
    assert header["version"] == 2 and header["tree"][0] == "dict"
    header["leaves"][0]["v"]["blocks"] = []
    arrays["__header__"] = np.frombuffer(json.dumps(header).encode(), np.uint8)
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    with pytest.raises(ValueError, match="bad program entry.*no blocks"):
        rt.load(path)
