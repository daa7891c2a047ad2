"""gast -> Python source, verified by re-parsing.

astor writes the most readable code, but 0.8.1 misprints f-strings with quotes inside braces and
cannot print `match` or `except*`.  Verified output (``to_source``, ``compiled_source``) is
re-parsed; both trees are walked in step and must agree node by node (type and count), and a
tree holding what astor misprints is compared in full (`ast.dump`, without positions).  On any
mismatch the standard `ast.unparse` is used.  Printing for display only
(``to_source(node, verify=False)``) skips the re-parse; ``DY2ST_CHECK_CODEGEN=1`` compares every
output in full, for debugging the printer.

The code that runs (``compiled_code``, for the loader) is printed by ``gast_printer`` when the tree
is made of the node types it knows (most generated code): astor's text straight from the gast tree,
with the line map, no translation to ``ast``.  Otherwise it is printed by ``printer``, which marks each
node with the line it starts on: the line map needs no re-parse, and the text of a tree without
the node types astor misprints is compiled as printed (its shape is not checked: on the tests,
examples and 600 fuzz programs, that check never failed for such a tree).  Trees with what astor
misprints, text that does not compile, and every tree under ``DY2ST_CHECK_CODEGEN=1`` (which also
compares the printer's line map with the re-parse's) go the re-parsed way.
"""
import ast
import os

import astor
import gast

from dy2st.pyct import anno, gast_printer, printer
from dy2st.pyct.nodes import walk


_ORIGIN_ATTR = "_dy2st_origin"  # on the printed ast tree only: the origin of the gast node it came from


class _ToAst:
    """gast -> ast, for printing: the tree is printed and compared with its re-parse, never
    compiled, so it carries no positions and shares one instance per context/operator type.

    ``order`` lists the new nodes in ``_preorder``'s order (what the re-parsed tree is walked
    in step with); with ``origins``, each located node carries (as ``_ORIGIN_ATTR``) its gast
    node's origin, or its closest annotated ancestor's.  ``unsafe``: whether the tree holds a
    node type astor misprints.
    """

    def __init__(self, origins=False):
        self.origins = origins
        self.order = []
        self.unsafe = False
        self.printed = False  # whether the source printed is astor's (not ast.unparse's)

    def visit(self, node, info=None):
        """The ast node for gast ``node`` (None for types ast lacks)."""
        cls = type(node)
        d = node.__dict__
        if self.origins:
            store = d.get(_ANNO_FIELD)
            if store:
                info = store.get(_ORIGIN) or info
        if cls is _GAST_NAME:  # a third of all nodes: the generic path, unrolled
            new = _AST_NAME()
            ctx = _CTX[type(d["ctx"])]
            self.order += (new, ctx)
            nd = new.__dict__
            if info is not None:
                nd[_ORIGIN_ATTR] = info
            nd["id"] = d["id"]
            nd["ctx"] = ctx
            return new
        target, fields, located, special = _SPECS.get(cls) or _spec(cls)
        if target is None or type(target) is not type:  # no such ast type, or a shared leaf
            if target is not None:
                self.order.append(target)
            return target
        if special is not None:
            return special(self, node, info)
        new = target()
        self.order.append(new)
        nd = new.__dict__
        if located and info is not None:
            nd[_ORIGIN_ATTR] = info
        if target in _ASTOR_UNSAFE:
            self.unsafe = True
        visit = self.visit
        for field in fields:
            if field not in d:
                continue
            value = d[field]
            if type(value) is list:
                value = [visit(v, info) if isinstance(v, _GAST) else v for v in value]
            elif isinstance(value, _GAST):
                value = visit(value, info)
            nd[field] = value
        return new

    def _arg(self, node, info):
        """A parameter (a gast ``Name``) -> ``ast.arg``."""
        if node is None:
            return None
        if self.origins:
            store = node.__dict__.get(_ANNO_FIELD)
            if store:
                info = store.get(_ORIGIN) or info
        new = ast.arg()
        self.order.append(new)
        d = new.__dict__
        if info is not None:
            d[_ORIGIN_ATTR] = info
        d["arg"] = node.id
        d["annotation"] = None if node.annotation is None else self.visit(node.annotation, info)
        d["type_comment"] = node.type_comment
        return new

    def _arguments(self, node, info):
        new = ast.arguments()
        self.order.append(new)
        d = new.__dict__
        d["posonlyargs"] = [self._arg(a, info) for a in node.posonlyargs]
        d["args"] = [self._arg(a, info) for a in node.args]
        d["vararg"] = self._arg(node.vararg, info)
        d["kwonlyargs"] = [self._arg(a, info) for a in node.kwonlyargs]
        d["kw_defaults"] = [None if v is None else self.visit(v, info) for v in node.kw_defaults]
        d["kwarg"] = self._arg(node.kwarg, info)
        d["defaults"] = [self.visit(v, info) for v in node.defaults]
        return new

    def _except_handler(self, node, info):
        new = ast.ExceptHandler()
        self.order.append(new)
        d = new.__dict__
        if info is not None:
            d[_ORIGIN_ATTR] = info
        d["type"] = None if node.type is None else self.visit(node.type, info)
        d["name"] = node.name.id if node.name else None
        d["body"] = [self.visit(s, info) for s in node.body]
        return new


