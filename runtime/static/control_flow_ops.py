"""The ``cond`` and ``while`` ops (and ``assert``, ``print``, ``fill_constant_like``) in the registry.

Formats (fixed; the converter and backward rely on them):

- ``cond``: inputs {'Cond': [pred], 'Input': [outer names read inside either branch]},
  outputs {'Out': [...]}, attrs {'true_block', 'false_block', 'true_outs', 'false_outs'}.
  When a gradient must replay random branches, the forward op also outputs
  'RngState': [name] (the generator state at branch entry) and the gradient's
  ``cond`` reads it as input 'RngState', restoring it while its branch recomputes
  the forward (so dropout masks match), then putting the stream back.
- ``while``: inputs {'Condition': [pred], 'X': [initial carries], 'Params': [outer names read inside]},
  outputs {'Out': [final carries]} (+ 'StepScopes': [name] when a gradient needs the
  per-iteration carries), attrs {'sub_block', 'carry_in', 'carry_out', 'cond_out'}.

Their run-time callables come from ``build_kernel(op, compiler)``: each sub-block is
compiled once, with the same compiler, into a plain Python function.
"""
import builtins

import numpy as np

from ..random import generator, generator_guard
from ..registry import Meta, def_op
from ..printing import format_tensor
from ..trace_state import block_record, note_ran
from .blocks import has_random_ops, is_float_var
from .control_flow_grad import cond_grad, while_grad
from .passes.effects import persistables_written
from .passes.features import enabled


def _merge_meta(a, b):
    if len(a.shape) != len(b.shape):
        return Meta(a.shape, a.dtype)
    return Meta(tuple(x if x == y else -1 for x, y in zip(a.shape, b.shape)), a.dtype)


def _var_meta(block, name):
    v = block.var(name)
    return Meta(v.shape, v.dtype)


def _cond_infer(pred, inputs, rng_state=None, true_block=None, false_block=None, true_outs=(), false_outs=()):
    return [_merge_meta(_var_meta(true_block, t), _var_meta(false_block, f))
            for t, f in zip(true_outs, false_outs)], []


def _check_pred(pred, what):
    if pred.size != 1:
        raise ValueError(f"{what}: the predicate must have exactly one element, got shape {list(pred.shape)} "
                         "(its truth value is ambiguous, as eagerly); reduce it first (e.g. rt.all(c) or rt.any(c))")


def _build_cond(op, compiler):
    inputs = op.input("Input")
    a = op.attrs
    tb, fb = a["true_block"], a["false_block"]
    # Each branch is compiled when it first runs: a branch no run takes (one of each pair, often,
    # and with it every block nested in it) costs nothing.
    true_fn = false_fn = None

    # A gradient recomputes the taken branch: its random ops must draw the same numbers again.
    record = bool(op.outputs.get("RngState"))
    t_idx, f_idx = tb.idx, fb.idx

    def run_cond(pred, xs, replay):
        nonlocal true_fn, false_fn
        if pred.size != 1:
            _check_pred(pred, "cond")
        if pred:
            fn, idx = true_fn, t_idx
            if fn is None:
                fn = true_fn = compiler.compile(tb, inputs, a["true_outs"], name=f"true_block{t_idx}")
        else:
            fn, idx = false_fn, f_idx
            if fn is None:
                fn = false_fn = compiler.compile(fb, inputs, a["false_outs"], name=f"false_block{f_idx}")
        note_ran(idx)
        state = [generator().bit_generator.state] if record else []
        if not replay:
            return fn(*xs), state
        with generator_guard(replay[0]):  # this thread only: others keep drawing from the shared stream
            return fn(*xs), state
    return run_cond


def_op("cond", ["Cond", "Input*", "RngState*"], ["Out*", "RngState*"],
       attrs={"true_block": None, "false_block": None, "true_outs": [], "false_outs": []},
       build_kernel=_build_cond, infer=_cond_infer, grad=cond_grad, onnx="cond",
       doc="Run true_block or false_block (sub-blocks reading 'Input') by the one-element bool 'Cond'; "
           "'RngState' out records the generator state at branch entry, 'RngState' in replays one.")


def _while_infer(pred, xs, params, sub_block=None, carry_in=(), carry_out=(), cond_out=""):
    return [_merge_meta(_var_meta(sub_block, i), _var_meta(sub_block, o)) for i, o in zip(carry_in, carry_out)], []


_NOTHING = frozenset()  # what a step of a body without branches or loops enters


