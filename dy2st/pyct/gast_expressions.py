"""The expressions of ``gast_printer``: astor's text of each, with the precedence around it passed
down (astor's ``_pp``: the binding strength of where the node sits) instead of set on the node.

Each ``_<type>`` method writes what astor's ``visit_<Type>`` writes, in the same pieces (a "(" a
node may not need is written, then blanked, as astor's ``delimit`` does: a string's quoting reads
the line written so far).
"""
import math

import gast
from astor.op_util import Precedence, precedence_data, symbol_data
from astor.string_repr import pretty_string

from dy2st.pyct import anno

_ANNO_FIELD, _ORIGIN = anno._ANNO_FIELD, anno.Basic.ORIGIN


class Unsupported(Exception):
    """A tree ``gast_printer`` leaves to astor (see its docstring)."""


def _by_name(table):
    # astor's tables are keyed by ast classes; gast has its own classes of the same names
    return {getattr(gast, cls.__name__): value for cls, value in table.items()
            if cls is not None and hasattr(gast, cls.__name__)}


_PREC, _SYM = _by_name(precedence_data), _by_name(symbol_data)
_COMMA, _ONE_ARG, _HIGHEST = Precedence.Comma, Precedence.call_one_arg, Precedence.highest
_ASSIGN, _EXPR = Precedence.Assign, Precedence.Expr
_TUPLE, _CONST, _SUBSCRIPT = Precedence.Tuple, Precedence.Constant, Precedence.Subscript
_SLICE, _LAMBDA, _IFEXP, _POW, _POW_RHS = (Precedence.Slice, Precedence.Lambda, Precedence.IfExp, Precedence.Pow,
                                           Precedence.PowRHS)
_COMP, _COMP_TARGET = Precedence.comprehension, Precedence.comprehension_target
_NAME = gast.Name


def origin(node):
    """The origin annotated on ``node`` itself, or None."""
    store = node.__dict__.get(_ANNO_FIELD)
    return store.get(_ORIGIN) if store else None


