"""The generic toolkit: parser, templates, namer, static analysis, codegen, loader."""
import ast
import inspect
import linecache

import gast

from dy2st.pyct import anno, codegen, naming, origin_info, parser, templates
from dy2st.pyct.static_analysis import annotate_liveness, block_writes, reads, writes
from dy2st.conversion.transform import transform_function


def decorated(fn):
    def wrapper(*args):
        return fn(*args)
    wrapper.__wrapped__ = fn
    return wrapper


class Holder:
    @decorated
    def method(self, x):
        return x + 1


def test_parse_method_keeps_user_lines():
    fn = parser.unwrap(Holder.method)
    parsed = parser.parse_function(fn)
    assert isinstance(parsed.node, gast.FunctionDef) and parsed.node.name == "method"
    assert parsed.node.decorator_list == []
    _, first = inspect.getsourcelines(fn)
    assert parsed.node.lineno == first + 1  # the def line, after the decorator
    assert parsed.filename == __file__


def test_parse_lambda_extracts_only_the_lambda():
    pair = (lambda a: a + 1, 3)  # noqa: E731
    parsed = parser.parse_function(pair[0])
    assert isinstance(parsed.node, gast.Lambda)
    assert transform_function(pair[0]).fn(2) == 3


def test_templates_substitute_names_nodes_and_lists():
    body = gast.parse("a = 1\nb = 2").body
    stmts = templates.replace("def fn(params):\n    body\n    return out", fn="f",
                              params=["a", "b"], body=body, out=templates.names_tuple(["a", "b"]))
    source = codegen.to_source(gast.Module(body=stmts, type_ignores=[]))[0]
    assert source == "def f(a, b):\n    a = 1\n    b = 2\n    return a, b\n"


def test_namer_avoids_user_names_and_groups():
    namer = naming.Namer({"true_fn_0"})
    assert namer.new_group("true_fn", "false_fn") == ["true_fn_1", "false_fn_1"]
    assert namer.new("loop_body") == "loop_body_0"
    assert namer.new("loop_body") == "loop_body_1"


def test_reads_writes_and_liveness():
    fn = gast.parse("def f(x):\n    y = x\n    if x:\n        z = y\n        t = 1\n    return z\n").body[0]
    annotate_liveness(fn)
    if_stmt = fn.body[1]
    assert anno.getanno(if_stmt, anno.Static.LIVE_VARS_OUT) == {"z"}
    assert block_writes(if_stmt.body) == {"z", "t"}
    assert reads(if_stmt) >= {"x", "y"}
    nested = gast.parse("def g(a):\n    b = a + c\n").body[0]
    assert reads(nested) == {"c"} and writes(nested) == {"g"}


def test_codegen_falls_back_where_astor_misprints():
    tree = gast.parse("x = f\"{d['k']}\"")
    source, _ = codegen.to_source(tree)
    assert ast.dump(ast.parse(source)) == ast.dump(ast.parse("x = f\"{d['k']}\""))


def test_generated_code_is_visible_to_linecache_and_inspect():
    def f(x):
        if x > 1:
            x = x - 1
        return x

    converted = transform_function(f)
    assert linecache.getline(converted.filename, 1).startswith("def ")
    assert "_jst.IfElse" in inspect.getsource(converted.fn)
    infos = set(converted.line_map.values())
    assert all(isinstance(i, origin_info.OriginInfo) and i.filename == __file__ for i in infos)
