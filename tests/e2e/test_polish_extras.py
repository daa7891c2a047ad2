"""Small promises of the polish: staging wording, the benchmark chart (no progress-bar clutter in a
log file: tests/e2e/test_demo.py::test_demo_cli_subprocess)."""
import importlib.util
import os
import sys

import pytest

import dy2st
import runtime as rt

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_staging_report_says_repeated_decisions_in_words():
    @dy2st.to_static
    def f(x):
        for _ in range(3):
            if x.mean() > 0:
                x = x * 2
        return x
    report = f.explain(rt.to_tensor([1.0, 2.0]))
    assert "traced 3 times" in report and "x while tracing]" not in report


def test_benchmark_chart_is_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    spec = importlib.util.spec_from_file_location("bench_run", os.path.join(ROOT, "benchmarks", "run.py"))
    run = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    try:
        spec.loader.exec_module(run)
    finally:
        sys.path.pop(0)
    table = {"1": {"mlp": {"kind": "runtime", "workload": "MLP",
                           "results": {"numpy floor": [1.0, 1.1], "eager": [3.0, 3.2], "static": [1.2, 1.3]}}}}
    path = tmp_path / "chart.png"
    assert run._chart(table, str(path))
    assert path.read_bytes()[:4] == b"\x89PNG"