_ANNO_FIELD = anno._ANNO_FIELD
_ORIGIN = anno.Basic.ORIGIN
_GAST = gast.AST
_GAST_NAME = gast.Name
_AST_NAME = ast.Name
_SPECIAL = {gast.arguments: _ToAst._arguments, gast.ExceptHandler: _ToAst._except_handler}
# gast type -> (ast type, or its shared instance for types without fields, or None when ast
# has no such type; the fields both have, in ast's order; whether it has a location; the
# visitor of types translated differently)
_SPECS = {}


def _spec(cls):
    target = getattr(ast, cls.__name__, None)
    if target is None:
        spec = (None, (), False, None)
    elif not target._fields and not target._attributes:
        spec = (target(), (), False, None)  # Load, Add...: ast.parse shares them too
    else:
        spec = (target, tuple(f for f in target._fields if f in cls._fields),
                "lineno" in target._attributes and "lineno" in cls._attributes, _SPECIAL.get(cls))
    _SPECS[cls] = spec
    return spec


# The shared context instances a translated Name takes.
_CTX = {gast.Load: _spec(gast.Load)[0], gast.Store: _spec(gast.Store)[0], gast.Del: _spec(gast.Del)[0]}


def _to_ast(node, translator=None):
    tree = (translator or _ToAst()).visit(node)
    if not isinstance(tree, ast.Module):
        tree = ast.Module(body=tree if isinstance(tree, list) else [tree], type_ignores=[])
    return tree


def _preorder(tree):
    """Every node of an ast tree, each before its children, in field order (``_ToAst.order``'s order)."""
    out = []
    stack = [tree]
    pop, append, fields_of = stack.pop, out.append, _FIELDS
    while stack:
        n = pop()
        append(n)
        fields = fields_of.get(type(n))
        if fields is None:
            fields = fields_of[type(n)] = type(n)._fields
        if not fields:
            continue
        d = n.__dict__
        kids = []
        for field in fields:
            value = d.get(field)
            if type(value) is list:
                kids += [v for v in value if isinstance(v, _AST)]
            elif isinstance(value, _AST):
                kids.append(value)
        if kids:
            kids.reverse()
            stack += kids
    return out


_AST = ast.AST
_FIELDS = {}


CHECK_ALWAYS = os.environ.get("DY2ST_CHECK_CODEGEN") == "1"
# Node types astor 0.8.1 is known to misprint (or not print): such trees are compared in full.
_UNSAFE_NAMES = ("JoinedStr", "Match", "TryStar")
_ASTOR_UNSAFE = frozenset(getattr(ast, n) for n in _UNSAFE_NAMES if hasattr(ast, n))
_GAST_UNSAFE = tuple(getattr(gast, n) for n in _UNSAFE_NAMES if hasattr(gast, n))


def _same(a, b):
    return ast.dump(a, include_attributes=False) == ast.dump(b, include_attributes=False)


