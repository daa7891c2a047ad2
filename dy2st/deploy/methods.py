"""A Layer's converted methods other than ``forward``, saved next to it as Paddle's ``jit.save`` does.

``dy2st.save(layer, "m")`` also writes ``m.NAME.pdmodel`` / ``.pdiparams`` / ``.pdiparams.info``
for every method ``NAME`` of the Layer that is a converted function (``@to_static`` on the class,
or ``layer.NAME = to_static(layer.NAME)``), traced from its own input_spec or its last call;
``dy2st.load("m")`` gives them back as methods of the loaded model (``loaded.NAME(x)``).
"""
import os
import re

import runtime as rt

from ..frontend.static_function import StaticFunction

__all__ = ["extra_methods", "method_files"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def extra_methods(layer):
    """``{name: bound StaticFunction}`` for the converted methods of ``layer`` besides ``forward``."""
    if not isinstance(layer, rt.nn.Layer):
        return {}
    found = {}
    for cls in reversed(type(layer).__mro__):
        for name, value in vars(cls).items():
            if isinstance(value, StaticFunction) and name != "forward":
                found[name] = getattr(layer, name)
    for name, value in vars(layer).items():
        if isinstance(value, StaticFunction) and name != "forward" and value._instance is layer:
            found[name] = value
    return {name: fn for name, fn in sorted(found.items()) if isinstance(fn, StaticFunction)}


def method_files(prefix):
    """The method names saved next to the model at ``prefix`` (files ``prefix.NAME.pdmodel``)."""
    folder, base = os.path.split(os.fspath(prefix))
    try:
        entries = os.listdir(folder or ".")
    except OSError:
        return []
    start, end = base + ".", ".pdmodel"
    names = [e[len(start):-len(end)] for e in entries if e.startswith(start) and e.endswith(end)]
    return sorted(n for n in names if _NAME.fullmatch(n))
