"""`and` / `or` / `not` -> `_jst.And` / `_jst.Or` / `_jst.Not`.

Operands after the first are wrapped in lambdas so Python short-circuiting survives: with
Python values the result is exactly Python's; with a symbolic tensor the rest is evaluated
and combined with `logical_and`/`logical_or`.

    if x > 0 and y < 1:                if _jst.And(lambda: x > 0, lambda: y < 1):
    z = not flag                       z = _jst.Not(flag)
"""
import gast

from dy2st.pyct import errors, templates, transformer


class LogicalTransformer(transformer.Transformer):
    """Rewrites ``and``/``or``/``not`` (see the module docstring)."""

    def _refuse_walrus(self, node, operands, what):
        """A `:=` in an operand that becomes a lambda would bind the name inside the lambda: the
        function's own variable would keep its old value (or stay unbound), silently."""
        for operand in operands:
            if transformer.contains(operand, gast.NamedExpr):
                self.error(node, f"`:=` inside {what} is not supported by dy2st (the operand is evaluated "
                           "in a function of its own, where the name would be bound): assign the value "
                           "in a statement before it", errors.Dy2StSyntaxError)

    def visit_BoolOp(self, node):
        ternary = _ternary(node)
        if ternary is not None:
            return self.visit(ternary)
        self._refuse_walrus(node, node.values, "an operand of `and`/`or`")
        self.generic_visit(node)
        fn = "_jst.And" if isinstance(node.op, gast.And) else "_jst.Or"
        thunks = [templates.replace_as_expression("lambda: value", value=v) for v in node.values]
        return templates.replace_as_expression("fn(thunks)", fn=templates.replace_as_expression(fn),
                                               thunks=thunks)

    def visit_IfExp(self, node):
        # the ifelse pass makes the two branches lambdas
        self._refuse_walrus(node, [node.body, node.orelse], "a branch of a conditional expression (`a if c else b`)")
        self.generic_visit(node)
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, gast.Not):
            return templates.replace_as_expression("_jst.Not(x)", x=node.operand)
        return node


def _ternary(node):
    """`a and b or c` with `b` a true constant (`x > 0 and 2 or 3`) is `b if a else c` exactly: the
    conditional expression (converted by the ifelse pass), since a tensor `a` could not give
    Python's operand-valued result otherwise."""
    if not (isinstance(node.op, gast.Or) and len(node.values) == 2):
        return None
    first = node.values[0]
    if not (isinstance(first, gast.BoolOp) and isinstance(first.op, gast.And) and len(first.values) == 2):
        return None
    b = first.values[1]
    if not (isinstance(b, gast.Constant) and b.value):
        return None
    return gast.IfExp(test=first.values[0], body=b, orelse=node.values[1])


def transform(node, ctx):
    """Apply the logical-expressions pass to ``node``."""
    return LogicalTransformer(ctx).visit(node)
