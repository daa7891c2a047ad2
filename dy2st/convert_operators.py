"""The runtime interface generated code calls (imported there as `_jst`).

Every function decides while the Program is being built: a symbolic value (a
`rt.static.Variable`) becomes a graph op (`cond`, `while`, `logical_*`, `assert`, `print`,
`shape`); a Python value or an eager `rt.Tensor` runs as plain Python (eager tensors through
`bool(t)`), so Python-valued control flow is decided once, at trace time.

Branch/loop functions return their outputs as: nothing (no names), the value (one name) or a
tuple (several), matching the assignment the loop/branch pass writes.
"""
import runtime as rt
import runtime.static  # noqa: F401  (rt.static: Variable, nn.cond, nn.while_loop)

from dy2st import convert_call as _convert_call
from dy2st import staging
from dy2st.pyct import origin_info
from dy2st.pyct.undefined import RETURN_NO_VALUE, UndefinedVar, user_location

__all__ = ["UndefinedVar", "RETURN_NO_VALUE", "Call", "And", "Or", "Not", "IfElse", "While",
           "For", "Range", "Enumerate", "Zip", "Assert", "Print", "Len", "Shape", "Append",
           "Stack", "Concat", "TensorArray"]

def Call(fn):
    """`f(x)` in user code becomes `_jst.Call(f)(x)`: user functions are converted too."""
    # Looked up at call time: convert_call imports the pipeline, which imports this module.
    return _convert_call.convert_call(fn)


def is_symbolic(x):
    return isinstance(x, rt.static.Variable)


def truth(x):
    """Python truth of a Python value or an eager (one-element) tensor."""
    return bool(x)


def _pack(result, n):
    if n == 0:
        return ()
    if n == 1:
        return (result,)
    return tuple(result)


def _unpack(values, n):
    if n == 0:
        return None
    if n == 1:
        return values[0]
    return tuple(values)


def _with_location(message):
    file, line, text = user_location()
    if file is None:
        return message
    return f'{message}\n  File "{file}", line {line}\n    {text.strip()}'


def _py_items(x):
    """Iterate an eager tensor along its first dim; anything else as Python does."""
    if rt.is_tensor(x) and not is_symbolic(x):
        return [x[k] for k in range(x.shape[0])]
    return x


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
def _bool_var(x):
    return x if x.dtype == "bool" else rt.cast(x, "bool")


def _as_bool_var(x):
    if is_symbolic(x):
        return _bool_var(x)
    return rt.full([], bool(truth(x)), "bool")


def And(*thunks):
    """`a and b and ...` with each operand after the first given as a thunk (short-circuit)."""
    value = thunks[0]()
    for i in range(1, len(thunks)):
        if is_symbolic(value):
            staging.record("and", "logical_and op", f"operand {i} is {staging.describe(value)}")
            rest = And(*thunks[i:])
            return rt.logical_and(_bool_var(value), _as_bool_var(rest))
        if not truth(value):
            staging.record("and", None, f"operand {i} is {staging.describe(value)}: short-circuits at trace time")
            return value
        value = thunks[i]()
    staging.record("and", None, "operands are Python values: evaluated at trace time")
    return value


def Or(*thunks):
    """`a or b or ...`, as `And`."""
    value = thunks[0]()
    for i in range(1, len(thunks)):
        if is_symbolic(value):
            staging.record("or", "logical_or op", f"operand {i} is {staging.describe(value)}")
            rest = Or(*thunks[i:])
            return rt.logical_or(_bool_var(value), _as_bool_var(rest))
        if truth(value):
            staging.record("or", None, f"operand {i} is {staging.describe(value)}: short-circuits at trace time")
            return value
        value = thunks[i]()
    staging.record("or", None, "operands are Python values: evaluated at trace time")
    return value


def Not(x):
    if is_symbolic(x):
        staging.record("not", "logical_not op", f"operand is {staging.describe(x)}")
        return rt.logical_not(_bool_var(x))
    staging.record("not", None, f"operand is {staging.describe(x)}: evaluated at trace time")
    return not truth(x)


def Assert(cond, message=None):
    if is_symbolic(cond):
        msg = message if message is not None else "assertion failed"
        file, line, text = user_location()
        if file is not None:
            msg = f"{msg} ({file}, line {line}: {text.strip()})"
        staging.record("assert", "assert op", f"condition is {staging.describe(cond)}: checked at every run")
        return rt.static.nn.Assert(_bool_var(cond), msg)
    staging.record("assert", None, f"condition is {staging.describe(cond)}: checked once at trace time")
    if not truth(cond):
        raise AssertionError(message) if message is not None else AssertionError()
    return None


