"""The code passes the project's ruff configuration (pyproject.toml [tool.ruff])."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_ruff_passes():
    pytest.importorskip("ruff", reason="ruff is in the test extra: pip install -e '.[test]'")
    res = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", ROOT], capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr


def test_packages_are_typed():
    for pkg in ("dy2st", "runtime"):
        assert os.path.exists(os.path.join(ROOT, pkg, "py.typed"))