def _same_shape(a, b):
    """True when both trees have the same node types in the same order."""
    wa, wb = _preorder(a), _preorder(b)
    return len(wa) == len(wb) and all(type(x) is type(y) for x, y in zip(wa, wb))


def to_source(node, verify=True):
    """(source, ast_tree) for a gast node; with ``verify``, the source re-parses to `ast_tree`.

    Verification re-parses the text and compares node types in step (in full for trees
    with nodes astor misprints, or always under ``DY2ST_CHECK_CODEGEN=1``).
    """
    source, tree, _ = _print(node, verify)
    return source, tree


def _print(node, verify, full=None, same_shape=_same_shape, translator=None, lines=False):
    """(source, ast tree printed, the source re-parsed or None when not verified).

    ``full``: whether the tree holds nodes astor misprints (None: find out); ``same_shape``:
    the node-by-node check of the re-parsed tree (the caller may fold it into its own walk);
    ``translator``: the ``_ToAst`` to translate with (the caller reads what it records).
    ``lines``: print with ``printer.print_tree``, which marks each node the translator tagged with
    its generated line; astor's text of a tree without nodes it misprints is then trusted, not
    re-parsed (unless ``DY2ST_CHECK_CODEGEN=1``): ``translator.printed`` says whether the text is
    astor's.
    """
    translator = translator or _ToAst()
    tree = _to_ast(node, translator)
    full = translator.unsafe if full is None else full
    full = full or CHECK_ALWAYS
    try:
        # One statement per line, unwrapped: astor's line splitting scatters tuples and calls.
        if lines:
            source = printer.print_tree(tree, _ORIGIN_ATTR)
        else:
            source = astor.to_source(tree, pretty_source="".join)
        translator.printed = True
        if not full and (lines or not verify):
            return source, tree, None
        parsed = ast.parse(source)
        if (_same if full else same_shape)(parsed, tree):
            return source, tree, parsed
    except Exception:  # astor raises assorted errors on nodes it does not know
        pass
    translator.printed = False
    ast.fix_missing_locations(tree)  # ast.unparse reads statements' line numbers (type comments)
    source = ast.unparse(tree) + "\n"
    parsed = ast.parse(source)
    if (verify or full) and not _same(parsed, tree):
        raise AssertionError("generated code does not re-parse to the generated tree")
    return source, tree, parsed


def source_with_origins(node):
    """(source, {generated line: OriginInfo}) for a gast tree annotated with origins.

    Each node's origin (or, lacking one, its closest annotated ancestor's) rides on the ast
    node printed for it; the re-parsed tree, walked in step with the printed one, says which
    generated line holds it.
    """
    source, line_map, _ = compiled_source(node)
    return source, line_map


def compiled_source(node):
    """``source_with_origins`` plus the ast tree the source parses to (compile it, not the text).

    A node without an origin counts with its closest annotated ancestor's.
    """
    translator = _ToAst(origins=True)
    source, tree, parsed, wb = _print_reparsed(node, translator)
    return source, _reparsed_line_map(translator, tree, parsed, wb), parsed


def _print_reparsed(node, translator, **options):
    """``_print`` verifying against a re-parse, with the re-parsed tree's preorder walk."""
    walks = []

    def same_shape(parsed, tree):  # the shape check, keeping the re-parsed walk for the line map
        wa, wb = translator.order, _preorder(parsed)
        walks.append((parsed, wb))
        return len(wa) == len(wb) and all(type(x) is type(y) for x, y in zip(wa, wb))

    source, tree, parsed = _print(node, verify=True, same_shape=same_shape, translator=translator, **options)
    wb = walks[0][1] if walks and walks[0][0] is parsed else _preorder(parsed)
    return source, tree, parsed, wb


