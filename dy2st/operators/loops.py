"""`_jst.While` / `_jst.For`: a symbolic condition or iterable -> a `while` op; Python conditions
and iterables -> a Python loop, unrolled at trace time.

Carries with no value before a tensor loop are probed: the body is traced once into a scratch
Program to learn their dtype and rank.
"""
import numpy as np

import runtime as rt
import runtime.static  # noqa: F401  (rt.static: nn.while_loop, program_guard, Program)
from dy2st.operators.aliasing import carry_writes, recording_writes, refuse_uncarried
from dy2st.operators.assert_print import Assert
from dy2st.operators.common import (
    _as_bool_var,
    _block_count,
    _describe,
    _drop_blocks,
    _InBranch,
    _pack,
    _plain,
    _py_items,
    _unpack,
    _user_code,
    _with_location,
    is_symbolic,
    truth,
)
from dy2st.operators.ifelse import IfElse, _dummy_like, _tensorizable
from dy2st.operators.loop_closures import check_escaping_closures
from dy2st.operators.python_semantics import MixedInt, _is_python_int, int_kind, mark_int, python_int
from dy2st.operators.sequences import _describe_sequence, _TensorRows, _TensorSequence
from dy2st.operators.side_effects import MISSING, MoreSlots, build_with_slots, probing, tracked
from dy2st.operators.tensor_array import ProbeList, TensorArray
from dy2st.pyct.undefined import RETURN_NO_VALUE, UndefinedVar
from dy2st.tools import staging

_PY_DTYPE = ((bool, "bool"), (int, "int64"), (float, "float32"))


def _to_tensor(value, name):
    """A loop carry as a Variable: Python bool/int/float -> 0-d constant of the API's dtype."""
    if rt.is_tensor(value) or isinstance(value, TensorArray):
        return value
    for py_type, dtype in _PY_DTYPE:
        if isinstance(value, py_type):
            return rt.full([], value, dtype)
    if isinstance(value, UndefinedVar):
        raise ValueError(_with_location(
            f"variable '{name}' is carried by a tensor-dependent loop but has no value before "
            "it (it is first assigned inside the loop, or a `return` sits inside the loop): "
            "give it an initial value of the right dtype and shape before the loop"))
    if isinstance(value, list):
        return TensorArray.from_list(value, name)
    raise ValueError(_with_location(
        f"variable '{name}' is changed by a tensor-dependent loop but holds "
        f"{type(value).__name__} {value!r}, which cannot be a loop variable of a Program"))


def While(cond, body, args, names, writes=None):
    """Python loop while the condition is a Python value; a `while` op once it is symbolic.

    writes: {name: object} of the objects the body writes into (`d[k] = v`, `o.a = v`):
    what a tensor loop writes there is carried like a variable (see `_while_writing`).
    """
    n = len(names)
    values = tuple(args)
    iterations = 0
    while True:
        c = cond(*values)
        if is_symbolic(c):
            staging.record("while", "while op", f"condition is {staging.describe(c)}"
                           + (f" (after {iterations} Python iterations)" if iterations else ""))
            def loop_body(*vals):
                return (), _pack(body(*vals), n)
            return _unpack(_while_writing(tracked(writes, (cond, body), values), cond, loop_body,
                                          values, names), n)
        if not truth(c):
            staging.record("while", None, f"condition is {staging.describe(c)}: "
                                          f"unrolled at trace time ({iterations} iterations)")
            return _unpack(values, n)
        values = _pack(body(*values), n)
        iterations += 1


