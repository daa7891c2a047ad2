"""The one namer: fresh, readable names that collide with nothing in the function.

All passes of one conversion share a Namer; it knows every name the user's function mentions
and every name it has handed out, so `true_fn_0` can never shadow a user variable called
`true_fn_0`. Counters are per base name, which keeps related names aligned
(`true_fn_0`/`false_fn_0`).
"""
import gast


def names_in(tree):
    """Every identifier mentioned in `tree` (variables, args, functions, attributes)."""
    found = set()
    for node in gast.walk(tree):
        if isinstance(node, gast.Name):
            found.add(node.id)
        elif isinstance(node, (gast.FunctionDef, gast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, gast.alias):
            found.add((node.asname or node.name).split(".")[0])
    return found


class Namer:
    """Hands out generated names that collide neither with ``reserved`` names nor with each other."""

    def __init__(self, reserved=()):
        self._taken = set(reserved)
        self._counters = {}

    def reserve(self, names):
        """Mark ``names`` as taken."""
        self._taken.update(names)

    def new(self, base):
        """A fresh name `base_<n>` (n counts per base, starting at 0)."""
        n = self._counters.get(base, 0)
        while f"{base}_{n}" in self._taken:
            n += 1
        self._counters[base] = n + 1
        name = f"{base}_{n}"
        self._taken.add(name)
        return name

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
