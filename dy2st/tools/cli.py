"""The ``dy2st`` command line: ``convert``, ``inspect``, ``export`` and ``demo``.

``dy2st convert FILE.py`` shows what the converter makes of the ``@to_static``
functions in FILE without running the file: only the function definitions are
compiled (decorators and defaults dropped), then converted.  ``--program`` and
``--explain`` need the input specs, so they import the file (with a
``__name__`` other than ``__main__``) and build the Programs.
"""
import argparse
import ast
import difflib
import importlib.util
import os
import sys
import textwrap

import numpy as np

import runtime as rt

from .. import __version__
from ..conversion.transform import transform_function
from ..deploy import export, io
from ..frontend import config
from ..frontend.static_function import StaticFunction
from . import demo
from .entry import one_line
from .error import show_internals

EXIT_USAGE = 2
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a tool killed by a closed pipe


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


def _inspect_onnx(path):
    """A short summary of an ONNX model: inputs, outputs, op counts (needs the onnx package)."""
    if not os.path.exists(path):
        raise CliError(f"{path}: no such file")
    try:
        import onnx
    except ImportError:
        raise CliError(f"{path} is an ONNX model; describing it needs the onnx package "
                       "(pip install onnx)") from None
    try:
        model = onnx.load(path)
    except Exception as exc:  # noqa: BLE001  (any parse failure is the file's fault)
        raise CliError(f"{path}: not a readable ONNX model ({exc})") from None

    def describe(v):
        t = v.type.tensor_type
        dims = [d.dim_param or (str(d.dim_value) if d.HasField("dim_value") else "None") for d in t.shape.dim]
        return f"    {v.name}: {onnx.TensorProto.DataType.Name(t.elem_type).lower()}[{', '.join(dims)}]"
    counts = {}

    def count(graph):
        for node in graph.node:
            counts[node.op_type] = counts.get(node.op_type, 0) + 1
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.GRAPH:
                    count(attr.g)
    count(model.graph)
    g = model.graph
    opsets = ", ".join(f"{o.domain or 'ai.onnx'} {o.version}" for o in model.opset_import)
    lines = [f"ONNX model: {path} (opset {opsets})", "inputs:"]
    lines += [describe(v) for v in g.input]
    lines.append("outputs:")
    lines += [describe(v) for v in g.output]
    lines.append(f"initializers: {len(g.initializer)}")
    lines.append(f"nodes: {sum(counts.values())} ({', '.join(f'{k} x{v}' for k, v in sorted(counts.items()))})")
    return "\n".join(lines)


def _write_drawing(program, args):
    if args.dot:
        with open(args.dot, "w", encoding="utf-8") as f:
            f.write(program.to_dot())
        print(f"wrote {args.dot}")
    for fmt in ("svg", "png"):
        target = getattr(args, fmt)
        if target:
            try:
                data = program.render(fmt)
            except (ImportError, RuntimeError) as exc:
                raise CliError(f"--{fmt}: {exc}") from None
            with open(target, "wb") as f:
                f.write(data)
            print(f"wrote {target}")


def cmd_inspect(args):
    """``dy2st inspect``: describe a saved model (.pdmodel prefix) or an .onnx file."""
    if args.model.endswith(".onnx"):
        print(_inspect_onnx(args.model))
        return 0
    prefix = io.model_prefix(args.model)
    try:
        layer = io.load(prefix)
    except (OSError, ValueError) as exc:
        raise CliError(str(exc).splitlines()[0]) from None
    print(layer.summary() if hasattr(layer, "summary") else model_summary(layer, prefix))
    print()
    print(_colour(str(layer.program).rstrip("\n"), "javascript"))
    _write_drawing(layer.program, args)
    return 0


def cmd_export(args):
    """``dy2st export``: write a saved model as ONNX."""
    prefix = io.model_prefix(args.model)
    try:
        model = export.export_onnx(prefix, args.out, opset=args.opset)
    except ImportError as exc:
        raise CliError(str(exc).splitlines()[0]) from None
    except NotImplementedError as exc:
        raise CliError(f"{prefix}: cannot export to ONNX: {str(exc).split('; supported:')[0]}") from None
    except (OSError, ValueError) as exc:
        raise CliError(str(exc).splitlines()[0]) from None
    graph = model.graph
    print(f"wrote {args.out}: opset {args.opset}, {len(graph.node)} nodes, {len(graph.initializer)} initializers, "
          f"inputs {[i.name for i in graph.input]}, outputs {[o.name for o in graph.output]}")
    return 0


