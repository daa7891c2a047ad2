"""Reject what converted code cannot express, with the user's file and line.

- `yield` / `yield from`: a converted function runs once to build a Program; a generator
  would build nothing.
- `global x` / `nonlocal x` inside a block, when the function rebinds `x`: the block becomes a
  generated function, where it would bind that function's own parameter. First in the function,
  a declaration converts (its names live at the function's end, defined from its start), and a
  statement calling a def that rebinds a name through `nonlocal` is followed by `name = name`,
  so a branch or loop around the call carries the new value out.
- `async def`, `await`: nothing to build them into.
"""
import gast

from dy2st.pyct import errors, transformer
from dy2st.pyct.nodes import walk
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

    def __init__(self, ctx):
        super().__init__(ctx)
        self._bound = []  # the names each def around the one visited binds (inside the converted tree)

    def visit_FunctionDef(self, node):
        declared = [n for n in _own_statements(node) if isinstance(n, (gast.Global, gast.Nonlocal))]
        # What the function rebinds matters only to a declaration (most functions have none).
        rebound = block_writes(node.body) | _nested_writes(node) if declared else ()
        top = {id(s) for s in node.body}
        for decl in declared:
            hit = [n for n in decl.names if n in rebound]
            if not hit:
                continue
            kind = "global" if isinstance(decl, gast.Global) else "nonlocal"
            if id(decl) not in top:  # (its block becomes a generated function, binding its own parameter)
                self.error(decl, f"`{kind} {hit[0]}` inside a block is not supported by dy2st when the "
                           "function rebinds the name: declare it first in the function", errors.Dy2StSyntaxError)
            # A rebinding nonlocal converts when the name is a local of a function the trace runs
            # (one around it in the converted code, or, converting a def that converted code made,
            # the frame that made it): every call binds it afresh. A global, or a name of a frame
            # outside the trace, would keep the value of one trace.
            inside = kind == "nonlocal" and (any(hit[0] in b for b in self._bound)
                                            or getattr(self.ctx, "made_in_trace", False))
            if not inside:
                self.error(decl, f"`{kind} {hit[0]}` followed by an assignment to it is not "
                           "supported by dy2st: return the new value instead",
                           errors.Dy2StSyntaxError)
        a = node.args
        names = {p.id for p in a.posonlyargs + a.args + a.kwonlyargs} | block_writes(node.body)
        self._bound.append(names - {x for d in declared for x in d.names})
        try:
            self.generic_visit(node)
        finally:
            self._bound.pop()
        return node


def _own_statements(node):
    """The statements of def ``node`` outside its nested defs and classes."""
    out, stack = [], list(node.body)
    while stack:
        n = stack.pop()
        out.append(n)
        if isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            value = getattr(n, field, None)
            if isinstance(value, list):
                stack.extend(value)
    return out


def _nested_writes(node):
    """Writes anywhere below `node`, including inside nested functions (for nonlocal/global)."""
    names = set()
    for n in walk(node):
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
            names.add(n.id)
        elif isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name):
            names.add(n.target.id)
    return names


def _rebinders(tree):
    """{name of a def in ``tree``: the names its `nonlocal` declaration lets it rebind}."""
    out = {}
    for n in walk(tree):
        if isinstance(n, gast.FunctionDef) and n is not tree:
            names = {x for s in n.body if isinstance(s, gast.Nonlocal) for x in s.names} & block_writes(n.body)
            if names:
                out[n.name] = names
    return out


def _called(stmt, rebinders):
    """The names the defs of ``rebinders`` that simple statement ``stmt`` calls rebind."""
    found = set()
    for n in walk(stmt):  # (a call of one in a lambda is refused: ``_only_called``)
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id in rebinders:
            found |= rebinders[n.func.id]
    return found


