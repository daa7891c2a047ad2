"""The loader's printer marks each node's generated line as it prints (no re-parse): its text and
line map equal the re-parse's, on code laid out in tricky ways."""
import ast
import functools

import astor
import gast
import pytest

from dy2st.conversion.transform import transform_function
from dy2st.pyct import codegen, nodes, printer


def deco(f):
    return f


def call(*args, **kwargs):
    return args


def multi_line_strings(x):
    s = """first
second"""
    t = call(x, """a
b""", k=x + 1, **{"z": """c
d"""})
    if x > 0:
        u = [1, """e
f""", x]
    else:
        u = x
    return s, t, u


def decorators_and_nested_defs(x):
    @deco
    @functools.wraps(deco)
    def inner(y):
        """Doc
        string."""
        return y + 1

    @deco
    class Box:
        @staticmethod
        def get(z):
            return z if z else -z
    return inner(x), Box.get(x)


def lambdas_and_comprehensions(x):
    g = lambda a, b=2: a + b if a > 0 else b  # noqa: E731
    xs = [i * 2 for i in range(3) if i]
    d = {k: v for k, v in zip("ab", [1, 2])}
    s = {i for i in xs}
    return g(x), xs, d, s, sum(i for i in xs), (lambda q: q)(x)


def long_expressions(x, y):
    z = ((x + y) * (x - y) / (x * y + 1) - (x ** 2 + y ** -2) + (-x) ** 2 + -(x ** 2)) if x > y else (
        x and y or not x) + (x if y else y)
    w = x[1:2, ::3][0] + x[..., None].sum() - call(y, k=1)[0]
    while w > z:
        w = w - 1
    return z, w


def try_with_and_keywords(x):
    try:
        y = call(x,
                 k=1,
                 j="""x
y""")
    except (ValueError, TypeError) as e:
        y = str(e)
    finally:
        pass
    return y


TRICKY = [multi_line_strings, decorators_and_nested_defs, lambdas_and_comprehensions, long_expressions,
          try_with_and_keywords]


def _module(fn):
    return gast.Module(body=[transform_function(fn)._node], type_ignores=[])


@pytest.mark.parametrize("fn", TRICKY, ids=lambda f: f.__name__)
def test_text_and_line_map_equal_the_reparsed(fn):
    module = _module(fn)
    source, line_map, parsed = codegen.compiled_source(module)
    fast_source, fast_map, code = codegen.compiled_code(module, "<printer test>")
    assert fast_source == source
    assert fast_map == line_map and list(fast_map) == list(line_map)  # same lines, same order
    assert code.co_filename == "<printer test>"
    assert code.co_consts == compile(parsed, "<printer test>", "exec").co_consts


@pytest.mark.parametrize("fn", TRICKY, ids=lambda f: f.__name__)
def test_every_marked_node_starts_on_its_reparsed_line(fn):
    translator = codegen._ToAst(origins=True)
    tree = codegen._to_ast(_module(fn), translator)
    source = printer.print_tree(tree, codegen._ORIGIN_ATTR)
    parsed = ast.parse(source)
    marked = 0
    for mine, real in zip(codegen._preorder(tree), codegen._preorder(parsed)):
        assert type(mine) is type(real)
        line = mine.__dict__.get(printer.LINE_ATTR)
        if line is not None:
            assert line == real.lineno, (type(mine).__name__, source.splitlines()[real.lineno - 1])
            marked += 1
        elif codegen._ORIGIN_ATTR in mine.__dict__:
            assert isinstance(mine, ast.keyword) and mine.value.__dict__[printer.LINE_ATTR] == real.lineno
    assert marked > 20


def test_a_misprinted_text_goes_the_reparsed_way(monkeypatch):
    module = _module(long_expressions)
    expected = codegen.compiled_source(module)
    monkeypatch.setattr(printer, "print_tree", lambda tree, mark: "def broken(:\n")
    source, line_map, code = codegen.compiled_code(module, "<printer test>")
    assert (source, line_map) == expected[:2]


def test_a_node_the_printer_does_not_reach_goes_the_reparsed_way(monkeypatch):
    module = _module(long_expressions)
    expected = codegen.compiled_source(module)
    real = printer.print_tree

    def unmarking(tree, mark):  # as if astor wrote one node without visiting it
        source = real(tree, mark)
        next(n for n in nodes.walk(tree) if isinstance(n, ast.BinOp)).__dict__.pop(printer.LINE_ATTR)
        return source

    monkeypatch.setattr(printer, "print_tree", unmarking)
    assert codegen.compiled_code(module, "<printer test>")[:2] == expected[:2]


