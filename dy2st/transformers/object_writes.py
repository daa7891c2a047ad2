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

from runtime.inplace import NAMES as INPLACE_METHODS

from dy2st.pyct import templates
from dy2st.pyct.nodes import walk

# Methods that change a list, dict or set in place.
MUTATING_METHODS = frozenset(
    "append extend insert pop remove clear update setdefault popitem sort reverse".split())

# `_jst` helpers that write into their first argument (see the list_append pass).
_WRITING_HELPERS = frozenset({"SetItem", "Inplace", "Append", "Pop"})


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


def _add_roots(node, found):
    """Add to ``found`` the roots ``node`` itself writes into (not its children's)."""
    cls = type(node)
    if cls in _STORING:
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
    elif cls is gast.Call and type(node.func) is gast.Attribute:
        if node.func.attr in MUTATING_METHODS:
            found.add(_root(node.func.value))
        elif _root(node.func) == "_jst" and node.func.attr in _WRITING_HELPERS and node.args:
            found.add(_root(node.args[0]))  # `d = _jst.SetItem(d, k, v)` writes into d


# The node types `_store_targets` finds targets in (tested by exact type: gast has no subclasses).
_STORING = frozenset({gast.Assign, gast.Delete, gast.AugAssign, gast.AnnAssign, gast.For, gast.AsyncFor,
                      gast.withitem})


def may_write_into_objects(census):
    """False when the user's code (its ``Census``) writes into no object, nor will once the passes
    before the if pass ran: then ``writes_into_objects`` of the tree they leave is False too.

    A write into an object is an attribute or item target (a store or del, which the census
    sees), a call of a mutating method (`lst.append`), or a `_jst` helper writing into its first
    argument, which only the list pass makes, from `lst.append/pop` (mutating methods), `y[k] = v`
    (an item store) and in-place Tensor methods (`y.add_(v)`). The other passes bind names and
    call other helpers; a name `_jst` in the user's code could call one directly."""
    return (census.stores_into or "_jst" in census.names
            or not census.attributes.isdisjoint(MUTATING_METHODS | INPLACE_METHODS))


def writes_into_objects(tree):
    """Whether anything in ``tree`` (a node or list, nested functions included) writes into an
    object: whether ``written_roots`` of any part of it could name a root.

    The if and loop passes ask once for the whole function they convert: most functions write
    into no object, and then every branch's and loop's roots are empty, so the per-def facts
    and per-statement walks that find them are skipped.  Neither pass adds a write into an
    object (their generated assignments bind names; a `for` target they move into the body
    was already one, on the `for`).
    """
    found = set()
    storing, call = _STORING, gast.Call
    for node in walk(tree):
        cls = type(node)
        if cls in storing or cls is call:
            _add_roots(node, found)
    found.discard(None)
    found.discard("_jst")
    return bool(found)


def written_roots(stmts, memo=None):
    """Sorted names whose objects `stmts` write into (nested functions included: branch and
    loop bodies already turned into functions still write what the user's code wrote).

    ``memo``: a dict a pass keeps, {id(stmt): (stmt, roots)}, for statements it no longer
    changes. The `if` and loop passes ask about a body after moving the statements of inner
    bodies (already asked about) into generated functions, so with it a statement nested n
    deep is walked once rather than n times.
    """
    found = set()
    for stmt in stmts:
        if memo is None:
            for node in walk(stmt):
                _add_roots(node, found)
            continue
        entry = memo.get(id(stmt))
        if entry is None:
            own = set()
            for node in walk(stmt, memo):  # below an already known statement: nothing
                known = memo.get(id(node))
                if known is not None:
                    own |= known[1]
                else:
                    _add_roots(node, own)
            entry = memo[id(stmt)] = (stmt, frozenset(own))  # holding stmt keeps its id unique
        found |= entry[1]
    found.discard(None)
    found.discard("_jst")
    return sorted(found)


def function_locals(fn_node):
    """Names bound anywhere in a function (parameters included), nested functions' own
    names aside: a root that is not one of them is a global or closure variable."""
    names = set()
    stack = [fn_node]
    pop, push = stack.pop, stack.extend
    while stack:  # a walk that skips what holds no names (contexts, operators): it sees every node
        node = pop()
        cls = type(node)
        if cls is _NAME:
            if type(node.ctx) in _BINDING:
                names.add(node.id)
            if node.annotation is None:
                continue
        fields = _NAME_FIELDS.get(cls)
        if fields is None:
            fields = _NAME_FIELDS[cls] = tuple(f for f in cls._fields if f not in ("ctx", "op", "type_comment"))
        d = node.__dict__
        for field in fields:
            value = d.get(field)
            if type(value) is list:
                push([v for v in value if isinstance(v, _AST)])
            elif isinstance(value, _AST):
                stack.append(value)
    return names


_NAME, _AST = gast.Name, gast.AST
_BINDING = (gast.Store, gast.Param, gast.Del)
_NAME_FIELDS = {}  # per node type: the fields that may hold a Name


