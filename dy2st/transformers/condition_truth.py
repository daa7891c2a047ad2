"""`and`/`or` used as a condition: operands that could be non-bool tensors go through
`_jst.Truth`, since only the truth of the whole expression matters there.

Python's `t and u` is one of its operands, so with a float tensor `t` and a bool tensor `u` the
value has no single dtype (a `cond` op cannot produce it). As the test of `if`, `while`, a
ternary or `assert`, only its truth is read, and the truth of `Truth(t) and Truth(u)` is the
same for every operand value; Python values become their truth:

    if x.mean() + 1 and m > 1:          if _jst.Truth(x.mean() + 1) and m > 1:

Comparisons and `not` are left as they are (already bool); other uses of `and`/`or` keep
Python's value.
"""
import gast

from dy2st.pyct import templates, transformer

_ALREADY_BOOL = (gast.Compare,)


class ConditionTruthTransformer(transformer.Transformer):
    """Wraps the operands of `and`/`or` tests of if/while/ternary/assert in `_jst.Truth`."""

    def _truths(self, test):
        if isinstance(test, gast.BoolOp):
            test.values = [self._operand(v) for v in test.values]
        elif isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not):
            test.operand = self._truths(test.operand)  # `not (a and b)`: the same truth question
        return test

    def _operand(self, value):
        if isinstance(value, gast.BoolOp):
            return self._truths(value)
        if isinstance(value, _ALREADY_BOOL) or (isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.Not)):
            return value
        if isinstance(value, gast.Constant) and isinstance(value.value, bool):
            return value
        return templates.replace_as_expression("_jst.Truth(value)", value=value)

    def visit_If(self, node):
        self.generic_visit(node)
        node.test = self._truths(node.test)
        return node

    visit_While = visit_If
    visit_IfExp = visit_If
    visit_Assert = visit_If


def transform(node, ctx):
    """The condition-truth pass over a function's AST."""
    return ConditionTruthTransformer(ctx).visit(node)
