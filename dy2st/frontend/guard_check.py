"""The fast path of ``guards.py``: all of a trace's guards as one generated Python function.

Looping over guard objects costs several microseconds per layer on every call; the function
written here does a handful of dict reads and ``is`` tests per layer instead, and skips even
those while no Layer anywhere changed (``runtime.nn.layer.STATE_VERSION`` is still the object
read when they last held: every write to a layer's tables, hook lists or attributes through
``setattr`` draws a new one)::

    def check():        # G_O0, G_O1, ... and G_M: the objects compared, G_V/G_S: the version now/when checked
        g_v = G_V[0]
        if g_v is not G_S[0]:
            g_d = G_O0
            if not (type(g_d['_sub_layers']) is G_O1 and not g_d['_sub_layers'] and ...
                    and g_d['training'] is G_O4 and 'forward' not in g_d and not g_d['_forward_pre_hooks']):
                return False
            ...
            G_S[0] = g_v
        if not (G_O5.stop_gradient is G_O6 and G_O7.stop_gradient is G_O8): return False  # what the version
        return True                                                                      # does not cover

``body()`` gives the same lines to write into another generated function (``fast_call.py``),
with ``names()`` the objects they read (every name starts with ``G_``/``g_``).

What the version does not cover is checked on every call: globals, closure cells and plain
objects' attributes (``guard_values.py``), the layers' own attributes the traced code reads (a
list changed in place, a value written into ``vars(layer)``), and ``stop_gradient`` of the bound
tensors.  A layer whose tables or hook lists are not the bumping kinds (replaced by hand) is
checked on every call too.  Writing a layer's ``training`` or ``forward`` straight into its
``__dict__`` must be followed by ``runtime.nn.layer.state_changed()``.

A key read with ``[]`` where the snapshot has the key: a missing key raises, and the callers
treat a raising check as a failed one (the slow path then says what changed).
"""
import runtime as rt
from runtime.nn.layer import STATE_VERSION, HookList, Layer, StateTable
from .guard_values import _SIMPLE, _plain

_PARAMS, _SUBS, _BUFS = Layer.STATE_TABLES
_HOOKS = Layer.HOOK_TABLES


class _Test:
    """A pending ``if not (condition): return False`` line (kept apart so the next test can join it)."""

    __slots__ = ("condition",)

    def __init__(self, condition):
        self.condition = condition

    def __str__(self):
        return f"if not ({self.condition}): return False"