def test_check_codegen_compares_the_printer_with_the_reparse(monkeypatch):
    monkeypatch.setattr(codegen, "CHECK_ALWAYS", True)
    module = _module(multi_line_strings)
    assert codegen.compiled_code(module, "<printer test>")[:2] == codegen.compiled_source(module)[:2]
    real = printer.print_tree

    def shifted(tree, mark):
        source = real(tree, mark)
        for n in nodes.walk(tree):
            if printer.LINE_ATTR in n.__dict__:
                n.__dict__[printer.LINE_ATTR] += 1
        return source

    monkeypatch.setattr(printer, "print_tree", shifted)
    with pytest.raises(AssertionError, match="line map"):
        codegen.compiled_code(module, "<printer test>")


# Calls, tuples, parameter lists, operators and numbers take the printer's own paths (astor's,
# minus its closures).
ASTOR_SHAPES = '''
def f(a, b, /, c, d=1, *args, e, g=2, **kw):
    return a, b
def g(a, *, b):
    pass
def h(*args):
    return ()
def k(x):
    t = (x,)
    u = ((x, 1), (), [(2,)], {(3, 4): (5,)})
    x[1, 2] = x[(1, 2)], x[()]
    for (a, b), c in zip(x, (x, x)):
        pass
    call(*x, **{'k': (1, 2)}, key=(1,), other=(1, 2))
    call((x, x))
    call(x)(x, y)(*x)(**x)()
    call(lambda: (x, x), lambda a, b=(1,): a)
    return call(x, *x, k=1, **x), -(1, 2)[0], (x, x) if x else (x,)
def ops(a, b):
    c = (a + b) * -a ** -b ** 2 - (a - (b - 1)) / 2.5 % (a // 3) @ b << 1 | a & ~b ^ a
    d = not (a < b <= c) and (a or b and not c) or (a is not b) in [a not in b, a == b != c]
    return (-1) ** 2, 2 ** -1, -(-a), +a, True + False, (1, 2.0, 10 ** 30, 1e300, float('inf')), a if not a else -1
'''


def test_calls_tuples_and_parameters_print_as_astor_does():
    tree = ast.parse(ASTOR_SHAPES)
    expected = astor.to_source(ast.parse(ASTOR_SHAPES), pretty_source="".join)
    assert printer.print_tree(tree, codegen._ORIGIN_ATTR) == expected


def _loader_module(fn):
    """The factory module the loader prints for ``fn``'s conversion."""
    converted = transform_function(fn)._node
    factory = gast.FunctionDef(name="factory", args=gast.arguments(
        args=[gast.Name(id="_jst", ctx=gast.Param(), annotation=None, type_comment=None)], posonlyargs=[],
        vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]), body=[converted],
        decorator_list=[], returns=None, type_comment=None, type_params=[])
    return gast.Module(body=[factory], type_ignores=[])


def plain_statements(x, n=2):
    """Docstring
    over lines."""
    y = [x, (x,), {"k": x[1:2, ::2]}, *x]
    y += [i for i in x if i] if n else -x ** 2
    with call(x) as (a, b), call(n):
        global GLOBAL_NAME
        z = call(x, k=lambda q, r=1: not q, **{})
    if n:
        raise ValueError("no") from None
    return y, z, a, b


@pytest.mark.parametrize("fn", TRICKY + [plain_statements], ids=lambda f: f.__name__)
def test_gast_printer_prints_astor_text_and_line_map(fn):
    from dy2st.pyct import gast_printer
    module = _loader_module(fn)
    fast = gast_printer.print_with_lines(module)
    if fn is plain_statements:
        assert fast is not None  # all of it printed from the gast tree
    if fast is not None:
        source, line_map, _ = codegen.compiled_source(module)
        assert fast[0] == source and fast[1] == line_map and list(fast[1]) == list(line_map)


def _f_string(x):
    return f"{x}"


_LAMBDA = lambda x: x + 1  # noqa: E731


def test_gast_printer_leaves_what_it_does_not_print_to_astor():
    from dy2st.pyct import gast_printer
    # decorators, try, f-strings, a converted lambda (its line's origin is an expression's)
    for fn in (decorators_and_nested_defs, try_with_and_keywords, _f_string, _LAMBDA):
        assert gast_printer.print_with_lines(_loader_module(fn)) is None
