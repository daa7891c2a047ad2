"""Trees of values: flatten to leaves plus a structure, rebuild, map.

A tree is made of lists, tuples (named tuples too), dicts and leaves::

    >>> leaves, spec = flatten({"b": [x, 2], "a": (y, None)})
    >>> leaves                      # dict keys visited in sorted order, as in Paddle's nest
    [y, None, x, 2]
    >>> unflatten(spec, [1, 2, 3, 4])
    {'b': [3, 4], 'a': (1, 2)}
    >>> spec.to_json()
    ['dict', [['b', ['list', [['leaf'], ['leaf']]]], ['a', ['tuple', [['leaf'], ['leaf']]]]], ['a', 'b']]

By default every non-container value (None included) is a leaf.  With
``leaf_types=(rt.Tensor,)`` only those are leaves and any other value is kept
in the structure itself as a constant (``['const', value]``): that is the form
a converted function's arguments and outputs take, where Tensors are fed to a
Program and Python values are part of the cache key.

With ``leaf_types`` given, a dataclass instance is a container too (its fields, in
declaration order): a converted function's arguments may be dataclasses holding Tensors,
as Paddle's ``to_static`` allows, where a constant would freeze their tensors into the
Program.  Without ``leaf_types`` (``rt.utils.flatten``) it stays a leaf, as in Paddle's nest.

``sort_keys=False`` visits dict values in insertion order instead (a function's
outputs keep the order it built them in).  ``const_key(value)`` adds more of a
constant to the spec's identity than ``==`` sees (``0.0`` vs ``-0.0``); it is
compared and hashed, never saved.

A ``TreeSpec`` is hashable (when its constants are), compares by structure,
and round-trips through JSON (``to_json``/``from_json``) when its constants
and dict keys are JSON scalars, so a saved model can record its output
structure without pickle.
"""
import dataclasses

__all__ = ["TreeSpec", "flatten", "unflatten", "map_structure", "assert_same_structure", "is_container"]

_JSON_SCALARS = (str, int, float, bool, type(None))
_SCALARS = frozenset(_JSON_SCALARS)


def is_container(value):
    """True for the values a tree descends into: list, tuple (named tuples too) and dict."""
    return isinstance(value, (list, tuple, dict))


def _key_order(keys):
    try:
        return sorted(keys)
    except TypeError:  # mixed key types: still deterministic
        return sorted(keys, key=lambda k: (type(k).__name__, repr(k)))


