"""The one ordered pipeline: user function -> converted function.

    converted = transform_function(fn)
    converted.source     # the generated code (what `dy2st convert` prints)
    converted.passes     # [(pass name, source after it)] for `--passes` (computed when first asked for)
    converted.fn         # the callable, with fn's globals and closure cells
    converted.filename   # fake file name of the generated code (see origin_info.origin_of)
"""
import builtins
import contextlib
import gc
import importlib

import gast

from dy2st.frontend import decorators
from dy2st.pyct import codegen, loader, naming, origin_info, parser, transformer
from dy2st.pyct.census import Census
from dy2st.pyct.nodes import walk
from dy2st.transformers.object_writes import may_write_into_objects, writes_into_objects
from dy2st.transformers import (
    assert_print,
    attributes,
    break_statements,
    call_trees,
    casts,
    comparisons,
    condition_truth,
    exceptions,
    ifelse,
    len_shape,
    list_append,
    logical_expressions,
    loops,
    match_statements,
    return_statements,
    slot_lists,
    unsupported,
)

# The name generated code uses for dy2st's runtime interface.
HELPER_NAME = "_jst"

# Whether passes with nothing to rewrite (see pyct.census) are skipped; off, every pass walks the
# tree (tests compare both ways: the generated code must not differ).
SKIP_IDLE_PASSES = True


def _needed(needed, census, *args):
    """``needed(census, *args)``, or True when no census was taken (every pass runs)."""
    return census is None or needed(census, *args)


def _pipeline(node, ctx, snapshot, census):
    # ``census``: what the user's code holds (see pyct.census). A pass whose ``needed(census)``
    # says it has nothing to rewrite is skipped: its walk would return the tree unchanged (each
    # ``needed`` also counts what the passes before it may add).
    # Refuse what cannot be converted before spending work on it.
    if _needed(unsupported.needed, census):
        node = unsupported.transform(node, ctx)
    # Private names are mangled as the class body would have (the generated code is compiled
    # outside it), and `x.stop_gradient = ...` becomes a rebinding, before anything reads names.
    if _needed(attributes.needed, census, ctx.fn_name):
        node = attributes.transform(node, ctx)
    snapshot("attributes", node)
    # `match` -> an `if` chain: the passes below know `if` (jumps and tensor branches in cases).
    if _needed(match_statements.needed, census):
        node = match_statements.transform(node, ctx)
    snapshot("match_statements", node)
    # Which names functions defined in the user's code read from their enclosing function, found
    # before the passes below add lambdas and functions that read names too.
    ifelse.mark_closure_cells(node, census)
    # `if cond: raise E` -> a run-time check, before the `if` pass would run both branches.
    if _needed(exceptions.needed, census):
        node = exceptions.transform(node, ctx)
    snapshot("exceptions", node)
    # A list grown in a loop through a local container's item (`feats['k'].append(v)`) -> a local
    # around the loop, before the jump passes (a loop holding a `return` is left alone) and the
    # list pass (which makes a local's growth a visible write).
    if _needed(slot_lists.needed, census):
        node = slot_lists.transform(node, ctx)
    snapshot("slot_lists", node)
    # Jumps first: once branches and loops become functions, a `return`/`break` inside them
    # would leave the wrong function. `return` before `break`: a return inside a loop
    # becomes a `break` that the next pass turns into a flag.
    node = return_statements.transform(node, ctx); snapshot("return_statements", node)
    node = break_statements.transform(node, ctx); snapshot("break_statements", node)
    # `lst.append(x)` -> `lst = _jst.Append(lst, x)` before loops are analysed, so the list is
    # seen as written (a loop carry).
    node = list_append.transform(node, ctx); snapshot("list_append", node)
    # Operands of `and`/`or` in conditions -> `_jst.Truth(...)`, while `assert` is still a
    # statement (the next pass makes it a call) and before `and`/`or` are rewritten.
    node = condition_truth.transform(node, ctx); snapshot("condition_truth", node)
    # These rewrite calls the call pass must then leave alone (`print`, `len`, `assert`).
    if _needed(assert_print.needed, census):
        node = assert_print.transform(node, ctx)
    snapshot("assert_print", node)
    if _needed(len_shape.needed, census):
        node = len_shape.transform(node, ctx)
    snapshot("len_shape", node)
    # `int(x)`/`x.numpy()` -> `_jst` casts; before calls, which would otherwise see `int`
    # resolved to a builtin and leave it alone anyway, but `_jst.Call` must not wrap these.
    if _needed(casts.needed, census):
        node = casts.transform(node, ctx)
    snapshot("casts", node)
    # Calls before control flow: afterwards, calls to generated branch/loop functions exist
    # only inside `_jst`, never in user-visible call sites the pass could wrap by mistake.
    node = call_trees.transform(node, ctx); snapshot("call_trees", node)
    # `a < b < c` -> `_jst.Compare`, an `and` of its links, before `and`/`or` and `if`.
    if _needed(comparisons.needed, census):
        node = comparisons.transform(node, ctx)
    snapshot("comparisons", node)
    # `and`/`or`/`not` before `if`/`while`, whose tests they appear in (including the break
    # flags' `not did_break_0 and ...`).
    node = logical_expressions.transform(node, ctx); snapshot("logical_expressions", node)
    # Whether the function writes into any object, asked once (a walk of the whole tree) for
    # both control-flow passes: the `if` pass adds no such write (its generated code binds
    # names and calls `_jst.IfElse`), so the answer after it is the same.
    object_writes = _needed(may_write_into_objects, census) and writes_into_objects(node)
    # Branches before loops: loop carries are then read off the assignments `_jst.IfElse`
    # makes, which bind exactly the names live after each branch.
    node = ifelse.transform(node, ctx, object_writes); snapshot("ifelse", node)
    node = loops.transform(node, ctx, object_writes); snapshot("loops", node)
    return node


