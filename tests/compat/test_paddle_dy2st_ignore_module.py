"""Scenarios of Paddle's test_ignore_module, rewritten: a converted function calling `logging.warning`
and a module-level logger (standard-library code, called as it is) runs, and is traced once for
every later call; `paddle.jit.ignore_module([module])` makes the functions of that module run
unconverted from converted code, so a tensor `if` in them is no longer a graph op. Like Paddle's
converted code, the logging calls run while the Program is built, not at each later call."""
import logging
import sys
import types

import numpy as np
import pytest

import dy2st
import runtime as rt

logger = logging.getLogger(__file__)


def logging_warning():
    logging.warning("This is a warning message")
    logger.warning("This is a warning message")


def logging_then_compute(x):
    logger.warning("scale %s", 2)
    return x * 2


def test_skip_ast_convert_logging_warning(caplog):
    static_logging_warning = dy2st.to_static(logging_warning, full_graph=True)
    with caplog.at_level(logging.WARNING):
        static_logging_warning()
    assert [r.getMessage() for r in caplog.records] == ["This is a warning message"] * 2


def test_a_function_that_logs_is_traced_once():
    sf = dy2st.to_static(logging_then_compute, full_graph=True)
    for v in (1.0, -2.0, 3.0):
        x = rt.to_tensor([v, 2 * v])
        np.testing.assert_array_equal(sf(x).numpy(), logging_then_compute(x).numpy())
    # the logger's level cache, which its first call fills, is not a guard of the Program
    assert sf.get_traced_count() == 1 and len(sf.program_cache) == 1


def _helper(x):
    if x.mean() > 0:
        return x * 2
    return x - 1


def _calls_helper(x):
    return _helper(x) + 1


@pytest.fixture
def helper_module():
    mod = types.ModuleType("ported_ignored_helpers")
    sys.modules[mod.__name__] = mod
    old = _helper.__module__
    _helper.__module__ = mod.__name__
    mod.helper = _helper
    try:
        yield mod
    finally:
        _helper.__module__ = old
        del sys.modules[mod.__name__]


def test_ignore_module(helper_module):
    sf = dy2st.to_static(_calls_helper)
    for v in (1.0, -1.0):
        x = rt.to_tensor([v, v])
        np.testing.assert_array_equal(sf(x).numpy(), _calls_helper(x).numpy())
    assert len(sf.program_cache) == 1  # the helper was converted: its `if` is a cond op
    dy2st.ignore_module([helper_module])
    with pytest.raises(TypeError, match="only known when the Program runs"):
        dy2st.to_static(_calls_helper)(rt.to_tensor([1.0, 1.0]))  # run as it is: Python asks a traced value
    with pytest.raises(TypeError, match="list of modules"):
        dy2st.ignore_module(helper_module)