def _while_writing(snap, cond, body, values, names, prefix=()):
    """`_symbolic_while`, with what the body writes into the objects of `snap` carried too.

    Each written slot (`d['s']`, `o.acc`) is one more carry: the body's trace starts with the
    carry's Variable written into the object and ends by reading the slot back. Slots are
    found by tracing: a body writing one not carried yet makes the loop be built again.
    Afterwards the objects hold the loop's results."""
    if snap is None:
        return _symbolic_while(cond, body, values, names, prefix)
    n, slots = len(names), []

    def put(vals):
        snap.write(dict(zip(slots, vals[n:])))
        return vals[:n]

    def cond_w(*flat):
        hidden, vals = flat[:len(prefix)], put(flat[len(prefix):])
        return cond(*hidden, *vals)

    def body_w(*flat):
        hidden, vals = flat[:len(prefix)], put(flat[len(prefix):])
        new_hidden, outs = body(*hidden, *vals)
        extra = [s for s in snap.changed() if s not in slots]
        if extra:
            raise MoreSlots(extra)
        return new_hidden, tuple(outs) + tuple(snap.current(s) for s in slots)

    def build():
        for slot in slots:
            if snap.original(slot) is MISSING:
                raise ValueError(_with_location(
                    f"{snap.describe(slot)} is added inside a tensor-dependent loop; only a local list "
                    "(`out = []` before the loop, `out.append(v)` in it) or names can grow there: give "
                    "the slot a value before the loop, or collect into a local list"))
        start = tuple(values) + tuple(snap.original(s) for s in slots)
        if not start and not prefix:  # no carry yet (a body that only calls `step()`): a thrown-away
            with rt.static.program_guard(rt.static.Program()), probing():  # trace finds the slots
                body_w()
        labels = list(names) + [snap.describe(s) for s in slots]
        return _symbolic_while(cond_w, body_w, start, labels, prefix)

    full = build_with_slots(snap, slots, build)
    snap.write(dict(zip(slots, full[n:])))
    return full[:n]


def _symbolic_while(cond, body, values, names, prefix=()):
    """Build a `while` op. `prefix`: hidden carries (e.g. a for loop's counter) before `values`.

    Python numbers become 0-d tensors; tuples (a function's `return a, b` value) are carried
    element by element. Values that are not numbers or tensors (None, strings, modules...)
    must come out of the body unchanged and are kept out of the op, as are carries with no
    value that the body leaves unassigned (a `return` or name the trace never reaches).
    """
    names = list(names)
    carried = [i for i, v in enumerate(values) if not (_plain(v) and not isinstance(v, (bool, int, float)))
               and not _is_static_object(v)]
    before = values
    values, carried = _initialise_unknown_carries(body, prefix, values, carried, names)
    # Names that get their first value inside the loop: eager code reading them after a loop
    # that ran zero times raises UnboundLocalError; the Program must not hand back the zero
    # placeholder they start from (checked after the loop is built, see _check_ran).
    first_assigned = [names[i] for i in carried
                      if isinstance(before[i], UndefinedVar) and before[i] is not RETURN_NO_VALUE]
    specs, loop_vars, numbers = [], list(prefix), {}
    for i in carried:
        spec, flat = _carry_spec(values[i], names[i])
        if isinstance(values[i], (bool, int, float)):
            numbers[len(loop_vars)] = values[i]  # flat position -> the Python number it starts as
        specs.append(spec)
        loop_vars.extend(flat)
    p = len(prefix)
    mixed = set()  # carries that are a Python int or an int tensor depending on the trip count

    def rebuild(flat):
        it = iter(flat[p:])
        full = list(values)
        for spec, i in zip(specs, carried):
            full[i] = _rebuild(spec, it)
            if i in mixed or isinstance(values[i], MixedInt):  # int or int tensor by the trip count
                full[i] = mark_int(full[i], "mixed")
            elif _is_python_int(values[i]):  # still a Python int to `/` (true division)
                full[i] = python_int(full[i])
        return list(flat[:p]), full

    def cond_fn(*flat):
        hidden, full = rebuild(flat)
        c = cond(*hidden, *full)
        return c if is_symbolic(c) else rt.full([], bool(truth(c)), "bool")

    traced = []  # (final values, recorded writes, placeholders) of the body's latest trace

    def body_fn(*flat):
        hidden, full = rebuild(flat)
        with recording_writes() as record:
            new_hidden, outs = _user_code(body, *hidden, *full)
        outs = list(outs)
        traced[:] = [(outs, record, full)]
        for i, v in enumerate(outs):
            if i not in carried and v is not values[i] and not (_plain(v) and v == values[i]):
                raise ValueError(_with_location(
                    f"variable '{names[i]}' holds {_describe(values[i])} and a tensor-dependent "
                    f"loop changes it to {_describe(v)}; only tensors and numbers can change in such a loop"))
        turned = {i for i in carried if i not in mixed and int_kind(values[i], outs[i]) == "mixed"}
        if turned:  # a Python int the body makes an int tensor (or back): which one depends on the trip count
            raise _Mixed(turned)
        new, pos = list(new_hidden), p
        for spec, i in zip(specs, carried):
            size = _spec_size(spec)
            new.extend(_conform(spec, outs[i], loop_vars[pos:pos + size], names[i]))
            pos += size
        new = [v.tensor if isinstance(v, TensorArray) else v for v in new]
        widen = {k: (v.dtype, None) for k, (old, v) in enumerate(zip(loop_vars, new))
                 if rt.is_tensor(old) and rt.is_tensor(v) and _widens(old, v)}
        widen.update(_number_reshapes(numbers, loop_vars, new))
        if widen:
            raise _Widen(widen)
        return new

    blocks = _block_count()
    while True:
        try:
            results = rt.static.nn.while_loop(
                cond_fn, body_fn, [v.tensor if isinstance(v, TensorArray) else v for v in loop_vars])
            break
        except _Mixed as m:
            _drop_blocks(blocks)
            mixed.update(m.positions)
            continue
        except _Widen as w:
            # `s = s + i64` with an int32 `s`: eager code widens `s` on the first iteration;
            # the loop carries the wider dtype from the start (differs only if it never runs).
            _drop_blocks(blocks)
            for k, (dtype, shape) in w.casts.items():
                if shape is None:
                    loop_vars[k] = rt.cast(loop_vars[k], dtype)
                else:  # a Python number the body replaces by a tensor: start as that tensor
                    loop_vars[k] = rt.full(shape, numbers.pop(k), dtype)
            continue
        except _InBranch as wrapped:
            raise wrapped.error.with_traceback(wrapped.error.__traceback__) from None
        except ValueError as e:
            raise ValueError(_with_location(
                f"the tensor-dependent loop changes the dtype or rank of one of {', '.join(names)}: {e}")) from e
    if first_assigned:
        _check_ran(cond_fn, [v.tensor if isinstance(v, TensorArray) else v for v in loop_vars], first_assigned)
    hidden, full = rebuild(list(results))
    # an item or in-place write into a carried Variable: the Variable its aliases hold gets the result
    refuse_uncarried(traced, before)
    return tuple(carry_writes(full, traced, before))


