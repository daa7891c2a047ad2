"""Export an inference Program to ONNX: ``export_onnx(program, feed_names, fetch_names, path=None)``.

Optional: this module needs ``onnx`` (``pip install onnx onnxruntime``, or ``pip install '.[onnx]'`` from the project folder) and is only
imported when exporting, so ``import runtime`` never does.

How a Program maps onto a ModelProto:

- feeds become graph inputs (dims -1 become symbolic dims ``<feed>_d<i>``),
  fetches graph outputs, persistable vars initializers (values from ``params``,
  else ``program.bound_tensors``);
- each op goes through ONE table, ``ops.OPS`` (op type -> function adding
  nodes); an op without an entry raises ``NotImplementedError`` naming it and
  where it is;
- ``cond`` becomes ``If`` and ``while`` becomes ``Loop`` (no trip count, the
  predicate as ``cond``, carries as loop-carried deps); their sub-blocks become
  subgraphs that read outer values by name, as ONNX allows.

ONNX wants every name assigned once in the whole model (subgraphs included); a
Program may assign a name twice (``assign`` into an existing var), so names are
renamed on redefinition through a per-graph environment (Program name -> ONNX
name) chained to the enclosing graph's.
"""
import os
import warnings

import numpy as np

try:
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError as _e:  # keep the message actionable: the extra installs both onnx and onnxruntime
    raise ImportError(f"ONNX export needs the onnx package: pip install onnx onnxruntime, or from the project folder: pip install '.[onnx]' ({_e})") from None

from . import nn_ops  # noqa: F401  (adds the nn ops' entries to OPS)
from ...registry import get_op
from ...files import write_atomic
from .ops import OPS, onnx_dtype
from .opset import MIN_OPSET, adapt as adapt_opset
from ..passes.effects import persistables_written
from ..passes.prune import prune

DEFAULT_OPSET = 17


class _Graph:
    """Nodes of one ONNX graph and its Program-name -> ONNX-name environment (chained to the parent's)."""

    def __init__(self, parent=None):
        self.parent = parent
        self.nodes = []
        self.env = {}

    def lookup(self, name):
        g = self
        while g is not None:
            if name in g.env:
                return g.env[name]
            g = g.parent
        return None


