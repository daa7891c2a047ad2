"""`dy2st.ignore_module([mod])` (Paddle's `paddle.jit.ignore_module`, test_ignore_module.py): the
functions of those modules, and of their submodules, are called as they are from converted code."""
import json
import json.decoder
import types

import pytest

import dy2st
import runtime as rt
from dy2st.conversion import convert_call as cc


def test_ignored_module_functions_are_called_as_is():
    mod = types.ModuleType("user_helpers_for_ignore")
    sub = types.ModuleType("user_helpers_for_ignore.sub")

    def double(x):
        return x * 2

    def triple(x):
        return x * 3

    double.__module__, triple.__module__ = mod.__name__, sub.__name__
    other = types.FunctionType(double.__code__, double.__globals__, "other")
    assert cc.convert_call(double) is not double  # a user function: converted
    try:
        dy2st.ignore_module([mod])
        assert cc.convert_call(double) is double and cc.convert_call(triple) is triple
        assert cc.convert_call(other) is not other  # another module still converts
        assert dy2st.to_static(lambda x: double(x) + triple(x))(rt.ones([2])).numpy().tolist() == [5.0, 5.0]
    finally:
        cc._IGNORED.discard(mod.__name__)
    with pytest.raises(TypeError, match="list of modules"):
        dy2st.ignore_module(json)
    dy2st.ignore_module([json, json.decoder])  # library modules: already left alone
    cc._IGNORED.difference_update({"json", "json.decoder"})
