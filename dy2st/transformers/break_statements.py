"""`break` / `continue` -> flag variables; the rest of the body is guarded by the flag.

A `while` loop's test gets `not did_break_n and ...`; a `for` loop gets the same extra test as
an annotation (`Basic.EXTRA_LOOP_TEST`) that the loop pass folds into its condition, since a
Python `for` has no test to extend. A loop's `else:` runs after it unless it broke, so it moves
after the loop (guarded by the break flag): no loop keeps an `else`.

    while i < n:                       did_break_0 = False
        if x[i] < 0:                   while not did_break_0 and i < n:
            break                          if x[i] < 0:
        i += 1                                 did_break_0 = True
                                           if not did_break_0:
                                               i += 1
"""
import gast

from dy2st.pyct import anno, errors, naming, origin_info, templates, transformer

_LOOPS = (gast.For, gast.While)
_STOP = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef) + _LOOPS


def _has(stmts, kind):
    return transformer.contains(stmts, kind, stop=_STOP)


def _rewrite(stmts, kind, flag):
    """Replace `kind` jumps in `stmts` (not inside nested loops) by setting `flag`."""
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, kind):
            out.extend(origin_info.copy_origin(s, templates.replace("flag = True", flag=flag)))
            return out
        if not _has([s], kind):
            out.append(s)
            continue
        if isinstance(s, gast.If):
            s.body, s.orelse = _rewrite(s.body, kind, flag), _rewrite(s.orelse, kind, flag)
        elif isinstance(s, gast.With):
            s.body = _rewrite(s.body, kind, flag)
        elif isinstance(s, (gast.Try, gast.TryStar)):
            s.body = _rewrite(s.body, kind, flag)
            for h in s.handlers:
                h.body = _rewrite(h.body, kind, flag)
            s.orelse = _rewrite(s.orelse, kind, flag)
            s.finalbody = _rewrite(s.finalbody, kind, flag)
        out.append(s)
        rest = stmts[i + 1:]
        if rest:
            guard = templates.unless(flag, _rewrite(rest, kind, flag))
            out.extend(origin_info.copy_origin(rest[0], guard))
        return out
    return out


class BreakContinueTransformer(transformer.Transformer):
    """Turns ``break``/``continue`` into flag variables (see the module docstring)."""

    def _walrus_test(self, node):
        """`while (n := n - 1) > 0:` -> `while True:` whose body starts with `if not (...): break`.
        The test runs as part of the body, so what it binds is written where the loop carries
        it (a loop's condition function would bind a local of its own, lost to the body)."""
        if node.orelse and _has(node.orelse, (gast.Break, gast.Continue)):
            self.error(node, "a `while` whose condition assigns with `:=` and whose `else:` holds a "
                       "`break`, `continue` or a `return` inside an outer loop is not supported by "
                       "dy2st: assign before the loop and at the end of its body instead",
                       errors.Dy2StSyntaxError)
        stop = templates.replace("if not test:\n    pass", test=node.test)
        stop[0].body = list(node.orelse) + [gast.Break()]
        node.body = origin_info.copy_origin(node, stop) + node.body
        node.test = gast.Constant(value=True, kind=None)
        node.orelse = []

    def _loop(self, node):
        if isinstance(node, gast.While) and transformer.contains(node.test, gast.NamedExpr):
            self._walrus_test(node)
        node.body = self.visit_block(node.body)  # inner loops first: their jumps are their own
        node.orelse = self.visit_block(node.orelse)
        pre, post = [], []
        if _has(node.body, gast.Continue):
            flag = self.ctx.namer.new("did_continue", naming.CONTINUE_FLAG)
            node.body = (origin_info.copy_origin(node, templates.replace("flag = False", flag=flag))
                         + _rewrite(node.body, gast.Continue, flag))
        if _has(node.body, gast.Break):
            flag = self.ctx.namer.new("did_break", naming.BREAK_FLAG)
            node.body = _rewrite(node.body, gast.Break, flag)
            pre = templates.replace("flag = False", flag=flag)
            if isinstance(node, gast.While):
                node.test = templates.replace_as_expression("not flag and test", flag=flag, test=node.test)
            else:
                # Stored already converted: the logical pass never sees annotations.
                extra = templates.replace_as_expression("_jst.Not(flag)", flag=flag)
                anno.setanno(node, anno.Basic.EXTRA_LOOP_TEST, origin_info.copy_origin(node, extra))
            if node.orelse:
                post = templates.unless(flag, node.orelse)
        else:
            post = node.orelse
        node.orelse = []
        return origin_info.copy_origin(node, pre) + [node] + origin_info.copy_origin(node, post)

    visit_While = _loop
    visit_For = _loop


def transform(node, ctx):
    """Apply the break/continue pass to ``node``."""
    return BreakContinueTransformer(ctx).visit(node)
