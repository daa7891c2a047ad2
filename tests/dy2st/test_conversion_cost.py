"""What a conversion does not do unless asked: print the code after every pass, print the
display source, or compare every printed tree in full.  The results are the same either way."""
import dy2st
import runtime as rt
from dy2st.pyct import codegen, gast_printer
from dy2st.conversion.transform import PASS_NAMES, transform_function


def branchy(x, n):
    total = x * 0
    i = 0
    while i < n:
        if x.mean() > 0:
            total = total + x
        else:
            total = total - 1.0
        i += 1
    return total


def test_one_print_per_conversion_and_passes_on_demand(monkeypatch):
    calls = []
    real = codegen._print

    def counting(node, verify, **options):
        calls.append(verify)
        return real(node, verify, **options)

    monkeypatch.setattr(codegen, "_print", counting)
    real_fast = gast_printer.print_with_lines
    monkeypatch.setattr(gast_printer, "print_with_lines", lambda node: calls.append("gast") or real_fast(node))
    converted = transform_function(branchy)
    assert calls == ["gast"]  # the loaded text only, printed from the gast tree
    assert converted._passes is None and converted._source is None
    names = [name for name, _ in converted.passes]
    assert tuple(names) == PASS_NAMES
    assert converted.passes[-1][1] == converted.source  # the last snapshot is the generated code
    eager = transform_function(branchy, snapshots=True)
    assert eager.passes == converted.passes


def test_f_strings_are_checked_in_full():
    def with_fstring(x):
        label = f"{'mean'}: {x.shape!r}"
        if x.mean() > 0:
            x = x + 1
        return x, label

    sf = dy2st.to_static(with_fstring)
    out, label = sf(rt.to_tensor([1.0, 2.0]))
    assert label == "mean: [2]" and out.numpy().tolist() == [2.0, 3.0]
    assert "'mean'" in sf.code or '"mean"' in sf.code


def test_template_clone_is_deep():
    from dy2st.pyct import anno, templates
    import gast
    node = gast.parse("a = f(b, [c, d])").body[0]
    anno.setanno(node, anno.Basic.SKIP, True)
    copy = templates.clone(node)
    assert copy is not node and copy.value is not node.value and copy.value.args[1].elts[0] is not \
        node.value.args[1].elts[0]
    assert anno.getanno(copy, anno.Basic.SKIP) is True
    copy.value.args[1].elts.append(copy.value.args[0])
    assert len(node.value.args[1].elts) == 2
