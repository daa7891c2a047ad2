"""The parser's and the printer's own tree translations and block finding give what gast's and
inspect's give (the slower reference ways)."""
import ast
import inspect
import textwrap

import gast

from dy2st.conversion.transform import transform_function
from dy2st.pyct import codegen, nodes, parser

SNIPPET = '''\
@deco(1)
def f(a, b: int = 2, /, c=3, *args, d, e=4, **kw) -> str:
    """doc"""
    global g
    x, *y = [a, b]
    z = {k: v for k, v in kw.items() if k}
    lam = lambda p, q=1: p + q
    try:
        del x
    except (KeyError, ValueError) as err:
        raise RuntimeError(f"{err!r:>10}") from err
    except Exception:
        pass
    with open(a) as fh, open(b):
        w = fh[1:2, ::3]
    async def inner():
        await inner()
    class C(Base, metaclass=M):
        n: int = 0
    return (yield z) if not a and b or c else x[...]
'''


def test_ast_to_gast_matches_gast_with_positions_shifted():
    mine = parser._gast_parse(SNIPPET, 10, 4)
    reference = gast.ast_to_gast(ast.parse(SNIPPET))
    for node in gast.walk(reference):
        if getattr(node, "lineno", None) is not None:
            node.lineno += 10
            node.end_lineno += 10
            node.col_offset += 4
            node.end_col_offset += 4
    assert gast.dump(mine, include_attributes=True) == gast.dump(reference, include_attributes=True)


def test_gast_to_ast_matches_gast_and_walks_in_step():
    tree = gast.ast_to_gast(ast.parse(SNIPPET))
    translator = codegen._ToAst()
    mine = codegen._to_ast(tree, translator)
    assert ast.dump(mine) == ast.dump(gast.gast_to_ast(tree))
    # the order the translator records is the order the re-parsed tree is walked in
    assert [type(n) for n in translator.order] == [type(n) for n in codegen._preorder(mine)]
    assert [type(n) for n in codegen._preorder(mine)] == [type(n) for n in codegen._preorder(ast.parse(SNIPPET))]


def one_liner(x): return x + 1  # noqa: E704


def with_a_string_at_column_zero(x):
    text = """
not indented
"""
    if x > 0:
        x = x + len(text)
    return x
# a comment after the function


def _decorate(*args):
    return lambda fn: fn


@_decorate(1,
           2)
def decorated_over_lines(x):
    return x * 2


def test_def_blocks_are_inspects():
    for fn in (one_liner, with_a_string_at_column_zero, decorated_over_lines, test_def_blocks_are_inspects):
        parsed = parser.parse_function(fn)
        lines, first = inspect.getsourcelines(fn)
        reference = gast.parse(textwrap.dedent("".join(lines))).body[0]
        reference.decorator_list = []
        assert gast.dump(parsed.node) == gast.dump(reference), fn.__name__
        assert parsed.first_lineno == first and parsed.node.lineno == fn.__code__.co_firstlineno + (
            2 if fn is decorated_over_lines else 0)


def fstring_over_lines(data, pos):
    for _ in range(2):
        try:
            pos = pos + 1
        except Exception as e:
            context = bytes(data[max(0, pos - 60):pos + 60])
            raise AssertionError(f"byte {pos} -> {chr(data[pos])!r}: {type(e).__name__}: {e}\n{context!r}") from e
    return pos


def test_a_line_inside_a_multiline_string_maps_to_its_first_expression_breadth_first():
    module = gast.Module(body=[transform_function(fstring_over_lines)._node], type_ignores=[])
    source, line_map, parsed = codegen.compiled_source(module)
    translator = codegen._ToAst(origins=True)
    tree = codegen._to_ast(module, translator)
    starts = {n.lineno for n in ast.walk(parsed) if isinstance(n, ast.stmt)}
    expected = {}
    for tagged, real in zip(nodes.walk(tree), nodes.walk(parsed)):
        info = getattr(tagged, codegen._ORIGIN_ATTR, None)
        located = info is not None and "lineno" in real.__dict__
        if located and not isinstance(real, ast.stmt) and real.lineno not in starts:
            expected.setdefault(real.lineno, info)
    assert expected  # ast.unparse printed the f-string over two lines
    assert {line: line_map[line] for line in expected} == expected
