"""The numpy backend: the executor's compiled plan of a block (the reference backend)."""
from ..executor import compile_block


def numpy_runner(program, feed_names, fetch_names):
    """``run(*arrays)`` -> tuple of arrays through ``compile_block`` (reads the live bound parameters).

    The compiled function itself is the runner, so choosing this backend adds no call layer.
    """
    run = compile_block(program.global_block(), list(feed_names), list(fetch_names))
    run.backend = "numpy"
    return run
