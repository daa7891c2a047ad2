"""astor's printer, noting the line each node starts on as it prints.

``print_tree(tree, mark)`` returns exactly ``astor.to_source(tree, pretty_source="".join)`` and
writes on every node carrying attribute ``mark`` (``codegen``'s origin) the generated line the
node starts on (as ``LINE_ATTR``): the line ``ast.parse`` of the text would give it, so the line
map needs no re-parse of the text.

    text = print_tree(tree, mark)    # "def f(x):\n    return g(x)\n"
    tree.body[0].body[0].value       # the Call, now with LINE_ATTR = 2 (when it carries ``mark``)

A node starts where the first text it prints starts, once the pending newlines are written
(parentheses astor opens around a node sit on the same line as its first token: statements are
printed one per line, unwrapped, and only a string constant can hold a line break).  Two kinds of
node start elsewhere: a decorated ``def``/``class`` starts at its keyword, after the decorator
lines, and a ``keyword`` argument is never visited (its name is written by the call), so it is
left unmarked (it starts on its value's line).  Trees holding node types astor misprints
(``codegen._ASTOR_UNSAFE``: its f-string printing rewrites what it wrote) get no usable marks;
``codegen`` re-parses those.
"""
import ast
import math

from astor.code_gen import SourceGenerator
from astor.op_util import Precedence, get_op_precedence, precedence_data, symbol_data
from astor.string_repr import pretty_string

LINE_ATTR = "_dy2st_line"
_COMMA, _CALL_ONE_ARG, _HIGHEST = Precedence.Comma, Precedence.call_one_arg, Precedence.highest
_TUPLE = get_op_precedence(ast.Tuple())
_CONSTANT, _POW, _POW_RHS = get_op_precedence(ast.Constant()), Precedence.Pow, Precedence.PowRHS
_DEFS = frozenset((ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))


