"""The test suite's own guards: a test that hangs fails in minutes (pytest-timeout, set in
pyproject.toml) instead of holding CI for its whole limit."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_suite_has_a_timeout_per_test():
    # (read as text: tomllib is Python 3.11's, and chatpipe runs on 3.10)
    found = re.search(r"^timeout = (\d+)$", (ROOT / "pyproject.toml").read_text(), re.M)
    assert found is not None and 0 < int(found.group(1)) <= 600


def test_a_hung_test_fails_instead_of_waiting_forever(tmp_path):
    hung = tmp_path / "test_hung.py"
    hung.write_text("import time\n\ndef test_hangs():\n    time.sleep(3600)\n")
    start = time.monotonic()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--timeout",
            "2",
            str(hung),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 1
    assert "Timeout" in done.stdout and "1 failed" in done.stdout
    assert time.monotonic() - start < 60
