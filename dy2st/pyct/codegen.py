"""gast -> Python source, verified by re-parsing.

astor writes the most readable code, but 0.8.1 misprints f-strings with quotes inside braces and
cannot print `match` or `except*`.  The code that runs (``source_with_origins``, for the loader)
is re-parsed anyway for its line positions; both trees are walked in step and must agree node by
node (type and count), and a tree holding what astor misprints is compared in full (`ast.dump`,
without positions).  On any mismatch the standard `ast.unparse` is used.  Printing for display
only (``to_source(node, verify=False)``) skips the re-parse; ``DY2ST_CHECK_CODEGEN=1`` compares
every output in full, for debugging the printer.
"""
import ast
import os

import astor
import gast
from gast.ast3 import GAstToAst3

from dy2st.pyct import anno
from dy2st.pyct.nodes import FastTranslator, children as _children, walk as _walk


class _ToAst(FastTranslator, GAstToAst3):
    """gast's gast->ast converter, with its dispatch cached per node type."""

    target = ast
    _visitors = {}
    _layouts = {}


def _to_ast(node):
    tree = _ToAst().visit(node)
    if not isinstance(tree, ast.Module):
        tree = ast.Module(body=tree if isinstance(tree, list) else [tree], type_ignores=[])
    return tree


CHECK_ALWAYS = os.environ.get("DY2ST_CHECK_CODEGEN") == "1"
# Node types astor 0.8.1 is known to misprint (or not print): such trees are compared in full.
_UNSAFE_NAMES = ("JoinedStr", "Match", "TryStar")
_ASTOR_UNSAFE = tuple(getattr(ast, n) for n in _UNSAFE_NAMES if hasattr(ast, n))
_GAST_UNSAFE = tuple(getattr(gast, n) for n in _UNSAFE_NAMES if hasattr(gast, n))


def _same(a, b):
    return ast.dump(a, include_attributes=False) == ast.dump(b, include_attributes=False)


def _same_shape(a, b):
    """True when both trees have the same node types in the same (breadth-first) order."""
    wa, wb = _walk(a), _walk(b)
    return len(wa) == len(wb) and all(type(x) is type(y) for x, y in zip(wa, wb))


def to_source(node, verify=True):
    """(source, ast_tree) for a gast node; with ``verify``, the source re-parses to `ast_tree`.

    Verification re-parses the text and compares node types in step (in full for trees
    with nodes astor misprints, or always under ``DY2ST_CHECK_CODEGEN=1``).
    """
    source, tree, _ = _print(node, verify)
    return source, tree


def _print(node, verify, full=None, same_shape=_same_shape):
    """(source, ast tree printed, the source re-parsed or None when not verified).

    ``full``: whether the tree holds nodes astor misprints (None: find out); ``same_shape``:
    the node-by-node check of the re-parsed tree (the caller may fold it into its own walk).
    """
    tree = _to_ast(node)
    if full is None:
        full = any(isinstance(n, _ASTOR_UNSAFE) for n in _walk(tree))
    full = full or CHECK_ALWAYS
    try:
        # One statement per line, unwrapped: astor's line splitting scatters tuples and calls.
        source = astor.to_source(tree, pretty_source="".join)
        if not verify and not full:
            return source, tree, None
        parsed = ast.parse(source)
        if (_same if full else same_shape)(parsed, tree):
            return source, tree, parsed
    except Exception:  # astor raises assorted errors on nodes it does not know
        pass
    source = ast.unparse(tree) + "\n"
    parsed = ast.parse(source)
    if (verify or full) and not _same(parsed, tree):
        raise AssertionError("generated code does not re-parse to the generated tree")
    return source, tree, parsed


def source_with_origins(node):
    """(source, {generated line: OriginInfo}) for a gast tree annotated with origins.

    Each node's origin (or, lacking one, its closest annotated ancestor's) is smuggled through
    gast->ast as its `lineno` (an index into a table), then the re-parsed tree, walked in step
    with it, says which generated line holds it.
    """
    source, line_map, _ = compiled_source(node)
    return source, line_map


def compiled_source(node):
    """``source_with_origins`` plus the ast tree the source parses to (compile it, not the text).

    A node without an origin counts with its closest annotated ancestor's.
    """
    table = [None]  # index 0: no origin
    saved = []
    full = False
    origin_key = anno.Basic.ORIGIN
    anno_field = anno._ANNO_FIELD
    unsafe = _GAST_UNSAFE
    # Breadth first, each node with the origin it inherits: its own, else its closest
    # annotated ancestor's (what ``origin_info.inherit_origins`` would give it).
    order, inherited = [node], [None]
    i = 0
    while i < len(order):
        n = order[i]
        d = n.__dict__
        store = d.get(anno_field)
        info = (store.get(origin_key) if store else None) or inherited[i]
        i += 1
        if isinstance(n, unsafe):
            full = True
        # Nodes built by passes may lack a location attribute; they still carry an origin.
        if "lineno" in n._attributes:
            saved.append((n, d.get("lineno"), d.get("end_lineno")))
            if info is None:
                n.lineno = n.end_lineno = 0
            else:
                n.lineno = n.end_lineno = len(table)
                table.append(info)
        kids = _children(n)
        order += kids
        inherited += [info] * len(kids)
    walks = []

    def same_shape(parsed, tree):  # the shape check, keeping both walks for the line map
        wa, wb = _walk(tree), _walk(parsed)
        walks.append((wa, wb))
        return len(wa) == len(wb) and all(type(x) is type(y) for x, y in zip(wa, wb))

    try:
        source, tree, parsed = _print(node, verify=True, full=full, same_shape=same_shape)
    finally:
        for n, lineno, end_lineno in saved:
            n.lineno, n.end_lineno = lineno, end_lineno
    wa, wb = walks[0] if walks and walks[0][1][0] is parsed else (_walk(tree), _walk(parsed))
    stmt_lines, expr_lines = {}, {}
    stmt = ast.stmt
    for tagged, real in zip(wa, wb):
        index = tagged.__dict__.get("lineno")
        if not index or "lineno" not in real.__dict__:
            continue
        # The first statement on a line names its origin; expressions only fill lines without one.
        target = stmt_lines if isinstance(tagged, stmt) else expr_lines
        target.setdefault(real.lineno, table[index])
    return source, {**expr_lines, **stmt_lines}, parsed
