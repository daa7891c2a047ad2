"""Helpers every operator shares: is a value symbolic (-> graph op) or Python (-> plain Python)?

Also the calling convention of branch/loop functions (`_pack`/`_unpack`), the user's line for
error messages, and the wrapper that lets an error raised by user code inside a branch or loop
body pass the operators' own explanations unchanged.
"""
import dataclasses
import types

import runtime as rt
import runtime.static  # noqa: F401  (rt.static: Variable)
from runtime.dispatch import EXACT_FLOATS

from dy2st.pyct.undefined import UndefinedVar, user_location


def is_symbolic(x):
    """Whether ``x`` is a static Variable (known only when the Program runs)."""
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
    where = f'\n  File "{file}", line {line}\n    {text.strip()}'
    # a message built around another one that already names this line (a refusal re-worded by the
    # `if` that caught it) names it once
    return message if message.endswith(where) else message + where


def _py_items(x):
    """Iterate an eager tensor along its first dim; anything else as Python does."""
    if rt.is_tensor(x) and not is_symbolic(x):
        return [x[k] for k in range(x.shape[0])]
    return x


EXACT_ATTR = EXACT_FLOATS  # Program attribute: {a carried Python float view's name: its float64 value}


def exact_value(x):
    """The float64 value behind a carried Python float (python_semantics.float_view); ``x`` otherwise."""
    block = getattr(x, "block", None) if is_symbolic(x) else None
    exact = block.program.__dict__.get(EXACT_ATTR, {}).get(x.name) if block is not None else None
    return x if exact is None else exact


def _bool_var(x):
    x = exact_value(x)  # `if acc:` asks about the float64 value (1e-50 is 0 in float32)
    return x if x.dtype == "bool" else rt.cast(x, "bool")


def _as_bool_var(x):
    if is_symbolic(x):
        return _bool_var(x)
    return rt.full([], bool(truth(x)), "bool")


def _length(x):
    """`len(x)` of a symbolic tensor (a known first dim as an int, an unknown one from a `shape`
    op) or of a Python value; `Len` adds TensorArray."""
    if is_symbolic(x):
        if x.ndim == 0:
            raise TypeError(f"len() of a 0-d tensor '{x.name}'")
        if x.shape[0] >= 0:
            return x.shape[0]
        return rt.shape(x)[0]
    return len(x)


def _plain(v):
    return v is None or isinstance(v, (str, bool, int, float))


def _describe(v):
    if isinstance(v, UndefinedVar):
        return "undefined"
    if rt.is_tensor(v):
        return f"a {v.dtype} tensor of shape {list(v.shape)}"
    if isinstance(v, (types.FunctionType, types.MethodType)):
        # its repr names the converted code's nested functions (true_fn_0.<locals>...), not the user's
        return f"function {v.__name__}"
    return f"{type(v).__name__} {v!r}"


def _dataclass_note(*values):
    """What converts when a tensor `if` or loop makes a dataclass instance anew (only tensors,
    numbers and lists, tuples, namedtuples and dicts of them are carried), else ""."""
    if any(dataclasses.is_dataclass(v) and not isinstance(v, type) for v in values):
        return ("; a dataclass instance is not carried through tensor-dependent control flow (nor in "
                "Paddle): make it once and assign its fields there (`st.h = ...`), or use a namedtuple or a dict")
    return ""


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


def _block_count():
    return rt.static.default_main_program().num_blocks


def _drop_blocks(count):
    """Forget the sub-blocks made since there were `count` (a branch or loop traced again
    after a first try that found more to carry): no op refers to them."""
    del rt.static.default_main_program().blocks[count:]
