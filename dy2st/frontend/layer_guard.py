"""The guard on one Layer a trace reached (``_LayerGuard``), and the reading of code it rests on.

A Layer's guard holds its tables (sub-layers, parameters, buffers), mode, ``forward`` override and
hooks by identity, and the attributes its class's code can read (``_read_names``: the names the
methods the trace ran, and the methods of the class they name, read or write, found by
disassembling). Kept apart from ``guards.py``, which decides which layers and values a trace is
guarded on and gathers them into ``Guards``; this is what one layer's guard compares and says.
"""
import copy
import dis
import inspect
import types
import weakref

import runtime as rt

from . import decorators
from .guard_values import _MISSING, _plain, _same, array_contents, shadowable

# The attribute names of a Layer's tables and hook lists (the public seam naming them).
_PARAMS, _SUBS, _BUFS = rt.nn.Layer.STATE_TABLES
_PRE, _POST = rt.nn.Layer.HOOK_TABLES
# Layer bookkeeping that the per-layer state below already covers.
_LAYER_INTERNALS = frozenset({_PARAMS, _SUBS, _BUFS, _PRE, _POST, "_non_persistable_buffer_names", "training",
                              "forward", "_param_counts", "_full_name"})


class Names(set):
    """The names some code reads; ``dynamic``: those of them given to getattr/hasattr as strings."""

    def __init__(self, *args):
        super().__init__(*args)
        self.dynamic = set()


def _code_names(code, out=None, dynamic=None):
    """Every name a code object (and the functions nested in it) reads: globals and attributes,
    also those named by a string given to getattr/hasattr (`getattr(self, "scale", 1.0)`), which
    ``dynamic`` (a set) collects too."""
    if out is None:
        out = Names()
        dynamic = out.dynamic if dynamic is None else dynamic
    out.update(code.co_names)
    if "getattr" in code.co_names or "hasattr" in code.co_names:
        out.update(_dynamic_names(code))
        if dynamic is not None:
            dynamic.update(_dynamic_names(code))
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _code_names(const, out, dynamic)
    return out


def _dynamic_names(code):
    """The string constants given to getattr/hasattr in ``code`` (its own instructions)."""
    names = _DYNAMIC.get(code)
    if names is None:
        names, pending = set(), False
        for ins in dis.get_instructions(code):
            if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") and ins.argval in ("getattr", "hasattr"):
                pending = True
            elif pending and ins.opname == "LOAD_CONST" and isinstance(ins.argval, str):
                names.add(ins.argval)
                pending = False
            elif ins.opname in ("PRECALL", "CALL"):
                pending = False
        _DYNAMIC[code] = names = frozenset(names)
    return names


def _as_function(member):
    """The plain function behind a class member (method, StaticFunction, property getter), or None."""
    member = getattr(member, "fget", member)
    member = getattr(member, "dygraph_function", member)
    member = getattr(member, "__func__", member)
    return decorators.unwrap(member) if isinstance(member, types.FunctionType) else None


def _written_names(code, out=None):
    """Attribute names a code object (and the functions nested in it) assigns or deletes."""
    out = set() if out is None else out
    names = _WRITTEN.get(code)
    if names is None:  # every trace of a function asks again: disassembling is not cheap
        names = set()
        _disassembled_writes(code, names)
        _WRITTEN[code] = names = frozenset(names)
    out.update(names)
    return out


# Code object -> the names given to getattr/hasattr in it (same reasons as _WRITTEN below).
_DYNAMIC = weakref.WeakKeyDictionary()


# Code object -> the attribute names it writes. Safe to keep: a code object never changes (and
# equal ones write the same names); weak, so a converted function's code goes when it does.
_WRITTEN = weakref.WeakKeyDictionary()


def _disassembled_writes(code, out):
    out.update(i.argval for i in dis.get_instructions(code) if i.opname in ("STORE_ATTR", "DELETE_ATTR"))
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _disassembled_writes(const, out)


