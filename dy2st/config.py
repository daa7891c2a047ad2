"""Global switches: ``enable_to_static``, code level and verbosity logging."""
import logging
import os
import sys


class _Config:
    enabled = True
    code_level = int(os.environ.get("DY2ST_CODE_LEVEL", "-1"))
    verbosity = int(os.environ.get("DY2ST_VERBOSITY", "0"))


_config = _Config()
logger = logging.getLogger("dy2st")


def enable_to_static(enable_to_static_bool):
    """False: every ``@to_static`` function runs eagerly (for debugging)."""
    if not isinstance(enable_to_static_bool, bool):
        raise TypeError(f"enable_to_static expects a bool, got {type(enable_to_static_bool).__name__}")
    _config.enabled = enable_to_static_bool


def to_static_enabled():
    return _config.enabled


def set_code_level(level=100, also_to_stdout=False):
    """Log the transformed code after pass number ``level`` (100: after the last pass)."""
    _config.code_level = int(level)


def code_level():
    return _config.code_level


def set_verbosity(level=0, also_to_stdout=False):
    """Log what gets converted and why (0: silent; higher: more)."""
    _config.verbosity = int(level)


def verbosity():
    return _config.verbosity


def log(level, message):
    if _config.verbosity >= level:
        print(f"[dy2st] {message}", file=sys.stderr)