class Exporter:
    """What an op's mapping function sees: inputs/outputs by slot, node and constant builders."""

    def __init__(self, program, opset):
        self.program = program
        self.opset = opset
        self.initializers = []
        self.used = set()
        self.counter = 0
        self.graph = _Graph()
        self.op = None

    # -- names --------------------------------------------------------------------------------
    def fresh(self, hint="t"):
        """A new unique ONNX value name built from ``hint``."""
        self.counter += 1
        name = f"onnx__{hint}_{self.counter}"
        self.used.add(name)
        return name

    def define(self, prog_name):
        """A new ONNX name for (a new value of) the Program var ``prog_name``."""
        name = prog_name
        while name in self.used:
            self.counter += 1
            name = f"{prog_name}__{self.counter}"
        self.used.add(name)
        self.graph.env[prog_name] = name
        return name

    def lookup(self, prog_name):
        """The ONNX name holding Program variable ``prog_name``; ValueError if nothing defined it yet."""
        name = self.graph.lookup(prog_name)
        if name is None:
            raise ValueError(f"ONNX export: op '{self.op.type}' in block {self.op.block.idx} reads '{prog_name}', "
                             "which no feed, parameter or earlier op defines")
        return name

    # -- what an op reads and writes ------------------------------------------------------------
    def i(self, slot, k=0):
        """ONNX name of the ``k``-th var of input ``slot`` (None when the slot is empty)."""
        names = self.op.inputs.get(slot) or []
        return self.lookup(names[k]) if k < len(names) else None

    def ins(self, slot):
        """The ONNX names of the current op's input slot ``slot``."""
        return [self.lookup(n) for n in self.op.inputs.get(slot) or []]

    def o(self, slot, k=0):
        """The ONNX name to define for output ``k`` of slot ``slot`` (a throwaway name if the op has none)."""
        names = self.op.outputs.get(slot) or []
        return self.define(names[k]) if k < len(names) else self.fresh("unused")

    def outs(self, slot):
        """The ONNX names to define for every output of slot ``slot``."""
        return [self.define(n) for n in self.op.outputs.get(slot) or []]

    def has_out(self, slot):
        """Whether the current op binds output slot ``slot``."""
        return bool(self.op.outputs.get(slot))

    def var(self, slot, k=0, outputs=False):
        """The Program Variable (shape, dtype) of an input (or output) slot entry."""
        names = (self.op.outputs if outputs else self.op.inputs)[slot]
        return self.op.block.var(names[k])

    def attr(self, name, default=None):
        """The current op's attribute ``name`` (``default`` if absent)."""
        return self.op.attrs.get(name, default)

    # -- builders --------------------------------------------------------------------------------
    def node(self, op_type, inputs, outputs=None, **attrs):
        """Append a node; returns its single output name (or the list given)."""
        if outputs is None:
            outputs = [self.fresh(op_type.lower())]
        elif isinstance(outputs, str):
            outputs = [outputs]
        self.graph.nodes.append(helper.make_node(op_type, list(inputs), list(outputs), **attrs))
        return outputs[0] if len(outputs) == 1 else outputs

    def const(self, value, dtype=None):
        """An initializer holding ``value`` (usable from any subgraph: initializers are outer values)."""
        arr = np.asarray(value, dtype=None if dtype is None else np.dtype(str(dtype)))
        name = self.fresh("const")
        self.initializers.append(numpy_helper.from_array(arr, name))
        return name

    def cast(self, name, from_dtype, to_dtype):
        """``name`` cast to ``to_dtype`` by a Cast node (``name`` itself when the dtypes agree)."""
        if str(from_dtype) == str(to_dtype):
            return name
        return self.node("Cast", [name], to=onnx_dtype(to_dtype))

    # -- blocks ---------------------------------------------------------------------------------
    def emit_ops(self, block):
        """Lower every op of ``block`` to ONNX nodes; ops with no outputs are left out."""
        for op in block.ops:
            outs = op.outputs.get("Out")
            if not (op.output_arg_names if outs is None else outs) and not (
                    op.sub_blocks() and any(persistables_written(sub) for sub in op.sub_blocks())):
                # An op producing nothing (a `cond` whose branches only ended a loop body with
                # `continue`, an assert, a print) has no effect an ONNX graph could observe, and an
                # If with no outputs is not a valid ONNX node: leave it out (not one writing a buffer,
                # whose new value the lowering makes an output).
                continue
            fn = OPS.get(op.type)
            if fn is None:
                outs = ", ".join(op.output_arg_names) or "no outputs"
                raise NotImplementedError(f"ONNX export: op type '{op.type}' has no ONNX mapping (block {block.idx}, "
                                          f"output {outs}); supported: {', '.join(sorted(OPS))}")
            self.op = op
            fn(self, op)

    def subgraph(self, block, name, inputs, outputs):
        """Emit ``block`` as an ONNX graph.

        ``inputs``: (prog_name or None, onnx elem type, shape or None) declared as graph inputs;
        ``outputs``: (prog_name, onnx elem type) whose values the graph returns (each
        through an Identity to a fresh name: an output may be an input or an outer value).
        """
        outer_op = self.op
        self.graph = _Graph(self.graph)
        try:
            g_inputs = []
            for prog_name, elem, shape in inputs:
                onnx_name = self.define(prog_name) if prog_name else self.fresh("iter")
                g_inputs.append(helper.make_tensor_value_info(onnx_name, elem, shape))
            self.emit_ops(block)
            self.op = outer_op
            g_outputs = []
            for prog_name, elem in outputs:
                out = self.node("Identity", [self._lookup_in(block, prog_name)], self.fresh("out"))
                g_outputs.append(helper.make_tensor_value_info(out, elem, None))
            return helper.make_graph(self.graph.nodes, name, g_inputs, g_outputs)
        finally:
            self.graph = self.graph.parent
            self.op = outer_op

    def _lookup_in(self, block, prog_name):
        name = self.graph.lookup(prog_name)
        if name is None:
            raise ValueError(f"ONNX export: block {block.idx} should produce '{prog_name}' but nothing defines it")
        return name


def _value_info(name, var, symbolic):
    dims = [(f"{name}_d{i}" if symbolic else None) if d < 0 else int(d) for i, d in enumerate(var.shape)]
    return helper.make_tensor_value_info(name, onnx_dtype(var.dtype), dims)


