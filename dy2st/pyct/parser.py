"""Get a function's source and parse it with gast, keeping its file name and line numbers.

Handles plain functions, methods, nested functions and closures, functions decorated elsewhere
(decorators are dropped: the caller converts the undecorated function) and lambdas (only the
lambda expression is extracted from its line).
"""
import ast
import inspect
import textwrap

import gast

from dy2st.pyct import errors


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


class _ToGast:
    """ast -> gast (the tree ``gast.ast_to_gast`` builds), with positions shifted by
    (``line_offset``, ``col_offset``) on the way: the parsed fragment's positions become the
    file's without another walk."""

    def __init__(self, line_offset=0, col_offset=0):
        self.line_offset = line_offset
        self.col_offset = col_offset

    def visit(self, node):
        """The gast node for ast ``node``."""
        cls = type(node)
        spec = _SPECS.get(cls) or _spec(cls)
        target, fields, located, extra, missing = spec
        if target is None:  # not part of gast
            return None
        d = node.__dict__
        new = _new(target)
        nd = new.__dict__
        if extra is not None:  # Name, arg, ExceptHandler: built as gast builds them
            if extra(self, d, nd):
                return new
        else:
            visit = self.visit
            for field in fields:
                if field in d:
                    value = d[field]
                    if type(value) is list:
                        value = [visit(v) if isinstance(v, _AST) else v for v in value]
                    elif isinstance(value, _AST):
                        value = visit(value)
                    nd[field] = value
            if missing:  # def/class without type parameters (before Python 3.12)
                nd["type_params"] = []
        if located:
            self._locate(d, nd)
        return new

    def _locate(self, d, nd):
        # as gast's copy_location, then shifted as ``_shift_locations`` shifts
        lineno = d.get("lineno")
        if lineno is None:
            for attr in _POSITIONS:
                if attr in d:
                    nd[attr] = d[attr]
            return
        lines, cols = self.line_offset, self.col_offset
        nd["lineno"] = lineno + lines
        end = d.get("end_lineno")
        nd["end_lineno"] = end if end is None else end + lines
        col = d.get("col_offset")
        nd["col_offset"] = col if col is None else col + cols
        end = d.get("end_col_offset")
        nd["end_col_offset"] = end if end is None else end + cols

    def _name(self, d, nd):
        nd["id"] = d["id"]
        nd["ctx"] = _new(_GAST_CTX[type(d["ctx"])])
        nd["annotation"] = None
        nd["type_comment"] = None

    def _arg(self, d, nd):
        nd["id"] = d["arg"]
        nd["ctx"] = _new(gast.Param)
        annotation = d.get("annotation")
        nd["annotation"] = None if annotation is None else self.visit(annotation)
        nd["type_comment"] = d.get("type_comment")

    def _except_handler(self, d, nd):
        kind = d.get("type")
        nd["type"] = None if kind is None else self.visit(kind)
        name = d.get("name")
        # gast builds this Name without a position
        nd["name"] = None if not name else gast.Name(name, gast.Store(), None, None)
        nd["body"] = [self.visit(s) for s in d["body"]]



_AST = ast.AST
_new = ast.AST.__new__
_POSITIONS = ("lineno", "col_offset", "end_lineno", "end_col_offset")
_GAST_CTX = {ast.Load: gast.Load, ast.Store: gast.Store, ast.Del: gast.Del}
# ast type -> (gast type or None, the fields to translate, whether it has a position,
# the builder of types translated differently, whether gast adds an empty ``type_params``)
_SPECS = {}


def _spec(cls):
    target = getattr(gast, "Name" if cls is ast.arg else cls.__name__, None)
    special = {ast.Name: _ToGast._name, ast.arg: _ToGast._arg, ast.ExceptHandler: _ToGast._except_handler}.get(cls)
    if target is None:
        spec = (None, (), False, None, False)
    else:
        fields = tuple(f for f in cls._fields if f in target._fields)
        missing = "type_params" in target._fields and "type_params" not in cls._fields
        spec = (target, fields, "lineno" in cls._attributes and "lineno" in target._attributes, special, missing)
    _SPECS[cls] = spec
    return spec


def _gast_parse(source, line_offset=0, col_offset=0):
    """``gast.parse``, positions shifted by (``line_offset``, ``col_offset``)."""
    return _ToGast(line_offset, col_offset).visit(ast.parse(source))