def Print(*values, **kwargs):
    """Python values print now; symbolic tensors through a `print` op at every run."""
    # A shape with unknown dims prints as the `shape` op's value, at run time.
    values = [v.as_tensor() if isinstance(v, _SymbolicShape) else v for v in values]
    if any(is_symbolic(v) for v in values):
        message = " ".join(str(v) for v in values if not is_symbolic(v)) or None
        staging.record("print", "print op", "prints Tensor values at every run")
        return rt.static.nn.Print(*[v for v in values if is_symbolic(v)], message=message)
    staging.record("print", None, "only Python values: printed once at trace time")
    print(*values, **kwargs)
    return None


def Len(x):
    if isinstance(x, TensorArray):
        return x.length()
    if is_symbolic(x):
        if x.ndim == 0:
            raise TypeError(f"len() of a 0-d tensor '{x.name}'")
        if x.shape[0] >= 0:
            return x.shape[0]
        return rt.shape(x)[0]
    return len(x)


class _SymbolicShape(list):
    """A Variable's shape: known dims as ints, unknown ones as elements of a `shape` op."""

    def __init__(self, var):
        dims = var.shape
        self._runtime = rt.shape(var) if any(d < 0 for d in dims) else None
        super().__init__(d if d >= 0 else self._runtime[i] for i, d in enumerate(dims))

    def as_tensor(self):
        return self._runtime


def Shape(x):
    if is_symbolic(x) and any(d < 0 for d in x.shape):
        return _SymbolicShape(x)
    return x.shape


def origin_of(generated_filename, generated_lineno):
    """Re-exported for error mapping: the user line behind a generated line."""
    return origin_info.origin_of(generated_filename, generated_lineno)


# ---------------------------------------------------------------------------- if / else
def _tensorizable(v):
    if isinstance(v, UndefinedVar):
        return False
    if rt.is_tensor(v) or isinstance(v, (bool, int, float)):
        return True
    return isinstance(v, (list, tuple)) and len(v) > 0 and all(_tensorizable(e) for e in v)


def _dummy_like(v):
    """A constant with `v`'s dtype and rank, standing in on a path where a value is unset."""
    if isinstance(v, (list, tuple)):
        return type(v)(_dummy_like(e) for e in v)
    if rt.is_tensor(v):
        return rt.full([d if d >= 0 else 1 for d in v.shape], 0, v.dtype)
    return type(v)(0)


def IfElse(pred, true_fn, false_fn, args=(), names=None):
    """Run one branch (Python/eager pred) or build a `cond` op (symbolic pred).

    names: the output variable names, or None for one unnamed value (a ternary).
    """
    if not is_symbolic(pred):
        taken = bool(truth(pred))
        staging.record("if", None, f"condition is {staging.describe(pred)}: decided at trace time")
        return (true_fn if taken else false_fn)(*args)
    staging.record("if", "cond op", f"condition is {staging.describe(pred)}")
    labels = list(names) if names is not None else ["<value of the conditional expression>"]
    n = len(labels)
    single = names is None or n == 1
    pack = (lambda r: (r,)) if single else (lambda r: _pack(r, n))
    pred = pred if pred.dtype == "bool" else rt.cast(pred, "bool")
    outs = _build_cond(pred, true_fn, false_fn, args, labels, pack)
    if outs is None:  # the first branch left a return value unset that the other set: swap
        outs = _build_cond(rt.logical_not(pred), false_fn, true_fn, args, labels, pack)
    if names is None or n == 1:
        return outs[0]
    return None if n == 0 else tuple(outs)


class _InBranch(Exception):
    """Carries an exception raised by user code inside a branch or loop body past the
    wrappers that explain genuine branch/loop disagreements."""

    def __init__(self, error):
        super().__init__(error)
        self.error = error


def _user_code(fn, *args):
    try:
        return fn(*args)
    except _InBranch:
        raise
    except Exception as e:  # noqa: BLE001  (re-raised unchanged by the caller)
        raise _InBranch(e) from None