# Code object -> the global names it (and the functions nested in it) reads or writes (as _WRITTEN).
_GLOBALS = weakref.WeakKeyDictionary()
_GLOBAL_OPS = frozenset({"LOAD_GLOBAL", "LOAD_NAME", "STORE_GLOBAL", "DELETE_GLOBAL", "STORE_NAME"})


def global_names(code):
    """The names ``code`` reaches as globals, not as attributes: ``co_names`` holds both, and a
    module global that happens to share an attribute's name (a script's ``shape`` beside
    ``x.shape``) is no global the function reads."""
    names = _GLOBALS.get(code)
    if names is None:
        found = {i.argval for i in dis.get_instructions(code) if i.opname in _GLOBAL_OPS}
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                found |= global_names(const)
        _GLOBALS[code] = names = frozenset(found)
    return names


def _read_names(cls, start, written=None, dynamic=None):
    """Attribute names the methods in ``start`` (and the methods of ``cls`` they name) may read.

    Only code the trace could have run counts: an attribute that just another method reads
    (a step counter a training loop bumps) must not retrace the Program on every call.
    """
    names, seen = set(), set()
    dynamic = set() if dynamic is None else dynamic
    todo = [f for f in start if f is not None]
    while todo:
        fn = todo.pop()
        if fn.__code__ in seen:
            continue
        seen.add(fn.__code__)
        new = _code_names(fn.__code__, dynamic=dynamic)
        names |= new
        if written is not None:
            _written_names(fn.__code__, written)
        for name in new:
            member = _as_function(getattr(cls, name, None))
            if member is not None and member.__code__ not in seen:
                todo.append(member)
    out = Names(names - _LAYER_INTERNALS)
    out.dynamic = dynamic
    return out


def _dtypes(table):
    return tuple(t.dtype if rt.is_tensor(t) else None for t in table.values())


def _layer_state(d):
    """The layer's structure and mode a trace depends on, as a tuple compared on each call (with the
    dtypes of its parameters and buffers: `layer.astype("float64")` casts them in place)."""
    return (tuple(map(id, d[_SUBS].values())), tuple(map(id, d[_PARAMS].values())),
            tuple(map(id, d[_BUFS].values())), d.get("training"), id(d.get("forward")),
            tuple(map(id, d[_PRE])), tuple(map(id, d[_POST])), _dtypes(d[_PARAMS]), _dtypes(d[_BUFS]))


def _attr_holds(now, old, plain, contents=None):
    if plain:
        return _same(now, old)
    return now is old and (contents is None or contents(now))