def _reparsed_line_map(translator, tree, parsed, wb):
    """{generated line: origin}, read off the re-parsed tree (its preorder walk ``wb``)."""
    stmt_lines, expr_lines = {}, {}
    stmt = ast.stmt
    for tagged, real in zip(translator.order, wb):
        info = tagged.__dict__.get(_ORIGIN_ATTR)
        if info is None or "lineno" not in real.__dict__:
            continue
        # The first statement on a line names its origin; expressions only fill lines without one.
        target = stmt_lines if isinstance(tagged, stmt) else expr_lines
        target.setdefault(real.lineno, info)
    if expr_lines.keys() - stmt_lines.keys():
        # Lines inside a multi-line expression: named by the first expression on them in
        # breadth-first order (closest to the root), not in the order walked above.
        expr_lines = {}
        for tagged, real in zip(walk(tree), walk(parsed)):
            info = tagged.__dict__.get(_ORIGIN_ATTR)
            if info is not None and "lineno" in real.__dict__ and not isinstance(tagged, stmt):
                expr_lines.setdefault(real.lineno, info)
    return {**expr_lines, **stmt_lines}


def _printed_line_map(translator, tree):
    """``_reparsed_line_map`` from the lines the printer marked, or None if a tagged node has none.

    Every tagged node is of a located ast type, as its re-parsed counterpart, so the same nodes
    count, with the same lines, in the same orders.
    """
    stmt_lines, expr_lines = {}, {}
    stmt, line_attr = ast.stmt, printer.LINE_ATTR
    for tagged in translator.order:
        d = tagged.__dict__
        info = d.get(_ORIGIN_ATTR)
        if info is None:
            continue
        line = d.get(line_attr)
        if line is None:
            line = _unvisited_line(tagged)
            if line is None:
                return None
        target = stmt_lines if isinstance(tagged, stmt) else expr_lines
        target.setdefault(line, info)
    if expr_lines.keys() - stmt_lines.keys():
        expr_lines = {}
        for tagged in walk(tree):
            d = tagged.__dict__
            info = d.get(_ORIGIN_ATTR)
            if info is not None and not isinstance(tagged, stmt):
                expr_lines.setdefault(d.get(line_attr) or _unvisited_line(tagged), info)
    return {**expr_lines, **stmt_lines}


def _unvisited_line(node):
    """A ``keyword`` argument (astor writes its name, never visits it) starts on its value's line."""
    if type(node) is ast.keyword:
        return node.value.__dict__.get(printer.LINE_ATTR)
    return None


def compiled_code(node, filename):
    """(source, {generated line: OriginInfo}, code object compiled as ``filename``) for the loader.

    A tree astor prints correctly (no f-string, ``match`` or ``except*``) is compiled from its
    text, with the lines the printer marked: no re-parse.  Otherwise, when the text does not
    compile, or a tagged node got no line, it goes the ``compiled_source`` way (checked against a
    re-parse, whose tree is compiled), which also gives the same errors as before.  Under
    ``DY2ST_CHECK_CODEGEN=1`` the printer's line map must equal the re-parse's, and
    ``gast_printer``'s text and map (first tried, when it prints the tree) astor's.
    """
    fast = gast_printer.print_with_lines(node)
    if fast is not None and not CHECK_ALWAYS:
        try:
            return fast[0], fast[1], compile(fast[0], filename, "exec")
        except Exception:  # not code: the way below gives the errors it always gave
            pass
    translator = _ToAst(origins=True)
    source, tree, parsed = _print(node, verify=True, translator=translator, lines=True)
    if parsed is None:  # astor's text, trusted
        line_map = _printed_line_map(translator, tree)
        if line_map is not None:
            try:
                return source, line_map, compile(source, filename, "exec")
            except Exception:  # what the text says is not what the tree says: redo it as before
                pass
        translator = _ToAst(origins=True)
        source, tree, parsed, wb = _print_reparsed(node, translator)
    else:
        wb = _preorder(parsed)
    line_map = _reparsed_line_map(translator, tree, parsed, wb)
    if CHECK_ALWAYS and translator.printed and not translator.unsafe:
        if _printed_line_map(translator, tree) != line_map:
            raise AssertionError("the printer's line map differs from the re-parsed text's")
        if fast is not None and (fast[0], fast[1]) != (source, line_map):
            raise AssertionError("gast_printer's text or line map differs from astor's")
    return source, line_map, compile(parsed, filename, "exec")
