"""A list held in a local container and grown in a loop -> a local name around the loop.

A list grows inside a loop whose count is known only when the Program runs as a local name the
loop carries (a tensor array, see ``list_append``); a list reached through a dict or list item
(`feats['key'].append(v)`) could not, and was refused.  When the loop reaches the container only
through constant-key items, the grown item is read into a local before the loop and stored back
after it:

    feats = {'key': []}                     feats = {'key': []}
    for i in range(n):                      feats_key_0 = feats['key']
        feats['key'].append(x[i])           for i in range(n):
    y = rt.stack(feats['key'])                  feats_key_0.append(x[i])
                                            feats['key'] = feats_key_0
                                            y = rt.stack(feats['key'])

Eagerly the local and the item are one list all along (the store puts back the object it read),
so Python sees no difference, but for when a missing key raises: before a loop that runs zero
times, where the original read it in the first iteration.  The rewrite is made only when nothing
in the loop could reach the list another way: the container is a name the function binds (not a
parameter: the caller holds it too); inside the loop it appears only as the root of constant-key
items (`feats['key']`, `feats['other']`; not alone, with a computed key, rebound, in a nested
function or comprehension), the grown item itself is never assigned or deleted, and the loop
holds no `return`, `yield` or `await` (the store after it must run when it ends).
"""
import gast

from dy2st.pyct import anno, origin_info, templates, transformer
from dy2st.pyct.nodes import parents as parents_of, walk
from dy2st.transformers.list_aliases import GROWS, FRESH_SLOT, SLOT_OF, fresh_list
from dy2st.transformers.object_writes import function_locals

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp,
           gast.GeneratorExp, gast.ClassDef)
_EXITS = (gast.Return, gast.Yield, gast.YieldFrom, gast.Await)


def needed(census):
    """Whether the function may grow a list in a loop (an `append`/`extend`/`insert`/`pop` attribute and a loop)."""
    return not census.attributes.isdisjoint(GROWS) and census.has(gast.For, gast.While)


_NO_KEY = object()


def _key(node):
    """The constant a subscript's key is (`'a'`, `0`, `-2`), else ``_NO_KEY``."""
    if type(node) is gast.UnaryOp and type(node.op) is gast.USub:
        value = _key(node.operand)
        return -value if type(value) is int else _NO_KEY
    if type(node) is gast.Constant and type(node.value) in (str, int):
        return node.value
    return _NO_KEY


def _chain(node):
    """(root name, constant keys) of `d['a'][0]`, or None: a root that is not a name, a computed key."""
    keys = []
    while type(node) is gast.Subscript:
        key = _key(node.slice)
        if key is _NO_KEY:
            return None
        keys.append(key)
        node = node.value
    if type(node) is not gast.Name or not keys:
        return None
    return node.id, tuple(reversed(keys))


def _grown_items(loop):
    """The chains `loop` grows in place (`d['k'].append(v)` as a statement, `x = d['k'].pop()`)."""
    grown = set()
    for node in walk(loop):
        call = node.value if type(node) in (gast.Expr, gast.Assign) else None
        if (type(call) is gast.Call and type(call.func) is gast.Attribute and call.func.attr in GROWS
                and not call.keywords):
            chain = _chain(call.func.value)
            if chain is not None:
                grown.add(chain)
    return grown


def _keys_below(node, parents, limit):
    """(the outermost item, its constant keys) of the chain of constant-key subscripts that ``node``
    (a name) is the root of, up to ``limit`` keys or a computed key: `d['a'][i]` -> (`d['a']`, ('a',))."""
    top, used = node, ()
    while (type(parents.get(id(top))) is gast.Subscript and parents[id(top)].value is top
           and len(used) < limit and _key(parents[id(top)].slice) is not _NO_KEY):
        top = parents[id(top)]
        used += (_key(top.slice),)
    return top, used


def _in_nested_scope(node, parents, stop):
    """Whether ``node`` sits in a function, lambda, comprehension or class nested below ``stop``."""
    scope = parents.get(id(node))
    while scope is not None and scope is not stop:
        if type(scope) in _SCOPES:
            return True
        scope = parents.get(id(scope))
    return False


def _safe(loop, root, keys, parents):
    """Whether every use of ``root`` in ``loop`` is a constant-key item that neither holds the grown
    item ``keys`` (a prefix of it) nor writes it, outside nested scopes (see the module docstring)."""
    for node in walk(loop):
        if type(node) in _EXITS:
            return False
        if type(node) is not gast.Name or node.id != root:
            continue
        if type(node.ctx) is not gast.Load or _in_nested_scope(node, parents, loop):
            return False
        top, used = _keys_below(node, parents, len(keys))
        if used == keys:
            if type(top.ctx) is not gast.Load:
                return False  # `d['k'] = []` / `del d['k']` in the loop: another list from then on
        elif keys[:len(used)] == used:
            return False  # `d`, `d[name]` or `d['a']` holding the grown `d['a']['k']` is read another way
    return True


