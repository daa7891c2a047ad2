"""Early `return` anywhere -> a flag and a value variable, with one `return` at the end.

Runs first: later passes turn branches and loops into functions, where a `return` would
return from the wrong function. A `return` inside a loop becomes `break` (the break pass, next,
turns that into a flag too).

    def f(x):                        def f(x):
        for i in range(x):               did_return_0 = False
            if i > 3:                    return_value_0 = _jst.RETURN_NO_VALUE
                return i                 for i in range(x):
        return -1                            if i > 3:
                                                 did_return_0 = True
                                                 return_value_0 = i
                                                 break
                                         if not did_return_0:
                                             did_return_0 = True
                                             return_value_0 = -1
                                         return return_value_0

The two names come from the namer with the roles RETURN_FLAG and RETURN_VALUE.
"""
import gast

from dy2st.pyct import naming, origin_info, templates, transformer
from dy2st.pyct.nodes import statements

_LOOPS = (gast.For, gast.While)


def _has_return(node):
    return transformer.contains(node, gast.Return)


def _return_in_loop(stmt):
    """Whether a `return` inside `stmt` sits in a loop nested in `stmt` (or `stmt` is one)."""
    loops = [n for n in statements(stmt) if isinstance(n, _LOOPS)]
    return any(_has_return(loop.body) or _has_return(loop.orelse) for loop in loops)


class _FunctionReturns:
    def __init__(self, ctx):
        self.flag = ctx.namer.new("did_return", naming.RETURN_FLAG)
        self.value = ctx.namer.new("return_value", naming.RETURN_VALUE)

    def block(self, stmts, in_loop):
        out = []
        for i, s in enumerate(stmts):
            if isinstance(s, gast.Return):
                value = s.value if s.value is not None else gast.Constant(value=None, kind=None)
                new = templates.replace("flag = True\nvalue = retval", flag=self.flag,
                                        value=self.value, retval=value)
                if in_loop:
                    new.append(gast.Break())
                out.extend(origin_info.copy_origin(s, new))
                return out  # anything after a return is unreachable
            if not _has_return(s):
                out.append(s)
                continue
            nested_loop_returns = _return_in_loop(s)  # before compound() rewrites the returns
            out.append(self.compound(s, in_loop))
            rest = stmts[i + 1:]
            if in_loop:
                if nested_loop_returns:
                    out.extend(origin_info.copy_origin(
                        s, templates.replace("if flag:\n    break", flag=self.flag)))
                out.extend(self.block(rest, in_loop))
            elif rest:
                guard = templates.unless(self.flag, self.block(rest, in_loop))
                out.extend(origin_info.copy_origin(rest[0], guard))
            return out
        return out

    def compound(self, s, in_loop):
        if isinstance(s, gast.If):
            s.body = self.block(s.body, in_loop)
            s.orelse = self.block(s.orelse, in_loop)
        elif isinstance(s, _LOOPS):
            s.body = self.block(s.body, True)
            s.orelse = self.block(s.orelse, in_loop)
        elif isinstance(s, gast.With):
            s.body = self.block(s.body, in_loop)
        elif isinstance(s, (gast.Try, gast.TryStar)):
            s.body = self.block(s.body, in_loop)
            for h in s.handlers:
                h.body = self.block(h.body, in_loop)
            s.orelse = self.block(s.orelse, in_loop)
            s.finalbody = self.block(s.finalbody, in_loop)
        return s


def _needs_rewrite(fn):
    body = fn.body
    if not _has_return(body):
        return False
    last_is_return = isinstance(body[-1], gast.Return)
    return _has_return(body[:-1]) or not last_is_return


def _endless(stmt):
    """`while True:` (any constant true test) that no `break` of its own leaves: control never
    falls out of it, so the function cannot end there without a `return`."""
    if not isinstance(stmt, gast.While) or not isinstance(stmt.test, gast.Constant) or not stmt.test.value:
        return False
    loops = (gast.For, gast.While, gast.FunctionDef, gast.Lambda, gast.ClassDef)
    return not transformer.contains(stmt.body, gast.Break, stop=loops)


def _else_returns(stmt):
    """A `for`/`while` whose `else` always returns and that no `break` of its own leaves: the loop
    either returns from its body or ends normally and runs the `else`."""
    loops = (gast.For, gast.While, gast.FunctionDef, gast.Lambda, gast.ClassDef)
    return (isinstance(stmt, _LOOPS) and stmt.orelse and _always_returns(stmt.orelse)
            and not transformer.contains(stmt.body, gast.Break, stop=loops))


def _always_returns(stmts):
    """Whether every path through ``stmts`` ends in a `return` (or never leaves an endless loop)."""
    for s in stmts:
        if isinstance(s, gast.Return) or _endless(s) or _else_returns(s):
            return True
        if isinstance(s, gast.If) and _always_returns(s.body) and _always_returns(s.orelse):
            return True
        if isinstance(s, gast.With) and _always_returns(s.body):
            return True
        if isinstance(s, (gast.Try, gast.TryStar)) and (_always_returns(s.finalbody) or (
                _always_returns(s.body + s.orelse) and all(_always_returns(h.body) for h in s.handlers))):
            return True
    return False


def _transform_function(fn, ctx):
    if not _needs_rewrite(fn):
        return
    if not _always_returns(fn.body):
        # Falling off the end returns None; say so, so every path sets the return value.
        fn.body.append(origin_info.copy_origin(fn.body[-1], gast.Return(value=None)))
    r = _FunctionReturns(ctx)
    prologue = templates.replace("flag = False\nvalue = _jst.RETURN_NO_VALUE",
                                 flag=r.flag, value=r.value)
    body = r.block(fn.body, in_loop=False)
    epilogue = templates.replace("return value", value=r.value)
    fn.body = (origin_info.copy_origin(fn.body[0], prologue) + body
               + origin_info.copy_origin(fn.body[-1], epilogue))


def transform(node, ctx):
    """Give every function in ``node`` a single final ``return`` (see the module docstring)."""
    for fn in transformer.functions_in(node):
        _transform_function(fn, ctx)
    return node
