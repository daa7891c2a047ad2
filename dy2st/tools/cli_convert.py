"""The ``dy2st convert`` subcommand, and ``CliError`` and the colouring that every subcommand of
``cli.py`` shares.

``dy2st convert FILE.py`` shows what the converter makes of the ``@to_static``
functions in FILE without running the file: only the function definitions are
compiled (decorators and defaults dropped), then converted.  ``--program`` and
``--explain`` need the input specs, so they import the file (with a
``__name__`` other than ``__main__``) and build the Programs.
"""
import ast
import difflib
import importlib.util
import os
import sys
import textwrap

import runtime as rt

from ..conversion.transform import transform_function
from ..frontend.static_function import StaticFunction
from .entry import one_line


class CliError(Exception):
    """A one-line error for the user; printed without a traceback, exit status 2."""


def _colour(text, lexer_name):
    if not sys.stdout.isatty() or os.environ.get("NO_COLOR"):
        return text
    try:
        from pygments import highlight
        from pygments.formatters import TerminalFormatter
        from pygments.lexers import get_lexer_by_name
    except ImportError:
        return text
    return highlight(text, get_lexer_by_name(lexer_name), TerminalFormatter()).rstrip("\n")


def _read_module(path):
    if not os.path.exists(path):
        raise CliError(f"{path}: no such file")
    if os.path.isdir(path):
        raise CliError(f"{path}: is a directory, expected a Python file")
    try:
        with open(path, encoding="utf-8") as f:
            source = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"{path}: cannot read: {exc}") from None
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as exc:
        raise CliError(f"{path}:{exc.lineno}: syntax error: {exc.msg}") from None
    return source, tree


def _is_to_static(dec):
    target = dec.func if isinstance(dec, ast.Call) else dec
    if isinstance(target, ast.Name):
        return target.id == "to_static"
    if isinstance(target, ast.Attribute):
        return target.attr == "to_static"
    return False


def find_functions(tree, everything=False, name=None):
    """(qualname, FunctionDef) for the functions ``convert`` should show."""
    found = []

    def visit(body, prefix):
        for node in body:
            if isinstance(node, ast.ClassDef):
                visit(node.body, prefix + node.name + ".")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qual = prefix + node.name
                wanted = (name is not None and name in (node.name, qual)) or \
                         (name is None and (everything or any(_is_to_static(d) for d in node.decorator_list)))
                if wanted:
                    found.append((qual, node))
                visit(node.body, qual + ".")
    visit(tree.body, "")
    return found


def _stub_function(node, path):
    """Compile just this def (no decorators, defaults, annotations) with its real file and line."""
    stub = ast.parse(textwrap.dedent(ast.unparse(node)))
    fdef = stub.body[0]
    fdef.decorator_list = []
    args = fdef.args
    # each None at its default's place: compile() needs a location on every node
    args.defaults = [ast.copy_location(ast.Constant(None), d) for d in args.defaults]
    args.kw_defaults = [None if d is None else ast.copy_location(ast.Constant(None), d) for d in args.kw_defaults]
    fdef.returns = None
    for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
        if a is not None:
            a.annotation = None
    # Keep the user's file and line so the converter reads the real source.
    ast.increment_lineno(stub, node.lineno - 1)
    nonlocals = sorted({n for s in ast.walk(fdef) if isinstance(s, ast.Nonlocal) for n in s.names})
    if nonlocals:
        # A nested function's `nonlocal x` needs an enclosing function binding x: compile the def
        # inside one (binding each name to None) and take the function it returns.
        outer = ast.parse(f"def _enclosing():\n    {', '.join(nonlocals)} = {', '.join(['None'] * len(nonlocals))}\n"
                          f"    return {fdef.name}").body[0]
        outer.body.insert(1, fdef)
        inner = {id(n) for n in ast.walk(fdef)}
        for n in ast.walk(outer):
            if id(n) not in inner and "lineno" in n._attributes:
                ast.copy_location(n, fdef)
        stub.body = [outer]
    namespace = {}
    exec(compile(stub, path, "exec"), namespace)  # defines the function only; its body does not run
    return namespace["_enclosing"]() if nonlocals else namespace[fdef.name]


