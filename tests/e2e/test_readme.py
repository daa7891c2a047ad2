"""Every fenced Python block of the README runs, in order, as one session (so no snippet rots).

Blocks share one namespace, the way a reader pastes them into one interpreter, and run in a
temporary working folder so the files they save stay out of the tree.
"""
import os
import re

import numpy as np

import dy2st
import runtime as rt

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def python_blocks(text):
    """(line number, source) of each ```python fenced block."""
    blocks = []
    for m in re.finditer(r"^```python\n(.*?)^```", text, flags=re.S | re.M):
        blocks.append((text[:m.start()].count("\n") + 2, m.group(1)))
    return blocks


def test_readme_has_python_blocks():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        assert len(python_blocks(f.read())) >= 5


def test_every_readme_python_block_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    path = os.path.join(ROOT, "README.md")
    with open(path, encoding="utf-8") as f:
        blocks = python_blocks(f.read())
    namespace = {"__name__": "readme"}
    for line, source in blocks:
        # Pad so a traceback's line numbers are the README's own.
        code = compile("\n" * (line - 1) + source, path, "exec")
        try:
            exec(code, namespace)
        except Exception as exc:
            raise AssertionError(f"README.md block at line {line} failed: {type(exc).__name__}: {exc}") from exc
    dy2st.enable_to_static(True)
    assert rt.in_dynamic_mode()
    assert np is not None
