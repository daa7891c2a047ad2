"""The fuzzer as a tool: its grammar features, its checks catching a real difference, the shrinker,
and the command line."""
import re
import textwrap

import pytest

from dy2st import fuzz
from dy2st.fuzz import flows, signatures
from dy2st.fuzz.__main__ import main as fuzz_main
from dy2st.fuzz.shrink import bounded, shrink


def test_the_idioms_and_calls_features_write_their_constructs():
    text = "\n".join(fuzz.generate(s, {"idioms", "calls"})[0] for s in range(60))
    for needle in ("] += ", ".add_(", "for ", "else:", "while True:", " < ", "print(", "assert ", "len(",
                   "// ", "% -", "rt.where(", "axis=", "rt.stack(", "try:", "helper2(", "pair(", "lambda v",
                   "rec(", "bx", ".shape[0]", "n % 3 + 1", "for c"):
        assert needle in text, needle


@pytest.mark.parametrize("seed", [58])  # item writes exported to ONNX, a print inside a saved cond
def test_idiom_programs_pass_every_stage(seed, tmp_path):
    src, meta = fuzz.generate(seed, {"idioms", "calls"})
    assert fuzz.check(src, meta, seed, str(tmp_path), fuzz.Options()) is None


def test_features_reach_the_grammar():
    text = "\n".join(fuzz.generate(s, fuzz.FEATURES)[0] for s in range(60))
    for needle in ("rt.cast(", "'int32'", "self.fc(", "self.drop(", "self.bn(", "class Net(rt.nn.Layer)",
                   "with rt.no_grad():", ".append(", "['v'] = ", "self.last = ", "self.steps = "):
        assert needle in text, needle
    plain = "\n".join(fuzz.generate(s)[0] for s in range(60))
    assert "class Net" not in plain and "rt.cast(" not in plain and "flag=True" not in plain


# 1032: a tensor `while` running batch norm whose saved model's compiled loop re-reads persistable
# state each step (its generated code used to be mis-indented: IndentationError on load).
@pytest.mark.parametrize("seed", [1, 1032, pytest.param(2, marks=pytest.mark.slow),
                                  pytest.param(6, marks=pytest.mark.slow)])
def test_default_feature_programs_pass_every_stage(seed, tmp_path):
    src, meta = fuzz.generate(seed, fuzz.DEFAULT_FEATURES)
    options = fuzz.Options(fd_every=1, save_every=1, onnx_every=1)  # every stage on these programs
    assert fuzz.check(src, meta, seed, str(tmp_path), options) is None



def test_plain_grammar_programs_pass_with_every_stage_asked_for(tmp_path):
    # main(x, n, flag) of the plain grammar has no default for flag, so a model saved with the
    # tensor specs alone could not be called: the save stage skips those programs (it failed every
    # one of them with a missing-argument TypeError)
    src, meta = fuzz.generate(40000)
    options = fuzz.Options(fd_every=1, save_every=1, onnx_every=1)
    assert fuzz.check(src, meta, 40000, str(tmp_path), options) is None



def test_an_unconditional_jump_under_a_trace_time_condition_ends_the_always_traced_claim(tmp_path):
    # seed 40290: `if flag: if flag or y.max() > c: continue` skips the rest of the loop body when
    # flag is True, so the tensor ifs after it are never traced for that value; the structural check
    # ("a tensor condition is always traced, so the Program has a cond") must not expect one
    src, meta = fuzz.generate(40290)
    assert "if flag or" in src and not meta["tensor_cf"]
    options = fuzz.Options(fd_every=0, save_every=0, onnx_every=0)
    assert fuzz.check(src, meta, 40290, str(tmp_path), options) is None


# (the seeds below were found with these)
EVERY_FEATURE_BEFORE_FLOWS = fuzz.FEATURES - set(flows.FORMS) - set(signatures.FORMS)


def test_an_unbind_of_columns_a_saved_model_leaves_unknown_is_not_written(tmp_path):
    # seed 101598 of every feature: `b.reshape([-1, b.shape[0] * b.shape[1] // b.shape[0]])` (columns a
    # tensor with a None batch dim) then `rt.unbind(b, axis=1)`, whose output count the converter
    # rightly cannot know when it builds the saved Program: the grammar restores 4 columns first
    src, meta = fuzz.generate(101598, EVERY_FEATURE_BEFORE_FLOWS)
    assert ".shape[1] // b.shape[0]])" in src and "rt.unbind(b.reshape([-1, 4]), axis=1)" in src
    options = fuzz.Options(fd_every=0, save_every=1, onnx_every=0)
    assert fuzz.check(src, meta, 101598, str(tmp_path), options) is None
    # in either order: a reshape written after an unbind gives 4 known columns back itself
    for seed in range(101500, 101600):
        src = fuzz.generate(seed, EVERY_FEATURE_BEFORE_FLOWS)[0]
        loose = re.search(r"\.shape\[1\] // \w\.shape\[0\]\]\) \+|\[0, 2, 1\]\), \[b\d+, -1\]\)", src)
        assert not (loose and re.search(r"rt\.unbind\(\w, axis=1\)", src)), seed


STALE = textwrap.dedent('''
    import runtime as rt

    CALLS = [0]


    def helper(a):
        return a


    def main(x, n, flag=True):
        y = x * 0.5
        CALLS[0] += 1
        if y.sum() > 0.25:
            y = y + 1.0
        y = rt.tanh(y) * 0.5 + x
        return y * CALLS[0]
''')


