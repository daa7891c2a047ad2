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
import fnmatch
import gc
import importlib
import importlib.util
import os
import py_compile
import sys
import types
import warnings

import pytest

import runtime as rt
from static_helpers import building

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples")
_COMPILED = []  # bytecode files this run wrote into the tree, removed when it ends


def pytest_configure(config):
    """Work every process of the run would repeat is done once, here, before the xdist workers start.

    - With bytecode writing turned off (``PYTHONDONTWRITEBYTECODE``), every xdist worker and every
      subprocess a test starts compiles the whole package again (~0.5 s of CPU each, ~30 processes a
      run), so the package and the tests' helper modules are compiled once.  (A
      ``PYTHONPYCACHEPREFIX`` folder would not do: it also hides the installed libraries' bytecode,
      which every process would then compile.)
    - Each worker imports every test module, and pytest's assert rewriting of ~290 modules is about
      half of a worker's collection time; it caches the rewritten code next to the module, and reads
      that cache even when bytecode writing is off.  So the modules are rewritten once, into that
      cache, split over one child process per core.
    - Hypothesis, when a worker collects a property test, reads the constants of every module of the
      project (``ast.parse`` of ~320 files, ~1.4 s of CPU per worker).  It keeps them in its storage
      folder (``.hypothesis/constants``, by the source's hash) and reads them from there when it can,
      so that is filled once, here, by Hypothesis' own function.
    What this run wrote into the tree is removed when it ends (when bytecode writing is off); the
    Hypothesis folder stays, as Hypothesis leaves it."""
    if hasattr(config, "workerinput"):
        return
    jobs = []
    if sys.dont_write_bytecode:
        jobs += [("compile", source) for source in _sources(("runtime", "dy2st", "tests"), tests_too=False)
                 if not os.path.exists(importlib.util.cache_from_source(source))]
    rewrites = _rewrite_jobs(config)
    if rewrites:  # a run of whole folders of tests, so likely of the property tests too
        jobs += rewrites + [("constants", source) for source in _sources(("runtime", "dy2st"), tests_too=False)]
    _COMPILED.extend(_run_in_children(config, jobs))
    if not sys.dont_write_bytecode:
        _COMPILED.clear()  # pytest and Python would have written these too: leave them, as they would


def _sources(folders, tests_too):
    for package in folders:
        for folder, _, files in os.walk(os.path.join(ROOT, package)):
            for name in files:
                if name.endswith(".py") and (tests_too or not _is_test_module(config=None, name=name)):
                    yield os.path.join(folder, name)


def _is_test_module(config, name, patterns=("test_*.py", "*_test.py")):
    if config is not None:
        patterns = config.getini("python_files")
    return name == "conftest.py" or any(fnmatch.fnmatch(name, p) for p in patterns)


def _rewrite_jobs(config):
    """The test modules under the paths asked for whose rewritten code is not cached yet (none when
    pytest does not rewrite asserts, or its private cache layout is not the one this knows)."""
    if config.getoption("assertmode", "rewrite") != "rewrite" or sys.pycache_prefix:
        return []
    try:
        from _pytest.assertion.rewrite import PYC_TAIL, _rewrite_test, _write_pyc_fp  # noqa: F401
    except ImportError:
        return []
    folders = set()
    for arg in config.args or [os.path.join(ROOT, "tests")]:
        path = os.path.join(str(config.invocation_params.dir), str(arg).split("::")[0])
        if os.path.isdir(path) and os.path.realpath(path).startswith(os.path.join(ROOT, "tests")):
            folders.add(os.path.realpath(path))
    jobs = []
    for top in sorted(folders):
        for folder, _, files in os.walk(top):
            for name in files:
                if name.endswith(".py") and _is_test_module(config, name):
                    pyc = os.path.join(folder, "__pycache__", name[:-3] + PYC_TAIL)
                    if not os.path.exists(pyc):
                        jobs.append(("rewrite", os.path.join(folder, name)))
    return sorted(set(jobs))


def _run_in_children(config, jobs):
    """Run the jobs in one forked child per core; return the files they wrote.  A job a child could
    not do is left to the workers, which do it as they would have without this."""
    if len(jobs) < 8 or not hasattr(os, "fork"):
        return []
    children = []
    count = max(1, min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1, 4))
    for k in range(count):
        pid = os.fork()
        if pid == 0:  # the child: its share of the jobs, then leave without running any exit handler
            try:
                # Hypothesis warns of disk access while plugins load (it cannot tell this is a child)
                warnings.simplefilter("ignore")
                for kind, source in jobs[k::count]:
                    try:
                        _do_job(config, kind, source)
                    except Exception:
                        pass
            finally:
                os._exit(0)
        children.append(pid)
    for pid in children:
        os.waitpid(pid, 0)
    return [target for kind, source in jobs
            if kind != "constants" and os.path.exists(target := _target(kind, source))]


def _target(kind, source):
    if kind == "compile":
        return importlib.util.cache_from_source(source)
    from _pytest.assertion.rewrite import PYC_TAIL
    return os.path.join(os.path.dirname(source), "__pycache__", os.path.basename(source)[:-3] + PYC_TAIL)


def _do_job(config, kind, source):
    if kind == "constants":  # Hypothesis caches what it finds; the module need not be imported
        from hypothesis.internal.constants_ast import constants_from_module
        module = types.ModuleType("_constants_of")
        module.__file__ = source
        constants_from_module(module)
        return
    target = _target(kind, source)
    if kind == "compile":
        py_compile.compile(source, target, quiet=2)
        return
    from pathlib import Path

    from _pytest.assertion.rewrite import _rewrite_test, _write_pyc_fp
    stat, code = _rewrite_test(Path(source), config)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    partial = f"{target}.{os.getpid()}"
    with open(partial, "wb") as f:
        _write_pyc_fp(f, stat, code)
    os.replace(partial, target)  # whole or absent, as pytest writes it: a worker may read it any time


def pytest_collection_finish(session):
    """Move what collection made (modules, functions, ~4,400 test items) out of the garbage collector's
    sight: every full collection of the run scanned all of it again (the two workers' full collections
    took 7.9 s of CPU without this, 4.5 s with it).  Objects a test makes are collected as before."""
    gc.freeze()


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