def nested_function_writes(fn_node, facts=None):
    """{name: roots} for the functions ``fn_node`` defines (at any depth of its own statements):
    the objects each writes into through names it does not bind itself (closure variables and
    globals). A loop or branch body that calls `inc()` writes what `inc` writes.

    ``facts``: a ``DefFacts`` of the pass, which knows each def's locals and roots already."""
    facts = facts or DefFacts()
    out = {}
    stack = list(fn_node.body)
    while stack:
        node = stack.pop()
        if type(node) in (gast.FunctionDef, gast.AsyncFunctionDef):
            own, body_roots, _ = facts.of(node)
            roots = [r for r in body_roots if r not in own]
            if roots:
                out[node.name] = frozenset(roots)
            continue  # its own nested functions are its business
        for field in ("body", "orelse", "finalbody", "handlers"):
            stack.extend(getattr(node, field, ()) or ())
    return out


class DefFacts:
    """Per pass: each def's ``function_locals`` and the roots its body writes into
    (``written_roots(fn.body)``), found in one walk of the outermost def asked about, each
    nested def's facts folded into its parent's rather than walked again for each level.

    Only for trees the pass has not changed yet: the if and loop passes ask on entering a def,
    before changing anything below it, and enter each def once (so a nested def, found when an
    enclosing def was entered, is still as it was when it is entered itself).

    ``rewritten``: the node types the pass rewrites; a def holding none of them at any depth is
    left as it is by the pass, so its roots stay true to the end of the pass (see ``settle``).
    """

    def __init__(self, rewritten=()):
        self._rewritten = frozenset(rewritten)
        # id(def) -> (def, locals, sorted body roots, every root of the def's subtree, whether the
        # subtree holds a node of a rewritten type)
        self._known = {}

    def of(self, fn):
        """(function_locals(fn), written_roots(fn.body), the roots of fn's whole subtree, raw)."""
        entry = self._known.get(id(fn))
        if entry is None:
            head_names, head_roots = set(), set()
            head = self._walk([v for f, v in fn.__dict__.items() if f != "body" and f in _DEF_HEAD and v is not None],
                              head_names, head_roots)
            names, roots = set(), set()
            body = self._walk(list(fn.body), names, roots)
            body_roots = set(roots)
            body_roots.discard(None)
            body_roots.discard("_jst")
            entry = self._known[id(fn)] = (fn, frozenset(names | head_names), sorted(body_roots),
                                           frozenset(roots | head_roots), head or body)  # fn held: its id stays unique
        return entry[1:4]

    def settle(self, memo):
        """Enter in ``memo`` (``written_roots``'s, of statements the pass no longer changes) every
        known def the pass leaves as it is, with the roots of its whole subtree: ``written_roots``
        then takes them rather than walking the def (a branch function the if pass made, moved
        into a loop function by the loop pass, say)."""
        for fn, _, _, every_root, touched in self._known.values():
            if not touched and id(fn) not in memo:
                memo[id(fn)] = (fn, every_root)

    def _walk(self, stack, names, roots):
        """``function_locals``'s walk (names bound) and ``written_roots``'s (roots written) in one;
        a nested def contributes its own facts. Returns whether a node of a rewritten type was met."""
        pop, push = stack.pop, stack.extend
        rewritten, touched = self._rewritten, False
        while stack:
            node = pop()
            if type(node) is list:
                push(node)
                continue
            if not isinstance(node, _AST):
                continue
            cls = type(node)
            if cls is _NAME:
                if type(node.ctx) in _BINDING:
                    names.add(node.id)
                if node.annotation is None:
                    continue
            elif cls is gast.FunctionDef or cls is gast.AsyncFunctionDef:
                self.of(node)
                _, own, _, every_root, inner = self._known[id(node)]
                names |= own
                roots |= every_root
                touched = touched or inner
                continue
            else:
                if cls in rewritten:
                    touched = True
                _add_roots(node, roots)
            fields = _NAME_FIELDS.get(cls)
            if fields is None:
                fields = _NAME_FIELDS[cls] = tuple(f for f in cls._fields if f not in ("ctx", "op", "type_comment"))
            d = node.__dict__
            for field in fields:
                value = d.get(field)
                if type(value) is list:
                    push([v for v in value if isinstance(v, _AST)])
                elif isinstance(value, _AST):
                    stack.append(value)
        return touched


_DEF_HEAD = frozenset(("args", "decorator_list", "returns", "type_params"))  # a def's fields besides its body


def called_function_roots(stmts, fn_writes):
    """The roots the nested functions ``stmts`` name (call, or pass on) write into."""
    found = set()
    if fn_writes:
        for stmt in stmts:
            for node in walk(stmt):
                if type(node) is _NAME and node.id in fn_writes and type(node.ctx) is gast.Load:
                    found |= fn_writes[node.id]
    return found


def writes_dict(roots):
    """`{'res': res, 'self': self}` as an expression."""
    return gast.Dict(keys=[gast.Constant(value=r, kind=None) for r in roots],
                     values=[templates.name(r) for r in roots])
