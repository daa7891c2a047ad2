"""`assert` and `print` -> `_jst.Assert` / `_jst.Print`, which become graph ops for tensors.

    assert x.sum() > 0, "bad"          _jst.Assert(x.sum() > 0, 'bad')
    print("x is", x)                   _jst.Print('x is', x)

A Python condition is checked at once (as `assert` would); a symbolic one becomes an `assert`
op that checks at every run. `print` prints Python values normally and tensors through a
`print` op, so a cached Program still prints on every call.
"""
import gast

from dy2st.pyct import origin_info, templates, transformer


class AssertPrintTransformer(transformer.Transformer):
    def visit_Assert(self, node):
        self.generic_visit(node)
        msg = node.msg if node.msg is not None else gast.Constant(value=None, kind=None)
        new = templates.replace("_jst.Assert(test, msg)", test=node.test, msg=msg)
        return origin_info.copy_origin(node, new)

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, gast.Name) and node.func.id == "print":
            node.func = templates.replace_as_expression("_jst.Print")
        return node


def transform(node, ctx):
    return AssertPrintTransformer(ctx).visit(node)