def _build_while(op, compiler):
    a = op.attrs
    params = op.input("Params")
    n = len(a["carry_in"])
    sub = a["sub_block"]
    idx = sub.idx
    save = "StepScopes" in op.outputs
    # How many steps (and, for a body with branches, what each step entered) decides what a
    # gradient reaches (passes.reached), so a recorded run records them for each loop a gradient
    # may pass: in the main block, those whose steps the gradient replays (StepScopes); in a
    # branch or a loop body, any with a float value in or out (its gradient is a copy's, built
    # for the enclosing op), unless an enclosing loop no gradient passes runs it.
    if op.block.parent_idx < 0:
        counted = save
    else:
        counted = any(is_float_var(sub._find_var(c)) for c in a["carry_in"]) or \
            any(is_float_var(op.block._find_var(p)) for p in params)
    flow = any(o.sub_blocks() for o in sub.ops)  # a body with branches or loops: record each step
    # Persistable state the body writes (batch norm's running statistics under a branch) is read
    # again at every step, as eagerly: the value passed in at the start is stale after one step.
    written = persistables_written(sub, compiler._written)
    fresh = [(k, name) for k, name in enumerate(params) if name in written]
    if fresh:
        bound = compiler.program.bound_tensors
        readers = [(k, (lambda t=bound[name]: t._value) if name in bound
                    else (lambda name=name: compiler._read_scope(name))) for k, name in fresh]
    # The backward recomputes each step: random ops must draw the same numbers again.
    rng = save and has_random_ops(sub)

    def compile_body(name, loop=None):  # the step body, or (loop=n) the whole loop in one function
        return compiler.compile(sub, list(a["carry_in"]) + params, list(a["carry_out"]) + [a["cond_out"]],
                                name=f"{name}{idx}", loop=loop)
    body = None

    def run_while(pred, xs, ps):
        nonlocal body
        if pred.size != 1:
            _check_pred(pred, "while_loop")
        if not pred:
            return list(xs), ([[]] if save else [])
        if body is None:  # compiled at the first step
            body = compile_body("while_body")
        xs = tuple(xs)
        steps = [] if save else None
        count = 0

        def step():
            nonlocal xs, ps, count
            if save:
                steps.append((xs, generator().bit_generator.state if rng else None))
            if fresh:
                ps = list(ps)
                for k, read in readers:
                    ps[k] = read()
            res = body(*xs, *ps)
            xs = res[:n]
            count += 1
            return res[n]

        def run():
            nonlocal pred
            while pred:
                pred = step()
        record = block_record()
        if record is None:
            run()
        elif counted and record.counting:
            record.into.add(idx)
            if flow:
                record.into.add((idx, record.steps(step, pred)))
            else:
                run()
                record.into.add((idx, ((_NOTHING, count),)))
        else:
            record.into.add(idx)
            record.uncounted(run)
        return list(xs), ([steps] if save else [])
    if save or fresh or not enabled("compiled_loops"):
        return run_while  # the body is compiled when the loop first makes a step
    # No per-step record: the loop runs in generated code, compiled when it first makes a step (as
    # a cond's branch is when it first runs): a loop no run enters, or one only recorded runs step
    # through (run_while), costs nothing to build.
    loop = None

    def run_loop(pred, xs, ps):
        nonlocal loop
        if pred.size != 1:
            _check_pred(pred, "while_loop")
        if not pred:
            return list(xs), []
        record = block_record()
        if record is not None and counted and record.counting:  # its steps are recorded: step by step
            return run_while(pred, xs, ps)
        if loop is None:
            loop = compile_body("while_loop", loop=n)
        if record is not None:
            record.into.add(idx)
            return list(record.uncounted(loop, pred, *xs, *ps)), []
        return list(loop(pred, *xs, *ps)), []
    return run_loop


def_op("while", ["Condition", "X*", "Params*"], ["Out*", "StepScopes*"],
       attrs={"sub_block": None, "carry_in": [], "carry_out": [], "cond_out": ""},
       build_kernel=_build_while, infer=_while_infer, grad=while_grad, onnx="while",
       doc="Run sub_block while its predicate holds, carrying X; 'StepScopes' keeps each step's carries.")


# -- helpers the builders and gradients use ------------------------------------------------
def _fill_like_kernel(x, value=0.0, dtype=None):
    return np.full(np.shape(x), value, dtype=x.dtype if dtype is None else dtype)


def_op("fill_constant_like", ["X"], ["Out"], attrs={"value": 0.0, "dtype": None},
       kernel=_fill_like_kernel, onnx="fill_like",
       infer=lambda x, value=0.0, dtype=None: Meta(x.shape, x.dtype if dtype is None else dtype),
       doc="A tensor of X's (run-time) shape filled with one value (gradient seeds and zeros).")


def _assert_kernel(cond, data, message="", summarize=20, error=""):
    if not np.all(cond):
        msg = message or "Assert failed"
        if data:
            msg += " " + " ".join(np.array2string(np.asarray(d).ravel()[:summarize], separator=", ") for d in data)
        raise _error_type(error)(msg)


def _error_type(name):
    """The built-in exception class ``name`` (`raise ValueError(...)` under a run-time condition
    raises a ValueError, as eagerly), else AssertionError."""
    cls = getattr(builtins, name, None) if name else None
    return cls if isinstance(cls, type) and issubclass(cls, Exception) else AssertionError