class TreeSpec:
    """The structure of a tree: ``kind`` is 'leaf', 'const', 'list', 'tuple', 'namedtuple',
    'dataclass' or 'dict'.

    ``children`` holds sub-specs in the order their leaves are visited;
    ``meta`` is the constant (for 'const'), the named tuple class, (class, field names) for a
    dataclass, or for 'dict'
    a pair (visit-order keys, insertion-order keys) so a rebuilt dict keeps the
    user's key order while leaves follow the sorted order.
    """

    __slots__ = ("kind", "children", "meta", "num_leaves", "extra", "_dict_type", "_k", "_hash")

    def __init__(self, kind, children=(), meta=None, dict_type=dict, extra=None, num_leaves=None):
        self.kind = kind
        self.children = tuple(children)
        self.meta = meta
        self.extra = extra
        self._dict_type = dict_type
        self._hash = None
        # The identity as nested plain tuples, built from the children's as the tree is built:
        # hashing and comparing it stays in C (a spec keys caches).
        if kind == "namedtuple":
            key_meta = (meta.__module__, meta.__qualname__)
        elif kind == "dataclass":  # (class, field names): the class itself, as a rebuild uses it
            key_meta = meta
        elif kind == "const":
            key_meta = (type(meta).__name__, meta, extra)
        else:
            key_meta = meta
        self._k = (kind, key_meta, tuple([c._k for c in self.children]))
        if num_leaves is None:
            num_leaves = 1 if kind == "leaf" else sum(c.num_leaves for c in self.children)
        self.num_leaves = num_leaves

    # -- identity ------------------------------------------------------------------
    def _key(self):
        return self._k

    def __eq__(self, other):
        return self is other or (isinstance(other, TreeSpec) and self._key() == other._key())

    def __hash__(self):
        if self._hash is None:
            self._hash = hash(self._key())
        return self._hash

    def walk(self, path=()):
        """``(path, spec)`` of this node and every node under it, in visiting order (``path``: the
        keys and indices from the root, as in ``tree[k0][k1]``)."""
        yield path, self
        keys = self.meta[0] if self.kind == "dict" else self.meta[1] if self.kind == "dataclass" else \
            range(len(self.children))
        for key, child in zip(keys, self.children):
            yield from child.walk(path + (key,))

    def constants(self):
        """The constant values the structure holds, in visiting order."""
        if self.kind == "const":
            return [self.meta]
        return [v for c in self.children for v in c.constants()]

    def __repr__(self):
        return f"TreeSpec({self._text()})"

    def _text(self):
        if self.kind == "leaf":
            return "*"
        if self.kind == "const":
            return repr(self.meta)
        inner = [c._text() for c in self.children]
        if self.kind == "list":
            return "[" + ", ".join(inner) + "]"
        if self.kind == "tuple":
            return "(" + ", ".join(inner) + ("," if len(inner) == 1 else "") + ")"
        if self.kind == "namedtuple":
            return f"{self.meta.__name__}(" + ", ".join(inner) + ")"
        if self.kind == "dataclass":
            return f"{self.meta[0].__name__}(" + ", ".join(f"{n}={t}" for n, t in zip(self.meta[1], inner)) + ")"
        return "{" + ", ".join(f"{k!r}: {t}" for k, t in zip(self.meta[0], inner)) + "}"

    # -- JSON ------------------------------------------------------------------------
    def to_json(self, plain_tuples=False):
        """A JSON-able description; ValueError names the part that has no JSON form.

        ``plain_tuples``: describe named tuples as tuples (whoever reads it lacks their classes)."""
        if self.kind == "leaf":
            return ["leaf"]
        if self.kind == "const":
            if not isinstance(self.meta, _JSON_SCALARS):
                raise ValueError(f"a constant of type {type(self.meta).__name__} ({self.meta!r}) in the tree "
                                 "has no JSON form; only str, int, float, bool and None do")
            return ["const", self.meta]
        if self.kind == "namedtuple" and not plain_tuples:
            raise ValueError(f"the named tuple {self.meta.__name__} in the tree has no JSON form; "
                             "use a tuple or a dict")
        if self.kind == "dataclass":  # saved as the dict of its fields (whoever reads it lacks the class)
            if not plain_tuples:
                raise ValueError(f"the dataclass {self.meta[0].__name__} in the tree has no JSON form; use a dict")
            return ["dict", [[n, c.to_json(plain_tuples)] for n, c in zip(self.meta[1], self.children)],
                    list(self.meta[1])]
        if self.kind in ("list", "tuple", "namedtuple"):
            kind = "list" if self.kind == "list" else "tuple"
            return [kind, [c.to_json(plain_tuples) for c in self.children]]
        visit, insertion = self.meta
        for k in visit:
            if not isinstance(k, _JSON_SCALARS):
                raise ValueError(f"the dict key {k!r} ({type(k).__name__}) in the tree has no JSON form")
        return ["dict", [[k, c.to_json(plain_tuples)] for k, c in zip(visit, self.children)], list(insertion)]

    @classmethod
    def from_json(cls, data):
        """Rebuild a TreeSpec from ``to_json()``'s output (ValueError on anything else)."""
        if not isinstance(data, list) or not data or data[0] not in ("leaf", "const", "list", "tuple", "dict"):
            raise ValueError(f"not a tree description: {data!r}")
        kind = data[0]
        if kind == "leaf":
            return cls("leaf")
        if kind == "const":
            return cls("const", meta=data[1])
        if kind in ("list", "tuple"):
            return cls(kind, [cls.from_json(c) for c in data[1]])
        pairs = data[1]
        visit = tuple(_hashable(k) for k, _ in pairs)
        insertion = tuple(_hashable(k) for k in data[2]) if len(data) > 2 else visit
        if sorted(map(repr, visit)) != sorted(map(repr, insertion)):
            raise ValueError(f"dict description lists keys {list(visit)} but orders {list(insertion)}")
        return cls("dict", [cls.from_json(c) for _, c in pairs], meta=(visit, insertion))


def _hashable(key):
    if isinstance(key, list):  # JSON has no tuples; a list key can only have been a tuple
        return tuple(_hashable(k) for k in key)
    return key


