"""The fast path of ``guards.py``: all of a trace's guards as one generated Python function.

Looping over guard objects costs several microseconds per layer on every call; the function
written here does a handful of dict reads and ``is`` tests per layer instead::

    def check():        # O0, O1, ... and M: the objects compared, as closure variables
        d = O0
        if not (not d['_sub_layers'] and len(t := d['_parameters']) == 2 and t['weight'] is O1
                and ... and d['training'] is O4 and 'forward' not in d and not d['_forward_pre_hooks']):
            return False
        ...
        return True

A key read with ``[]`` where the snapshot has the key: a missing key raises, and the callers
treat a raising check as a failed one (the slow path then says what changed).
"""


class CheckWriter:
    """Writes the check function of one trace's guards (see the module docstring)."""

    def __init__(self, missing):
        self.lines, self.objects = [], []
        self.missing = missing  # what `M` (a dict lookup's default) is in the generated code

    def obj(self, value):
        """Keep ``value`` for the generated function and return the expression reading it (``Oi``)."""
        self.objects.append(value)
        return f"O{len(self.objects) - 1}"

    def fail_unless(self, condition):
        """Add a line returning False unless ``condition`` holds."""
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
        """Add the checks of one layer guard: same sublayers, parameters, buffers and training flag."""
        # One `and` chain per layer: a few dict reads and `is` tests.
        d = g.dict
        self.lines.append(f"    d = {self.obj(d)}")
        tests = []
        for name in ("_sub_layers", "_parameters", "_buffers"):
            tests += self.table(f"d[{name!r}]", dict(d[name]))
        tests.append(f"d['training'] is {self.obj(d['training'])}" if "training" in d else
                     "'training' not in d")
        tests.append("'forward' not in d" if "forward" not in d else
                     f"d['forward'] is {self.obj(d['forward'])}")
        for hooks in ("_forward_pre_hooks", "_forward_post_hooks"):
            tests.append(f"not d[{hooks!r}]" if not d[hooks] else f"d[{hooks!r}] == {self.obj(list(d[hooks]))}")
        for name, value, plain in zip(g.names, g.pinned[6], g.plain):
            read = f"d.get({name!r}, M)"
            tests.append(self.same_value(read, value) if plain else f"{read} is {self.obj(value)}")
        self.fail_unless(" and ".join(tests))

    def compile(self):
        """Compile the collected checks; returns a function of no arguments, True while every guard holds."""
        params = "".join(f"O{i}, " for i in range(len(self.objects)))
        source = (f"def make({params}M):\n    def check():\n"
                  + "\n".join("    " + line for line in self.lines) + "\n        return True\n    return check\n")
        namespace = {}
        exec(compile(source, "<dy2st guards>", "exec"), namespace)  # noqa: S102  (our own generated code)
        return namespace.pop("make")(*self.objects, self.missing)  # popped: no function <-> globals cycle