class CheckWriter:
    """Writes the check function of one trace's guards (see the module docstring)."""

    def __init__(self, missing):
        self.lines, self.gated, self.objects = [], [], []
        self.missing = missing  # what `G_M` (a dict lookup's default) is in the generated code
        self.seen = [None]      # `G_S`: the version the gated checks last held at (none yet)

    def obj(self, value):
        """Keep ``value`` for the generated function and return the expression reading it (``G_Oi``)."""
        self.objects.append(value)
        return f"G_O{len(self.objects) - 1}"

    def fail_unless(self, condition, gated=False):
        """Add a line returning False unless ``condition`` holds (``gated``: only after a layer changed).

        A condition right after another one joins its line (``if not (A and B): return False``):
        one jump per guard instead of a statement each, the same tests in the same order."""
        lines = self.gated if gated else self.lines
        if lines and type(lines[-1]) is _Test:
            lines[-1] = _Test(f"{lines[-1].condition} and {condition}")
        else:
            lines.append(_Test(condition))

    def same_value(self, expr, value):
        """An expression true when ``expr`` is (or equals, with the same type) ``value``."""
        # Identity first (small ints, interned strings, NaN), then type and equality.
        ref = self.obj(value)
        if type(value) in (tuple, list) and len(value) <= 16 and all(type(v) in _SIMPLE for v in value):
            # a flat list/tuple (a LayerNorm's normalized_shape): each item's type written out, the
            # cheap form of the `_plain` call below (a call per guard per cache hit)
            items = "".join(f" and type(g_x[{i}]) is {self.obj(type(v))}" for i, v in enumerate(value))
            return f"((g_x := {expr}) is {ref} or (type(g_x) is {self.obj(type(value))} and len(g_x) == " \
                   f"{len(value)}{items} and g_x == {ref}))"
        if isinstance(value, (tuple, list, dict, set, frozenset)):  # still plain: no tensor put in it
            return f"((g_x := {expr}) is {ref} or (type(g_x) is {self.obj(type(value))} and {self.obj(_plain)}(g_x) " \
                   f"and g_x == {ref}))"
        return f"((g_x := {expr}) is {ref} or (type(g_x) is {self.obj(type(value))} and g_x == {ref}))"

    def table(self, dict_expr, table):
        """Tests that the dict at ``dict_expr`` holds exactly ``table``'s keys, in the same order (what
        `for k, l in self.blocks.items()` or `self.children()` walk), bound to the same objects."""
        if not table:
            return [f"not {dict_expr}"]
        tests = [f"tuple(g_t := {dict_expr}) == {tuple(table)!r}"]
        return tests + [f"g_t[{key!r}] is {self.obj(value)}" for key, value in table.items()]

    def layer(self, g):
        """Add the checks of one layer guard: same sublayers, parameters, buffers, training flag, forward
        and hooks only after some layer changed; the attributes its code reads on every call."""
        d = g.dict
        bumping = all(type(d[n]) is StateTable for n in (_SUBS, _PARAMS, _BUFS)) and all(
            type(d[n]) is HookList for n in _HOOKS)
        ref = self.obj(d)
        # The tables stay the bumping kinds: one replaced by hand would make later writes invisible.
        tests = [f"type(g_d[{n!r}]) is {self.obj(type(d[n]))}" for n in (_SUBS, _PARAMS, _BUFS) + _HOOKS]
        for name in (_SUBS, _PARAMS, _BUFS):
            tests += self.table(f"g_d[{name!r}]", dict(d[name]))
        for name in (_PARAMS, _BUFS):  # their dtypes: `layer.astype(...)` casts them in place
            tests += [f"g_d[{name!r}][{key!r}].dtype == {self.obj(t.dtype)}"
                      for key, t in d[name].items() if rt.is_tensor(t)]
        tests.append(f"g_d['training'] is {self.obj(d['training'])}" if "training" in d else
                     "'training' not in g_d")
        tests.append("'forward' not in g_d" if "forward" not in d else
                     f"g_d['forward'] is {self.obj(d['forward'])}")
        for hooks in _HOOKS:
            tests.append(f"not g_d[{hooks!r}]" if not d[hooks] else f"g_d[{hooks!r}] == {self.obj(list(d[hooks]))}")
        tests += [f"{name!r} not in g_d" for name in g.absent]  # set only through setattr: with the version
        every_call = []
        for name, value, plain, contents, held in zip(g.names, g.pinned[6], g.plain, g.arrays, g.held):
            read = f"g_d.get({name!r}, G_M)"
            test = self.same_value(read, value) if plain else f"{read} is {self.obj(value)}"
            if held is not None:  # a plain list or dict: also the same object (see layer_guard._LayerGuard.held)
                test = f"{read} is {self.obj(held)} and {test}"
            if contents is not None:  # a numpy array: its bytes too (written in place, same object)
                test += f" and {self.obj(contents)}({self.obj(value)})"
            every_call.append(test)
        (self.gated if bumping else self.lines).append(f"g_d = {ref}")
        self.fail_unless(" and ".join(tests), gated=bumping)
        if every_call:
            self.lines.append(f"g_d = {ref}")
            self.fail_unless(" and ".join(every_call))

    def body(self):
        """The checks as lines of Python (unindented; nested lines indented by four spaces), each
        failed check a ``return False``; they read the objects of ``names()``."""
        body = []
        if self.gated:
            body += ["g_v = G_V[0]", "if g_v is not G_S[0]:"] + ["    " + str(line) for line in self.gated]
            body.append("    G_S[0] = g_v")
        return body + [str(line) for line in self.lines]

    def names(self):
        """The objects the lines of ``body()`` read, by name."""
        names = {f"G_O{i}": obj for i, obj in enumerate(self.objects)}
        names.update(G_M=self.missing, G_V=STATE_VERSION, G_S=self.seen)
        return names

    def compile(self):
        """Compile the collected checks; returns a function of no arguments, True while every guard holds."""
        names = self.names()
        source = (f"def make({', '.join(names)}):\n    def check():\n"
                  + "".join(f"        {line}\n" for line in self.body()) + "        return True\n    return check\n")
        namespace = {}
        exec(_compiled(source), namespace)  # noqa: S102  (our own generated code)
        return namespace.pop("make")(*names.values())


# Compiled guard code by its source text. Safe to share: a code object depends on nothing but
# its text (every object the checks read comes in as an argument of ``make``), and exec'ing it
# makes a fresh ``make`` each time. The traces of one function (one per signature, mode...)
# write the same text one after another, so a few recent texts are enough; few, so that
# converting many functions keeps no memory.
_CODES = {}
_MAX_CODES = 16


def _compiled(source):
    """``compile(source, "<dy2st guards>", "exec")``, reused for a text compiled recently."""
    code = _CODES.pop(source, None)
    if code is None:
        code = compile(source, "<dy2st guards>", "exec")
        if len(_CODES) >= _MAX_CODES:
            _CODES.pop(next(iter(_CODES)), None)  # the least recently used
    _CODES[source] = code
    return code
