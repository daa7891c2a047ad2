"""Writes into a converted function's list/dict arguments, carried out on the caller's containers.

Eagerly `cache["k"] = rt.concat([cache["k"], k])`, `caches.append({"k": k})` or `xs[0] = y` change the
caller's own list or dict (incremental decoding keeps its key/value cache so). The Program cache
rebuilds such arguments from their structure on every trace, so the trace writes into copies: the
Program runs the tensor ops, not the Python writes. So at the end of the trace every list/dict/dataclass
the arguments held (by identity, found by its path before the function ran) is compared with what it held
at the start; for each changed one the new contents are noted as a recipe:

- a tensor the trace computed is an output of the Program (an extra one, placed before the layer's);
- an object the arguments held at the start (a tensor, a container) is the caller's object at that
  path (eagerly the very object moves: `a, b = xs[1], xs[0]` swaps the caller's tensors);
- a list/tuple/dict made inside is made anew after each run (eagerly each call makes a new one);
- any other Python value is the one the trace saw (the cache key holds the arguments' Python values).

After every run the caller's containers take their new contents (a dict keeps its key order and adds
new keys at the end, as item writes do), so the caller holds what eager would leave there, with the
run's gradient history on the written tensors.

Refused with a TypeError at the user's line: a written value the Program cannot hand back (made inside
a tensor-dependent `if`/loop body that did not carry it out: a value of a sub-block), or a Python object
of another kind holding traced tensors.
"""
import copy
import dis

from runtime.errors import Origin
from runtime.variable import Variable

from ..tools.error import attach_origin

_SCALAR_KINDS = ("leaf", "const")


def _children(spec, obj):
    """(key, child spec, child object) of a container node ``spec`` and the object built for it."""
    if spec.kind == "dict":
        return [(k, s, obj[k]) for k, s in zip(spec.meta[0], spec.children)]
    if spec.kind == "dataclass":
        return [(n, s, getattr(obj, n)) for n, s in zip(spec.meta[1], spec.children)]
    return [(i, s, o) for i, (s, o) in enumerate(zip(spec.children, obj))]


def _contents(kind, obj):
    """The shallow contents of a mutable container, compared by identity."""
    if kind == "dict":
        return [(k, v) for k, v in obj.items()]
    if kind == "dataclass":
        return [(n, getattr(obj, n)) for n in obj.__dataclass_fields__]
    return list(obj)


def _resolve(root, path, kinds):
    obj = root
    for key, kind in zip(path, kinds):
        obj = getattr(obj, key) if kind == "dataclass" else obj[key]
    return obj


