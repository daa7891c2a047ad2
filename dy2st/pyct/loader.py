"""Load generated source as a real function that tracebacks, `linecache` and `inspect` can see.

The generated `def` is wrapped in a factory whose parameters are the names the function
captures (`_jst` and the original closure's free variables), compiled under a unique fake file
name registered in `linecache`, and rebuilt with `types.FunctionType` around the *original*
globals dict and the *original* closure cells, so later rebinding of globals or closed-over
variables is seen exactly as by the original function.  The `linecache` entry and line map
live as long as the returned function.
"""
import itertools
import linecache
import types
import weakref

import gast

from dy2st.pyct import codegen, origin_info, templates

_COUNTER = itertools.count()
FACTORY_NAME = "__dy2st_factory"
INNER_NAME = "__dy2st_converted"


def _find_code(code, name):
    for const in code.co_consts:
        if isinstance(const, types.CodeType) and const.co_name == name:
            return const
    raise LookupError(name)


def load_function(fn_node, original, injected):
    """Compile the generated FunctionDef `fn_node` into a function like `original`.

    injected: {name: value} of helper objects the generated code reads as free variables
    (e.g. {"_jst": convert_operators}).
    Returns (function, generated_filename, factory_source).
    """
    name = fn_node.name
    # Inside the factory the def must not bind the function's own name: recursive calls by
    # that name must reach the globals (or the original cell), as they do in the original.
    fn_node.name = INNER_NAME
    filename = f"<dy2st generated: {original.__qualname__}#{next(_COUNTER)}>"
    free = list(injected) + [v for v in original.__code__.co_freevars if v not in injected]
    # Built directly, not from a template: a template would copy the whole converted function.
    factory = [gast.FunctionDef(
        name=FACTORY_NAME, decorator_list=[], returns=None, type_comment=None, type_params=[],
        args=gast.arguments(args=[templates.name(p, gast.Param()) for p in free], posonlyargs=[], vararg=None,
                            kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=[fn_node, gast.Return(value=templates.name(INNER_NAME))])]
    try:
        text, line_map, code = codegen.compiled_code(gast.Module(body=factory, type_ignores=[]), filename)
    finally:
        fn_node.name = name
    fn_code = _find_code(_find_code(code, FACTORY_NAME), INNER_NAME)
    fn_code = fn_code.replace(co_name=name, co_qualname=original.__qualname__)

    cells = dict(zip(original.__code__.co_freevars, original.__closure__ or ()))
    closure = []
    for var in fn_code.co_freevars:
        if var in injected:
            closure.append(types.CellType(injected[var]))
        elif var in cells:
            closure.append(cells[var])
        else:
            closure.append(types.CellType())
    new_fn = types.FunctionType(fn_code, original.__globals__, name,
                                original.__defaults__, tuple(closure) or None)
    new_fn.__kwdefaults__ = original.__kwdefaults__
    new_fn.__qualname__ = original.__qualname__
    new_fn.__module__ = original.__module__
    new_fn.__doc__ = original.__doc__
    new_fn.__dict__.update(getattr(original, "__dict__", {}))

    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    origin_info.register_line_map(filename, line_map)
    # the source and line map serve tracebacks of this function only: drop them with it
    weakref.finalize(new_fn, origin_info.forget, filename)
    return new_fn, filename, text
