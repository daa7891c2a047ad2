"""The fuzzer's grammar features of ``dy2st.fuzz.flows`` and ``dy2st.fuzz.signatures``: each writes its
constructs, and programs of each pass every stage (forward, gradients, finite differences, save +
load, ONNX)."""
import ast

import pytest

from dy2st import fuzz
from dy2st.fuzz import flows, signatures

NEW = sorted(set(flows.FORMS) | set(signatures.FORMS))


def _features(feature):
    return {feature, "layer"} if feature == "aug_targets" else {feature}  # (a buffer's `+=` in the Layer form)


NEEDLES = {
    "loop_else": ["else:", "found", "break", "while "],
    "aug_targets": ["] += ", "] -= ", "['a'] += ", "['b'] *= ", ".v += ", "self.steps += "],
    "checks": ["print(", "assert ", "rt.isfinite("],
    "varargs": ["combine(*[", "looped(", "**{", "pick(", "early(", "steps=n"],
    "comprehensions": [".T]", "rt.unbind(", "enumerate(", "zip(", "sum(", "max([", "rt.split("],
    "shape_logic": [".shape\n", "min(", "max(1, ", "% 2 == 1", ".shape == ", "range(y.shape[0] // 2)", "tuple(", "list(",
                    ") != (", "divmod(", "float(", "== 1:", ".shape[0], 2):"],
}


def _loops(tree):
    return [n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.While))]


def _inside(node, kinds):
    return [n for stmt in node.body for n in ast.walk(stmt) if isinstance(n, kinds)]


@pytest.mark.parametrize("feature", NEW)
def test_each_feature_writes_its_constructs(feature):
    text = "\n".join(fuzz.generate(s, _features(feature))[0] for s in range(12 if feature in ("loop_else", "deep_returns")
                                                                                 else 24))
    for needle in NEEDLES.get(feature, []):
        assert needle in text, needle
    tree = ast.parse(text)
    if feature == "loop_else":  # a loop with an else, left by a break
        assert any(loop.orelse and _inside(loop, ast.Break) for loop in _loops(tree))
    if feature == "deep_returns":  # a return inside a loop inside a loop of the same function
        assert any(_inside(inner, ast.Return) for loop in _loops(tree) for inner in _inside(loop, (ast.For, ast.While)))
    if feature == "comprehensions":
        assert any(isinstance(n, ast.DictComp) for n in ast.walk(tree))
        assert any(isinstance(n, ast.GeneratorExp) for n in ast.walk(tree))
    assert fuzz.generate(0)[0] == fuzz.generate(0, frozenset())[0]


# a program of each that exercises it (in its main function or forward)
SEEDS = {"loop_else": 7, "deep_returns": 1, "aug_targets": 3, "checks": 3, "varargs": 1, "comprehensions": 5,
         "shape_logic": 7}


@pytest.mark.parametrize("feature", NEW)
def test_a_program_of_each_feature_passes_every_stage(feature, tmp_path, capsys):
    seed = SEEDS[feature]
    src, meta = fuzz.generate(seed, _features(feature))
    assert fuzz.check(src, meta, seed, str(tmp_path), fuzz.Options()) is None


@pytest.mark.slow
@pytest.mark.parametrize("feature", NEW)
def test_programs_of_each_feature_pass_every_stage(feature, tmp_path, capsys):
    for seed in range(6):
        src, meta = fuzz.generate(seed, _features(feature))
        assert fuzz.check(src, meta, seed, str(tmp_path), fuzz.Options()) is None, (seed, src)


@pytest.mark.slow
def test_the_new_features_with_every_other_pass_every_stage(tmp_path, capsys):
    for seed in range(300000, 300010):
        src, meta = fuzz.generate(seed, fuzz.FEATURES)
        assert fuzz.check(src, meta, seed, str(tmp_path), fuzz.Options()) is None, (seed, src)