# -- flatten / unflatten --------------------------------------------------------------
def flatten(tree, leaf_types=None, sort_keys=True, const_key=None):
    """``(leaves, spec)``: the leaves of ``tree`` in visiting order and its structure.

    ``leaf_types``: None (every non-container is a leaf) or a type / tuple of
    types (only those are leaves; other values become constants in ``spec``).
    ``sort_keys``: visit dict values in sorted key order (else insertion order).
    ``const_key``: a function of a constant giving more of its identity (or None).
    """
    leaves = []
    append = leaves.append

    def visit(node):
        if leaf_types is not None and isinstance(node, leaf_types):  # the common case first: a tensor
            append(node)
            return _LEAF
        cls = type(node)
        if cls in _SCALARS:  # a plain value: no container checks
            if leaf_types is None:
                append(node)
                return _LEAF
            return TreeSpec("const", meta=node, extra=None if const_key is None else const_key(node), num_leaves=0)
        if cls is tuple or cls is list or (isinstance(node, (list, tuple)) and not hasattr(cls, "_fields")):
            start = len(leaves)
            children = [visit(v) for v in node]
            return TreeSpec("list" if isinstance(node, list) else "tuple", children, num_leaves=len(leaves) - start)
        if isinstance(node, dict):
            start = len(leaves)
            keys = tuple(_key_order(node)) if sort_keys else tuple(node)
            children = [visit(node[k]) for k in keys]
            return TreeSpec("dict", children, meta=(keys, tuple(node)), dict_type=cls, num_leaves=len(leaves) - start)
        if isinstance(node, tuple):  # a named tuple
            start = len(leaves)
            children = [visit(v) for v in node]
            return TreeSpec("namedtuple", children, meta=cls, num_leaves=len(leaves) - start)
        if leaf_types is not None and hasattr(cls, "__dataclass_fields__"):  # an instance (a class's type is type)
            start = len(leaves)
            names = tuple(f.name for f in dataclasses.fields(node))
            children = [visit(getattr(node, n)) for n in names]
            return TreeSpec("dataclass", children, meta=(cls, names), num_leaves=len(leaves) - start)
        if leaf_types is None:
            append(node)
            return _LEAF
        return TreeSpec("const", meta=node, extra=None if const_key is None else const_key(node), num_leaves=0)

    return leaves, visit(tree)


_LEAF = TreeSpec("leaf")  # specs are immutable: every leaf shares one


def unflatten(spec, leaves):
    """Rebuild the tree ``spec`` describes, taking its leaves from ``leaves`` in order."""
    leaves = list(leaves)
    if len(leaves) != spec.num_leaves:
        raise ValueError(f"the structure {spec._text()} has {spec.num_leaves} leaves, got {len(leaves)} values")
    it = iter(leaves)
    return _unflatten(spec, it)


def _unflatten(spec, it):
    kind = spec.kind
    if kind == "leaf":
        return next(it)
    if kind == "const":
        return spec.meta
    items = [_unflatten(c, it) for c in spec.children]
    if kind == "list":
        return items
    if kind == "tuple":
        return tuple(items)
    if kind == "namedtuple":
        return spec.meta(*items)
    if kind == "dataclass":  # rebuilt field by field, as copy.copy does: no __init__/__post_init__ rerun
        cls, names = spec.meta
        obj = cls.__new__(cls)
        for name, value in zip(names, items):
            object.__setattr__(obj, name, value)  # frozen dataclasses too
        return obj
    visit, insertion = spec.meta
    by_key = dict(zip(visit, items))
    pairs = [(k, by_key[k]) for k in insertion]
    try:
        return spec._dict_type(pairs)
    except TypeError:  # a dict subclass built otherwise (defaultdict takes its factory first): a dict
        return dict(pairs)


def _same(spec_a, spec_b):
    if spec_a.kind != spec_b.kind or len(spec_a.children) != len(spec_b.children):
        return False
    if spec_a.kind == "dict" and set(spec_a.meta[0]) != set(spec_b.meta[0]):
        return False
    if spec_a.kind in ("namedtuple", "dataclass") and spec_a.meta != spec_b.meta:
        return False
    return all(_same(a, b) for a, b in zip(spec_a.children, spec_b.children))


def assert_same_structure(*trees, leaf_types=None):
    """Raise ValueError naming both structures when the trees differ in shape (leaf values may differ)."""
    specs = [flatten(t, leaf_types)[1] for t in trees]
    for i, s in enumerate(specs[1:], 1):
        if not _same(specs[0], s):
            raise ValueError(f"the structures differ: argument 0 is {specs[0]._text()}, "
                             f"argument {i} is {s._text()}")
    return specs


def map_structure(fn, *trees, leaf_types=None):
    """``fn`` applied leaf-wise across trees of the same structure; the result has the first's structure."""
    if not trees:
        raise TypeError("map_structure needs at least one tree")
    specs = assert_same_structure(*trees, leaf_types=leaf_types)
    flats = [flatten(t, leaf_types)[0] for t in trees]
    return unflatten(specs[0], [fn(*vals) for vals in zip(*flats)])