def _first_indent(source):
    """The indentation of the fragment's first line (0 for a blank fragment)."""
    first = source.lstrip("\n").splitlines()[0] if source.strip() else ""
    return len(first) - len(first.lstrip())


def parse_source(source, first_lineno=1):
    """Parse a (possibly indented) code fragment that starts at line ``first_lineno`` of its
    file; returns (module, indent width removed), with the file's positions (columns count
    the indentation removed)."""
    dedented, indent = textwrap.dedent(source), _first_indent(source)
    try:
        return _gast_parse(dedented, first_lineno - 1, indent), indent
    except SyntaxError:
        # A fragment dedent could not normalise (e.g. a lambda in the middle of a call spanning
        # lines): parse it as the body of a dummy block instead.
        module = _gast_parse("if True:\n" + textwrap.indent(dedented, " "), first_lineno - 2, indent - 1)
        module.body = module.body[0].body
        return module, indent


def _def_block(lines, lnum):
    """The lines of the ``def`` at ``lines[lnum]`` (decorators first), or None if it does not
    start so.  The first later line of code indented no deeper than the ``def`` ends it:
    what ``inspect.getblock`` finds by tokenizing, unless such a line sits inside a string or
    brackets, which leaves the lines cut short, so they do not parse (the caller then asks
    ``inspect``).
    """
    base = _indentation(lines[lnum])
    j = lnum
    while j < len(lines) and lines[j].lstrip().startswith("@"):
        j += 1
    if j == len(lines) or not lines[j].lstrip().startswith(("def ", "async def ")) or _indentation(lines[j]) != base:
        return None
    end = j + 1
    for k in range(j + 1, len(lines)):
        text = lines[k].lstrip()
        if not text or text.startswith("#"):
            continue
        if len(lines[k]) - len(text) <= base:
            break
        end = k + 1
    return lines[lnum:end]


def _indentation(line):
    return len(line) - len(line.lstrip())


def _parse_lambda_lines(source, first_lineno, filename):
    """The lines holding a lambda that do not parse alone: an item of a dict, list or call
    (`"relu": lambda x: ...,`) parses inside the brackets it came from, the last item once the
    brackets it closes are cut off (`lambda x: x * x])`)."""
    indent = _first_indent(source)
    texts = [textwrap.dedent(source).rstrip()]
    while texts[-1] and texts[-1][-1] in ")]},":
        texts.append(texts[-1][:-1].rstrip())
    for text in texts:
        for opening, closing in (("{", "}"), ("[", "]"), ("f(", ")")):
            try:
                return _gast_parse(f"{opening}\n{text}\n{closing}", first_lineno - 2, indent)
            except SyntaxError:
                continue
    raise errors.Dy2StError("cannot read the source of this lambda (its line does not parse on its own); "
                            "give it its own line or use def", filename=filename, lineno=first_lineno)


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
        lines, lnum = inspect.findsource(getattr(fn, "__code__", fn))
    except (OSError, TypeError) as e:
        code = getattr(fn, "__code__", None)
        where = f" (defined in {code.co_filename}, line {code.co_firstlineno})" if code else ""
        # The chain would only repeat inspect's own frames; the message says what to do.
        raise errors.Dy2StError(
            f"dy2st converts a function from its source code, and the source of "
            f"{getattr(fn, '__qualname__', fn)!r}{where} cannot be found ({e}): functions typed at an "
            "interactive prompt, piped to python or made by exec() have none. Define it in a .py file, "
            "or run it eagerly with dy2st.enable_to_static(False)") from None
    first_lineno = lnum + 1
    module = None
    # Where a def ends, read off its indentation: much cheaper than inspect's tokenizing,
    # and never silently wrong (see _def_block); lambdas and the rest go to inspect.
    block = _def_block(lines, lnum) if fn.__name__ != "<lambda>" else None
    if block is not None:
        source = "".join(block)
        try:
            module = parse_source(source, first_lineno)[0]
        except SyntaxError:
            module = None
    filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
    if module is None:
        source = "".join(inspect.getblock(lines[lnum:]))
        try:
            module = parse_source(source, first_lineno)[0]
        except SyntaxError:
            if fn.__name__ != "<lambda>":
                raise
            module = _parse_lambda_lines(source, first_lineno, filename)
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