def _build_cond(pred, first_fn, second_fn, args, labels, pack):
    state = {}

    def first():
        outs = pack(_user_code(first_fn, *args))
        state["first"] = outs
        state["keep"] = [i for i, v in enumerate(outs) if _tensorizable(v)]
        return [outs[i] for i in state["keep"]]

    def second():
        outs = pack(_user_code(second_fn, *args))
        state["second"] = outs
        ret = []
        for i in state["keep"]:
            v = outs[i]
            if isinstance(v, UndefinedVar):
                v = _dummy_like(state["first"][i])  # result is discarded (or guarded) below
            elif not _tensorizable(v):
                raise ValueError(_with_location(
                    f"variable '{labels[i]}' is {_describe(state['first'][i])} in one branch of a "
                    f"tensor-dependent `if` and {_describe(v)} in the other"))
            ret.append(v)
        return ret

    try:
        results = rt.static.nn.cond(pred, first, second)
    except _InBranch as wrapped:
        raise wrapped.error.with_traceback(wrapped.error.__traceback__) from None
    except ValueError as e:
        raise ValueError(_with_location(
            f"the branches of a tensor-dependent `if` disagree about {', '.join(labels)}: {e}")) from e
    results = list(results) if results is not None else []
    merged = []
    kept = dict(zip(state["keep"], results))
    for i, (a, b) in enumerate(zip(state["first"], state["second"])):
        if i in kept:
            if b is RETURN_NO_VALUE or (isinstance(b, UndefinedVar) and a is not RETURN_NO_VALUE
                                        and not isinstance(a, UndefinedVar) and b is not a):
                if b is not RETURN_NO_VALUE:
                    staging.record("undefined", None, labels[i])
                merged.append(kept[i] if b is RETURN_NO_VALUE else UndefinedVar(labels[i]))
            elif type(a) in (bool, int, float) and type(a) is type(b) and a == b:
                merged.append(a)  # unchanged Python values stay Python
            else:
                merged.append(kept[i])
        elif a is b or (type(a) is type(b) and _plain(a) and a == b):
            merged.append(a)
        elif a is RETURN_NO_VALUE and _tensorizable(b):
            return None
        elif isinstance(a, UndefinedVar) or isinstance(b, UndefinedVar):
            staging.record("undefined", None, labels[i])
            merged.append(UndefinedVar(labels[i]))
        else:
            raise ValueError(_with_location(
                f"variable '{labels[i]}' is {_describe(a)} in one branch of a tensor-dependent "
                f"`if` and {_describe(b)} in the other"))
    return merged


def _plain(v):
    return v is None or isinstance(v, (str, bool, int, float))


def _describe(v):
    if isinstance(v, UndefinedVar):
        return "undefined"
    if rt.is_tensor(v):
        return f"a {v.dtype} tensor of shape {list(v.shape)}"
    return f"{type(v).__name__} {v!r}"


# ---------------------------------------------------------------------------- loops
def While(cond, body, args, names):
    """Python loop while the condition is a Python value; a `while` op once it is symbolic."""
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
            return _unpack(_symbolic_while(cond, loop_body, values, names), n)
        if not truth(c):
            staging.record("while", None, f"condition is {staging.describe(c)}: "
                                          f"unrolled at trace time ({iterations} iterations)")
            return _unpack(values, n)
        values = _pack(body(*values), n)
        iterations += 1


def _symbolic_while(cond, body, values, names, prefix=()):
    """Build a `while` op. `prefix`: hidden carries (e.g. a for loop's counter) before `values`.

    Python numbers become 0-d tensors; values that are not numbers or tensors (None, strings,
    modules...) must come out of the body unchanged and are kept out of the op.
    """
    n = len(names)
    names = list(names)
    carried = [i for i, v in enumerate(values) if not (_plain(v) and not isinstance(v, (bool, int, float)))
               and not _is_static_object(v)]
    values = _initialise_unknown_carries(body, prefix, values, carried)
    loop_vars = list(prefix) + [_to_tensor(values[i], names[i]) for i in carried]
    arrays = {k: type(v) for k, v in enumerate(loop_vars) if isinstance(v, TensorArray)}
    p = len(prefix)

    def rebuild(flat):
        flat = [TensorArray(v) if k in arrays else v for k, v in enumerate(flat)]
        full = list(values)
        for k, i in enumerate(carried):
            full[i] = flat[p + k]
        return flat[:p], full

    def flatten(vals):
        return [v.tensor if isinstance(v, TensorArray) else v for v in vals]

    def cond_fn(*flat):
        hidden, full = rebuild(flat)
        c = cond(*hidden, *full)
        return c if is_symbolic(c) else rt.full([], bool(truth(c)), "bool")

    def body_fn(*flat):
        hidden, full = rebuild(flat)
        new_hidden, outs = _user_code(body, *hidden, *full)
        outs = list(outs)
        for i, v in enumerate(outs):
            if i not in carried and v is not values[i] and not (_plain(v) and v == values[i]):
                raise ValueError(_with_location(
                    f"variable '{names[i]}' holds {_describe(values[i])} and a tensor-dependent "
                    f"loop changes it to {_describe(v)}; only tensors and numbers can change in such a loop"))
        new = []
        for k, i in enumerate(carried):
            v = outs[i]
            if isinstance(v, list):
                v = TensorArray.from_list(v, names[i])
            elif not rt.is_tensor(v) and not isinstance(v, TensorArray) and isinstance(v, (bool, int, float)):
                old = loop_vars[p + k]
                v = rt.full([], v, old.dtype if rt.is_tensor(old) else _PY_DTYPE[2][1])
            new.append(v)
        return flatten(list(new_hidden) + new)

    try:
        results = rt.static.nn.while_loop(cond_fn, body_fn, flatten(loop_vars))
    except _InBranch as wrapped:
        raise wrapped.error.with_traceback(wrapped.error.__traceback__) from None
    except ValueError as e:
        raise ValueError(_with_location(
            f"the tensor-dependent loop changes the dtype or rank of one of {', '.join(names)}: {e}")) from e
    hidden, full = rebuild(list(results))
    return tuple(full)


