"""Statement searches go through statement lists only: they find what a full walk finds, in its order."""
import gast

from dy2st.pyct import transformer
from dy2st.pyct.nodes import statements, walk

SOURCE = '''
def f(x):
    global g
    try:
        for i in x:
            if i:
                break
            while i:
                continue
        else:
            y = lambda: [z for z in x if z]
    except ValueError as e:
        def inner():
            nonlocal y
            return 1
    else:
        class C:
            def m(self):
                return 2
    finally:
        with open(x) as h:
            pass
    match x:
        case [a, *_]:
            return a
        case _:
            pass
    return 3 if x else 4
'''


def _tree():
    return gast.parse(SOURCE)


def _full_contains(stmts, kinds, stop):
    stack = list(stmts)
    while stack:
        n = stack.pop()
        if isinstance(n, kinds):
            return True
        if not isinstance(n, stop):
            stack.extend(gast.iter_child_nodes(n))
    return False


def test_statements_are_walk_order_restricted_to_statement_lists():
    tree = _tree()
    kinds = (gast.stmt, gast.ExceptHandler, gast.match_case)
    assert statements(tree) == [tree] + [n for n in walk(tree) if isinstance(n, kinds)]


def test_contains_finds_statement_kinds_as_a_full_walk_does():
    fn = _tree().body[0]
    stops = [(gast.FunctionDef, gast.Lambda), (gast.FunctionDef, gast.Lambda, gast.ClassDef, gast.For, gast.While)]
    kinds = [gast.Return, gast.Break, gast.Continue, (gast.While, gast.For), gast.If, gast.Nonlocal, gast.With]
    for stop in stops:
        for kind in kinds:
            for stmts in [fn.body, fn.body[1].body, fn.body[1].handlers[0].body, fn.body[2].cases[0].body]:
                expected = _full_contains(stmts, kind, stop)
                assert transformer.contains(stmts, kind, stop=stop) == expected, (kind, stop)
