"""Errors get their user line one way (error.attach_origin): the same object, its origin kept as
``user_origin``; KeyError and OSError keep their args and errno and carry the line as a note."""
import errno

import numpy as np
import pytest

import dy2st
import runtime as rt
from dy2st.tools.error import UserOrigin, is_mapped

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


def test_plain_message_names_the_line_in_str():
    with pytest.raises(ValueError) as info:
        dy2st.to_static(mismatched)(_x())
    exc = info.value
    assert "x @ w" in str(exc) and str(exc).count("In user code") == 1
    assert exc.user_origin.filename == __file__ and not getattr(exc, "__notes__", None)
