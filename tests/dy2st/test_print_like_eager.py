"""`print` inside converted code prints what eager mode prints, at every call of the cached Program."""
import numpy as np
import pytest

import dy2st
import runtime as rt


def _both(capsys, fn, *calls):
    """stdout of each call converted and eager (conversion on/off), for the same inputs."""
    sf = dy2st.to_static(fn)
    static_out = []
    for args in calls:
        sf(*args)
        static_out.append(capsys.readouterr().out)
    eager_out = []
    dy2st.enable_to_static(False)
    try:
        for args in calls:
            sf(*args)
            eager_out.append(capsys.readouterr().out)
    finally:
        dy2st.enable_to_static(True)
    assert len(sf.program_cache) == 1
    return static_out, eager_out


def _x(v):
    return rt.to_tensor(np.full((2, 3), v, "float32"))


def test_print_tensor_like_eager(capsys):
    def f(x):
        y = x * 2
        print(y)
        return y
    static_out, eager_out = _both(capsys, f, (_x(1.0),), (_x(-2.5),))
    assert static_out == eager_out
    assert static_out[0].startswith("Tensor(shape=[2, 3], dtype=float32")
    assert "multiply" not in static_out[0]
    assert "-5." in static_out[1]


def test_print_mixed_values_sep_end_like_eager(capsys):
    def f(x, n):
        print("y is", x + 1, n, sep="|", end="!\n")
        return x
    static_out, eager_out = _both(capsys, f, (_x(1.0), 3), (_x(4.0), 3))
    assert static_out == eager_out
    assert static_out[0].startswith("y is|Tensor(") and static_out[0].endswith("|3!\n")


def test_fstring_print_runs_every_call(capsys):
    def f(x):
        m = x.mean()
        print(f"mean={m:.3f} x={x} r={m!r}")
        return m
    static_out, eager_out = _both(capsys, f, (_x(1.0),), (_x(2.0),), (_x(-0.5),))
    assert static_out == eager_out
    assert [o.split()[0] for o in static_out] == ["mean=1.000", "mean=2.000", "mean=-0.500"]


def test_print_inside_tensor_branch_prints_only_when_taken(capsys):
    def f(x):
        if x.sum() > 0:
            print("positive", x.sum())
        else:
            print("not positive")
        return x
    static_out, eager_out = _both(capsys, f, (_x(1.0),), (_x(-1.0),))
    assert static_out[0].startswith("positive Tensor(")
    assert static_out == eager_out


def test_tensor_format_spec_needs_one_element():
    assert f"{rt.to_tensor(1.25):.1f}" == "1.2"
    with pytest.raises(TypeError, match="one-element"):
        f"{rt.to_tensor([1.0, 2.0]):.1f}"


def test_generated_code_keeps_fstring_pieces():
    def f(x):
        print(f"x={x:.2f}")
        return x
    code = dy2st.to_static(f).code
    assert "_jst.Print(_jst.FString(['x=', (x, '', '.2f')]))" in code


def test_assert_under_tensor_branch_is_checked_at_run_time():
    @dy2st.to_static
    def f(x):
        if x.sum() > 0:
            assert x.mean() < 0.5, "mean too big"
        return x + 1
    np.testing.assert_allclose(f(_x(-1.0)).numpy(), np.zeros((2, 3)))
    with pytest.raises(AssertionError, match="mean too big"):
        f(_x(1.0))
    np.testing.assert_allclose(f(_x(0.25)).numpy(), np.full((2, 3), 1.25))
    assert len(f.program_cache) == 1