class ExpressionPrinter:
    """The expression half of ``gast_printer._Printer`` (which provides ``text`` and the state
    read here: ``out``, ``colinfo``, ``line``, ``stmt_info``, ``multiline``)."""

    def check(self, node):
        """A node below the statement: its origin must not name a line of its own (see the module
        docstring), and no text spanning lines may come before it in its statement."""
        if self.multiline or (self.stmt_info is None and origin(node) is not None):
            raise Unsupported("an expression's origin or line")

    def expr(self, node, pp):
        """Print expression ``node`` where the precedence around it is ``pp`` (astor's ``_pp``)."""
        cls = type(node)
        if self.multiline or self.stmt_info is None:
            self.check(node)
        if cls is _NAME:
            self.text(node.id)
            return
        fn = _EXPRESSIONS.get(cls)
        if fn is None:
            raise Unsupported(cls.__name__)
        fn(self, node, pp)

    def open(self):
        """astor's ``delimit``: "(" written (its index returned), then dropped by ``close`` when the
        node binds tighter than where it sits."""
        self.text("(")
        return len(self.out) - 1

    def close(self, index, discard):
        """Close what ``open`` opened at ``index``: ")" appended, or the "(" blanked when ``discard``."""
        if discard:
            self.out[index] = ""
        else:
            self.out.append(")")

    def _attribute(self, node, pp):
        self.expr(node.value, _HIGHEST)
        self.text(".")
        self.text(node.attr)

    def _call(self, node, pp):
        args, keywords = node.args, node.keywords
        inner = _COMMA if len(args) + len(keywords) > 1 else _ONE_ARG
        self.expr(node.func, _HIGHEST)
        self.text("(")
        comma = False
        for arg in args:
            if comma:
                self.text(", ")
            comma = True
            self.expr(arg, inner)
        for keyword in keywords:
            self.check(keyword)
            if comma:
                self.text(", ")
            comma = True
            name = keyword.arg or ""  # None: `**mapping`
            self.text(name)
            self.text("=" if name else "**")
            self.expr(keyword.value, _COMMA)
        self.text(")")

    def _constant(self, node, pp):
        value = node.value
        kind = type(value)
        if kind is int or kind is bool or (kind is float and math.isfinite(value)):
            index = self.open()
            self.text(repr(value))
            self.close(index, _CONST >= pp)
        elif kind is str:
            self._string(node, value, pp)
        elif value is None or value is Ellipsis:
            self.text("..." if value is Ellipsis else "None")
        else:
            raise Unsupported("constant")  # inf, nan, complex, bytes: astor's own rules

    def _string(self, node, value, pp):
        # astor's _handle_string_constant: the quoting depends on where the string sits
        embedded = (pp > _EXPR) + (pp >= _ASSIGN)
        self.text("")
        out = self.out
        index, offset = self.colinfo
        current = out[index:]
        if offset:
            current[0] = current[0][offset:]
        text = pretty_string(value, embedded, "".join(current), False)
        kind = node.__dict__.get("kind")
        if kind:
            text = kind + text
        self.text(text)
        lf = text.rfind("\n") + 1
        if lf:
            self.colinfo = len(out) - 1, lf
            self.line += text.count("\n")
            self.multiline = True

    def _tuple(self, node, pp):
        elts = node.elts
        index = self.open()
        for idx, elt in enumerate(elts):
            self.text(", " if idx else "")
            self.expr(elt, _COMMA)
        self.text("," if len(elts) == 1 else "")
        self.close(index, bool(elts) and _TUPLE >= pp)

    def _list(self, node, pp):
        self.text("[")
        for idx, elt in enumerate(node.elts):
            self.text(", " if idx else "")
            self.expr(elt, _COMMA)
        self.out.append("]")  # astor's last write ("", no trailing comma) writes nothing here

    def _dict(self, node, pp):
        self.text("{")
        for idx, (key, value) in enumerate(zip(node.keys, node.values)):
            self.text(", " if idx else "")
            if key is None:
                self.text("**")
            else:
                self.expr(key, _HIGHEST)
                self.text(": ")
            self.expr(value, _COMMA)
        self.out.append("}")

    def _binop(self, node, pp):
        op = type(node.op)
        p = _PREC[op]
        index = self.open()
        if op is gast.Pow:
            self.expr(node.left, _POW + 1)
            self.text(" %s " % _SYM[op])
            self.expr(node.right, _POW_RHS)
        else:
            self.expr(node.left, p)
            self.text(" %s " % _SYM[op])
            self.expr(node.right, p + 1)
        self.close(index, p >= pp)

    def _boolop(self, node, pp):
        op = type(node.op)
        p = _PREC[op]
        index = self.open()
        sym = " %s " % _SYM[op]
        for idx, value in enumerate(node.values):
            self.text(sym if idx else "")
            self.expr(value, p + 1)
        self.close(index, p >= pp)

    def _compare(self, node, pp):
        p = _PREC[type(node.ops[0])]
        index = self.open()
        self.expr(node.left, p + 1)
        for op, right in zip(node.ops, node.comparators):
            self.text(" %s " % _SYM[type(op)])
            self.expr(right, p + 1)
        self.close(index, p >= pp)

    def _unaryop(self, node, pp):
        op = type(node.op)
        p = _PREC[op]
        index = self.open()
        sym = _SYM[op]
        self.text(sym)
        self.text(" " if sym.isalpha() else "")
        self.expr(node.operand, p)
        self.close(index, p >= pp)

    def _lambda(self, node, pp):
        index = self.open()
        self.text("lambda ")
        self.arguments(node.args)
        self.text(": ")
        self.expr(node.body, _LAMBDA)
        self.close(index, _LAMBDA >= pp)

    def _ifexp(self, node, pp):
        index = self.open()
        self.expr(node.body, _IFEXP + 1)
        self.text(" if ")
        self.expr(node.test, _IFEXP + 1)
        self.text(" else ")
        self.expr(node.orelse, _IFEXP)
        self.close(index, _IFEXP >= pp)

    def _subscript(self, node, pp):
        self.expr(node.value, _HIGHEST)
        self.text("[")
        self.expr(node.slice, _SUBSCRIPT)
        self.text("]")

    def _slice(self, node, pp):
        if node.lower is not None:
            self.expr(node.lower, _SLICE)
        self.text(":")
        if node.upper is not None:
            self.expr(node.upper, _SLICE)
        step = node.step
        if step is not None:
            self.text(":")
            if not (type(step) is _NAME and step.id == "None"):
                self.expr(step, _SLICE)

    def _starred(self, node, pp):
        self.text("*")
        self.expr(node.value, _HIGHEST)

    def _list_comp(self, node, pp):
        self.text("[")
        self.expr(node.elt, _HIGHEST)
        for gen in node.generators:
            self.check(gen)
            if gen.is_async:
                raise Unsupported("async comprehension")
            self.text(" for ")
            self.expr(gen.target, _COMP_TARGET)
            self.text(" in ")
            self.expr(gen.iter, _COMP)
            for cond in gen.ifs:
                self.text(" if ")
                self.expr(cond, _COMP)
        self.out.append("]")

    def arguments(self, node):
        """astor's visit_arguments for parameters without ``/``, ``*`` or ``**``."""
        if self.multiline or self.stmt_info is None:
            self.check(node)
        if node.posonlyargs or node.vararg or node.kwonlyargs or node.kwarg:
            raise Unsupported("parameters")
        args, defaults = node.args, node.defaults
        first_default = len(args) - len(defaults)
        for idx, arg in enumerate(args):
            if self.multiline or self.stmt_info is None:
                self.check(arg)
            self.text(", " if idx else "")
            self.text(arg.id)
            if arg.annotation is not None:
                self.text(": ")
                self.expr(arg.annotation, _HIGHEST)
            if idx >= first_default:
                self.text("=")
                self.expr(defaults[idx - first_default], _COMMA)



_EXPRESSIONS = {
    gast.Attribute: ExpressionPrinter._attribute, gast.Call: ExpressionPrinter._call, gast.Constant: ExpressionPrinter._constant,
    gast.Tuple: ExpressionPrinter._tuple, gast.List: ExpressionPrinter._list, gast.Dict: ExpressionPrinter._dict, gast.BinOp: ExpressionPrinter._binop,
    gast.BoolOp: ExpressionPrinter._boolop, gast.Compare: ExpressionPrinter._compare, gast.UnaryOp: ExpressionPrinter._unaryop,
    gast.Lambda: ExpressionPrinter._lambda, gast.IfExp: ExpressionPrinter._ifexp, gast.Subscript: ExpressionPrinter._subscript,
    gast.Slice: ExpressionPrinter._slice, gast.Starred: ExpressionPrinter._starred, gast.ListComp: ExpressionPrinter._list_comp,
}
