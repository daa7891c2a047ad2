"""Writes into Python objects inside tensor-dependent control flow: `Snapshot`.

`res["a"] = v`, `y[0] = v`, `obj.attr = v`, `lst.append(v)` change Python objects, not
Program values. Both branches of a tensor-dependent `if` are traced one after the other, and
a loop body is traced once for every iteration, so without care the last trace would win.
The branch and loop passes name the objects a body may write (`writes=lambda: (res, obj)`);
a `Snapshot` of them lets every trace start from the same contents and tells, as *slots*
(container, key), what a trace changed. The operators then carry those slots like variables
(`cond` outputs, `while` carries) and write the merged values back into the same objects.

Tracked containers: dicts, lists, and the attribute dicts (`vars(obj)`) of user objects and
Layers, followed through dict/list/object values a few levels deep (a Layer keeps its
parameters, sublayers and buffers in the dicts `rt.nn.Layer.STATE_TABLES` names).
"""
import contextlib
import functools
import operator
import types

import runtime as rt
from runtime import inplace, inplace_api
from runtime.ops import indexing

from dy2st.operators.aliasing import write_in_place
from dy2st.operators.common import _block_count, _drop_blocks, _with_location, is_symbolic
from dy2st.operators.tensor_array import TensorArray
from dy2st.pyct.undefined import UndefinedVar

MISSING = UndefinedVar("<missing>")  # the value of a slot a container does not hold


class MoreSlots(Exception):
    """A trace wrote slots the `cond`/`while` does not carry yet: build it again with them."""

    def __init__(self, slots):
        super().__init__(slots)
        self.slots = slots


def build_with_slots(snap, slots, build):
    """``build()`` until no trace finds written slots beyond ``slots`` (extended in place).

    ``snap``'s objects are put back after every try, and the sub-blocks of a discarded try
    are dropped (no op refers to them)."""
    blocks = _block_count()
    while True:
        try:
            result = build()
        except MoreSlots as more:
            snap.restore()
            _drop_blocks(blocks)
            slots += more.slots
            continue
        except BaseException:
            snap.restore()
            raise
        snap.restore()
        return result
_DEPTH = 3
_OPAQUE = (types.ModuleType, types.FunctionType, types.MethodType, types.BuiltinFunctionType, type,
           str, bytes, int, float, bool, complex, tuple, frozenset, set, range, UndefinedVar)
_LAYER_TABLES = frozenset(rt.nn.Layer.STATE_TABLES)


_probing = []


@contextlib.contextmanager
def probing():
    """A scratch trace (a loop body traced once to learn its carries' dtypes): branches may
    disagree about what they write (that trace is thrown away)."""
    _probing.append(True)
    try:
        yield
    finally:
        _probing.pop()


def probing_now():
    """Whether a scratch trace (``probing()``) is running."""
    return bool(_probing)


def tracked(writes, fns=(), args=()):
    """A Snapshot of the objects a branch or loop body may write into, or None if there are none.

    `writes` ({name: object}) names those the pass saw written in the body itself; the objects
    the body functions `fns` capture from the enclosing function and the `args` they get are
    followed too, so writes made by functions the body calls (`self.update(x)`) follow the
    branch taken as well."""
    roots = list((writes or {}).items())
    seen = set()
    for fn in fns:
        code = getattr(fn, "__code__", None)
        if code is None:
            continue
        _closure_roots(fn, roots, seen, 0)
        roots += zip(code.co_varnames[:code.co_argcount], args)
    if not any(_contents(v) is not None for _, v in roots):
        return None
    return Snapshot(roots) or None


def _closure_roots(fn, roots, seen, depth):
    """Add what ``fn`` captures, and the globals of the user's it names, to ``roots``, and what
    the functions among them reach in turn (`y = f(x) if c else x`, `g = lambda v: f(v)`: the
    ternary's or `g`'s closure holds only `f`, whose own cells hold the list `f` writes into;
    `C.bump(x)` of a global object writes `C.n`)."""
    from dy2st.conversion.convert_call import _is_library  # (convert_call imports this module)
    seen.add(id(fn))
    code = fn.__code__
    reached = []
    for name, cell in zip(code.co_freevars, getattr(fn, "__closure__", None) or ()):
        try:
            reached.append((name, cell.cell_contents))
        except ValueError:  # an empty cell: a name not bound yet
            continue
    roots += reached
    space = getattr(fn, "__globals__", None) or {}
    for name in code.co_names:
        value = space.get(name, MISSING)
        if value is not MISSING and _users(value, _is_library):
            reached.append((name, value))
            roots.append((name, value))
    for name, value in reached:
        if isinstance(value, functools.partial):
            roots += [(name, v) for v in (*value.args, *value.keywords.values())]
            value = value.func
        inner = value.__func__ if isinstance(value, types.MethodType) else value
        if not isinstance(inner, types.FunctionType) or id(inner) in seen or depth >= _DEPTH or _is_library(inner):
            continue
        if inner is not value:
            roots.append((name, value.__self__))
        _closure_roots(inner, roots, seen, depth + 1)


