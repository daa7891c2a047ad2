"""Which objects a block writes *into* (not which names it binds): for `if` and loop passes.

`res["a"] = v`, `obj.attr = v`, `self.fc.n += 1`, `del d[k]`, `lst.append(v)`, `d.update(e)`
all change an object reached from a name (`res`, `obj`, `self`, `d`, `lst`). The branch and
loop passes hand those objects to `_jst.IfElse`/`_jst.While`/`_jst.For` as
`writes={'res': res}`, so that what the body writes follows the branch taken / the loop.

    if x.sum() > 4:                    ...
        res["a"] = 2          ->       _jst.IfElse(x.sum() > 4, true_fn_0, false_fn_0, (), (),
                                                   writes={'res': res})
"""
import gast

from dy2st.pyct import templates
from dy2st.pyct.nodes import walk

# Methods that change a list, dict or set in place.
MUTATING_METHODS = frozenset(
    "append extend insert pop remove clear update setdefault popitem sort reverse".split())

# `_jst` helpers that write into their first argument (see the list_append pass).
_WRITING_HELPERS = frozenset({"SetItem", "Append", "Pop"})


def _root(node):
    while isinstance(node, (gast.Attribute, gast.Subscript)):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


def _store_targets(node):
    if isinstance(node, (gast.Assign, gast.Delete)):
        return node.targets
    if isinstance(node, (gast.AugAssign, gast.AnnAssign)):
        return [node.target]
    if isinstance(node, (gast.For, gast.AsyncFor)):
        return [node.target]
    if isinstance(node, gast.withitem) and node.optional_vars is not None:
        return [node.optional_vars]
    return []


def written_roots(stmts):
    """Sorted names whose objects `stmts` write into (nested functions included: branch and
    loop bodies already turned into functions still write what the user's code wrote)."""
    found = set()
    for stmt in stmts:
        for node in walk(stmt):
            for target in _store_targets(node):
                stack = [target]
                while stack:
                    t = stack.pop()
                    if isinstance(t, (gast.Tuple, gast.List)):
                        stack.extend(t.elts)
                    elif isinstance(t, gast.Starred):
                        stack.append(t.value)
                    elif isinstance(t, (gast.Attribute, gast.Subscript)):
                        found.add(_root(t.value))
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute):
                if node.func.attr in MUTATING_METHODS:
                    found.add(_root(node.func.value))
                elif _root(node.func) == "_jst" and node.func.attr in _WRITING_HELPERS and node.args:
                    found.add(_root(node.args[0]))  # `d = _jst.SetItem(d, k, v)` writes into d
    found.discard(None)
    found.discard("_jst")
    return sorted(found)


def function_locals(fn_node):
    """Names bound anywhere in a function (parameters included), nested functions' own
    names aside: a root that is not one of them is a global or closure variable."""
    names = set()
    for node in walk(fn_node):
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Param, gast.Del)):
            names.add(node.id)
    return names


def writes_dict(roots):
    """`{'res': res, 'self': self}` as an expression."""
    return gast.Dict(keys=[gast.Constant(value=r, kind=None) for r in roots],
                     values=[templates.name(r) for r in roots])
