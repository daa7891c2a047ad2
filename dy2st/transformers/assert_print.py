"""`assert` and `print` -> `_jst.Assert` / `_jst.Print`, which become graph ops for tensors.

    assert x.sum() > 0, "bad"          _jst.Assert(x.sum() > 0, 'bad')
    print("x is", x)                   _jst.Print('x is', x)
    print(f"x is {x}")                 _jst.Print(_jst.FString(['x is ', (x, '', '')]))
    print("x is %s" % x)               _jst.Print(_jst.PercentFormat('x is %s', x))
    print("x is {}".format(x))         _jst.Print(_jst.StrFormat('x is {}', x))

A Python condition is checked at once (as `assert` would); a symbolic one becomes an `assert`
op that checks at every run. `print` prints Python values normally and tensors through a
`print` op, so a cached Program still prints on every call.
"""
import gast

from dy2st.pyct import origin_info, templates, transformer


class AssertPrintTransformer(transformer.Transformer):
    """Rewrites ``assert`` and ``print`` (see the module docstring)."""

    def visit_Assert(self, node):
        self.generic_visit(node)
        msg = node.msg if node.msg is not None else gast.Constant(value=None, kind=None)
        new = templates.replace("_jst.Assert(test, msg)", test=node.test, msg=msg)
        return origin_info.copy_origin(node, new)

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, gast.Name) and node.func.id == "print":
            node.func = templates.replace_as_expression("_jst.Print")
            node.args = [self._formatted(a) for a in node.args]
        return node

    def _formatted(self, node):
        """A print argument that formats values into text: an FString (or the helper that makes
        one when a value is a tensor), so a tensor prints its run-time value."""
        if isinstance(node, gast.JoinedStr):
            return self._fstring(node)
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mod) and _is_str(node.left):
            call = templates.replace_as_expression("_jst.PercentFormat(fmt, args)", fmt=node.left, args=node.right)
            return origin_info.copy_origin(node, call)
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and node.func.attr == "format" \
                and _is_str(node.func.value):
            node.args = [node.func.value, *node.args]
            node.func = templates.replace_as_expression("_jst.StrFormat")
        return node

    @staticmethod
    def _fstring(node):
        """f"a {x:.2f}" -> _jst.FString(['a ', (x, '', '.2f')]): formatted when the value is known."""
        parts = []
        for v in node.values:
            if isinstance(v, gast.Constant):
                parts.append(v)
                continue
            spec = v.format_spec
            if spec is None:
                spec_text = ""
            elif all(isinstance(s, gast.Constant) for s in spec.values):
                spec_text = "".join(s.value for s in spec.values)
            else:  # a computed format spec (f"{x:{w}}"): leave the f-string to Python
                return node
            parts.append(gast.Tuple(elts=[v.value, gast.Constant(value=chr(v.conversion) if v.conversion > 0 else '', kind=None),
                                          gast.Constant(value=spec_text, kind=None)], ctx=gast.Load()))
        call = templates.replace_as_expression("_jst.FString(parts)", parts=gast.List(elts=parts, ctx=gast.Load()))
        return origin_info.copy_origin(node, call)


def _is_str(node):
    return isinstance(node, gast.Constant) and isinstance(node.value, str)


def transform(node, ctx):
    """Apply the assert/print pass to ``node``."""
    return AssertPrintTransformer(ctx).visit(node)
