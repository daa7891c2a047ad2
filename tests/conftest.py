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
import importlib.util
import os
import py_compile
import sys

import pytest

import runtime as rt
from static_helpers import building

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples")
_COMPILED = []  # bytecode files this run wrote into the tree, removed when it ends


def pytest_configure(config):
    """With bytecode writing turned off (``PYTHONDONTWRITEBYTECODE``), every xdist worker and every
    subprocess a test starts compiles the whole package again (~0.5 s of CPU each, ~30 processes a
    run).  The controller compiles it once, before the workers start, and removes what it wrote when
    the run ends.  (A ``PYTHONPYCACHEPREFIX`` folder would not do: it also hides the installed
    libraries' bytecode, which every process would then compile.)"""
    if not sys.dont_write_bytecode or hasattr(config, "workerinput"):
        return
    for package in ("runtime", "dy2st"):
        for folder, _, files in os.walk(os.path.join(ROOT, package)):
            for name in files:
                if not name.endswith(".py"):
                    continue
                source = os.path.join(folder, name)
                compiled = importlib.util.cache_from_source(source)
                if not os.path.exists(compiled) and py_compile.compile(source, compiled, quiet=2):
                    _COMPILED.append(compiled)


def pytest_unconfigure(config):
    for compiled in _COMPILED:
        try:
            os.remove(compiled)
            os.rmdir(os.path.dirname(compiled))  # only once it is empty: a cache folder of ours
        except OSError:
            pass
    _COMPILED.clear()


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
