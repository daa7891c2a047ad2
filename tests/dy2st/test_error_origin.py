"""Errors get their user line one way (error.attach_origin): the same object, its origin kept as
``user_origin``, the line a PEP 678 note for every kind (KeyError and OSError keep args and errno)."""
import errno

import numpy as np
import pytest

import dy2st
import runtime as rt
from dy2st.tools.error import UserOrigin, is_mapped
from runtime.errors import Origin, add_context, message_with_notes, origin_of

TABLE = {"a": 1.0}


def looks_up(x, key):
    return x * TABLE[key]


def opens(x, path):
    with open(path) as f:
        f.read()
    return x


def mismatched(x):
    w = rt.ones([4, 2])
    return x @ w


def _x():
    return rt.to_tensor(np.ones((2, 3), "float32"))


def test_key_error_keeps_its_key_and_gets_a_note():
    with pytest.raises(KeyError) as info:
        dy2st.to_static(looks_up)(_x(), "b")
    exc = info.value
    assert exc.args == ("b",) and is_mapped(exc)
    assert isinstance(exc.user_origin, UserOrigin) and exc.user_origin.filename == __file__
    assert any("TABLE[key]" in n for n in exc.__notes__)


def test_os_error_keeps_errno_and_filename(tmp_path):
    missing = str(tmp_path / "nothing.txt")
    with pytest.raises(FileNotFoundError) as info:
        dy2st.to_static(opens)(_x(), missing)
    exc = info.value
    assert exc.errno == errno.ENOENT and exc.filename == missing
    assert any("open(path)" in n for n in exc.__notes__)


def test_plain_message_gets_the_line_as_a_note():
    with pytest.raises(ValueError) as info:
        dy2st.to_static(mismatched)(_x())
    exc = info.value
    assert "x @ w" not in str(exc) and "In user code" not in str(exc)
    assert len(exc.__notes__) == 1 and "x @ w" in exc.__notes__[0] and "In user code" in exc.__notes__[0]
    assert exc.user_origin.filename == __file__
    assert "x @ w" in message_with_notes(exc)  # what a traceback and a log line show


def test_one_origin_type_and_notes_added_once():
    assert UserOrigin is Origin
    origin = Origin.parse("model.py:12")
    assert (origin.filename, origin.lineno, str(origin)) == ("model.py", 12, "model.py:12")
    assert Origin.parse("no line here") is None
    exc = RuntimeError("boom")
    add_context(exc, "where", origin=origin)
    add_context(exc, "where")
    assert exc.__notes__ == ["where"] and origin_of(exc) is origin and str(exc) == "boom"
