"""`dy2st demo`: the main job end to end (train eagerly and converted, save, reload)."""
import os
import subprocess
import sys

import numpy as np
import pytest

from dy2st.tools import demo
from dy2st.deploy import io
import runtime as rt
from tests.e2e.cli_runner import cli_in_process

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(autouse=True)
def _needs_sklearn():
    """Every test here skips without scikit-learn (the digits data set).  Asked when a test runs, not
    at collection: importing sklearn costs each xdist worker about 1.5 s, and only one runs these."""
    pytest.importorskip("sklearn")


def test_demo_run_two_epochs(tmp_path, capsys):
    res = demo.run(epochs=2, out_dir=str(tmp_path), progress=False)
    out = capsys.readouterr().out
    assert res["acc_eager"] == res["acc_static"]
    assert res["acc_static"] > 0.9
    assert res["loss_diff"] < 1e-5
    assert res["reload_match"] is True
    for ext in (".pdmodel", ".pdiparams", ".pdiparams.info"):
        assert (tmp_path / ("digits" + ext)).exists()
    assert "test accuracy" in out and "def forward(self, x)" in out

    # the saved model, reloaded here, predicts like a fresh reload at any batch size
    loaded = io.load(str(tmp_path / "digits"))
    loaded.eval()
    (_, _), (x_test, y_test) = demo.load_digits()
    with rt.no_grad():
        full = loaded(rt.to_tensor(x_test)).numpy()
        part = loaded(rt.to_tensor(x_test[:7])).numpy()
    np.testing.assert_allclose(part, full[:7], rtol=1e-5, atol=1e-6)
    assert abs(float((full.argmax(1) == y_test).mean()) - res["acc_static"]) < 1e-9


def test_demo_cli_subprocess(tmp_path):
    """``python -m dy2st demo`` in a real process, its stderr a log file: the job's report on stdout, and
    no progress-bar clutter in the log (stderr is not a terminal, so bars are off without --no-progress)."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    log = tmp_path / "demo.log"
    with open(log, "w") as f:
        res = subprocess.run([sys.executable, "-m", "dy2st", "demo", "--epochs", "1", "--out-dir", str(tmp_path)],
                             stdout=subprocess.PIPE, stderr=f, text=True, env=env, timeout=120)
    err = log.read_text()
    assert res.returncode == 0, err
    assert "\r" not in err and "Traceback" not in err
    out = res.stdout
    line = next(line for line in out.splitlines() if line.startswith("test accuracy"))
    eager, static = [float(p.split()[-1].rstrip("%")) for p in line.split(":", 1)[1].split(",")]
    assert eager == static and static > 85.0
    assert "reloaded predictions match: True" in out
    diff = out.split("largest per-step difference ", 1)[1].split(")", 1)[0]
    assert float(diff) < 1e-5
    assert (tmp_path / "digits.pdmodel").exists()


def test_demo_help_documents_options():
    res = cli_in_process(["demo", "--help"])
    assert res.returncode == 0
    for opt in ("--epochs", "--out-dir", "--batch-size", "--lr", "--no-progress"):
        assert opt in res.stdout
    assert "digits" in res.stdout