def _made_here(fn, fn_parents, loop, root, keys, namespace):
    """Whether the list at ``root[keys]`` is one only the container holds: ``root`` is bound once in
    ``fn``, to displays that make that list (`feats = {'key': []}`), and outside ``loop`` the function
    takes it out of the container only to use it (`feats['key'][0]`, `len(feats['key'])`), never to
    keep it (`lst = feats['key']`); the container itself only in a `return`, and in no nested function
    (called in the loop, it would read the list the container held before)."""
    made = None
    parents = fn_parents
    for node in walk(fn, prune={id(loop)}):
        if type(node) is not gast.Name or node.id != root:
            continue
        if _in_nested_scope(node, parents, fn):
            return False  # a nested function reads the container: it would see the old list
        parent = parents.get(id(node))
        if type(node.ctx) is gast.Store:
            if made is not None or type(parent) is not gast.Assign or len(parent.targets) != 1:
                return False
            made = parent.value
            continue
        top, used = _keys_below(node, parents, len(keys))
        if used == keys:
            if type(top.ctx) is not gast.Load or not fresh_list(parents, top, namespace):
                return False
        elif keys[:len(used)] == used and not (not used and type(parent) is gast.Return):
            return False
    for k in keys:  # the displays down to the list
        if type(made) is gast.Dict:
            made = next((v for key, v in reversed(list(zip(made.keys, made.values))) if _key(key) == k), None) \
                if _constant_keys(made) else None  # (a repeated key: Python keeps the last)
        elif type(made) in (gast.List, gast.Tuple) and type(k) is int and -len(made.elts) <= k < len(made.elts):
            made = made.elts[k]
        else:
            return False
    return made is not None and type(made) in (gast.List, gast.ListComp)


def _constant_keys(display):
    """Whether every key of a dict display is a constant (no `**other`, no computed key that could repeat one)."""
    return all(k is not None and _key(k) is not _NO_KEY for k in display.keys)


def _name_for(root, keys, namer):
    words = [root] + [str(k) if type(k) is int else "".join(c if c.isalnum() else "_" for c in k) for k in keys]
    return namer.new("_".join(words).replace("-", "m"))


class _Replace(gast.NodeTransformer):
    """Every `root[keys...]` item (and the items below it) read through the local ``name``."""

    def __init__(self, root, keys, name):
        self.root, self.keys, self.name = root, keys, name

    def visit_Subscript(self, node):
        if _chain(node) == (self.root, self.keys):
            return gast.Name(id=self.name, ctx=node.ctx, annotation=None, type_comment=None)
        self.generic_visit(node)
        return node


class SlotListTransformer(transformer.Transformer):
    """Hoists lists grown in loops out of local containers (see the module docstring)."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.bound = set()
        self.fn = None

    def visit_FunctionDef(self, node):
        saved, saved_fn = self.bound, self.fn
        self.fn = node
        params = {a.id for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs}
        params.update(a.id for a in (node.args.vararg, node.args.kwarg) if a is not None)
        self.bound = function_locals(node) - params
        self.generic_visit(node)
        self.bound, self.fn = saved, saved_fn
        return node

    def _loop(self, node):
        before, after = [], []
        grown = sorted(c for c in _grown_items(node) if c[0] in self.bound)
        # (the function's parents, taken once: a hoist changes only the loop, which _made_here skips)
        parents, fn_parents = (parents_of(node), parents_of(self.fn)) if grown else (None, None)
        for root, keys in grown:
            if not _safe(node, root, keys, parents):
                continue
            made_here = _made_here(self.fn, fn_parents, node, root, keys, self.ctx.namespace)
            name = _name_for(root, keys, self.ctx.namer)
            item = templates.replace_as_expression("root", root=root)
            for k in keys:
                item = gast.Subscript(value=item, slice=gast.Constant(value=k, kind=None), ctx=gast.Load())
            node = _Replace(root, keys, name).visit(node)
            read = templates.replace("name = item", name=name, item=item)
            store = templates.replace("item = name", name=name, item=item)
            store[0].targets[0].ctx = gast.Store()
            for stmt in (read[0], store[0]):  # for list_aliases: whether the list is only the container's
                anno.setanno(stmt, SLOT_OF, root + "".join(f"[{k!r}]" for k in keys))
                if made_here:
                    anno.setanno(stmt, FRESH_SLOT, True)
            before += read
            after += store
            parents = parents_of(node)
        self.generic_visit(node)  # loops inside, for what only they grow
        if not before:
            return node
        return origin_info.copy_origin(node, before + [node] + after)

    visit_For = _loop
    visit_While = _loop


def transform(node, ctx):
    """Apply the slot-lists pass to ``node``."""
    return SlotListTransformer(ctx).visit(node)
