"""``dy2st`` command lines run inside the test process.

``cli_in_process(argv)`` calls ``dy2st.tools.cli.main`` the way ``python -m dy2st`` does and returns
a ``subprocess.CompletedProcess`` with its exit code and captured text, so a test reads the same
whichever way it ran.  The process state a command may change is put back afterwards: the
environment, the working directory, ``sys.path``/``sys.modules`` (commands import the user's
file), the verbosity ``-v`` sets, and numpy's print options.
"""
import contextlib
import io
import os
import subprocess
import sys

import numpy as np

from dy2st.frontend import config
from dy2st.tools import cli


def cli_in_process(argv, cwd=None, env=None):
    out, err = io.StringIO(), io.StringIO()
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved_path, saved_modules = list(sys.path), set(sys.modules)
    saved_print = np.get_printoptions()
    saved_verbosity = config.verbosity()
    try:
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = cli.main(argv)
            except SystemExit as exc:  # argparse: --help, --version, usage errors
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
        os.chdir(saved_cwd)
        sys.path[:] = saved_path
        for name in set(sys.modules) - saved_modules:
            if not name.startswith(("dy2st", "runtime", "numpy")):
                sys.modules.pop(name, None)
        np.set_printoptions(**saved_print)
        config.set_verbosity(saved_verbosity)
    return subprocess.CompletedProcess(["dy2st", *argv], code or 0, out.getvalue(), err.getvalue())
