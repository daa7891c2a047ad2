"""`len(x)` -> `_jst.Len(x)`, `x.shape` -> `_jst.Shape(x)`, `x.size` -> `_jst.Size(x)`.

A Variable's static shape may hold -1 (unknown until run); these return a shape op's result for
such dims and plain ints otherwise, so Python code that branches on known sizes stays Python.

    n = len(x)                          n = _jst.Len(x)
    b = x.shape[0]                      b = _jst.Shape(x)[0]
    k = x.size                          k = _jst.Size(x)
"""
import gast

from dy2st.pyct import templates, transformer


class LenShapeTransformer(transformer.Transformer):
    """Rewrites ``len(x)``, ``x.shape`` and ``x.size`` (see the module docstring)."""

    def visit_Call(self, node):
        self.generic_visit(node)
        if (isinstance(node.func, gast.Name) and node.func.id == "len"
                and len(node.args) == 1 and not node.keywords):
            return templates.replace_as_expression("_jst.Len(x)", x=node.args[0])
        if (isinstance(node.func, gast.Name) and node.func.id == "getattr" and len(node.args) == 2
                and not node.keywords and isinstance(node.args[1], gast.Constant)
                and node.args[1].value in ("shape", "size")):
            # `getattr(x, "shape")` is `x.shape`: the static shape's -1 would pass silently for a size
            helper = "_jst.Shape(x)" if node.args[1].value == "shape" else "_jst.Size(x)"
            return templates.replace_as_expression(helper, x=node.args[0])
        return node

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr == "shape" and isinstance(node.ctx, gast.Load):
            return templates.replace_as_expression("_jst.Shape(x)", x=node.value)
        if node.attr == "size" and isinstance(node.ctx, gast.Load):
            return templates.replace_as_expression("_jst.Size(x)", x=node.value)
        return node


def needed(census):
    """Whether there is a name `len` or `getattr` or an attribute `shape`/`size`. The passes before
    this one make none (their attributes are `_jst.` helpers, capitalised, and `RETURN_NO_VALUE`)."""
    return "len" in census.names or "getattr" in census.names or not census.attributes.isdisjoint(("shape", "size"))


def transform(node, ctx):
    """Apply the len/shape pass to ``node``."""
    return LenShapeTransformer(ctx).visit(node)
