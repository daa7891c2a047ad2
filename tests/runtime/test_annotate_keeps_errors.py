"""An error raised while running a Program names its op on the same exception object."""
import errno

import runtime as rt
from runtime.framework import Program, static_mode_guard
from runtime.static.codegen import annotate


def _op():
    prog = Program()
    with rt.static.program_guard(prog), static_mode_guard(True):
        x = rt.static.data("x", [2], "float32")
        _ = x * 2.0
    return prog.global_block().ops[-1]


def test_plain_message_gets_a_note():
    op, exc = _op(), ValueError("bad value")
    assert annotate(exc, op) is exc and exc.op is op
    assert str(exc) == "bad value" and exc.args == ("bad value",)
    assert len(exc.__notes__) == 1 and exc.__notes__[0].startswith("[while running op")
    assert annotate(exc, op) is exc and len(exc.__notes__) == 1  # once only


def test_key_and_os_errors_keep_their_args_and_get_a_note():
    op = _op()
    key = KeyError("k")
    assert annotate(key, op) is key and key.args == ("k",) and "[while running op" in key.__notes__[0]
    os_err = FileNotFoundError(errno.ENOENT, "No such file", "/nope")
    assert annotate(os_err, op) is os_err
    assert os_err.errno == errno.ENOENT and os_err.filename == "/nope" and os_err.op is op
    assert "[while running op" in os_err.__notes__[0]