def _param_value(name, var, params, program):
    if params is not None and name in params:
        value = params[name]
    elif name in program.bound_tensors:
        value = program.bound_tensors[name]
    else:
        raise ValueError(f"ONNX export: no value for parameter '{name}' ({var.dtype}{var.shape}); give it in "
                         "params= or bind an eager tensor to it")
    arr = np.asarray(getattr(value, "_value", value))
    return arr.astype(str(var.dtype), copy=False)


def _checks_left_out(program):
    """One line per run-time check (``assert``) of ``program``, any block: ONNX has no op that raises."""
    out = []
    for block in program.blocks:
        for op in block.ops:
            if get_op(op.type).check:
                out.append(op.attrs.get("message") or f"'{op.type}' built at {getattr(op, 'origin', None) or '?'}")
    return out


def build_model(program, feed_names, fetch_names, params=None, opset=DEFAULT_OPSET, graph_name="dy2st",
                stacklevel=2):
    """The ``onnx.ModelProto`` of ``program`` from ``feed_names`` to ``fetch_names`` (checked).

    The Program's run-time checks (``assert``) have no ONNX form: they are left out of the graph with a
    UserWarning listing them (``stacklevel`` as ``warnings.warn``'s, counted from the caller)."""
    feeds, fetches = list(feed_names), list(fetch_names)
    pruned = prune(program, feeds, fetches)
    checks = _checks_left_out(pruned)
    if checks:
        shown = "; ".join(checks[:5]) + (f"; and {len(checks) - 5} more" if len(checks) > 5 else "")
        warnings.warn(f"ONNX export: ONNX has no operator that raises, so the {len(checks)} run-time check(s) of "
                      f"the Program are not in the exported graph (the ONNX model computes a value where the "
                      f"converted function or the saved model raises): {shown}", UserWarning, stacklevel=stacklevel)
    written = sorted(persistables_written(program.global_block()))
    if written:
        warnings.warn(f"ONNX export: ONNX models hold no state, so the Program's writes to {', '.join(written[:5])}"
                      f"{' and more' if len(written) > 5 else ''} (buffers the function updates) are not kept: every "
                      "run of the exported graph reads their values at export time, where the converted function "
                      "and the saved model see each call's update", UserWarning, stacklevel=stacklevel)
    gb = pruned.global_block()
    ex = Exporter(pruned, opset)
    inputs = []
    for n in feeds:
        inputs.append(_value_info(ex.define(n), gb.var(n), symbolic=True))
    for v in pruned.list_vars():
        if v.persistable and v.kind == "tensor" and v.name not in feeds and ex.graph.lookup(v.name) is None:
            arr = _param_value(v.name, v, params, program)
            ex.initializers.append(numpy_helper.from_array(arr, ex.define(v.name)))
    ex.emit_ops(gb)
    outputs = []
    for n in fetches:
        name = ex.graph.lookup(n)
        if name is None:
            raise ValueError(f"ONNX export: fetch '{n}' is not computed by the Program")
        if name in {i.name for i in inputs} or name in outputs or name != n:
            name = ex.node("Identity", [name], ex.fresh(n))  # a graph output must be its own value
        outputs.append(name)
    out_infos = [_value_info(name, gb.var(n), symbolic=False) for name, n in zip(outputs, fetches)]
    graph = helper.make_graph(ex.graph.nodes, graph_name, inputs, out_infos, initializer=ex.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="dy2st")
    model.ir_version = min(model.ir_version, 8 if opset <= 17 else 9)  # what older onnxruntimes load
    adapt_opset(model, opset)
    onnx.checker.check_model(model, full_check=True)
    return model


def export_onnx(program, feed_names, fetch_names, path=None, params=None, opset=DEFAULT_OPSET, stacklevel=2):
    """Convert an inference Program to an ``onnx.ModelProto``; with ``path``, also write it (atomically).

    ``params``: {name: array or Tensor} for persistable vars not bound to the Program.
    Raises ``NotImplementedError`` for an op type with no ONNX mapping; warns (UserWarning, at
    ``stacklevel``) that the Program's run-time checks are left out.
    """
    if opset < MIN_OPSET:
        raise ValueError(f"ONNX export supports opset {MIN_OPSET} and later, got {opset}")
    model = build_model(program, feed_names, fetch_names, params=params, opset=opset, stacklevel=stacklevel + 1)
    if path is not None:
        write_atomic(os.fspath(path), model.SerializeToString())
    return model


__all__ = ["export_onnx", "build_model", "onnx_dtype", "TensorProto", "DEFAULT_OPSET"]
