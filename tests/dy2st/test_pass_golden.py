"""Golden tests: the generated source of small functions, so readability regressions show.

Update an expected string only after reading the new output and finding it better.
"""
import ast

import pytest

from dy2st.conversion.transform import transform_function


def if_else(x):
    if x > 0:
        y = x + 1
    else:
        y = -x
    return y * 2

def while_break(x, n):
    i = 0
    while i < n:
        if x[i] < 0:
            break
        i += 1
    return i

def first_positive(x):
    for v in x:
        if v > 0:
            return v
    return 0


def collect_rows(x, n):
    feats = {"rows": [], "scale": 2.0}
    for i in range(n):
        feats["rows"].append(x * i * feats["scale"])
    return feats


# a list the dict made, grown through its key: read into a local around the loop (slot_lists)
EXPECTED_COLLECT_ROWS = """\
def collect_rows(x, n):
    feats = {'rows': [], 'scale': 2.0}
    feats_rows_0 = feats['rows']

    def loop_body_0(i, feats_rows_0):
        feats_rows_0 = _jst.Append(feats_rows_0, x * i * feats['scale'])
        return feats_rows_0
    feats_rows_0 = _jst.For(_jst.Range(n), loop_body_0, (feats_rows_0,), ('feats_rows_0',), writes={'feats_rows_0': feats_rows_0})
    feats = _jst.SetItem(feats, 'rows', feats_rows_0)
    return feats
"""


EXPECTED_IF_ELSE = """\
def if_else(x):

    def true_fn_0():
        y = x + 1
        return y

    def false_fn_0():
        y = -x
        return y
    y = _jst.IfElse(x > 0, true_fn_0, false_fn_0, (), ('y',))
    return y * 2
"""


EXPECTED_WHILE_BREAK = """\
def while_break(x, n):
    i = 0
    did_break_0 = False

    def loop_cond_0(did_break_0, i):
        return _jst.And(lambda : _jst.Not(did_break_0), lambda : i < n)

    def loop_body_0(did_break_0, i):

        def true_fn_0(did_break_0):
            did_break_0 = True
            return did_break_0

        def false_fn_0(did_break_0):
            return did_break_0
        did_break_0 = _jst.IfElse(x[i] < 0, true_fn_0, false_fn_0, (did_break_0,), ('did_break_0',))

        def true_fn_1(i):
            i += 1
            return i

        def false_fn_1(i):
            return i
        i = _jst.IfElse(_jst.Not(did_break_0), true_fn_1, false_fn_1, (i,), ('i',))
        return did_break_0, i
    did_break_0, i = _jst.While(loop_cond_0, loop_body_0, (did_break_0, i), ('did_break_0', 'i'))
    return i
"""


EXPECTED_FIRST_POSITIVE = """\
def first_positive(x):
    did_return_0 = False
    return_value_0 = _jst.RETURN_NO_VALUE
    did_break_0 = False

    def loop_cond_0(did_break_0, did_return_0, return_value_0):
        return _jst.Not(did_break_0)

    def loop_body_0(v, did_break_0, did_return_0, return_value_0):

        def true_fn_0(did_break_0, did_return_0, return_value_0):
            did_return_0 = True
            return_value_0 = v
            did_break_0 = True
            return did_break_0, did_return_0, return_value_0

        def false_fn_0(did_break_0, did_return_0, return_value_0):
            return did_break_0, did_return_0, return_value_0
        did_break_0, did_return_0, return_value_0 = _jst.IfElse(v > 0, true_fn_0, false_fn_0, (did_break_0, did_return_0, return_value_0), ('did_break_0', 'did_return_0', 'return_value_0'), returns=('return_value_0',))
        return did_break_0, did_return_0, return_value_0
    did_break_0, did_return_0, return_value_0 = _jst.For(x, loop_body_0, (did_break_0, did_return_0, return_value_0), ('did_break_0', 'did_return_0', 'return_value_0'), extra_test=loop_cond_0)

    def true_fn_1(return_value_0):
        did_return_0 = True
        return_value_0 = 0
        return return_value_0

    def false_fn_1(return_value_0):
        return return_value_0
    return_value_0 = _jst.IfElse(_jst.Not(did_return_0), true_fn_1, false_fn_1, (return_value_0,), ('return_value_0',), returns=('return_value_0',))
    return return_value_0
"""



@pytest.mark.parametrize("fn,expected", [
    (if_else, EXPECTED_IF_ELSE),
    (while_break, EXPECTED_WHILE_BREAK),
    (first_positive, EXPECTED_FIRST_POSITIVE),
    (collect_rows, EXPECTED_COLLECT_ROWS),
])
def test_generated_source(fn, expected):
    source = transform_function(fn).source
    assert source == expected
    ast.parse(source)  # valid Python


def test_passes_snapshots_are_in_order_and_valid():
    passes = transform_function(first_positive).passes
    names = [name for name, _ in passes]
    assert names[0] == "original" and names[-1] == "loops"
    assert names.index("return_statements") < names.index("break_statements") < names.index("ifelse")
    for _, source in passes:
        ast.parse(source)
