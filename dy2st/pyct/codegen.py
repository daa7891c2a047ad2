"""gast -> Python source, verified by re-parsing.

astor writes the most readable code, but 0.8.1 misprints f-strings with quotes inside braces and
cannot print `match` or `except*`. Every output is re-parsed and compared (`ast.dump`, without
positions) with the tree it came from; on any mismatch the standard `ast.unparse` is used.
The `positions` the loader needs come from the same comparison: both trees are walked in step.
"""
import ast

import astor
import gast

from dy2st.pyct import anno


def _to_ast(node):
    tree = gast.gast_to_ast(node)
    if not isinstance(tree, ast.Module):
        tree = ast.Module(body=tree if isinstance(tree, list) else [tree], type_ignores=[])
    return ast.fix_missing_locations(tree)


def _same(a, b):
    return ast.dump(a, include_attributes=False) == ast.dump(b, include_attributes=False)


def to_source(node):
    """(source, ast_tree) for a gast node; the source re-parses to exactly `ast_tree`."""
    tree = _to_ast(node)
    try:
        # One statement per line, unwrapped: astor's line splitting scatters tuples and calls.
        source = astor.to_source(tree, pretty_source="".join)
        if _same(ast.parse(source), tree):
            return source, tree
    except Exception:  # astor raises assorted errors on nodes it does not know
        pass
    source = ast.unparse(tree) + "\n"
    if not _same(ast.parse(source), tree):
        raise AssertionError("generated code does not re-parse to the generated tree")
    return source, tree


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
        source, tree = to_source(node)
    finally:
        for n, lineno, end_lineno in saved:
            n.lineno, n.end_lineno = lineno, end_lineno
    stmt_lines, expr_lines = {}, {}
    for tagged, real in zip(ast.walk(tree), ast.walk(ast.parse(source))):
        index = getattr(tagged, "lineno", 0)
        if not index or not hasattr(real, "lineno") or table[index - 1] is None:
            continue
        # The first statement on a line names its origin; expressions only fill lines without one.
        target = stmt_lines if isinstance(tagged, ast.stmt) else expr_lines
        target.setdefault(real.lineno, table[index - 1])
    return source, {**expr_lines, **stmt_lines}
