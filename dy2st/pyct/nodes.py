"""A fast ``ast.walk``: the converter walks every tree several times per pass.

``ast.walk`` goes through two generators per node (``iter_child_nodes``, ``iter_fields``) and a
``getattr`` per field; reading each node's ``__dict__`` by its ``_fields`` is several times
faster and visits the nodes in the same order (parents before children, children in field
order), so two trees of the same shape still come out in step.
"""
import ast

_AST = ast.AST


def walk(tree):
    """Every node of a gast/ast tree (or list of trees), parents first, in ``ast.walk``'s order."""
    out = list(tree) if type(tree) is list else [tree]
    i = 0
    while i < len(out):
        node = out[i]
        d = node.__dict__
        for field in node._fields:
            value = d.get(field)
            if isinstance(value, _AST):
                out.append(value)
            elif type(value) is list:
                out.extend(v for v in value if isinstance(v, _AST))
        i += 1
    return out


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
