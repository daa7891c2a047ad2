"""The fuzzer's grammar features of ``dy2st.fuzz.loops`` and ``dy2st.fuzz.values``: each writes its
constructs, and a program of each passes every stage (forward, gradients, finite differences,
save + load, ONNX)."""
import ast

import pytest

from dy2st import fuzz
from dy2st.fuzz import layers, loops, numbers, ops, scopes, values

NEW = sorted(set(loops.FORMS) | set(values.FORMS) | set(ops.FORMS) | set(scopes.FORMS) | set(layers.FORMS)
             | set(numbers.FORMS))


def _features(feature):
    return {feature, "layer"} if feature == "sublayers" else {feature}  # (sub-layers live in the Layer form)

NEEDLES = {
    "row_loops": ["enumerate(", "[::-1]:", "rt.tanh(", " = None\n", " is not None:"],
    "loop_lists": [".pop(0)", ".pop()", "% 3] = ", "rt.stack(", "['k'].append(", "['k'].extend(", ".extend(["],
    "dict_branches": [".update(", "['in']['v'] = ", "['a'], ", "] += "],
    "int_tensors": ["rt.bitwise_xor(", " // -", "astype('int64')", "~", "rt.logical_and(", "(n & 1)", ".any()"],
    "runtime_dims": [".shape[0]", "len(", "rt.shape(", "rt.arange(", "rt.full([", "rt.expand("],
    "inplace_branches": [".clip_(", "[0].", ".tanh_()", ".multiply_(", "] = "],
    "inner_grad": ["rt.grad(", "create_graph=True", "grad_outputs=", "rt.enable_grad()"],
    "tensor_ops": ["rt.where(", "masked_fill(", "rt.topk(", "rt.sort(", "take_along_axis(", "rt.gather(",
                   "rt.index_select(", "rt.scatter(", "rt.split(", "rt.chunk(", "rt.unbind(", "rt.flip(", "rt.roll("],
    "indexing": ["[::-1]", "1::2]", "[::2] = ", "::2] += ", "rt.argmax(", "[:, None, :]", "[..., ", "n % 2::2]"],
    "closures": ["    def f", "lambda v", "apply(", "SCALE", "compiled("],
    "rebinds": ["nonlocal acc"],
    "sublayers": ["in self.blocks:", "enumerate(self.blocks)", "self.seq(", "self.heads['a'](", ".items():",
                  "self.blocks[-1](", "% 2]("],
    "cond_values": [") and (", " or not ", "astype('float64')", ".shape[0] * ", ".shape[1] // "],
    "numbers": [".append(", "sum(", ".pop()", "] > 1)", "'seen': True", " = 0\n", " >> 1", " << 1"],
}


def _loops_holding(tree, kinds):
    """The loops of ``tree`` that hold (at any depth) a node of one of ``kinds``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.While)):
            inner = [n for stmt in node.body for n in ast.walk(stmt)]
            if any(isinstance(n, kinds) for n in inner):
                found.append(node)
    return found


@pytest.mark.parametrize("feature", NEW)
def test_each_new_feature_writes_its_constructs(feature):
    # (nested loops make long programs: fewer of them)
    text = "\n".join(fuzz.generate(s, _features(feature))[0] for s in range(12 if feature == "nested_loops" else 24))
    for needle in NEEDLES.get(feature, []):
        assert needle in text, needle
    tree = ast.parse(text)
    if feature == "nested_loops":  # a loop in a loop, a jump in the inner one
        inner = {id(n): n for loop in _loops_holding(tree, (ast.For, ast.While)) for stmt in loop.body
                 for n in ast.walk(stmt) if isinstance(n, (ast.For, ast.While))}
        jumps = {type(j) for n in inner.values() for stmt in n.body for j in ast.walk(stmt)
                 if isinstance(j, (ast.Break, ast.Continue, ast.Return))}
        assert jumps == {ast.Break, ast.Continue, ast.Return}
    if feature == "loop_no_grad":
        assert _loops_holding(tree, ast.With)
    # a plain run never writes them (the same seeds give the programs they always gave)
    assert fuzz.generate(0)[0] == fuzz.generate(0, frozenset())[0]


# one program of each feature that exercises it, every stage on
SEEDS = {"nested_loops": 36, "row_loops": 16, "loop_lists": 26, "loop_no_grad": 37, "dict_branches": 5,
         "int_tensors": 7, "runtime_dims": 1, "inplace_branches": 10, "inner_grad": 9,
         "tensor_ops": 14, "indexing": 20, "closures": 37, "cond_values": 37, "rebinds": 27, "sublayers": 1,
         "numbers": 2}


# (three in the default suite; the others, about 0.3 s each, with -m slow)
_QUICK = {"numbers", "loop_lists", "runtime_dims"}


@pytest.mark.parametrize("feature", [f if f in _QUICK else pytest.param(f, marks=pytest.mark.slow) for f in NEW])
def test_a_program_of_each_new_feature_passes_every_stage(feature, tmp_path):
    seed = SEEDS[feature]
    src, meta = fuzz.generate(seed, _features(feature))
    assert fuzz.check(src, meta, seed, str(tmp_path), fuzz.Options()) is None
