"""The test suite's own guards: a test that hangs fails in minutes (pytest-timeout, set in
pyproject.toml) instead of holding CI for its whole limit."""

from __future__ import annotations

import subprocess
import sys

import pytest_timeout

from conftest import ROOT

# the hung test: it notes the timer pytest-timeout sets for it, as the suite's own
# configuration asks, then lets that timer go off 2 s later instead of after its minutes
HUNG = """
import signal
import time

set_timer = signal.setitimer


def noted(which, seconds, interval=0.0):
    if seconds:
        with open("timer", "a") as out:
            out.write(f"{seconds}\\n")
        seconds = 2
    return set_timer(which, seconds, interval)


signal.setitimer = noted


def test_hangs():
    time.sleep(3600)
"""


def test_every_test_here_has_a_timeout_of_minutes(request):
    """What pytest-timeout applies to this very test, from the configuration this run read."""
    assert request.config.pluginmanager.hasplugin("timeout")
    settings = pytest_timeout._get_item_settings(request.node)
    assert settings.timeout is not None and 60 <= settings.timeout <= 600, settings
    assert settings.func_only is False  # (a hang in a fixture counts too)


def test_a_hung_test_fails_under_the_suites_configuration(tmp_path):
    """A test that never ends, run with pyproject.toml's configuration and nothing more
    (no --timeout of its own): the timer set for it is the suite's, and when it goes off
    the test fails with a timeout and the run ends."""
    hung = tmp_path / "test_hung.py"
    hung.write_text(HUNG)
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml")),
            *("--rootdir", str(tmp_path), "-n", "0", "-p", "no:cacheprovider", str(hung)),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    said = done.stdout + done.stderr
    timers = (tmp_path / "timer").read_text().split() if (tmp_path / "timer").exists() else []
    assert len(timers) == 1 and 60 <= float(timers[0]) <= 600, said
    assert done.returncode == 1, said
    assert "Failed: Timeout" in done.stdout and "1 failed" in done.stdout, said