def _convert_one(qual, node, path, source, args, out):
    try:
        converted = transform_function(_stub_function(node, path))
    except Exception as exc:  # noqa: BLE001  (report per function, keep going)
        out.append(f"# {qual} ({path}:{node.lineno}): cannot convert: {exc}")
        return False
    header = f"# ---- {qual}  ({path}:{node.lineno}) ----"
    if args.passes:
        out.append(header)
        previous, unchanged = None, []
        for i, (pass_name, code) in enumerate(converted.passes):
            if previous is not None and code == previous:
                unchanged.append(pass_name)
                continue
            previous = code
            out.append(f"# {'original' if i == 0 else f'after pass {i}: {pass_name}'}")
            out.append(_colour(code.rstrip("\n"), "python"))
            out.append("")
        if unchanged:
            out.append(f"# {len(unchanged)} pass(es) changed nothing here: {', '.join(unchanged)}")
            out.append("")
    elif args.diff:
        start = node.decorator_list[0].lineno if node.decorator_list else node.lineno
        original = "\n".join(source.splitlines()[start - 1:node.end_lineno])
        diff = difflib.unified_diff(textwrap.dedent(original).splitlines(), converted.source.splitlines(),
                                    fromfile=f"{path}:{qual}", tofile=f"{qual} (converted)", lineterm="")
        out.append(_colour("\n".join(diff), "diff"))
    else:
        out.append(header)
        out.append(_colour(converted.source.rstrip("\n"), "python"))
        out.append("")
    return True


def _import_file(path):
    name = "_dy2st_cli_" + os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001
        raise CliError(f"{path}: importing it failed: {one_line(exc, in_file=path)}") from None
    finally:
        sys.path.pop(0)
    return module


def _static_functions(module, wanted):
    for attr, value in vars(module).items():
        if isinstance(value, StaticFunction) and getattr(value, "__module__", module.__name__) in (module.__name__, None):
            if wanted(attr):
                yield attr, value
        elif isinstance(value, type) and issubclass(value, rt.nn.Layer) and value.__module__ == module.__name__:
            for mname, member in vars(value).items():
                if isinstance(member, StaticFunction) and wanted(f"{attr}.{mname}"):
                    try:
                        instance = value()
                    except Exception as exc:  # noqa: BLE001
                        raise CliError(f"{attr}.{mname}: cannot build a {attr}() with no arguments to trace "
                                       f"it ({exc})") from None
                    yield f"{attr}.{mname}", getattr(instance, mname)


def _programs(path, args, out):
    module = _import_file(path)

    def wanted(qual):
        return args.function is None or args.function in (qual, qual.split(".")[-1])
    shown = 0
    for qual, sf in _static_functions(module, wanted):
        if sf._input_spec is None:
            out.append(f"# {qual}: no input_spec, so its Program cannot be built without a call "
                       "(give @to_static(input_spec=[...]))")
            continue
        shown += 1
        if args.explain:
            if not hasattr(sf, "explain"):
                raise CliError("--explain is not available in this version of dy2st (no StaticFunction.explain)")
            out.append(f"# ---- staging report: {qual} ----")
            out.append(sf.explain(*sf._input_spec))
        if args.program:
            program = sf.get_concrete_program().main_program
            out.append(f"# ---- Program of {qual} ----")
            out.append(_colour(str(program).rstrip("\n"), "javascript"))
    if not shown and not out:
        raise CliError(f"{path}: no @to_static function with an input_spec was found")


def cmd_convert(args):
    """``dy2st convert``: print converted source, passes, diffs or Programs of a file's functions."""
    source, tree = _read_module(args.file)
    out = []
    if args.program or args.explain:
        _programs(args.file, args, out)
    else:
        targets = find_functions(tree, everything=args.all, name=args.function)
        if not targets:
            have = [q for q, _ in find_functions(tree, everything=True)]
            listing = f"; the file defines: {', '.join(have)}" if have else "; the file defines no functions"
            if args.function:
                raise CliError(f"{args.file}: no function named {args.function!r}{listing}")
            raise CliError(f"{args.file}: no @to_static function found (use --all for every function, "
                           f"or --function NAME){listing}")
        for qual, node in targets:
            _convert_one(qual, node, args.file, source, args, out)
    print("\n".join(out))
    return 0