def _only_called(tree, rebinders, checker):
    """Refuse a def of ``rebinders`` named other than as the callee of a call outside lambdas (passed
    on, aliased, called in a lambda): the rebinding would happen where no `name = name` follows."""
    called = {id(n.func) for n in walk(tree) if isinstance(n, gast.Call)}
    in_lambdas = {id(c) for n in walk(tree) if isinstance(n, gast.Lambda) for c in walk(n.body)}
    # the parts a tensor condition makes functions, whose rebinding nothing carries out: those of
    # `a if c else b`, `and`/`or` after the first, a while loop's test
    hidden = [p for n in walk(tree) if isinstance(n, (gast.IfExp, gast.BoolOp, gast.While))
              for p in ([n.body, n.orelse] if isinstance(n, gast.IfExp) else n.values[1:] if isinstance(n, gast.BoolOp)
                        else [n.test])]
    for c in (c for p in hidden for c in walk(p)):
        if isinstance(c, gast.Call) and isinstance(c.func, gast.Name) and c.func.id in rebinders:
            checker.error(c, f"`{c.func.id}()` rebinds {', '.join(sorted(rebinders[c.func.id]))} through "
                          "`nonlocal`: dy2st converts such a call in a statement of its own, not in a part of "
                          "`a if cond else b`, `and`, `or` or a while loop's test", errors.Dy2StSyntaxError)
    for n in walk(tree):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id in rebinders \
                and (id(n) not in called or id(n) in in_lambdas):
            checker.error(n, f"`{n.id}` rebinds {', '.join(sorted(rebinders[n.id]))} through `nonlocal`: dy2st "
                          f"converts it called by name in a statement (`{n.id}(...)`), not passed on, aliased or "
                          "called in a lambda", errors.Dy2StSyntaxError)


def _carry_rebinds(fn, rebinders, checker):
    """After each statement of ``fn`` (in its blocks, not in its nested defs) that calls a def
    rebinding names of ``fn`` through `nonlocal`, ``name = name``: a branch or loop around the call
    then counts the name as written and carries the new value out (the generated function binds
    the closure cell, see ``ifelse.in_cells``), which a call alone hides from the analyses."""
    own = block_writes(fn.body) | {a.id for a in fn.args.args + fn.args.posonlyargs + fn.args.kwonlyargs}
    own |= {x for s in fn.body if isinstance(s, gast.Nonlocal) for x in s.names}

    def rebind(names, at):
        return [gast.copy_location(gast.Assign(targets=[gast.Name(name, gast.Store(), None, None)],
                                               value=gast.Name(name, gast.Load(), None, None), type_comment=None), at)
                for name in sorted(names)]

    def checked(names, s):
        if names - own:  # rebinds a name of a function around this one, behind its back
            checker.error(s, f"this call rebinds {', '.join(sorted(names - own))} through `nonlocal`, which "
                          f"`{fn.name}` neither binds nor declares: dy2st converts such a call in the function "
                          f"that binds the name, or in one declaring it `nonlocal` too", errors.Dy2StSyntaxError)
        return names & own

    def block(stmts):
        out = []
        for s in stmts:
            out.append(s)
            if isinstance(s, gast.FunctionDef):
                _carry_rebinds(s, rebinders, checker)
                continue
            for field in ("body", "orelse", "finalbody"):
                if isinstance(getattr(s, field, None), list) and getattr(s, field):
                    setattr(s, field, block(getattr(s, field)))
            for h in getattr(s, "handlers", ()) or ():
                h.body = block(h.body)
            if isinstance(s, (gast.Expr, gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Return)):
                names = checked(_called(s, rebinders), s)
                if not isinstance(s, gast.Return):
                    out += rebind(names, s)
            elif isinstance(s, (gast.If, gast.For, gast.With)):
                # a call in the header (`if f(row) > 1:`) runs before either block: each block starts
                # with `name = name`, so the branch or loop counts the name as written
                header = [s.test] if isinstance(s, gast.If) else [s.iter] if isinstance(s, gast.For) else s.items
                names = checked(set().union(*(_called(h, rebinders) for h in header)), s)
                if names:
                    s.body = rebind(names, s) + s.body
                    if isinstance(s, gast.If):
                        s.orelse = rebind(names, s) + s.orelse
        return out
    fn.body = block(fn.body)


def needed(census):
    """Whether the check may refuse (or rewrite) anything: only `yield`, `await`, `async def` and (in a def)
    `global`/`nonlocal` make it act. It runs first, on the tree the census was taken of."""
    return census.has(gast.Yield, gast.YieldFrom, gast.Await, gast.AsyncFunctionDef, gast.Global, gast.Nonlocal)


def transform(node, ctx):
    """Check ``node`` for unsupported syntax; returns it unchanged."""
    checker = UnsupportedChecker(ctx)
    node = checker.visit(node)
    # (a def converted code made is generated code already rewritten so: its branch functions
    # declare `nonlocal` names of their own, ``ifelse.in_cells``)
    if isinstance(node, gast.FunctionDef) and not getattr(ctx, "made_in_trace", False):
        rebinders = _rebinders(node)
        if rebinders:
            _only_called(node, rebinders, checker)
            _carry_rebinds(node, rebinders, checker)
    return node