def test_a_real_difference_is_caught_and_shrunk_to_the_lines_that_matter(tmp_path):
    """A Python value read at trace time and changed later: the cached Program keeps the old one."""
    meta = {"tensor_cf": False, "layer": False}
    options = fuzz.Options(save_every=0, onnx_every=0, fd_every=0)
    failure = fuzz.check(STALE, meta, 0, str(tmp_path), options)
    assert failure is not None and (failure.stage, failure.kind) == ("forward", "mismatch")

    def still_fails(src):
        got = fuzz.check(src, meta, 0, str(tmp_path), options)
        return got is not None and (got.stage, got.kind) == (failure.stage, failure.kind)
    small = shrink(STALE, still_fails)
    body = small.split("def main")[1]
    assert "CALLS[0] += 1" in body and "return y * CALLS[0]" in body
    assert "if y.sum()" not in body and "tanh" not in body  # cut: not needed to fail


def test_the_fuzz_command_runs_programs_and_summarises(capsys):
    assert fuzz_main(["--count", "2", "--seed", "10", "--jobs", "1", "--save-every", "2", "--onnx-every", "2"]) == 0
    out = capsys.readouterr().out
    assert "2 programs from seed 10" in out and "2 passed, 0 failed" in out


DEAD_BRANCH = textwrap.dedent('''
    import runtime as rt


    def helper(a):
        return a


    def main(x, n, flag=True):
        y = x * 0.5
        if x.mean() > 0.1:
            t = y * 2.0  # a value nothing reads: the Program's dead-code pass drops the whole cond
        return y + 1.0
''')


def test_the_structural_check_sees_a_cond_that_dead_code_removal_dropped(tmp_path):
    options = fuzz.Options(save_every=0, onnx_every=0, fd_every=0)
    assert fuzz.check(DEAD_BRANCH, {"tensor_cf": True, "layer": False}, 0, str(tmp_path), options) is None
    no_cond = DEAD_BRANCH.replace("if x.mean() > 0.1:", "if flag:")
    failure = fuzz.check(no_cond, {"tensor_cf": True, "layer": False}, 0, str(tmp_path), options)
    assert failure is not None and "no cond/while op" in failure.message


COUNTER = textwrap.dedent('''
    import runtime as rt


    class Net(rt.nn.Layer):
        def __init__(self):
            super().__init__()
            self.calls = 0

        def forward(self, x, n, flag=True):
            self.calls = self.calls + 1  # a Python number: the next call retraces and changes it again
            return x * 2.0
''')


def test_layer_state_after_a_call_is_compared(tmp_path):
    options = fuzz.Options(save_every=0, onnx_every=0, fd_every=0)
    flags = {"tensor_cf": False, "layer": True, "attrs": ("calls",)}
    # the counter is eager's after every call (each call retraces), which the check counts
    failure = fuzz.check(COUNTER, flags, 0, str(tmp_path), options)
    assert failure is not None and "(retraced)" in failure.message
    # a value only the trace sees differently (the traced argument's class name): the state differs
    differs = COUNTER.replace("self.calls = self.calls + 1", "self.calls = len(x.__class__.__name__)")
    failure = fuzz.check(differs, flags, 0, str(tmp_path), options)
    assert failure is not None and "layer state after forward" in failure.message


def _never_ends(text):
    while True:
        pass


def _grows(text):
    hog = []
    while True:
        hog.append(bytearray(1 << 24))


def _fails(text):
    return "boom" in text


def test_a_shrink_try_that_never_ends_or_grows_without_bound_counts_as_not_failing():
    assert bounded(_never_ends, timeout=1.0)("x") is False
    assert bounded(_grows, timeout=20.0, memory=1 << 30)("x") is False
    assert bounded(_fails)("boom") is True and bounded(_fails)("fine") is False


def test_the_fuzz_files_go_to_memory_where_there_is_a_dev_shm(monkeypatch, tmp_path):
    import os

    from dy2st.fuzz.__main__ import scratch_dir
    folder = scratch_dir("dy2st-fuzz-test-")
    try:
        shm = os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK | os.X_OK)
        assert os.path.isdir(folder) and (os.path.dirname(folder) == "/dev/shm") == shm
    finally:
        os.rmdir(folder)
    monkeypatch.setattr(os, "access", lambda *a: False)  # no usable /dev/shm: the usual temp folder
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    folder = scratch_dir("dy2st-fuzz-test-")
    assert os.path.dirname(folder) == str(tmp_path)


def test_a_program_past_the_time_limit_counts_as_failed(monkeypatch):
    # a generated loop that never ends must not hold its worker, and the run, forever
    import time

    import dy2st.fuzz.__main__ as fuzz_main
    monkeypatch.setattr(fuzz_main, "generate", lambda seed, features: ("", {}))
    monkeypatch.setattr(fuzz_main, "check", lambda *args: time.sleep(10))
    monkeypatch.setattr(fuzz_main, "_state", dict(features=frozenset(), options=None, folder="", time_limit=1))
    start = time.time()
    seed, failure = fuzz_main._one(7)
    assert seed == 7 and failure.kind == "timeout" and time.time() - start < 5