def _check_ran(cond_fn, start, first_assigned):
    """An `assert` op: the loop's condition held for its start values (it ran at least once),
    else reading the names it alone assigns is Python's UnboundLocalError."""
    what = ", ".join(f"'{n}'" for n in first_assigned)
    message = (f"UnboundLocalError: {what} is assigned only inside a tensor-dependent loop that ran zero "
               "times, so it has no value after it (give it a value before the loop)")
    ran = cond_fn(*start)
    if not is_symbolic(ran):
        if not truth(ran):
            raise UnboundLocalError(_with_location(message))
        return
    Assert(ran, message)


def _number_reshapes(numbers, loop_vars, new):
    """{flat position: (dtype, shape)} for carries that start as a Python number and that the
    body turns into a tensor of another rank (`s = 0` then `s = s + row`): eager code holds that
    tensor after the first iteration, so the loop starts with the number filled to its shape
    and dtype (the results differ only in kind, not value, if the loop never runs)."""
    out = {}
    for k, number in numbers.items():
        old, v = loop_vars[k], new[k]
        if not (rt.is_tensor(v) and old.ndim != v.ndim and all(d >= 0 for d in v.shape)):
            continue
        kind = np.dtype(v.dtype.np).kind
        if kind == "f" or (kind in "iu" and not isinstance(number, float)) or isinstance(number, bool):
            out[k] = (v.dtype, list(v.shape))
    return out


