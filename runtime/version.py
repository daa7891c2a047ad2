"""The one version number of the distribution (pyproject reads it from here)."""
__version__ = "0.1.0"
