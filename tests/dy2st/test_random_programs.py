"""Random control-flow programs: converted == eager, one Program per flag value, and gradients.

The grammar lives in `dy2st.fuzz.generator` (the fuzzer, `python -m dy2st.fuzz`, runs many more
programs with more features); without features it writes a module holding `helper(a)` and
`main(x, n, flag)` (x: float32 [3, 4], n: int64 0-d tensor, flag: Python bool), each at most
depth 3 and about 15 statements:

- updates `x = x * c + d`, `y = rt.tanh(y) * c + x * d` (factors keep values bounded), `y = y + i * c` (loop counter),
  `y = y * c + row` (row of a tensor), `y = y + helper(x) * c`, ternaries `a if cond else b`;
- `if`/`elif`/`else` on tensor conditions (`x.mean() > c`, `y.sum() < c`, `row.sum() > c`,
  `i % 2 == 0` with a tensor counter, `and`/`or`/`not` of those) or Python ones (`flag`, a
  Python loop counter `i % 2 == 0`), mixed too;
- `while <tensor cond> and k < m:` with `k += 1` first in the body (always bounded);
- `for i in range(3)`, `for i in range(n)` (n the int64 tensor), `for row in x`,
  `for j, row in enumerate(x)`; block-local temporaries `t = ...; y = t * c + y * d`;
- `break` / `continue` under tensor or Python conditions inside those loops, and early
  `return` inside branches and (nested) loops.

Every `return` of a function returns the same structure (one tensor, or a pair): a
tensor-dependent `if` must produce one structure on both sides, so a program returning a
tensor on one path and a tuple on another is not generated (the converter reports it as an
error naming the variable and the line). Constants carry three decimals plus an odd offset and
inputs are random normal draws, so no condition sits on an exact tie.

For each program: convert with `dy2st.to_static`, run >= 4 input values per flag value against
eager execution of the same function object, check that each flag value built exactly one
Program and that tensor-dependent constructs became `cond`/`while` ops, compare `x.grad` of
static and eager, and on a subset compare the static gradient with central finite
differences of the eager function in float64.

12 programs run in the default suite; seeds 12-99 carry the `slow` marker (`python -m pytest -m slow
tests/dy2st/test_random_programs.py`); DY2ST_RANDOM_PROGRAMS=600 runs seeds 0-599 unmarked (they
pass). Of the
first 100, 98 build a `while` op, 100 a `cond` op, 67 have a `return` inside a loop, 68 a
`break`, 77 a `continue`, 40 a `for i in range(n)` over the tensor, 55 a `for row in ...`
(plain or enumerate), 76 call the helper.
"""
import importlib.util
import os
import sys

import numpy as np
import pytest

import runtime as rt
import dy2st
from dy2st.fuzz.generator import generate

N_DEFAULT = 12     # seeds in the default (fast) suite
N_SWEEP = 100      # seeds 0..N_SWEEP-1 under the slow marker
N_PROGRAMS = int(os.environ.get("DY2ST_RANDOM_PROGRAMS", 0))


def _seeds():
    if N_PROGRAMS:
        return list(range(N_PROGRAMS))
    return list(range(N_DEFAULT)) + [pytest.param(s, marks=pytest.mark.slow)
                                     for s in range(N_DEFAULT, N_SWEEP)]
N_INPUTS = 4
FD_EVERY = 4  # finite differences on every FD_EVERY-th program


def _load(src, tmp_path, seed):
    path = tmp_path / f"random_program_{seed}.py"
    path.write_text(src)
    name = f"_dy2st_random_program_{seed}"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _arrays(out):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [np.asarray(o.numpy()) for o in outs]


def _op_types(program):
    return {op.type for block in program.blocks for op in block.ops}


def _inputs(rng, k):
    x = rng.standard_normal((3, 4)).astype("float32") * (0.5 + k * 0.4)
    return x, int(rng.integers(0, 5))


def _loss(out):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    total = outs[0].sum()
    for o in outs[1:]:
        total = total + o.sum()
    return total


@pytest.mark.parametrize("seed", _seeds())
def test_random_program(seed, tmp_path):
    src, meta = generate(seed)
    mod = _load(src, tmp_path, seed)
    sf = dy2st.to_static(mod.main)
    eager = sf.dygraph_function
    rng = np.random.default_rng(seed)
    note = f"\n--- program (seed {seed}) ---\n{src}"
    cases = [_inputs(rng, k) for k in range(N_INPUTS)]
    for f_index, flag in enumerate((True, False)):
        for xv, nv in cases:
            n = rt.to_tensor(nv, dtype="int64")
            want = _arrays(eager(rt.to_tensor(xv), n, flag))
            try:
                got = _arrays(sf(rt.to_tensor(xv), n, flag))
            except Exception as e:  # noqa: BLE001
                raise AssertionError(f"static run failed: {type(e).__name__}: {e}{note}") from e
            assert len(got) == len(want), note
            for g, w in zip(got, want):
                np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5,
                                           err_msg=f"flag={flag} n={nv} x={xv.tolist()}{note}")
            assert len(sf.program_cache) == f_index + 1, f"flag={flag}: retraced{note}"
        if meta["tensor_cf"]:
            types = _op_types(sf.concrete_program.main_program)
            assert types & {"cond", "while"}, f"no cond/while op for flag={flag}{note}"

        # gradients, static vs eager
        for xv, nv in cases[:2]:
            n = rt.to_tensor(nv, dtype="int64")
            xs = rt.to_tensor(xv, stop_gradient=False)
            xe = rt.to_tensor(xv, stop_gradient=False)
            try:
                _loss(sf(xs, n, flag)).backward()
            except Exception as e:  # noqa: BLE001
                raise AssertionError(f"static backward failed: {type(e).__name__}: {e}{note}") from e
            _loss(eager(xe, n, flag)).backward()
            gs = np.zeros_like(xv) if xs.grad is None else xs.grad.numpy()
            ge = np.zeros_like(xv) if xe.grad is None else xe.grad.numpy()
            np.testing.assert_allclose(gs, ge, rtol=1e-4, atol=1e-5,
                                       err_msg=f"grad flag={flag} n={nv} x={xv.tolist()}{note}")
            if seed % FD_EVERY == 0 and nv == cases[0][1]:
                fd = _finite_difference(eager, xv.astype("float64"), n, flag)
                np.testing.assert_allclose(gs, fd, rtol=2e-3, atol=2e-3,
                                           err_msg=f"finite differences flag={flag} n={nv}{note}")


def _finite_difference(fn, x, n, flag, eps=1e-6):
    grad = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        hi, lo = x.copy(), x.copy()
        hi[idx] += eps
        lo[idx] -= eps
        f_hi = float(_loss(fn(rt.to_tensor(hi, dtype="float64"), n, flag)).numpy())
        f_lo = float(_loss(fn(rt.to_tensor(lo, dtype="float64"), n, flag)).numpy())
        grad[idx] = (f_hi - f_lo) / (2 * eps)
    return grad


def test_generator_covers_the_grammar():
    """The fixed seeds exercise every construct the docstring promises."""
    text = "\n".join(generate(s)[0] for s in range(max(N_PROGRAMS, N_SWEEP)))
    for needle in ("elif ", "while ", "in range(n):", "in range(", "for row", "break", "continue",
                   "return", " if ", " else ", "helper(", " and ", " or ", "not ", "flag",
                   "% 2 == 0", "enumerate(", " += ", " *= "):
        assert needle in text, needle
