"""astor's text of a gast tree, printed from the gast nodes, with the line map on the way.

The loader's text was made by translating the gast tree to ``ast`` (``codegen._ToAst``), printing
that with astor's ``SourceGenerator`` (``printer``: a node visit, a ``write`` call per token and
a ``_pp`` attribute per child), then reading the line map off the nodes it marked.  This module
prints the node types generated code is made of straight from the gast tree, with the same text
astor writes (the same parentheses, blank lines and string quoting: astor's rules, restated with
the precedence passed down rather than stored on the nodes), and notes each statement's line
as it starts, which with one statement per line is the whole line map.

    text, line_map = print_with_lines(module)     # None: not printed here (see below)

Anything else (a node type not listed here, decorators, ``elif`` chains, f-strings, a string
spanning lines followed by more code of its statement, a line whose origin would come from an
expression) raises ``Unsupported`` inside, and ``print_with_lines`` returns None: ``codegen``
then prints the tree the way it did before, which handles every case.  ``DY2ST_CHECK_CODEGEN=1``
compares both ways on every tree.
"""
import gast
from astor.op_util import Precedence

from dy2st.pyct.gast_expressions import _HIGHEST, _SYM, ExpressionPrinter, Unsupported, origin

_ASSIGN, _AUG, _EXPR, _RETURN, _IF = (Precedence.Assign, Precedence.AugAssign, Precedence.Expr, Precedence.Return,
                                      Precedence.If)