def _needs_probe(v):
    return isinstance(v, UndefinedVar) or (isinstance(v, list) and not v)


def _initialise_unknown_carries(body, prefix, values, carried):
    """Give carries with no value yet (a `return` value, a name first assigned in the loop, an
    empty list appended to) a start value of the dtype/rank the body gives them.

    The body is traced once into a scratch Program, thrown away, to see what comes out; the
    start value is a zero constant (or an empty tensor array) that the loop overwrites.
    """
    if not any(_needs_probe(values[i]) for i in carried):
        return values
    probe_values = [list(v) if isinstance(v, list) else
                    (_to_tensor(v, "") if isinstance(v, (bool, int, float)) else v) for v in values]
    with rt.static.program_guard(rt.static.Program()):
        _, outs = body(*prefix, *probe_values)
    values = list(values)
    for i in carried:
        if not _needs_probe(values[i]):
            continue
        out = outs[i]
        if isinstance(values[i], list) and isinstance(out, list) and out and rt.is_tensor(out[-1]):
            item = out[-1]
            if all(d >= 0 for d in item.shape):
                values[i] = TensorArray(rt.zeros([0] + list(item.shape), item.dtype))
        elif isinstance(values[i], UndefinedVar) and _tensorizable(out):
            values[i] = _dummy_like(out)
    return tuple(values)


def _is_static_object(v):
    return not (rt.is_tensor(v) or isinstance(v, (bool, int, float, list, UndefinedVar, TensorArray)))


def For(iterable, body, args, names, extra_test=None):
    """`for` over Python iterables (run now, per item) or tensors/tensor ranges (a `while` op)."""
    n = len(names)
    if isinstance(iterable, _TensorSequence) or is_symbolic(iterable):
        seq = iterable if isinstance(iterable, _TensorSequence) else _TensorRows(iterable)
        staging.record("for", "while op", f"iterates over {_describe_sequence(seq)}")
        return _unpack(_symbolic_for(seq, body, tuple(args), names, extra_test), n)
    values = tuple(args)
    staging.record("for", None, f"iterates over a Python {type(iterable).__name__}: unrolled at trace time")
    for item in _py_items(iterable):
        if extra_test is not None:
            go = extra_test(*values)
            if is_symbolic(go):
                # A tensor-valued `break` happened: later iterations run only where it did not.
                values = _pack(IfElse(go, lambda *v: body(item, *v), lambda *v: _unpack(v, n),
                                      values, names), n)
                continue
            if not truth(go):
                break
        values = _pack(body(item, *values), n)
    return _unpack(values, n)


def _describe_sequence(seq):
    if isinstance(seq, _TensorRange):
        return "a range with Tensor bounds"
    if isinstance(seq, _TensorRows):
        return f"the rows of {staging.describe(seq.x)}"
    return f"a Tensor-backed {type(seq).__name__.lstrip('_').replace('Tensor', '').lower() or 'sequence'}"


def _symbolic_for(seq, body, values, names, extra_test):
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

    return _symbolic_while(cond, loop_body, values, names, prefix=(counter,))


class _TensorSequence:
    """Something a symbolic `for` walks by index: `length()` and `item(k)` (k an int64 tensor)."""


