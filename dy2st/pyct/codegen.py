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

from dy2st.pyct import anno


def _to_ast(node):
    tree = gast.gast_to_ast(node)
    if not isinstance(tree, ast.Module):
        tree = ast.Module(body=tree if isinstance(tree, list) else [tree], type_ignores=[])
    return ast.fix_missing_locations(tree)


CHECK_ALWAYS = os.environ.get("DY2ST_CHECK_CODEGEN") == "1"
# Node types astor 0.8.1 is known to misprint (or not print): such trees are compared in full.
_ASTOR_UNSAFE = tuple(getattr(ast, n) for n in ("JoinedStr", "Match", "TryStar") if hasattr(ast, n))


def _same(a, b):
    return ast.dump(a, include_attributes=False) == ast.dump(b, include_attributes=False)


def _same_shape(a, b):
    """True when both trees have the same node types in the same (breadth-first) order."""
    wa, wb = list(ast.walk(a)), list(ast.walk(b))
    return len(wa) == len(wb) and all(type(x) is type(y) for x, y in zip(wa, wb))


def to_source(node, verify=True):
    """(source, ast_tree) for a gast node; with ``verify``, the source re-parses to `ast_tree`.

    Verification re-parses the text and compares node types in step (in full for trees
    with nodes astor misprints, or always under ``DY2ST_CHECK_CODEGEN=1``).
    """
    source, tree, _ = _print(node, verify)
    return source, tree


def _print(node, verify):
    """(source, ast tree printed, the source re-parsed or None when not verified)."""
    tree = _to_ast(node)
    full = CHECK_ALWAYS or any(isinstance(n, _ASTOR_UNSAFE) for n in ast.walk(tree))
    try:
        # One statement per line, unwrapped: astor's line splitting scatters tuples and calls.
        source = astor.to_source(tree, pretty_source="".join)
        if not verify and not full:
            return source, tree, None
        parsed = ast.parse(source)
        if (_same if full else _same_shape)(parsed, tree):
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

    Each node's origin is smuggled through gast->ast as its `lineno` (an index into a table),
    then the re-parsed tree, walked in step with it, says which generated line holds it.
    """
    table = []
    saved = []
    for n in gast.walk(node):
        info = anno.getanno(n, anno.Basic.ORIGIN)
        # Nodes built by passes may lack a location attribute; they still carry an origin.
        if "lineno" in getattr(n, "_attributes", ()):
            saved.append((n, getattr(n, "lineno", None), getattr(n, "end_lineno", None)))
            n.lineno = len(table) + 1 if info is not None else 0
            n.end_lineno = n.lineno
            table.append(info)
    try:
        source, tree, parsed = _print(node, verify=True)
    finally:
        for n, lineno, end_lineno in saved:
            n.lineno, n.end_lineno = lineno, end_lineno
    stmt_lines, expr_lines = {}, {}
    for tagged, real in zip(ast.walk(tree), ast.walk(parsed)):
        index = getattr(tagged, "lineno", 0)
        if not index or not hasattr(real, "lineno") or table[index - 1] is None:
            continue
        # The first statement on a line names its origin; expressions only fill lines without one.
        target = stmt_lines if isinstance(tagged, ast.stmt) else expr_lines
        target.setdefault(real.lineno, table[index - 1])
    return source, {**expr_lines, **stmt_lines}