def_op("assert", ["Cond", "Data*"], [], attrs={"message": "", "summarize": 20, "error": ""},
       kernel=_assert_kernel, infer=lambda cond, data, **_: (), side_effect=True, check=True, onnx="side_effect",
       doc="Raise AssertionError(message) (or the built-in exception named by `error`) at run time when Cond is False.")


_INT_OPS = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
            "rsub": lambda x, y: y - x, "neg": lambda x, y: -x, "abs": lambda x, y: abs(x),
            "pow": lambda x, y: x ** y if abs(x) <= 1 or y <= 64 else 1 << 64}  # |x| >= 2, y > 64: over 2**63


def _int_overflow_kernel(x, y, out, op="add", message=""):
    # Python's unbounded ints on the operands: an int64 result that differs from them wrapped at 2**63
    exact = _INT_OPS[op]
    if out.size == 1 and x.size == 1 and y.size == 1:  # a Python int is one value: `.item()` is its int
        if exact(x.item(), y.item()) == out.item():
            return
    elif np.array_equal(np.vectorize(lambda a, b: exact(int(a), int(b)), otypes=[object])(x, y), out.astype(object)):
        return
    raise OverflowError(message or "int64 overflow")


def _int_overflow_fast(block, op):
    """The check with its attributes bound (it runs once per loop iteration of a carried Python int)."""
    exact, message = _INT_OPS[op.attrs["op"]], op.attrs["message"] or "int64 overflow"

    def check(x, y, out):
        if out.size == 1 and x.size == 1 and y.size == 1:
            if exact(x.item(), y.item()) == out.item():
                return
        _int_overflow_kernel(x, y, out, op.attrs["op"], message)
    return check


# Not a saved ``check``: a saved model served by onnxruntime would lose its backend to every `b * t`
# of two dims (the guard is against passing 2**63, which array dims do not reach); README says so.
def_op("python_int_check", ["X", "Y", "Out"], [], attrs={"op": "add", "message": ""},
       kernel=_int_overflow_kernel, infer=lambda x, y, out, **_: (), side_effect=True, onnx="side_effect",
       fast=_int_overflow_fast,
       doc="Raise OverflowError(message) at run time when Out is not X op Y computed on Python's unbounded "
           "ints: arithmetic on values standing for Python ints wraps at 2**63 in int64, where Python's does not.")


def format_values(values, names, message, summarize=20):
    """The text a ``print`` op shows: ``message`` then one line per value (name, shape, dtype, first ``summarize``)."""
    lines = [message] if message else []
    for i, v in enumerate(values):
        v = np.asarray(v)
        label = names[i] if i < len(names) else f"arg{i}"
        body = np.array2string(v.ravel()[:summarize] if summarize >= 0 else v.ravel(), separator=", ")
        lines.append(f"{label}: shape={list(v.shape)} dtype={v.dtype} data={body}")
    return "\n".join(lines)


def format_template(xs, template, stop_gradients=()):
    """Rebuild what ``print(...)`` would show eagerly: ``["s", text]`` pieces are literal text,
    ``["t", spec, conversion]`` pieces take the next value of ``xs``, formatted as the Tensor
    would be (``str``, ``repr`` or a format spec on a one-element value); ``["p", spec, conversion]``
    pieces format it as the Python number it stands for."""
    out, k = [], 0
    for piece in template:
        if piece[0] == "s":
            out.append(piece[1])
            continue
        spec, conversion = piece[1], piece[2]
        v = np.asarray(xs[k])
        sg = stop_gradients[k] if k < len(stop_gradients) else True
        k += 1
        if piece[0] == "p":  # a value standing for a Python number prints as that number
            value = v.item()
            out.append(format({"s": str, "r": repr, "a": ascii}.get(conversion, lambda x: x)(value), spec))
        elif conversion in ("s", "r", "a"):  # f"{t!s:>30}": the Tensor's text, then the spec (pads it)
            out.append(format(format_tensor(v, sg), spec or ""))
        elif spec:
            if v.size != 1:
                raise TypeError(f"format spec {spec!r} needs a one-element Tensor, got shape {list(v.shape)}")
            out.append(format(v.item(), spec))
        else:
            out.append(format_tensor(v, sg))
    return "".join(out)


def _print_kernel(xs, message="", names=(), summarize=20, template=(), stop_gradients=(), end="\n"):
    if template:  # a `print(...)` from converted code: print exactly as eager mode would
        print(format_template(xs, template, stop_gradients), end=end, flush=True)
        return
    print(format_values(xs, names, message, summarize), flush=True)


def_op("print", ["X*"], [], attrs={"message": "", "names": [], "summarize": 20, "template": [],
                                   "stop_gradients": [], "end": "\n"},
       kernel=_print_kernel, infer=lambda xs, **_: (), side_effect=True, onnx="side_effect",
       doc="Print the values of X at every run (as eager `print` does when `template` is given).")
