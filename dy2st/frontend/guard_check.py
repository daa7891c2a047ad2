"""The fast path of ``guards.py``: all of a trace's guards as one generated Python function.

Looping over guard objects costs several microseconds per layer on every call; the function
written here does a handful of dict reads and ``is`` tests per layer instead, and skips even
those while no Layer anywhere changed (``runtime.nn.layer.STATE_VERSION`` is still the object
read when they last held: every write to a layer's tables, hook lists or attributes through
``setattr`` draws a new one)::

    def check():        # O0, O1, ... and M: the objects compared, V/S: the version now/when checked
        v = V[0]
        if v is not S[0]:
            d = O0
            if not (type(d['_sub_layers']) is TABLE and not d['_sub_layers'] and ...
                    and d['training'] is O4 and 'forward' not in d and not d['_forward_pre_hooks']):
                return False
            ...
            S[0] = v
        if not (O5.stop_gradient is O6 and ...): return False    # what the version does not cover
        return True

What the version does not cover is checked on every call: globals, closure cells and plain
objects' attributes (``guard_values.py``), the layers' own attributes the traced code reads (a
list changed in place, a value written into ``vars(layer)``), and ``stop_gradient`` of the bound
tensors.  A layer whose tables or hook lists are not the bumping kinds (replaced by hand) is
checked on every call too.  Writing a layer's ``training`` or ``forward`` straight into its
``__dict__`` must be followed by ``runtime.nn.layer.state_changed()``.

A key read with ``[]`` where the snapshot has the key: a missing key raises, and the callers
treat a raising check as a failed one (the slow path then says what changed).
"""
from runtime.nn.layer import STATE_VERSION, HookList, Layer, StateTable

_PARAMS, _SUBS, _BUFS = Layer.STATE_TABLES
_HOOKS = Layer.HOOK_TABLES


class CheckWriter:
    """Writes the check function of one trace's guards (see the module docstring)."""

    def __init__(self, missing):
        self.lines, self.gated, self.objects = [], [], []
        self.missing = missing  # what `M` (a dict lookup's default) is in the generated code

    def obj(self, value):
        """Keep ``value`` for the generated function and return the expression reading it (``Oi``)."""
        self.objects.append(value)
        return f"O{len(self.objects) - 1}"

    def fail_unless(self, condition, gated=False):
        """Add a line returning False unless ``condition`` holds (``gated``: only after a layer changed)."""
        if gated:
            self.gated.append(f"        if not ({condition}): return False")
        else:
            self.lines.append(f"    if not ({condition}): return False")

    def same_value(self, expr, value):
        """An expression true when ``expr`` is (or equals, with the same type) ``value``."""
        # Identity first (small ints, interned strings, NaN), then type and equality.
        ref = self.obj(value)
        return f"((x := {expr}) is {ref} or (type(x) is {self.obj(type(value))} and x == {ref}))"

    def table(self, dict_expr, table):
        """Tests that the dict at ``dict_expr`` holds exactly ``table``'s keys bound to the same objects."""
        if not table:
            return [f"not {dict_expr}"]
        tests = [f"len(t := {dict_expr}) == {len(table)}"]
        return tests + [f"t[{key!r}] is {self.obj(value)}" for key, value in table.items()]

    def layer(self, g):
        """Add the checks of one layer guard: same sublayers, parameters, buffers, training flag, forward
        and hooks only after some layer changed; the attributes its code reads on every call."""
        d = g.dict
        bumping = all(type(d[n]) is StateTable for n in (_SUBS, _PARAMS, _BUFS)) and all(
            type(d[n]) is HookList for n in _HOOKS)
        ref = self.obj(d)
        # The tables stay the bumping kinds: one replaced by hand would make later writes invisible.
        tests = [f"type(d[{n!r}]) is {self.obj(type(d[n]))}" for n in (_SUBS, _PARAMS, _BUFS) + _HOOKS]
        for name in (_SUBS, _PARAMS, _BUFS):
            tests += self.table(f"d[{name!r}]", dict(d[name]))
        tests.append(f"d['training'] is {self.obj(d['training'])}" if "training" in d else
                     "'training' not in d")
        tests.append("'forward' not in d" if "forward" not in d else
                     f"d['forward'] is {self.obj(d['forward'])}")
        for hooks in _HOOKS:
            tests.append(f"not d[{hooks!r}]" if not d[hooks] else f"d[{hooks!r}] == {self.obj(list(d[hooks]))}")
        every_call = []
        for name, value, plain in zip(g.names, g.pinned[6], g.plain):
            read = f"d.get({name!r}, M)"
            test = self.same_value(read, value) if plain else f"{read} is {self.obj(value)}"
            every_call.append(test)
        target = self.gated if bumping else self.lines
        indent = "        " if bumping else "    "
        target.append(f"{indent}d = {ref}")
        self.fail_unless(" and ".join(tests), gated=bumping)
        if every_call:
            self.lines.append(f"    d = {ref}")
            self.fail_unless(" and ".join(every_call))

    def compile(self):
        """Compile the collected checks; returns a function of no arguments, True while every guard holds."""
        params = "".join(f"O{i}, " for i in range(len(self.objects)))
        body = []
        if self.gated:
            body += ["    v = V[0]", "    if v is not S[0]:"] + self.gated + ["        S[0] = v"]
        body += self.lines
        source = (f"def make({params}M, V, S):\n    def check():\n"
                  + "\n".join("    " + line for line in body) + "\n        return True\n    return check\n")
        namespace = {}
        exec(compile(source, "<dy2st guards>", "exec"), namespace)  # noqa: S102  (our own generated code)
        # S: the version the gated checks last held at (a new function starts with none).
        return namespace.pop("make")(*self.objects, self.missing, STATE_VERSION, [None])
