"""Reject what converted code cannot express, with the user's file and line.

- `yield` / `yield from`: a converted function runs once to build a Program; a generator
  would build nothing.
- `global x` / `nonlocal x` that rebinds `x`: branch and loop bodies become nested functions,
  which would silently bind a local instead. Reading a global needs no declaration.
- `async def`, `await`: nothing to build them into.
"""
import gast

from dy2st.pyct import errors, transformer
from dy2st.pyct.nodes import statements, walk
from dy2st.pyct.static_analysis import block_writes


class UnsupportedChecker(transformer.Transformer):
    """Raises a Dy2StSyntaxError at the user's line for what conversion cannot express."""

    def visit_Yield(self, node):
        self.error(node, "`yield` is not supported in a function converted by dy2st",
                   errors.Dy2StSyntaxError)

    visit_YieldFrom = visit_Yield

    def visit_Await(self, node):
        self.error(node, "`await` is not supported in a function converted by dy2st",
                   errors.Dy2StSyntaxError)

    def visit_AsyncFunctionDef(self, node):
        self.error(node, "`async def` is not supported in a function converted by dy2st",
                   errors.Dy2StSyntaxError)

    def visit_FunctionDef(self, node):
        declared = []
        for n in statements(node):  # declarations are statements
            if isinstance(n, (gast.Global, gast.Nonlocal)):
                declared.append(n)
        # What the function rebinds matters only to a declaration (most functions have none).
        rebound = block_writes(node.body) | _nested_writes(node) if declared else ()
        for decl in declared:
            hit = [n for n in decl.names if n in rebound]
            if hit:
                kind = "global" if isinstance(decl, gast.Global) else "nonlocal"
                self.error(decl, f"`{kind} {hit[0]}` followed by an assignment to it is not "
                           "supported by dy2st: return the new value instead",
                           errors.Dy2StSyntaxError)
        self.generic_visit(node)
        return node


def _nested_writes(node):
    """Writes anywhere below `node`, including inside nested functions (for nonlocal/global)."""
    names = set()
    for n in walk(node):
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
            names.add(n.id)
        elif isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name):
            names.add(n.target.id)
    return names


def needed(census):
    """Whether the check may refuse anything: only `yield`, `await`, `async def` and (in a def)
    `global`/`nonlocal` make it act. It runs first, on the tree the census was taken of."""
    return census.has(gast.Yield, gast.YieldFrom, gast.Await, gast.AsyncFunctionDef, gast.Global, gast.Nonlocal)


def transform(node, ctx):
    """Check ``node`` for unsupported syntax; returns it unchanged."""
    return UnsupportedChecker(ctx).visit(node)
