"""Classes get their members when they are created: no module adds methods to a class at import.

An AST scan of ``runtime/`` and ``dy2st/``: a statement run at import (at module level, inside a
module-level ``for``/``if``/``try``, or in a module function the module calls at its top level, like
an ``install()``) that calls ``setattr(Cls, ...)`` or assigns ``Cls.name = ...`` where ``Cls`` is a
class (a class the module defines, or a capitalised name).
"""
import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _module_level(body):
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.For, ast.If, ast.While, ast.With)):
            yield from _module_level(stmt.body + getattr(stmt, "orelse", []))
        elif isinstance(stmt, ast.Try):
            yield from _module_level(stmt.body + stmt.orelse + stmt.finalbody)


def _is_class(node, classes):
    return isinstance(node, ast.Name) and (node.id in classes or node.id[:1].isupper())


def patches(source):
    """The line numbers of module-level statements that add members to a class."""
    tree = ast.parse(source)
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    run = list(_module_level(tree.body))
    called = {s.value.func.id for s in run if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
              and isinstance(s.value.func, ast.Name)}
    for name in sorted(called & set(functions)):
        run += list(_module_level(functions[name].body))
    found = []
    for stmt in run:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            call = stmt.value
            if isinstance(call.func, ast.Name) and call.func.id == "setattr" and call.args \
                    and _is_class(call.args[0], classes):
                found.append(stmt.lineno)
        elif isinstance(stmt, (ast.Assign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(isinstance(t, ast.Attribute) and _is_class(t.value, classes) for t in targets):
                found.append(stmt.lineno)
    return sorted(found)


def test_no_module_patches_a_class_at_import():
    bad = {}
    for pkg in ("runtime", "dy2st"):
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            lines = patches(path.read_text())
            if lines:
                bad[rel] = lines
    assert not bad, f"classes patched at import (define the members in the class body): {bad}"


def test_scan_finds_patching():
    src = ("class A:\n    pass\n\nfor n in ('x', 'y'):\n    setattr(A, n, 1)\nA.z = 2\n"
           "Tensor.relu = None\nobj.attr = 3\nsetattr(obj, 'a', 1)\n")
    assert patches(src) == [5, 6, 7]
    assert patches("class A:\n    x = 1\n") == []
    installed = "class A:\n    pass\n\ndef install():\n    for n in 'ab':\n        setattr(A, n, 1)\n\ninstall()\n"
    assert patches(installed) == [6]
    assert patches(installed.replace("install()\n", "")) == []  # a function nobody runs at import

