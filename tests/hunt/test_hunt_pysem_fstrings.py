"""Text made from a traced tensor outside print: `f"{x}"`, `"{}".format(x)`, `"%s" % x` as a value
(a length, a dict key, a name). Eagerly it holds the values of each call; converted it silently was
the Variable's text made once while tracing ("var x : float32[2]"). It is now a TypeError at the
user's line; Python values keep formatting as usual, and print keeps formatting tensors per call."""
import pytest

import dy2st
import runtime as rt
from tests.error_helpers import line_of, notes


def _fstring(x):
    return x + len(f"{x}")


def _str_format(x):
    return x + len("v={}".format(x * 2))


def _percent(x):
    return x + len("%s" % (x,))


@pytest.mark.parametrize("fn, text", [(_fstring, 'f"{x}"'), (_str_format, ".format("), (_percent, '"%s" %')])
def test_text_of_a_traced_tensor_is_an_error_at_the_users_line(fn, text):
    x = rt.to_tensor([1.0, 2.0])
    with pytest.raises(TypeError, match="traced tensor") as info:
        dy2st.to_static(fn)(x)
    assert f"line {line_of(fn, text)}" in str(info.value) + notes(info.value)


def _python_values(x, n):
    name = f"{n:03d}-{x.shape}-{x.ndim}" + "{}".format(n) + "%d" % n
    return x * len(name)


def test_python_values_still_format():
    sf = dy2st.to_static(_python_values)
    for v, n in (([1.0, 2.0], 3), ([4.0, -1.0], 12)):
        x = rt.to_tensor(v)
        assert sf(x, n).numpy().tolist() == _python_values(x, n).numpy().tolist()


def _shape_text(x):
    return x * len(str(x.shape)), f"{x.shape}"


def test_the_text_of_a_shape_with_an_unknown_dim_is_an_error():
    """`str(x.shape)` / `f"{x.shape}"` with a dim known only at run time: eagerly "[12, 2]", converted it was
    "[var getitem_1 : int64[], 2]"; known shapes keep their text."""
    from runtime.static import InputSpec
    x = rt.to_tensor([[1.0, 2.0]] * 3)
    with pytest.raises(TypeError, match="traced tensor") as info:
        dy2st.to_static(_shape_text, input_spec=[InputSpec([None, 2], "float32")])(x)
    assert f"line {line_of(_shape_text, 'str(x.shape)')}" in str(info.value) + notes(info.value)
    sf = dy2st.to_static(_shape_text)
    assert sf(x)[1] == _shape_text(x)[1] == "[3, 2]"
