"""Every public function, class and method of ``runtime`` and ``dy2st`` has a docstring; the API is typed.

Public means a name without a leading underscore, defined in the module being walked (not imported
into it; functions a factory makes there count, e.g. ``rt.add``). Left out: code dy2st generates at
run time (it belongs to no package module), ``ast.NodeVisitor`` ``visit_*`` hooks (their transformer's
docstring says what they rewrite), and methods that override a documented base method (``help()``
shows the inherited docstring, as ``inspect.getdoc`` does).
"""
import ast
import importlib
import inspect
import pkgutil
import typing

import pytest

PACKAGES = ("runtime", "dy2st")
SKIP_MODULES = {"dy2st.__main__"}  # running it starts the command line


def _modules(pkg_name):
    pkg = importlib.import_module(pkg_name)
    yield pkg
    for info in pkgutil.walk_packages(pkg.__path__, pkg_name + "."):
        if info.name not in SKIP_MODULES:
            yield importlib.import_module(info.name)


def _function_of(member):
    if isinstance(member, (staticmethod, classmethod)):
        return member.__func__
    if isinstance(member, property):
        return member.fget
    return member if inspect.isfunction(member) else None


def _own(obj, module):
    return getattr(obj, "__module__", None) == module.__name__


def _method_doc(cls, name, fn):
    if fn.__doc__:
        return fn.__doc__
    for base in cls.__mro__[1:]:
        inherited = _function_of(base.__dict__.get(name))
        if inherited is not None and inherited.__doc__:
            return inherited.__doc__
    return None


def public_items(module):
    """Yield ``(qualified name, kind, docstring)`` for each public function, class and method of ``module``."""
    for name, obj in vars(module).items():
        if name.startswith("_") or not (inspect.isfunction(obj) or inspect.isclass(obj)) or not _own(obj, module):
            continue
        where = f"{module.__name__}.{name}"
        if inspect.isfunction(obj):
            yield where, "function", obj.__doc__
            continue
        yield where, "class", obj.__dict__.get("__doc__")
        visitor = issubclass(obj, ast.NodeVisitor)
        for attr, member in vars(obj).items():
            fn = _function_of(member)
            if attr.startswith("_") or fn is None or not _own(fn, module) or (visitor and attr.startswith("visit_")):
                continue
            yield f"{where}.{attr}", "method", _method_doc(obj, attr, fn)


def all_items():
    for pkg in PACKAGES:
        for module in _modules(pkg):
            yield from public_items(module)


def test_walk_finds_the_public_api():
    names = {q for q, _, _ in all_items()}
    for expected in ("runtime.tensor.Tensor", "runtime.nn.layer.Layer.parameters", "dy2st.frontend.api.to_static",
                     "dy2st.frontend.static_function.StaticFunction.rollback", "runtime.ops.math.add",
                     "runtime.ops.math.matmul"):
        assert expected in names


@pytest.mark.parametrize("pkg", PACKAGES)
def test_public_callables_have_docstrings(pkg):
    missing = [q for q, _, doc in all_items() if q.split(".")[0] == pkg and not (doc and doc.strip())]
    assert not missing, f"{len(missing)} public names without a docstring:\n" + "\n".join(missing)


def _typed_api():
    """The public API whose signatures carry type hints: ``(qualified name, function)`` pairs."""
    import dy2st
    import runtime as rt
    from runtime.registry import functional_functions, public_functions

    fns = dict(public_functions())
    fns["to_tensor"] = rt.to_tensor
    out = [(f"rt.{n}", f) for n, f in sorted(fns.items())]
    functional = {n: f for n, f in vars(rt.nn.functional).items() if inspect.isfunction(f) and not n.startswith("_")
                  and f.__module__ == "runtime.nn.functional"}
    functional.update(functional_functions())
    out += [(f"F.{n}", f) for n, f in sorted(functional.items())]
    for mod, base in ((rt.nn, rt.nn.Layer), (rt.optimizer, rt.optimizer.Optimizer),
                      (rt.optimizer.lr, rt.optimizer.lr.LRScheduler)):
        for n, cls in sorted(vars(mod).items()):
            if inspect.isclass(cls) and issubclass(cls, base) and cls.__module__.startswith("runtime."):
                out.append((f"{mod.__name__}.{n}", cls.__init__))
    out += [(f"dy2st.{n}", getattr(dy2st, n)) for n in ("to_static", "save", "load", "not_to_static",
                                                          "enable_to_static", "to_code")]
    for cls in (dy2st.InputSpec, dy2st.StaticFunction, dy2st.TranslatedLayer):
        for n, member in vars(cls).items():
            fn = _function_of(member)
            if fn is not None and (not n.startswith("_") or n == "__init__"):
                out.append((f"{cls.__name__}.{n}", fn))
    return out


def test_public_api_has_type_hints():
    untyped = []
    for where, fn in _typed_api():
        typing.get_type_hints(fn)  # every annotation resolves
        sig = inspect.signature(fn)
        for p in sig.parameters.values():
            if p.name not in ("self", "cls") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) \
                    and p.annotation is p.empty:
                untyped.append(f"{where}({p.name})")
        if sig.return_annotation is sig.empty and fn.__name__ != "forward":  # forward returns the model's outputs
            untyped.append(f"{where} -> ?")
    assert not untyped, "public API without type hints:\n" + "\n".join(untyped)
