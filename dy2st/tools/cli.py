"""The ``dy2st`` command line: ``convert``, ``inspect``, ``export`` and ``demo``.

The ``convert`` subcommand is in ``cli_convert.py``, with ``CliError`` and the colouring that the
other subcommands share.
"""
import argparse
import os
import sys

import numpy as np

from .. import __version__
from ..deploy import export, io
from ..frontend import config
from . import demo
from .cli_convert import CliError, _colour, cmd_convert, find_functions  # noqa: F401  (find_functions: public)
from .entry import one_line
from .error import show_internals

EXIT_USAGE = 2
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a tool killed by a closed pipe


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