def model_summary(layer, prefix):
    """Inputs (name, shape, dtype), outputs, and parameter count of a loaded model."""
    block = layer.program.global_block()

    def describe(name):
        v = block.var(name)
        # -1 for an unknown dim, as the Program listing below prints it
        shape = ["-1" if d is None or d < 0 else str(d) for d in v.shape]
        return f"    {name}: {v.dtype}[{', '.join(shape)}]"
    params = list(layer.parameters())
    buffers = [b for b in getattr(layer, "buffers", lambda: [])() if b is not None]
    n_elems = sum(int(np.prod(p.shape)) for p in params)
    lines = [f"model: {prefix}", "inputs (-1: any size):"]
    lines += [describe(n) for n in layer.feed_names]
    lines.append("outputs:")
    lines += [describe(n) for n in layer.fetch_names]
    lines.append(f"parameters: {len(params)} tensors, {n_elems:,} elements")
    if buffers:
        lines.append(f"buffers: {len(buffers)} tensors, {sum(int(np.prod(b.shape)) for b in buffers):,} elements")
    lines.append(f"program: {layer.program.num_blocks} block(s), {len(block.ops)} ops in block 0")
    return "\n".join(lines)


def cmd_demo(args):
    """``dy2st demo``: train, convert, save and reload the demo model."""
    demo.run(args.epochs, args.out_dir, args.batch_size, args.lr, progress=not args.no_progress)
    return 0


def build_parser():
    """The argparse parser of the ``dy2st`` command and its subcommands."""
    parser = argparse.ArgumentParser(prog="dy2st", description="Convert Python deep learning code to static "
                                                               "Programs, inspect models, run the demo.")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="log what gets converted and why")
    parser.add_argument("--version", action="version", version=f"dy2st {__version__}")
    # -v also works after the subcommand (`dy2st convert -v f.py`); SUPPRESS keeps the top-level count.
    verbose = argparse.ArgumentParser(add_help=False)
    verbose.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS,
                         help="log what gets converted and why")
    sub = parser.add_subparsers(dest="command", required=True)
    conv = sub.add_parser("convert", parents=[verbose],
                          help="print the converted source of @to_static functions in a file")
    conv.add_argument("file", help="a Python file")
    conv.add_argument("--function", metavar="NAME", help="only this function (name or Class.method)")
    conv.add_argument("--all", action="store_true", help="every function in the file, decorated or not")
    mode = conv.add_mutually_exclusive_group()
    mode.add_argument("--passes", action="store_true", help="the code after each pass, in pipeline order")
    mode.add_argument("--diff", action="store_true", help="a unified diff against the original source")
    conv.add_argument("--program", action="store_true",
                      help="import the file and print the static Program of each function with an input_spec")
    conv.add_argument("--explain", action="store_true",
                      help="import the file and print the staging report of each function with an input_spec")
    conv.set_defaults(run=cmd_convert)
    insp = sub.add_parser("inspect", parents=[verbose],
                          help="show a saved inference model (or an .onnx file): inputs, outputs, parameters, Program")
    insp.add_argument("model", help="the path prefix given to dy2st.save (or the .pdmodel file, or an .onnx file)")
    insp.add_argument("--dot", metavar="FILE", help="also write the Program as Graphviz source")
    insp.add_argument("--svg", metavar="FILE", help="also draw the Program as SVG (needs graphviz)")
    insp.add_argument("--png", metavar="FILE", help="also draw the Program as PNG (needs graphviz)")
    insp.set_defaults(run=cmd_inspect)
    exp = sub.add_parser("export", parents=[verbose],
                         help="convert a saved inference model to ONNX (needs onnx: pip install onnx onnxruntime)")
    exp.add_argument("model", help="the path prefix given to dy2st.save (or the .pdmodel file)")
    exp.add_argument("out", help="the .onnx file to write")
    exp.add_argument("--opset", type=int, default=17, help="ONNX opset version, 11 or later (default 17)")
    exp.set_defaults(run=cmd_export)
    dem = sub.add_parser("demo", parents=[verbose], help="train, convert, save, reload and time a digits classifier",
                         description=demo.DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    demo.add_arguments(dem)
    dem.set_defaults(run=cmd_demo)
    return parser


def main(argv=None):
    """Run the ``dy2st`` command with ``argv`` (sys.argv by default); returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.verbose:
        config.set_verbosity(args.verbose)
    try:
        return args.run(args)
    except CliError as exc:
        print(f"dy2st: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (`dy2st convert f.py | head`): stop quietly, like cat does.
        # Point stdout at devnull so the interpreter's final flush cannot raise again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except Exception as exc:  # noqa: BLE001  (any other failure: one line, internals only when asked for)
        if show_internals():
            raise
        print(f"dy2st: error: {one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