class ContainerWrites:
    """Which of the arguments' containers one trace changed, and their new contents per run."""

    def __init__(self, program, skeleton, root):
        # Every object the arguments hold, by identity: (path, kinds of the containers on the way).
        self._known = {}
        self._start = []  # (object, kind, path, kinds, contents at the start) of each mutable container
        self._objects = []  # (object, path, attributes at the start) of each plain object argument
        self._walk(skeleton, root, (), ())
        # a tensor loop refuses to turn one of these into a list built in the loop (operators.tensor_array)
        program._argument_lists = {id(o): (o, describe(p)) for o, kind, p, _, _ in self._start if kind == "list"}
        self.plan = ()  # (path, kinds, kind, recipe) per changed container
        self.count = 0  # extra outputs, just before the layer's

    def _walk(self, spec, obj, path, kinds):
        if len(path) >= 2:  # not the argument tuple or the keywords dict themselves
            self._known.setdefault(id(obj), (obj, path, kinds))
        if spec.kind == "const" and isinstance(getattr(obj, "__dict__", None), dict) and not isinstance(obj, type) \
                and not callable(obj) and len(path) >= 2:  # a plain object argument: its attributes at the start
            self._objects.append((obj, path, dict(obj.__dict__)))
        if spec.kind in _SCALAR_KINDS:
            return
        if spec.kind in ("list", "dict", "dataclass") and len(path) >= 2:
            self._start.append((obj, spec.kind, path, kinds, _contents(spec.kind, obj)))
        for key, child, value in _children(spec, obj):
            self._walk(child, value, path + (key,), kinds + (spec.kind,))

    def __bool__(self):
        return bool(self.plan)

    def changed(self):
        """The argument paths (`#1['k']`) of the containers changed so far (while the trace runs)."""
        return [describe(path) for obj, kind, path, _, before in self._start or ()
                if [(a[0], id(a[1])) if kind != "list" else id(a) for a in _contents(kind, obj)]
                != [(a[0], id(a[1])) if kind != "list" else id(a) for a in before]]

    def lost_note(self, paths, fn):
        """The note an exception raised after writes into the list/dict arguments at ``paths`` gets:
        the Program carries them out only after a run that returns, so the caller keeps the old contents.
        ``paths`` None: those the Program writes."""
        paths = [describe(p) for p, *_ in self.plan] if paths is None else paths
        return (f"dy2st: {_where(fn)} wrote into its list/dict argument(s) {', '.join(paths)} before this "
                "exception: eagerly the caller's containers would hold those writes, here they keep their old "
                "contents (the Program carries such writes out only after a run that returns)")

    def finish(self, program, out_vars, fn):
        """Note the changed containers (appending the written tensors nothing returns to ``out_vars``)."""
        for obj, path, before in self._objects:
            for name, value in vars(obj).items():
                if value is not before.get(name) and _holds_traced(value, program):
                    vars(obj).clear()
                    vars(obj).update(before)  # the caller's object as it was, not holding placeholders
                    raise TypeError(
                        f"{_where(fn)} sets the attribute '{name}' of the {type(obj).__name__} given at "
                        f"{describe(path)} to a traced tensor: eagerly the caller's object holds the computed "
                        "value after every call, the Program cannot write it back (the object would keep a "
                        "placeholder); return the value instead, or pass a dict or dataclass")
        plan, memo = [], {}  # memo: a container made inside, held at two places, is one object
        for obj, kind, path, kinds, before in self._start:
            now = _contents(kind, obj)
            if len(now) == len(before) and all(
                    (a[0] == b[0] and a[1] is b[1]) if kind != "list" else a is b for a, b in zip(now, before)):
                continue
            if kind == "list":
                recipe = [self._recipe(v, program, out_vars, fn, memo) for v in now]
            else:
                recipe = [(k, self._recipe(v, program, out_vars, fn, memo)) for k, v in now]
            plan.append((path, kinds, kind, recipe))
        self.plan = tuple(plan)
        # every mutable container the arguments hold: one object at two places is checked per call
        self._boxes = tuple((path, kinds) for _, _, path, kinds, _ in self._start) if plan else ()
        self._fn = _where(fn)
        self._outside, self._names = _outside_reads(fn) if plan else ((), frozenset())
        program.__dict__.pop("_argument_lists", None)
        self._known = self._start = self._objects = None  # the trace's objects are not needed by the runs

    def _recipe(self, value, program, out_vars, fn, memo):
        known = self._known.get(id(value))
        if known is not None and known[0] is value:
            return ("arg", known[1], known[2])
        if isinstance(value, Variable):
            if value.block.program is not program or value.block.idx != 0:
                raise _refused(value, program, fn)
            k = next((j for j, v in enumerate(out_vars) if v is value), None)
            if k is None:
                out_vars.append(value)
                k = len(out_vars) - 1
                self.count += 1
            return ("out", k)
        if isinstance(value, (list, tuple, dict)):  # made inside: made anew per run
            if id(value) in memo:
                return memo[id(value)]
            if isinstance(value, dict):
                items = [(k, self._recipe(v, program, out_vars, fn, memo)) for k, v in value.items()]
            else:
                items = [self._recipe(v, program, out_vars, fn, memo) for v in value]
            memo[id(value)] = recipe = (_kind(value), _empty(value), items)
            return recipe
        held = getattr(value, "__dict__", None)
        if isinstance(value, (set, frozenset)) or isinstance(held, dict):
            if any(isinstance(v, Variable) for v in (value if isinstance(value, (set, frozenset)) else held.values())):
                raise TypeError(
                    f"{_where(fn)} writes a {type(value).__name__} holding traced tensors into one of its list/dict "
                    "arguments: only tensors, lists, tuples and dicts of them and Python values can be carried "
                    "out to the caller's container after each run")
        return ("const", value)

    def check(self, root, instance=None):
        """TypeError when one list/dict is given at two places of the arguments (`f(x, c, c)`): the trace
        wrote into two copies, so a read through one place missed a write through the other, which
        eagerly it sees."""
        seen = {}
        for path, kinds in self._boxes:
            obj = _resolve(root, path, kinds)
            other = seen.setdefault(id(obj), path)
            if other is not path:
                raise TypeError(
                    f"{self._fn} writes into its list/dict arguments, and one list/dict is given at two places "
                    f"of them ({describe(other)} and {describe(path)}): eagerly a write through one place is "
                    "seen through the other, the Program traced them as two; pass a copy at one place")
        # a written container (or one holding it) that the function also reads as a global or closure variable
        written = [p for p, _, _, _ in self.plan]
        outside = self._outside
        held = getattr(instance, "__dict__", None)
        if held:  # a method: the attributes of its object it names (`self.cache` given as the argument too)
            outside = outside + tuple((f"the attribute 'self.{n}'", (lambda v=v: v)) for n, v in held.items()
                                      if type(v) in (list, dict) and n in self._names)
        for where, get in outside:
            path = seen.get(id(get()))
            if path is not None and any(w[:len(path)] == path for w in written):
                raise TypeError(
                    f"{self._fn} writes into its list/dict arguments, and the one at {describe(path)} is also "
                    f"{where}, which it can read: eagerly a write through the argument is seen there, the Program "
                    "traced a copy; pass a copy as the argument or read it only through the argument")

    def apply(self, root, outs):
        """After a run: the caller's containers (under ``root``, the call's (args, kwargs)) take their
        new contents; returns ``outs`` without the extra outputs."""
        targets = [_resolve(root, path, kinds) for path, kinds, _, _ in self.plan]
        made, memo = [], {}
        for _, _, kind, recipe in self.plan:
            if kind == "list":
                made.append([_build(r, root, outs, memo) for r in recipe])
            else:
                made.append([(k, _build(r, root, outs, memo)) for k, r in recipe])
        for (_, _, kind, _), target, new in zip(self.plan, targets, made):
            if kind == "list":
                target[:] = new
            elif kind == "dataclass":
                for name, v in new:
                    setattr(target, name, v)
            else:
                keep = {k for k, _ in new}
                for k in [k for k in target if k not in keep]:
                    del target[k]
                for k, v in new:
                    target[k] = v
        return outs[:len(outs) - self.count] if self.count else outs


