"""Build code from readable templates: `replace("x = f(a)", x="y", f=call_node, a=arg_nodes)`.

A template is parsed once (cached); each call builds a fresh copy of it, substituting placeholder
names on the way (substituted nodes are copied too, so one node may be substituted twice):
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
        return name(value, ctx)
    if isinstance(value, gast.AST):
        return _with_ctx(value, ctx)
    raise TypeError(f"cannot substitute {value!r} into an expression")


class _Instantiator:
    """Builds a fresh copy of a cached template's nodes, substituting placeholders on the way:
    one pass, where cloning the template and then substituting into the clone took two."""

    def __init__(self, subs):
        self.subs = subs

    def expand_item(self, item):
        """A list item as its replacement(s): spliced statements/elements, or one built node."""
        cls = type(item)
        if cls is gast.Expr and type(item.value) is gast.Name:
            value = self.subs.get(item.value.id)
            if type(value) is list:
                return [clone(v) if isinstance(v, gast.stmt) else gast.Expr(value=_as_expr(v, gast.Load()))
                        for v in value]
        elif cls is gast.Name:
            value = self.subs.get(item.id)
            if type(value) is list:
                ctx = type(item.ctx)()
                return [_as_expr(v, ctx) for v in value]
        return [self.build(item)]

    def build(self, node):
        """A new node for template node ``node``, placeholders substituted."""
        cls = type(node)
        if cls is gast.Name and node.id in self.subs:
            return _as_expr(self.subs[node.id], _new(type(node.ctx)))
        if cls is gast.arguments:
            # Substituted parameters are final: substituting into them again would rename a
            # user's parameter that happens to share a placeholder's name.
            new = clone(node)
            new.args = self._expand_args(new.args)
            return new
        new = cls.__new__(cls)
        fields = new.__dict__
        for key, value in node.__dict__.items():
            kind = type(value)
            if kind is list:
                items = []
                for item in value:
                    if isinstance(item, _AST):
                        items.extend(self.expand_item(item))
                    else:
                        items.append(item)
                fields[key] = items
            elif kind in _LEAVES:
                fields[key] = value
            elif isinstance(value, _AST):
                fields[key] = self.build(value)
            else:
                fields[key] = value
        if cls is gast.FunctionDef or cls is gast.ClassDef:
            value = self.subs.get(node.name)
            if isinstance(value, str):
                new.name = value
        return new

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
    builder = _Instantiator(subs)
    out = []
    for stmt in _parse(template):
        out.extend(builder.expand_item(stmt))
    return out


def replace_as_expression(template, **subs):
    """The single expression of `template`, substituted."""
    stmts = replace(template, **subs)
    if len(stmts) != 1 or not isinstance(stmts[0], gast.Expr):
        raise ValueError(f"template is not one expression: {template!r}")
    return stmts[0].value


def make(cls, **fields):
    """``cls(**fields)``, the same node without gast's Python ``__init__``, which sets the same
    fields in the same order, slower: a conversion builds hundreds of nodes with these builders."""
    node = _new(cls)
    node.__dict__.update(fields)
    return node


def name(identifier, ctx=None):
    """A ``gast.Name`` load (or ``ctx``) of ``identifier``."""
    node = _new(_NAME)  # what ``gast.Name(id=..., ctx=..., annotation=None, type_comment=None)`` builds
    d = node.__dict__
    d["id"] = identifier
    d["ctx"] = ctx or _new(_LOAD)
    d["annotation"] = None
    d["type_comment"] = None
    return node


def names_tuple(identifiers, ctx=None):
    """`a` for one name, `(a, b)` for several, `()` for none; the shape branch/loop fns use."""
    ctx = ctx or _new(_LOAD)
    if len(identifiers) == 1:
        return name(identifiers[0], ctx)
    return make(gast.Tuple, elts=[name(i, ctx) for i in identifiers], ctx=ctx)


def constant(value):
    """``gast.Constant(value=value, kind=None)``."""
    node = _new(_CONSTANT)
    d = node.__dict__
    d["value"] = value
    d["kind"] = None
    return node


def str_tuple(strings):
    """A tuple literal of the string constants ``strings``."""
    return make(gast.Tuple, elts=[constant(s) for s in strings], ctx=_new(_LOAD))


def helper_call(attr, args, keywords=()):
    """``_jst.attr(*args, **keywords)`` built directly (``args`` and keyword values move into it,
    uncopied): what ``replace_as_expression("_jst.attr(...)")`` builds, minus the copies."""
    return make(gast.Call, func=make(gast.Attribute, value=name("_jst"), attr=attr, ctx=_new(_LOAD)), args=list(args),
                keywords=[make(gast.keyword, arg=k, value=v) for k, v in keywords])


def unless(flag, body):
    """``if not flag: body`` built directly (the statements of ``body`` move into it, uncopied): what
    ``replace("if not flag:\n    rest", flag=flag, rest=body)`` builds, minus the copy of ``body``
    (the rest of a block after a jump, which the break and return passes guard)."""
    return [make(gast.If, test=make(gast.UnaryOp, op=_new(gast.Not), operand=name(flag)), body=list(body), orelse=[])]


def function_def(fn_name, params, body):
    """``def fn_name(params): body`` built directly (``body`` moves into it, uncopied)."""
    return make(
        gast.FunctionDef,
        name=fn_name, decorator_list=[], returns=None, type_comment=None, type_params=[],
        args=make(gast.arguments, args=[name(p, _new(_PARAM)) for p in params], posonlyargs=[], vararg=None,
                  kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=body)


_new = gast.AST.__new__
_NAME, _LOAD, _PARAM, _CONSTANT = gast.Name, gast.Load, gast.Param, gast.Constant
