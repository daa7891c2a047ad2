"""A fast ``ast.walk``: the converter walks every tree several times per pass.

``ast.walk`` goes through two generators per node (``iter_child_nodes``, ``iter_fields``) and a
``getattr`` per field; reading each node's ``__dict__`` by its ``_fields`` is several times
faster and visits the nodes in the same order (parents before children, children in field
order), so two trees of the same shape still come out in step.
"""
import ast

_AST = ast.AST


def walk(tree, prune=None):
    """Every node of a gast/ast tree (or list of trees), parents first, in ``ast.walk``'s order;
    below the nodes whose id is in ``prune`` (a set or dict), nothing."""
    out = list(tree) if type(tree) is list else [tree]
    append = out.append
    # A for loop over the list being appended to is a breadth-first walk; the children are pushed
    # inline (as ``children`` lists them), not by a call per node: the converter walks trees often.
    fields_of = _NODE_FIELDS
    for node in out:
        if prune is not None and id(node) in prune:
            continue
        d = node.__dict__
        fields = fields_of.get(type(node))
        if fields is None:
            fields = node_fields(type(node))
        for field in fields:
            value = d.get(field)
            if isinstance(value, _AST):
                append(value)
            elif type(value) is list:
                for v in value:
                    if isinstance(v, _AST):
                        append(v)
    return out


def node_fields(cls):
    """The fields of node type ``cls`` that may hold nodes, in field order (found once per type): its
    ``_fields`` less those that hold a name, a number or a flag (``id``, ``attr``, a def's ``name``,
    a constant's ``value``...), which a walk would only read to find no node there."""
    fields = _NODE_FIELDS.get(cls)
    if fields is None:
        fields = _NODE_FIELDS[cls] = tuple(
            f for f in cls._fields if f not in _NON_NODE_FIELDS and (cls.__name__, f) not in _NON_NODE_FIELDS_OF)
    return fields


_NODE_FIELDS = {}
# Fields that never hold a node, in any gast or ast node type.
_NON_NODE_FIELDS = frozenset(("id", "attr", "type_comment", "kind", "arg", "conversion", "level", "module", "asname",
                              "is_async", "simple", "tag"))
# ... and in these types only (a gast ``ExceptHandler``'s ``name`` is a Name node).
_NON_NODE_FIELDS_OF = frozenset((("FunctionDef", "name"), ("AsyncFunctionDef", "name"), ("ClassDef", "name"),
                                 ("alias", "name"), ("Constant", "value")))


def statements(tree):
    """The nodes ``walk(tree)`` reaches through statement lists only (statements, ``except``
    handlers, ``match`` cases), in its order: what finds a statement kind (a ``global``, a loop,
    a ``def``) need not go through expressions, which hold none (a lambda's body is one)."""
    out = list(tree) if type(tree) is list else [tree]
    append = out.append
    for node in out:
        cls = type(node)
        fields = _BLOCK_FIELDS.get(cls)
        if fields is None:
            fields = _BLOCK_FIELDS[cls] = tuple(f for f in cls._fields if f in _BLOCK_NAMES)
        d = node.__dict__
        for field in fields:
            value = d.get(field)
            if type(value) is list:
                for v in value:
                    if isinstance(v, _AST):
                        append(v)
    return out


# The fields that hold statements (in statements, ``except`` handlers and ``match`` cases).
BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")
_BLOCK_NAMES = frozenset(BLOCK_FIELDS)
_BLOCK_FIELDS = {}  # per node type: its fields that may hold statements, in field order


def children(node):
    """The direct child nodes of ``node``, in field order (``ast.iter_child_nodes`` as a list)."""
    out = []
    d = node.__dict__
    for field in node._fields:
        value = d.get(field)
        if isinstance(value, _AST):
            out.append(value)
        elif type(value) is list:
            out.extend(v for v in value if isinstance(v, _AST))
    return out


def parents(tree):
    """{id(node): its parent} for every node below ``tree``."""
    return {id(child): node for node in walk(tree) for child in children(node)}


class FastTranslator:
    """Mixin for gast's ast<->gast translators: the visitor of each node type and the fields it
    copies looked up once per type, not by name and ``hasattr`` for every node.

    A subclass sets ``target`` (the module whose node classes it builds) and its own
    ``_visitors``/``_layouts`` dicts, and lists this mixin before gast's translator.
    """

    target = None
    _visitors = None
    _layouts = None

    def visit(self, node):
        """Translate ``node`` with its type's visitor (gast's ``visit_X`` or ``generic_visit``)."""
        cls = type(node)
        fn = self._visitors.get(cls)
        if fn is None:
            fn = self._visitors[cls] = getattr(type(self), "visit_" + cls.__name__, type(self).generic_visit)
        return fn(self, node)

    def generic_visit(self, node):
        """A node of ``target`` with the same fields (translated) and location attributes."""
        cls = type(node)
        layout = self._layouts.get(cls)
        if layout is None:
            layout = self._layouts[cls] = (getattr(self.target, cls.__name__, None), cls._fields, cls._attributes)
        target, fields, attributes = layout
        if target is None:  # not part of the target AST (as in gast)
            return None
        old = node.__dict__
        new = target.__new__(target)
        for field in fields:
            if field in old:
                value = old[field]
                if isinstance(value, _AST):
                    value = self.visit(value)
                elif type(value) is list:
                    value = self._visit(value)
                setattr(new, field, value)
        for attr in attributes:
            if attr in old:
                setattr(new, attr, old[attr])
        return new
