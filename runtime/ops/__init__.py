"""Importing this package registers every op (each module declares its ops once)."""
from . import common, math  # noqa: F401