# The snapshots `passes` holds, in pipeline order (the first is the parsed original).
PASS_NAMES = ("original", "attributes", "match_statements", "exceptions", "slot_lists", "return_statements", "break_statements", "list_append",
              "condition_truth", "assert_print", "len_shape", "casts", "call_trees", "comparisons",
              "logical_expressions", "ifelse", "loops")


class ConvertedFunction:
    """A converted function: its callable, generated source and (on demand) the code after each pass."""

    pass_names = PASS_NAMES

    def __init__(self, original, fn, node, passes, filename, module_source, helpers=None):
        self.original = original
        self.helpers = helpers
        self.fn = fn
        self._node = node
        self._source = None
        self._passes = passes
        self.filename = filename
        self.module_source = module_source

    @property
    def source(self):
        """The generated code of the function (printed when first asked for)."""
        if self._source is None:
            # Display only: the text that was compiled was verified by the loader.
            self._source = codegen.to_source(self._node, verify=False)[0]
        return self._source

    @property
    def passes(self):
        """[(pass name, source after it)]; printing every intermediate tree is costly, so a
        conversion skips it and the first read converts once more, snapshotting each pass."""
        if self._passes is None:
            self._passes = transform_function(self.original, snapshots=True, helpers=self.helpers)._passes
        return self._passes

    @property
    def line_map(self):
        """{line of the generated file: OriginInfo of the user line it came from}."""
        return origin_info.line_map(self.filename)

    def origin_of(self, generated_lineno):
        """The user-code OriginInfo of generated line ``generated_lineno``, or None."""
        return origin_info.origin_of(self.filename, generated_lineno)


def with_defaults_of(converted, original):
    """``converted`` (a function made from ``original``) with ``original``'s current default values:
    the loader copied them once, and eager calls read ``__defaults__`` afresh (one reassigned later
    must not leave the converted copy with the old ones; the guards retrace on it)."""
    original = getattr(original, "__func__", original)
    defaults, kwdefaults = getattr(original, "__defaults__", None), getattr(original, "__kwdefaults__", None)
    if converted.__defaults__ is not defaults:
        converted.__defaults__ = defaults
    if converted.__kwdefaults__ is not kwdefaults:
        converted.__kwdefaults__ = kwdefaults
    return converted


def _as_function_def(node, namer):
    """A lambda becomes `def lambda_0(args): return expr`, which every pass understands."""
    if not isinstance(node, gast.Lambda):
        return node
    fn = gast.FunctionDef(name=namer.new("lambda"), args=node.args,
                          body=[gast.Return(value=node.body)], decorator_list=[], returns=None,
                          type_comment=None, type_params=[])
    gast.copy_location(fn, node)
    return fn


def _namespace(fn):
    names = dict(fn.__globals__)
    for var, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            names[var] = cell.cell_contents
        except ValueError:  # an empty cell: the closed-over name is not bound yet
            pass
    return names


@contextlib.contextmanager
def _collector_paused():
    """The cyclic garbage collector off while converting, back on after (if it was on).

    A conversion allocates tens of thousands of nodes that live until it ends and make no
    garbage cycles: with the collector on, every 700 allocations it walked the growing trees
    again (about nine young collections per conversion, and each moves the trees a generation
    up until a full collection of the whole heap runs), a tenth of the conversion's time.
    Nested conversions (and other threads converting meanwhile) leave the switch to the
    outermost one.
    """
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def transform_function(fn, snapshots=False, helpers=None):
    """Convert a Python function (or method, or lambda) into a ConvertedFunction.

    ``snapshots``: also print the code after every pass now (``passes``); otherwise
    that happens only if ``passes`` is read. ``helpers``: the runtime interface module the
    generated code calls as ``_jst`` (given by the caller, so this pipeline does not import
    the interface, which itself converts the functions it reaches through this pipeline);
    None means ``dy2st.conversion.convert_operators``.
    """
    with _collector_paused():
        return _transform(fn, snapshots, helpers)


def _transform(fn, snapshots, helpers):
    if helpers is None:
        helpers = importlib.import_module("dy2st.conversion.convert_operators")
    original = decorators.unwrap(fn)
    parsed = parser.parse_function(original)
    walked = walk(parsed.node)  # for the readers of the parsed tree below
    census = Census(walked)
    namer = naming.Namer(census.names | set(vars(builtins)) | {HELPER_NAME})
    origin_info.resolve(parsed.node, parsed.filename, parsed.source, parsed.first_lineno,
                        original.__qualname__, walked)
    node = _as_function_def(parsed.node, namer)
    ctx = transformer.Context(original.__qualname__, parsed.filename, namer, _namespace(original),
                              original.__code__.co_freevars)
    # a def that converted code made (a nested def run by a trace): its closure cells are the trace's
    ctx.made_in_trace = original.__code__.co_filename.startswith("<dy2st generated")
    passes = [("original", codegen.to_source(node, verify=False)[0])] if snapshots else None

    def snapshot(name, tree):
        if snapshots:
            passes.append((name, codegen.to_source(tree, verify=False)[0]))

    node = _pipeline(node, ctx, snapshot, census if SKIP_IDLE_PASSES else None)
    if snapshots:
        assert tuple(n for n, _ in passes) == PASS_NAMES, "PASS_NAMES must list the pipeline's snapshots"
    new_fn, filename, module_source = loader.load_function(
        node, original, {HELPER_NAME: helpers})
    new_fn.__name__ = original.__name__
    new_fn = decorators.rewrap(fn, new_fn)  # `@rt.no_grad()` and other context decorators
    return ConvertedFunction(original, new_fn, node, passes, filename, module_source, helpers)
