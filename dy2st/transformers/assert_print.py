"""`assert` and `print` -> `_jst.Assert` / `_jst.Print`, which become graph ops for tensors.

    assert x.sum() > 0, "bad"          _jst.Assert(x.sum() > 0, 'bad')
    print("x is", x)                   _jst.Print('x is', x)
    print(f"x is {x}")                 _jst.Print(_jst.FString(['x is ', (x, '', '')]))
    print("x is %.2f" % x)             _jst.Print(_jst.PercentFormat('x is %.2f', x))
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
            node.args = [self._fstring(a) if isinstance(a, gast.JoinedStr) else self._percent(a) for a in node.args]
        return node

    @staticmethod
    def _percent(node):
        """"a %.2f" % x -> _jst.PercentFormat('a %.2f', x), "a {:.2f}".format(x) -> _jst.StrFormat('a {:.2f}', x):
        formatted when the value is known."""
        if (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and node.func.attr == "format"
                and isinstance(node.func.value, gast.Constant) and isinstance(node.func.value.value, str)):
            new = gast.Call(func=templates.replace_as_expression("_jst.StrFormat"), args=[node.func.value] + node.args,
                            keywords=node.keywords)
            return origin_info.copy_origin(node, gast.copy_location(new, node))
        if not (isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mod) and isinstance(node.left, gast.Constant)
                and isinstance(node.left.value, str)):
            return node
        call = templates.replace_as_expression("_jst.PercentFormat(fmt, values)", fmt=node.left, values=node.right)
        return origin_info.copy_origin(node, call)

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


def needed(census):
    """Whether there is an `assert` or a name `print`. The passes before this one make neither:
    their calls are `_jst.` helpers, `slice` and functions the namer names (never a builtin's name)."""
    return census.has(gast.Assert) or "print" in census.names


def transform(node, ctx):
    """Apply the assert/print pass to ``node``."""
    return AssertPrintTransformer(ctx).visit(node)
