"""Fixtures shared by the whole suite.

- ``static_mode``: the process in static mode for one test, with a fresh main/startup Program and
  Scope installed; dynamic mode is restored afterwards even when the test fails.
- ``static_programs``: the same, yielding ``(main, startup)``.
- ``examples``: the ported example models of ``examples/`` (``cnn_port``, ``rnn_port``, ``bert_port``)
  imported as modules, by name.
- an autouse check that no test leaves the process in static mode (a leak would silently turn the
  next test's eager code into Program building).

The ``slow`` marker (registered in ``pyproject.toml``) tags long sweeps; the default run excludes
them (``-m "not slow"``), ``python -m pytest -m slow`` runs only them, ``-m ""`` runs everything.
"""
import importlib
import os
import sys

import pytest

import runtime as rt
from static_helpers import building

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")


@pytest.fixture
def static_programs():
    """Static mode with fresh (main, startup) Programs and Scope; dynamic mode restored after."""
    main, startup = rt.static.Program(), rt.static.Program()
    with building(main, startup), rt.static.scope_guard(rt.static.Scope()):
        yield main, startup


@pytest.fixture
def static_mode(static_programs):
    """Static mode for one test; yields the main Program."""
    yield static_programs[0]


@pytest.fixture(scope="session")
def examples():
    """{name: module} of the ported example models, imported from ``examples/``."""
    sys.path.insert(0, EXAMPLES)
    try:
        yield {name: importlib.import_module(name) for name in ("cnn_port", "rnn_port", "bert_port")}
    finally:
        sys.path.remove(EXAMPLES)


@pytest.fixture(autouse=True)
def _dynamic_mode_after_each_test():
    """Fail the test that leaves the process in static mode, and restore dynamic mode."""
    yield
    if not rt.in_dynamic_mode():
        rt.disable_static()
        pytest.fail("the test left the process in static mode", pytrace=False)