class _TensorRows(_TensorSequence):
    def __init__(self, x):
        self.x = x

    def length(self):
        return Len(self.x)

    def item(self, k):
        return self.x[k]


class _TensorRange(_TensorSequence):
    def __init__(self, start, stop, step):
        self.start, self.stop, self.step = start, stop, step

    def length(self):
        span = self.stop - self.start
        if isinstance(self.step, int) and self.step > 0:
            return (span + (self.step - 1)) // self.step
        return rt.maximum((span + self.step - rt.sign(self.step)) // self.step, rt.full([], 0, "int64"))

    def item(self, k):
        return self.start + k * self.step


class _TensorEnumerate(_TensorSequence):
    def __init__(self, inner, start):
        self.inner, self.start = inner, start

    def length(self):
        return self.inner.length()

    def item(self, k):
        return (k + self.start, self.inner.item(k))


class _TensorZip(_TensorSequence):
    def __init__(self, parts):
        self.parts = parts

    def length(self):
        lengths = [p.length() for p in self.parts]
        out = lengths[0]
        for other in lengths[1:]:
            out = rt.minimum(_as_int_var(out), _as_int_var(other))
        return out

    def item(self, k):
        return tuple(p.item(k) for p in self.parts)


def _as_int_var(x):
    return x if rt.is_tensor(x) else rt.full([], x, "int64")


def _as_sequence(x):
    return x if isinstance(x, _TensorSequence) else _TensorRows(x)


def Range(*args):
    if any(is_symbolic(a) for a in args):
        start, stop, step = (0, args[0], 1) if len(args) == 1 else (tuple(args) + (1,))[:3]
        return _TensorRange(start, stop, step)
    return range(*[int(a) if rt.is_tensor(a) else a for a in args])


def Enumerate(x, start=0):
    if isinstance(x, _TensorSequence) or is_symbolic(x):
        return _TensorEnumerate(_as_sequence(x), start)
    return enumerate(_py_items(x), start)


def Zip(*xs):
    if any(isinstance(x, _TensorSequence) or is_symbolic(x) for x in xs):
        return _TensorZip([_as_sequence(x) for x in xs])
    return zip(*[_py_items(x) for x in xs])


# ---------------------------------------------------------------------------- lists in loops
class TensorArray:
    """A Python list of same-shaped tensors inside a tensor loop: one tensor, items stacked on
    a dynamic first dim, so its rank is fixed and it can be a `while` carry."""

    def __init__(self, tensor):
        self.tensor = tensor

    @classmethod
    def from_list(cls, items, name):
        if not items:
            raise ValueError(_with_location(
                f"list '{name}' is appended to in a tensor-dependent loop but is empty before "
                "it, and its items' dtype and shape could not be fixed (the loop appends nothing "
                "recognisable, or items have dims known only at run time): start it with one "
                "item (and drop it after), or build it with a Python loop"))
        return cls(rt.stack([i if rt.is_tensor(i) else rt.to_tensor(i) for i in items], axis=0))

    def append(self, item):
        return TensorArray(rt.concat([self.tensor, rt.unsqueeze(item, 0)], axis=0))

    def length(self):
        return Len(self.tensor)

    def __getitem__(self, index):
        return self.tensor[index]

    def __iter__(self):
        raise TypeError("a list built in a tensor-dependent loop has a length known only when the "
                        "Program runs; index it, or use rt.stack / rt.concat on it")

    def __repr__(self):
        return f"TensorArray({self.tensor!r})"


def Append(lst, item):
    """`lst.append(item)`, written back: the same Python list, or a new TensorArray."""
    if isinstance(lst, TensorArray):
        return lst.append(item)
    lst.append(item)
    return lst


def Stack(items, axis=0, **kwargs):
    if isinstance(items, TensorArray):
        t = items.tensor
        if axis in (0, -t.ndim):
            return t
        perm = list(range(1, t.ndim))
        perm.insert(axis if axis >= 0 else t.ndim + axis, 0)
        return rt.transpose(t, perm)
    return rt.stack(items, axis=axis, **kwargs)


def Concat(items, axis=0, **kwargs):
    if isinstance(items, TensorArray):
        t = items.tensor
        if axis != 0 or any(d < 0 for d in t.shape[2:]):
            raise ValueError("concat of a list built in a tensor loop supports axis=0 with known item dims")
        return rt.reshape(t, [-1] + list(t.shape[2:]))
    return rt.concat(items, axis=axis, **kwargs)
