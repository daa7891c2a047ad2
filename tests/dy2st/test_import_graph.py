"""The converter's modules import each other without cycles at module level.

`convert_call` converts through `transform`; `transform` gets the runtime interface
(`convert_operators`, which calls `convert_call`) from its caller instead of importing it.
"""
import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _module_imports(path):
    """dy2st modules imported by top-level statements of ``path`` (not inside functions)."""
    out = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("dy2st"):
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 1:
            base = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
            mod = f"{base}.{node.module}" if node.module else base
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("dy2st"))
    return out


def _graph():
    # Packages are left out: importing a submodule runs its package's __init__, which is
    # not a dependency of the submodule's code.
    modules = {}
    for path in (ROOT / "dy2st").rglob("*.py"):
        if path.name != "__init__.py":
            modules[".".join(path.relative_to(ROOT).with_suffix("").parts)] = path
    return {name: {m for m in _module_imports(p) if m in modules and m != name}
            for name, p in modules.items()}


def _reaches(graph, start, goal):
    seen, todo = set(), [start]
    while todo:
        m = todo.pop()
        for n in graph.get(m, ()):
            if n == goal:
                return True
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return False


def test_pipeline_does_not_import_the_runtime_interface():
    graph = _graph()
    assert "dy2st.conversion.convert_call" in graph["dy2st.conversion.convert_operators"]  # the scan sees imports
    for name in ("dy2st.conversion.transform", "dy2st.conversion.convert_call"):
        assert not _reaches(graph, name, "dy2st.conversion.convert_operators"), name


def test_converted_code_calls_the_injected_interface():
    import types

    from dy2st.conversion import convert_operators
    from dy2st.conversion.transform import transform_function

    def g(x):
        return -x if x < 0 else x

    def f(x):
        return g(x) + 1

    calls = []
    fake = types.ModuleType("fake_jst")
    fake.__dict__.update(vars(convert_operators))

    def call(fn):
        calls.append(fn)
        return convert_operators.Call(fn)

    fake.Call = call
    converted = transform_function(f, helpers=fake)
    assert converted.fn(-3) == 4 and calls == [g]
    assert [n for n, _ in converted.passes][0] == "original"
