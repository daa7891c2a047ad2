"""`lst.append(x)` inside a loop -> `lst = _jst.Append(lst, x)`.

Writing the list back makes it a visible write, so the loop pass carries it. For a Python list
`_jst.Append` appends in place and returns the same list (aliasing unchanged); inside a tensor
loop the list is a tensor array (one tensor, dynamic first dim) and `Append` returns a new one.
Outside loops nothing changes: plain lists stay plain.

    for i in range(n):                 for i in range(n):
        out.append(x[i])                   out = _jst.Append(out, x[i])
"""
import gast

from dy2st.pyct import origin_info, templates, transformer


class ListAppendTransformer(transformer.Transformer):
    def __init__(self, ctx):
        super().__init__(ctx)
        self.loop_depth = 0

    def _loop(self, node):
        self.loop_depth += 1
        node.body = self.visit_block(node.body)
        self.loop_depth -= 1
        node.orelse = self.visit_block(node.orelse)
        return node

    visit_For = _loop
    visit_While = _loop

    def visit_FunctionDef(self, node):
        saved, self.loop_depth = self.loop_depth, 0  # a nested def's body is not in the loop
        node.body = self.visit_block(node.body)
        self.loop_depth = saved
        return node

    def visit_Expr(self, node):
        call = node.value
        if (self.loop_depth and isinstance(call, gast.Call)
                and isinstance(call.func, gast.Attribute) and call.func.attr == "append"
                and isinstance(call.func.value, gast.Name)
                and len(call.args) == 1 and not call.keywords):
            lst = call.func.value.id
            new = templates.replace("lst = _jst.Append(lst, item)", lst=lst, item=call.args[0])
            return origin_info.copy_origin(node, new)
        return node


def transform(node, ctx):
    return ListAppendTransformer(ctx).visit(node)