class _LayerGuard:
    # No reference to the layer itself (its __dict__ is enough): the root layer's guard lives in the
    # program cache of its converted forward, which must not keep the layer alive.
    __slots__ = ("path", "cls", "dict", "names", "plain", "state", "pinned", "read", "written", "arrays", "held",
                 "absent")

    def __init__(self, path, layer, called=(), live=frozenset(), rebound=frozenset()):
        self.path, self.cls = path, type(layer)
        self.dict = d = layer.__dict__
        start = [_as_function(getattr(type(layer), "forward", None))] + list(called)
        # Plain values (numbers, strings, flags) by value; anything else (a function, a tensor,
        # an array) by identity, unless the traced code itself assigns it (state it keeps, whose
        # new value each run must not look like a change), unless the Program reads it live (``live``:
        # ids of its bound tensors; it writes those in place, so another one there is a reset, e.g.
        # ``self.h = None``, or new state).  Modules and classes are code, not state.
        self.written = written = set()
        dynamic = set()
        self.read = read = _read_names(type(layer), start, written, dynamic)
        # and what the trace wrote by other means (``rebound``: slots the Program hands a new tensor after
        # every run, e.g. weight_norm's pre-hook ``setattr(layer, self.name, ...)``, no STORE_ATTR to find)
        written.update(n for n in d if (id(d), n) in rebound)
        self.names = tuple(sorted(n for n in read if n in d and not isinstance(d[n], types.ModuleType)
                                  and not inspect.isclass(d[n])
                                  and (_plain(d[n]) or n not in written or id(d[n]) in live)))
        # Names the code reads that the instance does not hold, but the class does (a method, a
        # class attribute) or getattr/hasattr asks for: one set on the instance later (`net.act = f`,
        # `net.extra = 1.0` read by `getattr(self, "extra", 0.0)`) changes what the code reads.
        tables = d[_PARAMS].keys() | d[_SUBS].keys() | d[_BUFS].keys()
        self.absent = tuple(sorted(n for n in read - d.keys() - tables if not n.startswith("__") and (
            n in dynamic or shadowable(self.cls, n))))
        self.plain = tuple(_plain(d[n]) for n in self.names)
        # a numpy array the code reads is also guarded by its bytes (see guard_values.ArrayContents)
        self.arrays = tuple(None if p else array_contents(d[n]) for n, p in zip(self.names, self.plain))
        # a plain list or dict also by identity: the Program writes its items back into that object
        # (``self.state['h'] = h``), so an equal new one (a reset) needs its own trace
        self.held = tuple(d[n] if p and type(d[n]) in (list, dict) else None for n, p in zip(self.names, self.plain))
        self.state = _layer_state(d)
        # Keep what the ids above refer to alive, so no new object can reuse an id.
        self.pinned = (dict(d[_SUBS]), dict(d[_PARAMS]), dict(d[_BUFS]), d.get("forward"),
                       list(d[_PRE]), list(d[_POST]),
                       [copy.deepcopy(d[n]) if p else d[n] for n, p in zip(self.names, self.plain)])

    def holds(self):
        d = self.dict
        return _layer_state(d) == self.state and self.absent_holds() and all(
            _attr_holds(d.get(n, _MISSING), old, p, a) and (h is None or d.get(n) is h)
            for n, old, p, a, h in zip(self.names, self.pinned[6], self.plain, self.arrays, self.held))

    def absent_holds(self):
        d = self.dict
        return not any(n in d for n in self.absent)

    def describe(self):
        d, (subs, params, bufs, fwd, pre, post, values) = self.dict, self.pinned
        for table, old, what in ((_SUBS, subs, "sub-layer"), (_PARAMS, params, "parameter"),
                                 (_BUFS, bufs, "buffer")):
            now = d[table]
            changed = [k for k in list(old) + [k for k in now if k not in old] if now.get(k) is not old.get(k)]
            if changed:
                k = changed[0]
                how = "added" if k not in old else "removed" if k not in now else "replaced"
                return f"{what} {self.path}.{k} was {how}"
        if (_dtypes(d[_PARAMS]), _dtypes(d[_BUFS])) != self.state[7:]:
            return f"the dtype of a parameter or buffer of {self.path} changed (Layer.to / astype)"
        if d.get("training") != self.state[3]:
            return f"{self.path}.training changed ({self.state[3]} -> {d.get('training')})"
        if d.get("forward") is not fwd:
            return f"{self.path}.forward was overridden on the instance"
        if list(d[_PRE]) != pre or list(d[_POST]) != post:
            return f"the forward hooks of {self.path} changed"
        for name in self.absent:
            if name in d:
                return f"attribute {self.path}.{name} was set on the instance (the trace read the class's or none)"
        for name, old, plain, contents, held in zip(self.names, values, self.plain, self.arrays, self.held):
            now = d.get(name, _MISSING)
            if now is old and contents is not None and not contents(now):
                return f"attribute {self.path}.{name} (a numpy array) was written in place"
            if not _attr_holds(now, old, plain) or (plain and type(old) in (list, dict) and now is not held):
                shown = ("<deleted>" if now is _MISSING else repr(now) if _plain(now)
                         else f"another {type(now).__name__}")
                old = repr(old) if plain else f"the {type(old).__name__} seen while tracing"
                return f"attribute {self.path}.{name} changed ({old} -> {shown})"
        return f"{self.path} changed"