def _users(value, _is_library):
    """Whether a global is the user's own: a list or dict, or a function or object of the user's code
    (not a module, class, library object or tensor)."""
    if type(value) in (list, dict):
        return True
    if isinstance(value, (types.ModuleType, type)) or rt.is_tensor(value):
        return False
    if isinstance(value, (types.FunctionType, types.MethodType)):
        return not _is_library(getattr(value, "__func__", value))
    return not _is_library(type(value))


def _contents(obj):
    """The dict or list holding `obj`'s writable state, or None for values not tracked."""
    if isinstance(obj, (dict, list)):
        return obj
    if isinstance(obj, TensorArray):
        return obj.__dict__  # its stacked tensor, which `lst.append(v)` in a branch replaces
    if obj is None or isinstance(obj, _OPAQUE) or rt.is_tensor(obj):
        return None
    if (type(obj).__module__ or "").split(".")[0] in ("numpy", "dy2st"):
        return None
    d = getattr(obj, "__dict__", None)
    return d if isinstance(d, dict) else None


def _unchanged(c, saved):
    """Whether container ``c`` holds exactly ``saved`` (same keys in the same order, same objects)."""
    if len(c) != len(saved):
        return False
    if isinstance(c, dict):
        return all(k is j and c[k] is saved[j] for k, j in zip(c, saved))
    return all(a is b for a, b in zip(c, saved))


class Snapshot:
    """The contents of some containers at one moment; `changed()`, `restore()`, `write()`."""

    def __init__(self, roots):
        self._saved = {}  # id(container) -> (container, shallow copy)
        self.labels = {}  # id(container) -> readable name for messages
        for label, root in roots:
            self._add(root, label, 0)

    def __bool__(self):
        return bool(self._saved)

    def _add(self, obj, label, depth, attrs=False):
        c = _contents(obj)
        if c is None or id(c) in self._saved or depth > _DEPTH:
            return
        attrs = attrs or c is getattr(obj, "__dict__", None)
        self._saved[id(c)] = (c, dict(c) if isinstance(c, dict) else list(c))
        self.labels[id(c)] = (label, attrs)
        items = c.items() if isinstance(c, dict) else enumerate(c)
        for k, v in items:
            if rt.is_tensor(v):
                continue
            if attrs and k in _LAYER_TABLES:
                self._add(v, label, depth + 1, attrs=True)  # `self.n`, not its entry in a layer table
            else:
                self._add(v, f"{label}.{k}" if attrs else f"{label}[{k!r}]", depth + 1)

    def tracks(self, obj):
        """Whether `obj` is one of the containers this snapshot follows."""
        return isinstance(obj, (dict, list)) and id(obj) in self._saved

    def changed(self):
        """{slot: current value} of every slot whose value is not the saved one (by identity)."""
        out = {}
        for cid, (c, saved) in self._saved.items():
            if isinstance(c, dict):
                for k in list(saved) + [k for k in c if k not in saved]:
                    now = c.get(k, MISSING)
                    if now is not saved.get(k, MISSING):
                        out[(cid, k)] = now
            else:
                for i in range(max(len(c), len(saved))):
                    now = c[i] if i < len(c) else MISSING
                    if now is not (saved[i] if i < len(saved) else MISSING):
                        out[(cid, i)] = now
        return out

    def original(self, slot):
        """The value ``slot`` held when the snapshot was taken (MISSING if none)."""
        c, saved = self._saved[slot[0]]
        if isinstance(c, dict):
            return saved.get(slot[1], MISSING)
        return saved[slot[1]] if slot[1] < len(saved) else MISSING

    def current(self, slot):
        """The value ``slot`` holds now (MISSING if none)."""
        c = self._saved[slot[0]][0]
        if isinstance(c, dict):
            return c.get(slot[1], MISSING)
        return c[slot[1]] if slot[1] < len(c) else MISSING

    def restore(self):
        """Put every watched container back as it was when the snapshot was taken."""
        for c, saved in self._saved.values():
            if _unchanged(c, saved):
                # left alone: the user's code may be iterating it (`for layer in self.layers:` over a
                # LayerList's OrderedDict), and rewriting even equal contents breaks that iteration
                continue
            if isinstance(c, dict):
                c.clear()
                c.update(saved)
            else:
                c[:] = saved

    def write(self, values):
        """Set slots ({slot: value}; MISSING removes) on top of the current contents."""
        # List items in index order (appends land in place); dict keys in the order given.
        order = sorted(values, key=lambda slot: slot[1] if isinstance(self._saved[slot[0]][0], list) else 0)
        for cid, key in order:
            v = values[(cid, key)]
            c = self._saved[cid][0]
            if isinstance(c, dict):
                if v is MISSING:
                    c.pop(key, None)
                else:
                    c[key] = v
            elif v is MISSING:
                del c[key:]
            elif key < len(c):
                c[key] = v
            else:
                c.append(v)

    def container(self, slot):
        """The dict or list holding ``slot``."""
        return self._saved[slot[0]][0]

    def describe(self, slot):
        """`res['a']`, `self.n`: how the user's code names a slot."""
        label, attrs = self.labels[slot[0]]
        return f"{label}.{slot[1]}" if attrs else f"{label}[{slot[1]!r}]"


