"""dy2st uses runtime's public API only: no private imports, no reads of runtime's private attributes.

An AST scan of ``dy2st/``: ``from runtime... import _x`` (or a tape-internal name), and
``obj._x`` / ``getattr(obj, "_x")`` / the string ``"_x"`` where ``_x`` is a private attribute of a
runtime object (the list below). The public seams that replace them: ``Tensor.numpy()``/``Tensor.from_numpy``,
``Tensor.set_value``, ``Layer.named_children``/``named_parameters``/``named_buffers``,
``Layer.forward_pre_hooks()``/``forward_post_hooks()``, ``Layer.STATE_TABLES``/``HOOK_TABLES``,
``rt.autograd.record_op``/``PyLayer``, ``runtime.tape.stand_in``/``take_over`` (an in-place write into a caller's tensor).
"""
import ast
import pathlib

import numpy as np

import runtime as rt

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Private attributes of runtime objects (Tensor, Layer, Node, Program, ...) dy2st must not read.
RUNTIME_PRIVATE = {"_value", "_wrap", "_node", "_sub_layers", "_parameters", "_buffers",
                   "_forward_pre_hooks", "_forward_post_hooks", "_grad_mode", "_topo_nodes",
                   "_node_grads", "_flat_inputs", "_helper"}
# Public-looking names that are the tape's internals.
RUNTIME_INTERNAL = {"Node"}
# Reach-ins still present, each waiting for its file to switch to the seam named here.
KNOWN = {}


def _private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _reach_ins(path):
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "runtime":
            found.update(a.name for a in node.names if _private(a.name) or a.name in RUNTIME_INTERNAL)
            found.update(part for part in node.module.split(".") if _private(part))
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "runtime":
                    found.update(part for part in a.name.split(".") if _private(part))
        elif isinstance(node, ast.Attribute) and node.attr in RUNTIME_PRIVATE:
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in RUNTIME_PRIVATE:
            found.add(node.value)  # getattr(obj, "_x"), vars(obj)["_x"], a table of such names
    return found


def test_dy2st_reads_no_private_runtime_name():
    bad = {}
    for path in sorted((ROOT / "dy2st").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        extra = _reach_ins(path) - KNOWN.get(rel, set())
        if extra:
            bad[rel] = sorted(extra)
    assert not bad, f"dy2st reaches into runtime's private names (use a public seam): {bad}"


def test_scan_finds_a_reach_in(tmp_path):
    p = tmp_path / "m.py"
    p.write_text("from runtime.tensor import Node, _grad_mode\nimport runtime._x\n"
                 "def f(t, layer):\n    return t._value, getattr(layer, '_sub_layers'), self._value\n")
    assert _reach_ins(p) == {"Node", "_grad_mode", "_x", "_value", "_sub_layers"}


def test_listed_names_are_runtime_names():
    # The list stays meaningful: every name still exists somewhere in runtime's source.
    text = "\n".join(p.read_text() for p in (ROOT / "runtime").rglob("*.py"))
    assert all(name in text for name in RUNTIME_PRIVATE | RUNTIME_INTERNAL)


def test_record_op_is_one_differentiable_node():
    x = rt.to_tensor(np.array([1.0, 2.0, 3.0]), stop_gradient=False)
    value = x.numpy() ** 2
    ints = np.array([1, 2])

    def backward(out_grads):
        g = out_grads[0] if out_grads[0] is not None else np.zeros_like(value)
        return [rt.Tensor.from_numpy(2 * x.numpy() * g)]

    y, n = rt.autograd.record_op([value, ints], [x], backward, differentiable=[0])
    assert not y.stop_gradient and n.stop_gradient
    np.testing.assert_array_equal(n.numpy(), ints)
    (y * 3.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * x.numpy())


def test_layer_hook_access_is_a_copy():
    layer = rt.nn.Linear(2, 2)
    assert layer.forward_pre_hooks() == () and layer.forward_post_hooks() == ()

    def pre(lyr, inputs):
        return None

    handle = layer.register_forward_pre_hook(pre)
    assert layer.forward_pre_hooks() == (pre,)
    handle.remove()
    assert layer.forward_pre_hooks() == ()
