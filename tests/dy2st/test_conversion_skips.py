"""Passes with nothing to rewrite are skipped (pyct.census): the generated code, the code after each
pass, the line map and the errors are the same as when every pass runs."""
import gast
import pytest

import runtime as rt
from dy2st.conversion import transform
from dy2st.pyct import census, errors, nodes, parser
from dy2st.transformers import (assert_print, attributes, casts, comparisons, exceptions, len_shape,
                                match_statements, object_writes, unsupported)


def plain(x, n):
    y = x * 2
    for i in range(n):
        if y.mean() > 0 and i < 3:
            y = y - 1
    return y


def with_triggers(x, k):
    assert x.shape[0] > 0, "empty"
    print("x", len(x), x.size)
    if 0 < k < 3:
        k = int(x.sum().item()) + float(k)
    try:
        x = x + 1
    except ValueError:
        raise
    match k:
        case 1:
            x = x + 1
        case _:
            pass
    if k > 5:
        raise ValueError("big")
    return x, str(k), repr(k), bool(k)


class Net:
    def forward(self, x):
        self.__scale = 2
        x.stop_gradient = True
        h = lambda t: t * self.__scale  # noqa: E731
        return h(x)


def writes_objects(x, d, lst):
    if x.mean() > 0:
        x.add_(1.0)
    for i in range(2):
        if i > 0:
            lst.append(i)
    d["k"] = x
    return x


def generator(x):
    yield x


def declares(x):
    global COUNTER
    COUNTER = x
    return x


def _converted(fn, skip):
    saved = transform.SKIP_IDLE_PASSES
    transform.SKIP_IDLE_PASSES = skip
    try:
        c = transform.transform_function(fn, snapshots=True)
        return c.source, c.module_source, c.line_map, c.passes
    except errors.Dy2StError as e:
        return type(e), str(e), e.filename, e.lineno
    finally:
        transform.SKIP_IDLE_PASSES = saved


def _census(fn):
    return census.Census(nodes.walk(parser.parse_function(fn).node))


@pytest.mark.parametrize("fn", [plain, with_triggers, Net.forward, writes_objects, generator, declares])
def test_skipping_idle_passes_changes_nothing(fn):
    with_skips, without = _converted(fn, True), _converted(fn, False)
    assert with_skips == without


def test_each_pass_is_run_where_its_construct_is():
    full = _census(with_triggers)
    for needed in (assert_print.needed, len_shape.needed, casts.needed, comparisons.needed, exceptions.needed,
                   match_statements.needed):
        assert needed(full), needed.__module__
        assert not needed(_census(plain)), needed.__module__
    assert not unsupported.needed(full) and unsupported.needed(_census(generator))
    assert unsupported.needed(_census(declares))
    assert attributes.needed(_census(Net.forward), Net.forward.__qualname__)
    assert not attributes.needed(full, with_triggers.__qualname__)
    assert full.has(gast.Match) and not _census(plain).has(gast.Match, gast.Lambda)
    assert not object_writes.may_write_into_objects(_census(plain))
    for fn in (Net.forward, writes_objects):
        assert object_writes.may_write_into_objects(_census(fn)), fn


def test_object_writes_census_sees_in_place_methods_alone():
    def add_in_place(x):
        if x.mean() > 0:
            x.add_(1.0)
        return x
    assert object_writes.may_write_into_objects(_census(add_in_place))
    assert "writes={'x': x}" in transform.transform_function(add_in_place).source


def test_converted_plain_function_runs_as_eagerly():
    fn = transform.transform_function(plain).fn
    x = rt.to_tensor([1.0, 2.0])
    assert fn(x, 2).numpy().tolist() == plain(x, 2).numpy().tolist()


@pytest.mark.parametrize("seed", [3, 17, 42])
def test_skipping_idle_passes_changes_nothing_on_random_programs(seed, tmp_path):
    # the fuzzer's grammar with every feature: its helpers and Layer methods convert alike with the
    # idle-pass skips on and off (code after each pass, line map, errors)
    from dy2st import fuzz
    from dy2st.fuzz.check import load_module
    src, _ = fuzz.generate(seed, fuzz.FEATURES)
    mod, _ = load_module(src, str(tmp_path))
    fns = [v for v in vars(mod).values() if callable(v) and getattr(v, "__module__", None) == mod.__name__]
    fns += [m for cls in fns if isinstance(cls, type) for m in vars(cls).values() if callable(m)]
    fns = [f for f in fns if not isinstance(f, type)]
    assert fns
    for fn in fns:
        assert _converted(fn, True) == _converted(fn, False), fn.__qualname__
