"""Build code from readable templates: `replace("x = f(a)", x="y", f=call_node, a=arg_nodes)`.

A template is parsed once (cached); each call clones it and substitutes placeholder names:
- a `str` renames the placeholder (variables, function names, parameters);
- an expression node replaces it (its `ctx` follows the placeholder's: Load/Store/Del);
- a list splices in place: statements where the placeholder is an expression statement, elements
  of a tuple/list/call's arguments, or parameters of a `def`.
Placeholders must be names that cannot occur in user code by accident; the passes use plain
words and always substitute them.
"""
import functools

import gast

from dy2st.pyct.anno import _ANNO_FIELD


@functools.lru_cache(maxsize=None)
def _parse(template):
    return gast.parse(template).body


def clone(node):
    """A deep copy of a gast tree (or list of trees), several times faster than ``copy.deepcopy``.

    Nodes, lists and annotation stores are new; everything else (names, constants,
    frozensets, OriginInfo) is immutable and shared.  Annotation values that are
    nodes (e.g. a loop's extra test) are cloned too, as ``deepcopy`` would.
    """
    cls = type(node)
    if cls is list:
        return [clone(n) for n in node]
    if not isinstance(node, _AST):
        return node
    new = cls.__new__(cls)
    fields = new.__dict__
    for key, value in node.__dict__.items():
        kind = type(value)
        if kind is list:
            fields[key] = [clone(v) for v in value]
        elif key == _ANNO_FIELD:
            fields[key] = {k: clone(v) if isinstance(v, (_AST, list)) else v for k, v in value.items()}
        elif kind in _LEAVES:
            fields[key] = value
        elif isinstance(value, _AST):
            fields[key] = clone(value)
        else:
            fields[key] = value
    return new


_AST = gast.AST
_LEAVES = frozenset({str, int, type(None), bool, float})  # the common non-node field values, tested first


def _with_ctx(node, ctx):
    node = clone(node)
    if isinstance(node, (gast.Name, gast.Attribute, gast.Subscript, gast.Starred)):
        node.ctx = ctx
    if isinstance(node, (gast.Tuple, gast.List)):
        node.ctx = ctx
        node.elts = [_with_ctx(e, ctx) for e in node.elts]
    return node


def _as_expr(value, ctx):
    if isinstance(value, str):
        return gast.Name(id=value, ctx=ctx, annotation=None, type_comment=None)
    if isinstance(value, gast.AST):
        return _with_ctx(value, ctx)
    raise TypeError(f"cannot substitute {value!r} into an expression")


class _Replacer:
    def __init__(self, subs):
        self.subs = subs

    def _expand_item(self, item):
        """Returns a list: the item's replacement(s) when it is a spliced placeholder."""
        if isinstance(item, gast.Expr) and isinstance(item.value, gast.Name):
            value = self.subs.get(item.value.id)
            if isinstance(value, list):
                return [clone(v) if isinstance(v, gast.stmt) else gast.Expr(value=_as_expr(v, gast.Load()))
                        for v in value]
        if isinstance(item, gast.Name) and isinstance(self.subs.get(item.id), list):
            return [_as_expr(v, item.ctx) for v in self.subs[item.id]]
        return [self.visit(item)]

    def visit(self, node):
        if isinstance(node, gast.Name) and node.id in self.subs:
            return _as_expr(self.subs[node.id], node.ctx)
        if isinstance(node, (gast.FunctionDef, gast.ClassDef)) and isinstance(self.subs.get(node.name), str):
            node.name = self.subs[node.name]
        if isinstance(node, gast.arguments):
            # Substituted parameters are final: visiting them again would substitute a user's
            # parameter that happens to share a placeholder's name.
            node.args = self._expand_args(node.args)
            return node
        d = node.__dict__
        for field in node._fields:
            if field not in d:
                continue
            value = d[field]
            if isinstance(value, list):
                new = []
                for item in value:
                    if isinstance(item, gast.AST):
                        new.extend(self._expand_item(item))
                    else:
                        new.append(item)
                setattr(node, field, new)
            elif isinstance(value, gast.AST):
                setattr(node, field, self.visit(value))
        return node

    def _expand_args(self, args):
        out = []
        for a in args:  # gast parameters are Name nodes with ctx=Param
            value = self.subs.get(a.id) if isinstance(a, gast.Name) else None
            if isinstance(value, list):
                out.extend(gast.Name(id=v, ctx=gast.Param(), annotation=None, type_comment=None)
                           for v in value)
            elif isinstance(value, str):
                out.append(gast.Name(id=value, ctx=gast.Param(), annotation=None, type_comment=None))
            else:
                out.append(a)
        return out


def replace(template, **subs):
    """Statements (list) of `template` with placeholders substituted."""
    body = clone(_parse(template))
    replacer = _Replacer(subs)
    out = []
    for stmt in body:
        out.extend(replacer._expand_item(stmt))
    return out


def replace_as_expression(template, **subs):
    """The single expression of `template`, substituted."""
    stmts = replace(template, **subs)
    if len(stmts) != 1 or not isinstance(stmts[0], gast.Expr):
        raise ValueError(f"template is not one expression: {template!r}")
    return stmts[0].value


def name(identifier, ctx=None):
    """A ``gast.Name`` load (or ``ctx``) of ``identifier``."""
    return gast.Name(id=identifier, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def names_tuple(identifiers, ctx=None):
    """`a` for one name, `(a, b)` for several, `()` for none; the shape branch/loop fns use."""
    ctx = ctx or gast.Load()
    if len(identifiers) == 1:
        return name(identifiers[0], ctx)
    return gast.Tuple(elts=[name(i, ctx) for i in identifiers], ctx=ctx)


def str_tuple(strings):
    """A tuple literal of the string constants ``strings``."""
    return gast.Tuple(elts=[gast.Constant(value=s, kind=None) for s in strings], ctx=gast.Load())
