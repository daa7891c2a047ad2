"""Shared plumbing for passes: the conversion context and a NodeTransformer that reports errors
against the user's file and line."""
import gast

from dy2st.pyct import anno, errors, naming
from dy2st.pyct.nodes import walk


class Context:
    """What every pass of one conversion shares."""

    def __init__(self, fn_name, filename, namer=None, namespace=None, free_vars=()):
        self.fn_name = fn_name
        self.filename = filename
        self.namer = namer or naming.Namer()
        # The function's globals plus closure values: lets the call pass see what a name is.
        self.namespace = namespace or {}
        # The original's closure variables (`__class__` among them in methods using super()).
        self.namespace_free_vars = frozenset(free_vars)


class Transformer(gast.NodeTransformer):
    """Base of the conversion passes: a gast NodeTransformer with the conversion context ``ctx``."""

    def __init__(self, ctx):
        self.ctx = ctx

    def error(self, node, message, cls=errors.Dy2StError):
        """Raise ``cls(message)`` at the user's file and line ``node`` came from."""
        info = anno.getanno(node, anno.Basic.ORIGIN)
        if info is None:
            raise cls(message, filename=self.ctx.filename)
        raise cls(message, filename=info.filename, lineno=info.lineno, source_line=info.source_line)

    def visit_block(self, stmts):
        """Visit a statement list; visitors may return a list of statements to splice."""
        out = []
        for s in stmts:
            new = self.visit(s)
            if new is None:
                continue
            out.extend(new if isinstance(new, list) else [new])
        return out


def contains(stmts, kinds, stop=(gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)):
    """Whether any node of `kinds` occurs in `stmts`, not looking inside `stop` nodes."""
    stack = list(stmts) if isinstance(stmts, list) else [stmts]
    while stack:
        n = stack.pop()
        if isinstance(n, kinds):
            return True
        if isinstance(n, stop):
            continue
        stack.extend(gast.iter_child_nodes(n))
    return False


def functions_in(tree):
    """Every FunctionDef in `tree`, innermost first (so rewriting one never hides another)."""
    found = [n for n in walk(tree) if isinstance(n, gast.FunctionDef)]
    return list(reversed(found))