class _Printer(ExpressionPrinter):
    """Prints statements (``stmt``); the expressions in them, ``ExpressionPrinter``."""

    def __init__(self):
        self.out = []
        self.new_lines = 0
        self.indentation = 0
        self.line = 1
        self.colinfo = (0, 0)  # as astor's: where the current line starts in ``out``
        self.stmt_lines = {}
        self.expr_lines = {}  # the lines of statements holding expressions, in the order codegen meets them
        self.stmt_info = None  # the origin the current statement has (or inherits)
        self.multiline = False  # a text spanning lines was written since the statement started

    # -- astor's write, newline and statement -----------------------------------------------

    def text(self, item):
        if self.new_lines:
            out = self.out
            if out:
                self.line += self.new_lines
            out.append("\n" * self.new_lines)
            self.colinfo = len(out), 0
            out.append("    " * self.indentation)
            self.new_lines = 0
        if item:
            self.out.append(item)

    def statement(self, node, parent_info, expressions=True):
        """Start statement ``node`` on a new line; returns the origin it counts with.

        ``expressions``: whether the line holds an expression (a parameter, a keyword) of it,
        which puts the line among codegen's expression lines: those come first in its map."""
        if self.new_lines < 1:
            self.new_lines = 1
        info = origin(node) or parent_info
        if info is not None:
            # the line its first text starts on: after the pending newlines (none before the first text)
            line = self.line + (self.new_lines if self.out else 0)
            self.stmt_lines.setdefault(line, info)
            if expressions:
                self.expr_lines.setdefault(line, info)
        self.stmt_info = info
        self.multiline = False
        return info

    def block(self, stmts, info):
        self.indentation += 1
        for s in stmts:
            self.stmt(s, info)
        self.indentation -= 1

    # -- statements ----------------------------------------------------------------------------

    def stmt(self, node, parent_info):
        cls = type(node)
        fn = _STATEMENTS.get(cls)
        if fn is None:
            raise Unsupported(cls.__name__)
        fn(self, node, parent_info)
        self.stmt_info = parent_info

    def _function_def(self, node, parent_info):
        if node.decorator_list or node.__dict__.get("type_params"):
            raise Unsupported("decorators")  # their lines hold no statement: astor's way maps them
        if node.returns is not None and not node.args.args:
            raise Unsupported("returns")  # codegen meets its line's first expression after the body
        extra = 2 if self.indentation else 3  # astor's decorators(node, 1 or 2): blank lines before
        if self.new_lines < extra:
            self.new_lines = extra
        info = self.statement(node, parent_info, bool(node.args.args))
        self.text("def " + node.name)
        self.text("(")
        self.arguments(node.args)
        self.text(")")
        if node.returns is not None:
            self.text(" ->")
            self.expr(node.returns, _HIGHEST)
        self.text(":")
        self.block(node.body, info)
        if not self.indentation and self.new_lines < 3:
            self.new_lines = 3

    def _assign(self, node, parent_info):
        self.statement(node, parent_info)
        for target in node.targets:
            self.expr(target, _ASSIGN)
            self.text(" = ")
        self.expr(node.value, _ASSIGN)

    def _aug_assign(self, node, parent_info):
        self.statement(node, parent_info)
        self.expr(node.target, _AUG)
        self.text(" %s= " % _SYM[type(node.op)])
        self.expr(node.value, _AUG)

    def _expr_stmt(self, node, parent_info):
        self.statement(node, parent_info)
        self.expr(node.value, _EXPR)

    def _return(self, node, parent_info):
        self.statement(node, parent_info, node.value is not None)
        self.text("return")
        if node.value is not None:
            self.text(" ")
            self.expr(node.value, _RETURN)

    def _keyword_stmt(self, node, parent_info):  # pass, break, continue, global, nonlocal
        self.statement(node, parent_info, False)
        self.text(_KEYWORDS[type(node)] + ", ".join(node.__dict__.get("names", ())))

    def _raise(self, node, parent_info):
        self.statement(node, parent_info, node.exc is not None)
        self.text("raise")
        if node.exc is not None:
            self.text(" ")
            self.expr(node.exc, _HIGHEST)
            if node.cause is not None:
                self.text(" from ")
                self.expr(node.cause, _HIGHEST)

    def _with(self, node, parent_info):
        info = self.statement(node, parent_info)
        self.text("with ")
        for idx, item in enumerate(node.items):
            self.check(item)
            self.text(", " if idx else "")
            self.expr(item.context_expr, _HIGHEST)
            if item.optional_vars is not None:
                self.text(" as ")
                self.expr(item.optional_vars, _HIGHEST)
        self.text("")
        self.text(":")
        self.block(node.body, info)

    def _if(self, node, parent_info):
        orelse = node.orelse
        if len(orelse) == 1 and type(orelse[0]) is gast.If:
            raise Unsupported("elif")  # astor prints it without starting a statement
        info = self.statement(node, parent_info)
        self.text("if ")
        self.expr(node.test, _IF)
        self.text(":")
        self.block(node.body, info)
        if orelse:
            if self.new_lines < 1:
                self.new_lines = 1
            self.text("else:")
            self.block(orelse, info)

_KEYWORDS = {gast.Pass: "pass", gast.Break: "break", gast.Continue: "continue", gast.Global: "global ",
             gast.Nonlocal: "nonlocal "}
_STATEMENTS = {
    gast.FunctionDef: _Printer._function_def, gast.Assign: _Printer._assign, gast.AugAssign: _Printer._aug_assign,
    gast.Expr: _Printer._expr_stmt, gast.Return: _Printer._return, gast.Pass: _Printer._keyword_stmt,
    gast.Break: _Printer._keyword_stmt, gast.Continue: _Printer._keyword_stmt, gast.Global: _Printer._keyword_stmt,
    gast.Nonlocal: _Printer._keyword_stmt, gast.Raise: _Printer._raise, gast.With: _Printer._with, gast.If: _Printer._if,
}


def print_with_lines(module):
    """(astor's text of gast ``module``, {generated line: origin of the statement starting there}),
    or None when the tree holds something this printer leaves to astor."""
    printer = _Printer()
    info = origin(module)
    try:
        for stmt in module.body:
            printer.stmt(stmt, info)
    except Unsupported:
        return None
    out = printer.out
    out.append("\n")
    if set(out[0]) == set("\n"):
        out[0] = ""
    # codegen's order: the lines holding expressions, then those of statements alone
    return "".join(out), {**printer.expr_lines, **printer.stmt_lines}
