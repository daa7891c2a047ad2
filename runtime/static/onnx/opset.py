"""Fit an exported ONNX model to its opset: where inputs became attributes (or back) between opsets.

The lowerings write nodes in one form, with constant axes and split sizes as
initializer inputs (the opset 13+ form) and the other reductions' axes as attributes
(the opset <18 form) unless ``lowering.reduce`` already chose; this pass, run
on the finished ``ModelProto`` (subgraphs of ``If``/``Loop`` included), moves them
to where the model's opset wants them:

- ``Squeeze``/``Unsqueeze``/``ReduceSum`` axes: an attribute before 13, an input from 13;
- the other ``Reduce*`` axes: an attribute before 18, an input from 18;
- ``Split`` sizes: the ``split`` attribute before 13, an input from 13; from 18 a Split
  without sizes names its ``num_outputs``;
- ``Shape(start=, end=)`` (15): ``Slice(Shape(x))`` before 15;
- ``GreaterOrEqual``/``LessOrEqual`` (12): ``Or(Greater, Equal)`` before 12 (exact with NaNs);
- the model's IR version: the oldest that carries the opset (6 for opset 11).

For example, ``rt.unsqueeze(rt.sum(x, axis=1), [1])`` lowered and then fitted::

    ReduceSum(x, onnx__const_1) keepdims=0; Unsqueeze(s, onnx__const_2)     # as lowered (13+)
    ReduceSum(x) axes=[1] keepdims=0;       Unsqueeze(s) axes=[1]           # opset 11

What only a lowering can decompose (it needs ranks and dtypes: ``LayerNormalization``
before 17, ``Softmax`` over an inner axis before 13, ``NegativeLogLikelihoodLoss``
before 12...) is done there, reading ``ex.opset``.  An input that must become an
attribute but is computed at run time raises, naming the op and the opset it needs.
"""
import numpy as np
from onnx import AttributeProto, helper, numpy_helper

MIN_OPSET = 11

_AXES_13 = {"Squeeze", "Unsqueeze", "ReduceSum"}
_AXES_18 = {"ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
            "ReduceLogSumExp", "ReduceSumSquare"}
_INT64_MAX = np.iinfo(np.int64).max


class _Pass:
    def __init__(self, model, opset):
        self.model, self.opset = model, opset
        self._consts = None
        self.counter = 0

    @property
    def consts(self):
        """Initializer name -> TensorProto; read from the model when a rewrite first needs a constant
        (most models at the default opset need none, and walking the initializers is not free).
        ``new_const`` keeps it up to date from then on: nothing else adds initializers meanwhile."""
        if self._consts is None:
            self._consts = {t.name: t for t in self.model.graph.initializer}
        return self._consts

    def const_value(self, name, node, what, needs):
        t = self.consts.get(name)
        if t is None:
            raise NotImplementedError(f"ONNX export at opset {self.opset}: {node.op_type} ('{node.output[0]}') "
                                      f"takes its {what} from a value computed at run time, which opset "
                                      f"{self.opset} only takes as a constant attribute; export with "
                                      f"opset_version={needs} or later")
        return [int(v) for v in numpy_helper.to_array(t).reshape(-1)]

    def new_const(self, values):
        self.counter += 1
        name = f"onnx__opset_const_{self.counter}"
        while name in self.consts:
            self.counter += 1
            name = f"onnx__opset_const_{self.counter}"
        t = numpy_helper.from_array(np.asarray(values, dtype=np.int64), name)
        self.model.graph.initializer.append(t)
        self.consts[name] = t
        return name

    def fresh(self, hint):
        self.counter += 1
        return f"onnx__opset_{hint}_{self.counter}"

    # -- rewrites --------------------------------------------------------------------------------
    def _input_to_attr(self, node, pos, attr, needs):
        """Input ``pos`` (a constant) becomes attribute ``attr``; an absent input stays absent."""
        if len(node.input) <= pos or not node.input[pos]:
            return node
        values = self.const_value(node.input[pos], node, attr, needs)
        ins = list(node.input[:pos]) + list(node.input[pos + 1:])
        return _remake(node, ins, {attr: values})

    def _attr_to_input(self, node, pos, attr):
        values = _get_attr(node, attr)
        if values is None:
            return node
        ins = list(node.input) + [""] * (pos - len(node.input))
        ins = ins[:pos] + [self.new_const(values)] + ins[pos:]
        return _remake(node, ins, {}, drop=attr)

    def rewrite(self, node):
        op, opset = node.op_type, self.opset
        if op in _AXES_13 or op in _AXES_18:
            moved_at = 13 if op in _AXES_13 else 18
            if opset < moved_at:
                return [self._input_to_attr(node, 1, "axes", moved_at)]
            return [self._attr_to_input(node, 1, "axes")]
        if op == "Split":
            if opset < 13:
                return [self._input_to_attr(node, 1, "split", 13)]
            node = self._attr_to_input(node, 1, "split")
            if opset >= 18 and len(node.input) < 2 and _get_attr(node, "num_outputs") is None:
                node = _remake(node, list(node.input), {"num_outputs": len(node.output)})
            return [node]
        if op in ("GreaterOrEqual", "LessOrEqual") and opset < 12:  # exact with NaNs too (Not(Less) is not)
            strict = self.fresh("cmp")
            eq = self.fresh("eq")
            return [helper.make_node(op[:-7] if op[0] == "G" else "Less", list(node.input), [strict]),
                    helper.make_node("Equal", list(node.input), [eq]),
                    helper.make_node("Or", [strict, eq], list(node.output))]
        if op == "Shape" and opset < 15 and (_get_attr(node, "start") is not None
                                             or _get_attr(node, "end") is not None):
            start, end = _get_attr(node, "start") or 0, _get_attr(node, "end")
            full = helper.make_node("Shape", [node.input[0]], [self.fresh("shape")])
            ends = self.new_const([_INT64_MAX if end is None else end])
            return [full, helper.make_node("Slice", [full.output[0], self.new_const([start]), ends],
                                           list(node.output))]
        return [node]

    def graph(self, graph):
        nodes, changed = [], False
        for node in graph.node:
            for a in node.attribute:
                if a.type == AttributeProto.GRAPH:
                    self.graph(a.g)  # in place: the subgraph is part of this node
            new = self.rewrite(node)
            changed = changed or len(new) != 1 or new[0] is not node
            nodes.extend(new)
        if changed:  # re-adding copies every node: only when one was replaced
            del graph.node[:]
            graph.node.extend(nodes)


def _get_attr(node, name):
    for a in node.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return None


def _remake(node, inputs, attrs, drop=None):
    new = helper.make_node(node.op_type, inputs, list(node.output), name=node.name, domain=node.domain or None,
                           **attrs)
    new.attribute.extend(a for a in node.attribute if a.name != drop and a.name not in attrs)
    return new


def adapt(model, opset):
    """Rewrite ``model`` (in place) so every node has the form opset ``opset`` defines; returns it."""
    if opset < MIN_OPSET:
        raise ValueError(f"ONNX export supports opset {MIN_OPSET} and later, got opset_version={opset}")
    _Pass(model, opset).graph(model.graph)
    # The oldest IR version that carries this opset: what the runtimes of that opset's time can load.
    model.ir_version = min(model.ir_version, helper.find_min_ir_version_for(list(model.opset_import)))
    return model
