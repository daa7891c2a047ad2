"""The examples run as users would run them."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(*args, cwd):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd, timeout=300)


def test_seed_workflow_port(tmp_path):
    res = run(os.path.join(ROOT, "examples", "seed_mnist_port.py"), str(tmp_path / "out"), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "Inference model saved" in res.stdout
    accuracy = float(res.stdout.rsplit("test images: ", 1)[1].strip().rstrip("%")) / 100
    assert accuracy > 0.85
    for suffix in (".pdmodel", ".pdiparams", ".pdiparams.info"):
        assert (tmp_path / "out" / "inference" / ("mnist" + suffix)).exists()


def test_staging_report_example(tmp_path):
    res = run("-m", "dy2st", "convert", os.path.join(ROOT, "examples", "staging_report.py"), "--explain",
              cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "-> cond op" in res.stdout and "-> while op" in res.stdout and "-> Python" in res.stdout
    assert "z: after the `if`" in res.stdout
