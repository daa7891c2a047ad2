"""Get a function's source and parse it with gast, keeping its file name and line numbers.

Handles plain functions, methods, nested functions and closures, functions decorated elsewhere
(decorators are dropped: the caller converts the undecorated function) and lambdas (only the
lambda expression is extracted from its line).
"""
import ast
import inspect
import textwrap

import gast
from gast.ast3 import Ast3ToGAst

from dy2st.pyct import errors
from dy2st.pyct.nodes import FastTranslator, walk


class ParsedFunction:
    """The gast FunctionDef (or Lambda) of a function, with where it came from."""

    def __init__(self, node, source, filename, first_lineno):
        self.node = node
        self.source = source
        self.filename = filename
        self.first_lineno = first_lineno


def unwrap(fn):
    """The plain Python function behind bound methods and `functools.wraps` decorators."""
    fn = getattr(fn, "__func__", fn)
    return inspect.unwrap(fn)


class _ToGast(FastTranslator, Ast3ToGAst):
    """gast's ast->gast converter, with its dispatch cached per node type."""

    target = gast
    _visitors = {}
    _layouts = {}


def _gast_parse(source):
    """``gast.parse`` through the cached-dispatch converter."""
    return _ToGast().visit(ast.parse(source))


def _shift_locations(tree, line_offset, col_offset):
    for node in walk(tree):
        if getattr(node, "lineno", None) is not None:
            node.lineno += line_offset
            if getattr(node, "end_lineno", None) is not None:
                node.end_lineno += line_offset
            if getattr(node, "col_offset", None) is not None:
                node.col_offset += col_offset
            if getattr(node, "end_col_offset", None) is not None:
                node.end_col_offset += col_offset


def parse_source(source):
    """Parse a (possibly indented) code fragment; returns (module, indent width removed)."""
    dedented = textwrap.dedent(source)
    indent = 0
    first = source.lstrip("\n").splitlines()[0] if source.strip() else ""
    if first:
        indent = len(first) - len(first.lstrip())
    try:
        return _gast_parse(dedented), indent
    except SyntaxError:
        # A fragment dedent could not normalise (e.g. a lambda in the middle of a call spanning
        # lines): parse it as the body of a dummy block instead.
        module = _gast_parse("if True:\n" + textwrap.indent(dedented, " "))
        _shift_locations(module, -1, -1)
        module.body = module.body[0].body
        return module, indent


def _find_lambda(module, fn):
    """The one Lambda in `module` that compiled into `fn`'s code object."""
    code = fn.__code__
    lambdas = [n for n in gast.walk(module) if isinstance(n, gast.Lambda)]
    wanted_args = list(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
    candidates = []
    for lam in lambdas:
        names = [a.id for a in lam.args.posonlyargs + lam.args.args + lam.args.kwonlyargs]
        if names == wanted_args:
            candidates.append(lam)
    if len(candidates) > 1:
        candidates = _by_column(candidates, code)
    if len(candidates) != 1:
        raise errors.Dy2StError(
            "cannot tell which lambda on this line to convert; give it its own line or use def",
            filename=code.co_filename, lineno=code.co_firstlineno)
    return candidates[0]


def _by_column(lambdas, code):
    """The lambdas whose body holds the code's first source position (several on one line)."""
    positions = [p for p in getattr(code, "co_positions", lambda: [])()
                 if p[0] is not None and p[2] is not None and p[3] is not None and p[3] > p[2]]
    if not positions:
        return lambdas
    line, _, col, _ = positions[0]
    return [lam for lam in lambdas
            if (lam.body.lineno, lam.body.col_offset) <= (line, col) <= (lam.body.end_lineno, lam.body.end_col_offset)]


def parse_function(fn):
    """Parse `fn` (already unwrapped) into a ParsedFunction with user file/line numbers."""
    try:
        # The code object, not the function: inspect would follow `__wrapped__` past a wrapper.
        lines, first_lineno = inspect.getsourcelines(getattr(fn, "__code__", fn))
    except (OSError, TypeError) as e:
        code = getattr(fn, "__code__", None)
        where = f" (defined in {code.co_filename}, line {code.co_firstlineno})" if code else ""
        # The chain would only repeat inspect's own frames; the message says what to do.
        raise errors.Dy2StError(
            f"dy2st converts a function from its source code, and the source of "
            f"{getattr(fn, '__qualname__', fn)!r}{where} cannot be found ({e}): functions typed at an "
            "interactive prompt, piped to python or made by exec() have none. Define it in a .py file, "
            "or run it eagerly with dy2st.enable_to_static(False)") from None
    source = "".join(lines)
    filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
    module, indent = parse_source(source)
    _shift_locations(module, first_lineno - 1, indent)
    if fn.__name__ == "<lambda>":
        node = _find_lambda(module, fn)
    else:
        defs = [n for n in module.body if isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef))]
        if not defs:
            raise errors.Dy2StError(f"no function definition found in the source of {fn.__name__}",
                                    filename=filename, lineno=first_lineno)
        node = defs[0]
        if isinstance(node, gast.AsyncFunctionDef):
            raise errors.Dy2StError("async functions cannot be converted",
                                    filename=filename, lineno=node.lineno)
        # Decorators (to_static itself, functools.wraps...) are applied by the caller, not the copy.
        node.decorator_list = []
    return ParsedFunction(node, source, filename, first_lineno)