class _Mixed(Exception):
    """The body turns the Python ints at ``positions`` into int tensors (or back): build again
    with them marked as path-dependent (see python_semantics.MixedInt)."""

    def __init__(self, positions):
        super().__init__(positions)
        self.positions = positions


class _Widen(Exception):
    """The body widens some carries' dtype ({flat position: dtype}): start them wider."""

    def __init__(self, casts):
        super().__init__(casts)
        self.casts = casts


def _widens(old, new):
    """Whether `new` is `old` promoted to a wider dtype of the same rank (int32 -> int64,
    float32 -> float64, int -> float, bool -> int), as one eager iteration would make it."""
    if old.dtype == new.dtype or old.ndim != new.ndim:
        return False
    a, b = np.dtype(old.dtype.np), np.dtype(new.dtype.np)
    rank = {"b": 0, "u": 1, "i": 1, "f": 2}
    if a.kind not in rank or b.kind not in rank:
        return False
    return rank[b.kind] > rank[a.kind] or (a.kind == b.kind and b.itemsize > a.itemsize)


def _carry_spec(value, name):
    """(spec, flat loop vars) of one carry: "leaf" (a tensor), "array" (a TensorArray) or a
    tuple of specs (a tuple, flattened element by element)."""
    if isinstance(value, tuple):
        specs, flat = [], []
        for k, e in enumerate(value):
            spec, f = _carry_spec(e, f"{name}[{k}]")
            specs.append(spec)
            flat.extend(f)
        return tuple(specs), flat
    v = _to_tensor(value, name)
    return ("array" if isinstance(v, TensorArray) else "leaf"), [v]


def _spec_size(spec):
    return sum(_spec_size(s) for s in spec) if isinstance(spec, tuple) else 1


def _rebuild(spec, it):
    if isinstance(spec, tuple):
        return tuple(_rebuild(s, it) for s in spec)
    v = next(it)
    return TensorArray(v) if spec == "array" else v


def _conform(spec, value, start, name):
    """The body's new value of a carry as flat loop vars matching `start`, its flat start vars."""
    if isinstance(spec, tuple):
        if not isinstance(value, (tuple, list)) or len(value) != len(spec):
            raise ValueError(_with_location(
                f"variable '{name}' is a tuple of {len(spec)} before a tensor-dependent loop and "
                f"the loop changes it to {_describe(value)}"))
        out, pos = [], 0
        for k, (s, e) in enumerate(zip(spec, value)):
            size = _spec_size(s)
            out.extend(_conform(s, e, start[pos:pos + size], f"{name}[{k}]"))
            pos += size
        return out
    if isinstance(value, list):
        value = TensorArray.from_list(value, name)
    elif not rt.is_tensor(value) and isinstance(value, (bool, int, float)):
        value = _number_like(value, start[0])
    return [value]


def _number_like(value, old):
    """A Python number the body rebinds a carry to, as a tensor like the carry: its shape
    (the number broadcasts the same way), and its dtype when the number fits it (a float
    into an int carry keeps the float's dtype: the loop then widens or refuses)."""
    py_dtype = next(d for t, d in _PY_DTYPE if isinstance(value, t))
    if not rt.is_tensor(old):
        return rt.full([], value, py_dtype)
    kind = np.dtype(old.dtype.np).kind
    fits = kind == "b" if isinstance(value, bool) else (kind in "iuf" if isinstance(value, int) else kind == "f")
    shape = old.shape if all(d >= 0 for d in old.shape) else []
    return rt.full(shape, value, old.dtype if fits else py_dtype)


def _needs_probe(v):
    return isinstance(v, UndefinedVar) or (isinstance(v, list) and not v)


def _probe_number(v):
    """A Python number carry as the probe's tensor; an int marked as the body will see it (rebuild)."""
    t = _to_tensor(v, "")
    return python_int(t) if type(v) is int else t