class _LinePrinter(SourceGenerator):
    """astor's ``SourceGenerator`` whose ``write`` counts the lines written and marks the nodes
    that started since the last text (``visit`` queues those carrying ``mark``)."""

    _visitors = {}  # node type -> astor's visitor function (astor builds the name for every node)

    def __init__(self, mark):
        super().__init__(" " * 4, False, pretty_string)
        self._mark = mark
        pending = self._pending = []
        result = self.result
        append = result.append
        node_type, name_type = ast.AST, ast.Name
        line = 1
        visitors, defs, cls_self = self._visitors, _DEFS, _LinePrinter

        def flush_newlines():
            # astor's pending newlines and indent, counted (leading newlines are dropped from the
            # text, see print_tree, so they count for no line)
            nonlocal line
            if result:
                line += self.new_lines
            append("\n" * self.new_lines)
            self.colinfo = len(result), 0
            append(self.indent_with * self.indentation)
            self.new_lines = 0

        def mark_pending():
            # the nodes queued since the last text start on the line the next text starts on
            for n in pending:
                n.__dict__[LINE_ATTR] = line
            pending.clear()

        def start_text():
            # what every non-empty text written does first
            if self.new_lines:
                flush_newlines()
            if pending:
                mark_pending()

        def visit(node):
            # astor's ``visit`` (by a cached lookup), queueing a node to mark (see ``statement``)
            cls = type(node)
            if cls is name_type:  # a third of all nodes: astor's visit_Name and write, inlined
                start_text()
                if mark in node.__dict__:
                    node.__dict__[LINE_ATTR] = line
                append(node.id)
                return
            if mark in node.__dict__ and cls not in defs:
                pending.append(node)
            fn = visitors.get(cls)
            if fn is None:
                fn = getattr(cls_self, "visit_" + cls.__name__, None)
                if fn is None:  # as astor's ExplicitNodeVisitor
                    raise AttributeError("No defined handler for node of type %s" % cls.__name__)
                visitors[cls] = fn
            return fn(self, node)

        def write(*params):
            # astor's ``write``, plus the line count and the marks
            nonlocal line
            for item in params:
                if isinstance(item, node_type):
                    visit(item)
                elif callable(item):
                    item()
                else:
                    if self.new_lines:
                        flush_newlines()
                    if item:
                        if pending:
                            mark_pending()
                        append(item)
                        if "\n" in item:  # a string constant printed over several lines
                            line += item.count("\n")

        self.visit = visit  # astor's methods call ``self.visit``: the instance's closure answers
        self.write = write

    def statement(self, node, *params, **kw):
        self.newline(node)
        if type(node) in _DEFS and self._mark in node.__dict__:
            self._pending.append(node)  # its keyword starts it, not its first decorator
        self.write(*params)

    # The node types generated code is made of most (calls, tuples, parameter lists), printed
    # as astor 0.8.1 prints them, with the same writes in the same order, minus the closures and
    # precedence helpers astor builds for every node.  Python 3 trees only: ``ast.Call`` has no
    # ``starargs``/``kwargs`` (astor reads them as None).

    def visit_Call(self, node):
        write = self.write
        args, keywords = node.args, node.keywords
        precedence = _COMMA if len(args) + len(keywords) > 1 else _CALL_ONE_ARG
        for arg in args:  # astor's set_precedence
            arg._pp = precedence
        self.visit(node.func)
        write("(")
        comma = False
        for arg in args:
            if comma:
                write(", ")
            comma = True
            write(arg)
        for keyword in keywords:
            keyword.value._pp = _COMMA
        for keyword in keywords:
            if comma:
                write(", ")
            comma = True
            arg = keyword.arg or ""  # None: `**mapping`
            write(arg, "=" if arg else "**", keyword.value)
        write(")")

    def visit_Tuple(self, node):
        # astor's ``delimit``: "(" written, then dropped when the tuple binds tighter than where
        # it sits (never for an empty one); ")" appended as is (no pending newline to write)
        write, result = self.write, self.result
        write("(")
        opening = len(result) - 1
        elts = node.elts
        discard = elts and _TUPLE >= node.__dict__.get("_pp", _HIGHEST)
        for elt in elts:
            elt._pp = _COMMA
        for idx, elt in enumerate(elts):
            write(", " if idx else "", elt)
        write("," if len(elts) == 1 else "")
        if discard:
            result[opening] = ""
        else:
            result.append(")")

    # Operators and numbers: astor's ``delimit`` inline ("(" written, then dropped unless the node
    # binds looser than where it sits, as its ``Delimit`` object decides), the same writes after.

    def visit_Constant(self, node):
        value = node.value
        kind = type(value)
        if not (kind is int or kind is bool or (kind is float and math.isfinite(value))):
            return SourceGenerator.visit_Constant(self, node)  # strings, inf/nan, complex...
        write, result = self.write, self.result
        write("(")
        opening = len(result) - 1
        write(repr(value))  # astor's _handle_numeric_constant of a finite int/float
        if _CONSTANT >= node.__dict__.get("_pp", _HIGHEST):
            result[opening] = ""
        else:
            result.append(")")
        return None

    def visit_BinOp(self, node):
        write, result = self.write, self.result
        op, left, right = node.op, node.left, node.right
        write("(")
        opening = len(result) - 1
        p = precedence_data[type(op)]
        discard = p >= node.__dict__.get("_pp", _HIGHEST)
        if type(op) is ast.Pow:
            left._pp, right._pp = _POW + 1, _POW_RHS
        else:
            left._pp, right._pp = p, p + 1
        write(left, " %s " % symbol_data[type(op)], right)
        if discard:
            result[opening] = ""
        else:
            result.append(")")

    def visit_BoolOp(self, node):
        write, result = self.write, self.result
        write("(")
        opening = len(result) - 1
        p = precedence_data[type(node.op)]
        discard = p >= node.__dict__.get("_pp", _HIGHEST)
        op = " %s " % symbol_data[type(node.op)]
        values = node.values
        for value in values:
            value._pp = p + 1
        for idx, value in enumerate(values):
            write(idx and op or "", value)
        if discard:
            result[opening] = ""
        else:
            result.append(")")

    def visit_Compare(self, node):
        write, result = self.write, self.result
        write("(")
        opening = len(result) - 1
        p = precedence_data[type(node.ops[0])]
        discard = p >= node.__dict__.get("_pp", _HIGHEST)
        node.left._pp = p + 1
        for right in node.comparators:
            right._pp = p + 1
        self.visit(node.left)
        for op, right in zip(node.ops, node.comparators):
            write(" %s " % symbol_data[type(op)], right)
        if discard:
            result[opening] = ""
        else:
            result.append(")")

    def visit_UnaryOp(self, node):
        write, result = self.write, self.result
        write("(")
        opening = len(result) - 1
        op, operand = node.op, node.operand
        p = precedence_data[type(op)]
        discard = p >= node.__dict__.get("_pp", _HIGHEST)
        operand._pp = p
        operand._p_op = op
        sym = symbol_data[type(op)]
        write(sym, " " if sym.isalpha() else "", operand)
        if discard:
            result[opening] = ""
        else:
            result.append(")")

    def visit_arguments(self, node):
        d = node.__dict__
        if d.get("posonlyargs") or d.get("vararg") or d.get("kwonlyargs") or d.get("kwarg") or d.get("defaults"):
            return SourceGenerator.visit_arguments(self, node)
        # plain parameters (what generated functions take): "a, b"
        write = self.write
        for idx, arg in enumerate(d["args"]):
            if idx:
                write(", ")
            write(arg)
        return None


def print_tree(tree, mark):
    """``astor.to_source(tree, pretty_source="".join)``; each node holding attribute ``mark`` gets
    its first line as ``LINE_ATTR``."""
    printer = _LinePrinter(mark)
    printer.visit(tree)
    result = printer.result
    result.append("\n")
    if set(result[0]) == set("\n"):
        result[0] = ""
    return "".join(result)
