"""The one namer: fresh, readable names that collide with nothing in the function.

All passes of one conversion share a Namer; it knows every name the user's function mentions
and every name it has handed out, so `true_fn_0` can never shadow a user variable called
`true_fn_0`. Counters are per base name, which keeps related names aligned
(`true_fn_0`/`false_fn_0`).

Names that stand for something other than a user variable carry a *role* (``RETURN_VALUE``,
``RETURN_FLAG``, ``BREAK_FLAG``, ``CONTINUE_FLAG``) that later passes ask for with
``role_of(name)``; nothing decides by the spelling of a name.
"""
import gast

from dy2st.pyct.nodes import walk


def names_in(tree, walked=None):
    """Every identifier mentioned in `tree` (variables, args, functions, attributes).

    ``walked``: ``walk(tree)``, when the caller has it already."""
    found = set()
    for node in walked if walked is not None else walk(tree):
        if isinstance(node, gast.Name):
            found.add(node.id)
        elif isinstance(node, (gast.FunctionDef, gast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, gast.alias):
            found.add((node.asname or node.name).split(".")[0])
    return found


RETURN_VALUE = "return value"      # holds what the function returns (early returns)
RETURN_FLAG = "return flag"        # True once a `return` ran
BREAK_FLAG = "break flag"          # True once a `break` ran in its loop
CONTINUE_FLAG = "continue flag"    # True once a `continue` ran in this iteration
MATCH_CASE = "match case"          # tests one `case` pattern (plain Python: never converted)


class Namer:
    """Hands out the fresh names of one conversion (and the role of those that have one)."""

    def __init__(self, reserved=()):
        self._taken = set(reserved)
        self._counters = {}
        self._roles = {}

    def reserve(self, names):
        """Mark ``names`` as taken."""
        self._taken.update(names)

    def new(self, base, role=None):
        """A fresh name `base_<n>` (n counts per base, starting at 0), recorded with ``role``."""
        n = self._counters.get(base, 0)
        while f"{base}_{n}" in self._taken:
            n += 1
        self._counters[base] = n + 1
        name = f"{base}_{n}"
        self._taken.add(name)
        if role is not None:
            self._roles[name] = role
        return name

    def role_of(self, name):
        """The role ``name`` was handed out with, or None (user variables, plain helpers)."""
        return self._roles.get(name)

    def with_role(self, names, role):
        """Those of ``names`` handed out with ``role``, in order."""
        return [n for n in names if self._roles.get(n) == role]

    def new_group(self, *bases):
        """Names sharing one number, e.g. ('true_fn', 'false_fn') -> true_fn_3, false_fn_3."""
        n = max(self._counters.get(b, 0) for b in bases)
        while any(f"{b}_{n}" in self._taken for b in bases):
            n += 1
        names = []
        for b in bases:
            self._counters[b] = n + 1
            names.append(f"{b}_{n}")
        self._taken.update(names)
        return names