_AUG_OPERATORS = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "@=": operator.imatmul,
                  "/=": operator.itruediv, "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow,
                  "<<=": operator.ilshift, ">>=": operator.irshift, "|=": operator.ior, "^=": operator.ixor,
                  "&=": operator.iand}


def AugItem(item, op, value):
    """The new item of `target[key] op= value`, written as `_jst.SetItem(target, key, _jst.AugItem(
    target[key], op, value))`: Python's in-place operator on the item (a list item's `+=` extends
    that very list, seen through its other names; a numpy row's `+=` keeps its dtype), which falls
    back to the plain operator where the item has none (tensors)."""
    return _AUG_OPERATORS[op](item, value)


def SetItem(target, key, value):
    """`target[key] = value`, written back as `target = _jst.SetItem(target, key, value)`.

    A symbolic tensor gets a `set_value` op and a new Variable (the name is rebound, so the
    write follows a tensor-dependent branch or loop like any assignment); lists, dicts, eager
    tensors and other objects are written in place and come back unchanged.
    """
    if isinstance(target, TensorArray):
        # A list carried by a tensor loop is one stacked tensor: write its row.
        if isinstance(key, slice):
            return target.slice_assigned(key, value)
        row = target._check_item(value, "replaces an item of")
        return target._with(SetItem(target.tensor, key, row), [value])
    if not (is_symbolic(target) or (rt.is_tensor(target) and is_symbolic(value) and not target.stop_gradient)):
        # an eager tensor from outside (a buffer) written with a value of the Program: the runtime's
        # item write assigns the new value to the tensor's Variable, and the tensor takes it after
        # each run, as eagerly. (A write into a fed input is a symbolic target: the caller's tensor
        # takes the value after each run, see execution/input_writes.py.)
        target[key] = value
        return target
    if not is_symbolic(target):
        # a parameter (or another tensor that needs a gradient): eager code refuses the write too
        what = "a tensor from outside the function that needs a gradient"
        raise TypeError(_with_location(
            f"item assignment writes in place into {what}, which a converted function cannot do: "
            "write into a copy (`y = x.clone()` or `y = x * 1`, then `y[...] = v`), or write it "
            "outside the converted function under rt.no_grad"))
    return write_in_place(target, indexing.set_value(target, key, value))


def Inplace(target, method, *args, **kwargs):
    """`x.add_(y)` (an in-place Tensor method), written back as `x = _jst.Inplace(x, "add_", y)`.

    A symbolic tensor gets the out-of-place op and a new Variable that every alias of `x`
    then holds where it can (``aliasing.write_in_place``); the name is rebound either way, so
    the write follows a tensor-dependent branch or loop like any assignment. Anything else
    (an eager tensor, an object of the user's with a method of that name) runs the method.
    """
    if not is_symbolic(target):
        getattr(target, method)(*args, **kwargs)
        return target
    return write_in_place(target, inplace.result(target, method, *args, **kwargs), f"{method}()")


def InplaceCall(fn, target, *args, **kwargs):
    """`F.relu_(x)` or `rt.add_(x, y)` (an in-place function), written back as
    `x = _jst.InplaceCall(F.relu_, x)`: as ``Inplace``, the write reaches every alias of `x` where it
    can, and the rebinding carries it out of a tensor-dependent branch or loop."""
    if not is_symbolic(target):
        return fn(target, *args, **kwargs)
    method = getattr(fn, "__name__", "")
    if inplace_api.FUNCTIONS.get(method) is fn:  # `rt.add_(x, y)` is `x.add_(y)`
        kwargs.pop("name", None)
        return Inplace(target, method, *args, **kwargs)
    try:
        return fn(target, *args, **kwargs)  # written in place when the Program made `x` in this block
    except inplace.InPlaceRefused as refused:  # an argument, or a tensor from outside the branch or loop
        return write_in_place(target, refused.result, f"F.{method}()")