def _build(recipe, root, outs, memo):
    what = recipe[0]
    if what == "out":
        return outs[recipe[1]]
    if what == "arg":
        return _resolve(root, recipe[1], recipe[2])
    if what == "const":
        return recipe[1]
    key = id(recipe)
    if key in memo:  # one container made inside, held at two places: one object, as eagerly
        return memo[key]
    kind, empty, items = recipe
    if kind == "dict":
        made = memo[key] = dict() if empty is None else copy.copy(empty)
        for k, r in items:
            made[k] = _build(r, root, outs, memo)
        return made
    if kind == "list":
        made = memo[key] = [] if empty is None else copy.copy(empty)
        made.extend(_build(r, root, outs, memo) for r in items)
        return made
    values = [_build(r, root, outs, memo) for r in items]
    made = memo[key] = tuple(values) if empty is None else empty(*values)  # a named tuple: its class
    return made


def _holds_traced(value, program):
    """Whether ``value`` (or a list/tuple/dict item of it) is a Variable of ``program``."""
    items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else (value,)
    return any(isinstance(v, Variable) and v.block.program is program for v in items)


def _kind(value):
    return "dict" if isinstance(value, dict) else "list" if isinstance(value, list) else "tuple"


def _empty(value):
    """None for a plain list/dict/tuple; else what a new one is made from: an emptied copy of a
    subclass (an OrderedDict, a defaultdict keeping its factory), a named tuple's class."""
    if type(value) in (list, dict, tuple):
        return None
    cls = type(value)
    if isinstance(value, tuple):
        return cls if hasattr(cls, "_fields") else (lambda *v: cls(v))
    empty = copy.copy(value)
    empty.clear()
    return empty


def describe(path):
    """`argument #1['k'][0]` for the path (0, 1, 'k', 0) from (args, kwargs)."""
    head = f"#{path[1]}" if path[0] == 0 else repr(path[1])
    return head + "".join(f"[{p!r}]" for p in path[2:])


def _outside_reads(fn):
    """(description, getter) of the globals and closure cells ``fn`` (its nested functions included)
    reads, and the attribute names it reads: a list/dict argument that is also one of them is one
    object at two places."""
    fn = getattr(fn, "__func__", fn)
    code, namespace = getattr(fn, "__code__", None), getattr(fn, "__globals__", None)
    if code is None or namespace is None:
        return (), frozenset()
    globals_, attributes, stack = set(), set(), [code]
    while stack:
        c = stack.pop()
        for ins in dis.get_instructions(c):
            if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
                globals_.add(ins.argval)
            elif ins.opname in ("LOAD_ATTR", "LOAD_METHOD"):
                attributes.add(ins.argval)
        stack.extend(k for k in c.co_consts if hasattr(k, "co_names"))
    found = [(f"the global '{n}'", (lambda n=n: namespace.get(n))) for n in sorted(globals_) if n in namespace]
    for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
        found.append((f"the closure variable '{name}'", (lambda cell=cell: _cell_value(cell))))
    return tuple(found), frozenset(attributes)


def _cell_value(cell):
    try:
        return cell.cell_contents
    except ValueError:  # not bound yet
        return None


def _where(fn):
    code = getattr(fn, "__code__", None)
    at = f" ({code.co_filename}, line {code.co_firstlineno})" if code is not None else ""
    return f"{getattr(fn, '__qualname__', fn)}{at}"


def _refused(value, program, fn):
    exc = TypeError(
        f"{_where(fn)} writes the tensor '{value.name}' into one of its list/dict arguments inside a "
        "tensor-dependent `if` or loop that does not carry the write out (or keeps a tensor of another "
        "trace there): eagerly the caller's list/dict would hold it after the call, the Program has no value "
        "for it; write it before or after the `if`/loop, or return the new value")
    for block in program.blocks:
        for op in block.ops:
            if value.name in op.output_arg_names and op.origin is not None:
                origin = op.origin if isinstance(op.origin, Origin) else Origin.parse(op.origin)
                return attach_origin(exc, origin, "while building the Program")
    return exc