def _initialise_unknown_carries(body, prefix, values, carried, names):
    """Give carries with no value yet (a `return` value, a name first assigned in the loop, an
    empty list appended to) a start value of the dtype/rank the body gives them.

    The body is traced once into a scratch Program, thrown away, to see what comes out; the
    start value is a zero constant (or an empty tensor array) that the loop overwrites. A
    carry with no value that the body passes through untouched (its assignment sits on a path
    this trace does not take) is not carried at all. Returns (values, carried).
    """
    if not any(_needs_probe(values[i]) for i in carried):
        return values, carried
    probe_values = [ProbeList(v, names[i]) if isinstance(v, list) else
                    (_probe_number(v) if isinstance(v, (bool, int, float)) else v) for i, v in enumerate(values)]
    with rt.static.program_guard(rt.static.Program()), probing():
        _, outs = body(*prefix, *probe_values)
    values = list(values)
    kept = []
    for i in carried:
        kept.append(i)
        if not _needs_probe(values[i]):
            continue
        out = outs[i]
        if isinstance(values[i], list) and isinstance(out, list) and out and rt.is_tensor(out[-1]):
            item = out[-1]
            # Dims known only at run time start as 1: an empty array takes the first item's
            # real dims when it is appended to (TensorArray.appended reshapes it).
            values[i] = TensorArray(rt.zeros([0] + [d if d >= 0 else 1 for d in item.shape], item.dtype))
        elif isinstance(values[i], UndefinedVar) and out is values[i]:
            kept.pop()
        elif values[i] is RETURN_NO_VALUE and out is None:
            # `return None` inside the loop: the function returns None whether or not the loop
            # returns (falling off its end is None too), so the value is plain Python.
            values[i] = None
            kept.pop()
        elif isinstance(values[i], UndefinedVar) and _tensorizable(out):
            values[i] = _dummy_like(out)
    return tuple(values), kept


def _is_static_object(v):
    if isinstance(v, tuple):  # carried element by element when every element can be
        return not v or any(v_ is None or isinstance(v_, str) or _is_static_object(v_) for v_ in v)
    return not (rt.is_tensor(v) or isinstance(v, (bool, int, float, list, UndefinedVar, TensorArray)))


def For(iterable, body, args, names, extra_test=None, writes=None):
    """`for` over Python iterables (run now, per item) or tensors/tensor ranges (a `while` op)."""
    n = len(names)
    if isinstance(iterable, TensorArray):  # a list built in a tensor loop: walk its rows
        iterable = iterable.tensor
    if isinstance(iterable, _TensorSequence) or is_symbolic(iterable):
        seq = iterable if isinstance(iterable, _TensorSequence) else _TensorRows(iterable)
        staging.record("for", "while op", f"iterates over {_describe_sequence(seq)}")
        return _unpack(_symbolic_for(seq, body, tuple(args), names, extra_test, writes), n)
    values = tuple(args)
    staging.record("for", None, f"iterates over a Python {type(iterable).__name__}: unrolled at trace time")
    count = 0
    for item in _py_items(iterable):
        count += 1
        if extra_test is not None:
            go = extra_test(*values)
            if is_symbolic(go):
                # A tensor-valued `break` happened: later iterations run only where it did not,
                # and so do their writes into objects (`self.last = ...`): `cond` outputs too.
                values = _pack(IfElse(go, lambda *v: body(item, *v), lambda *v: _unpack(v, n),  # noqa: B023  (called at once)
                                      values, names, writes=writes), n)
                continue
            if not truth(go):
                break
        values = _pack(body(item, *values), n)
    check_escaping_closures(body, values, writes, count)
    return _unpack(values, n)


def _symbolic_for(seq, body, values, names, extra_test, writes=None):
    n = len(names)
    length = seq.length()
    counter = rt.full([], 0, "int64")

    def cond(k, *vals):
        more = rt.less_than(k, length if is_symbolic(length) else rt.full([], length, "int64"))
        if extra_test is None:
            return more
        return rt.logical_and(more, _as_bool_var(extra_test(*vals)))

    def loop_body(k, *vals):
        outs = _pack(body(seq.item(k), *vals), n)
        return (k + 1,), outs

    fns = (body,) if extra_test is None else (body, extra_test)
    return _while_writing(tracked(writes, fns, (None,) + tuple(values)), cond, loop_body, values,
                          names, prefix=(counter,))
