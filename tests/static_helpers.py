"""Building a static Program inside a test, with dynamic mode restored afterwards."""
import contextlib

import runtime as rt


@contextlib.contextmanager
def building(main=None, startup=None):
    """Static mode with ``main`` (a fresh Program when None) as the Program ops are appended to;
    dynamic mode is restored on exit, even when the body fails.  Yields ``main``."""
    main = rt.static.Program() if main is None else main
    rt.enable_static()
    try:
        with rt.static.program_guard(main, rt.static.Program() if startup is None else startup):
            yield main
    finally:
        rt.disable_static()
