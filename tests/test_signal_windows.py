"""A signal at the moment an output's temporary file or staging folder is made (issue 44):
the run ends with "terminated" and 128 + the signal's number, and leaves nothing behind.
(The handlers were set after the file was made: a SIGHUP between the two killed the
process by the signal's default action and left the file; a signal as the rest of the
set-up ran left it too, the output object unfinished and so never aborted.) The signal is
sent by the process to itself from inside ``tempfile``'s function, right after the file
or folder exists."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from conftest import FIXTURES, unmeasured

TOY = FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"

# runs chatpipe's entry point with tempfile.NAME sending SIGNAL to this process once the
# file or folder is made, then as it returns (the two moments the window had)
SCRIPT = """
import os, signal, sys, tempfile
name, signame = sys.argv[1], sys.argv[2]
made = getattr(tempfile, name)
def making(*args, **kwargs):
    result = made(*args, **kwargs)
    os.kill(os.getpid(), getattr(signal, signame))
    return result
setattr(tempfile, name, making)
sys.argv = ["chatpipe", *sys.argv[3:]]
from chatpipe.cli import main
main()
"""


def _run(tmp_path, name, signame, *args):
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, name, signame, *map(str, args)],
        capture_output=True,
        cwd=tmp_path,
        env=unmeasured(),
        timeout=60,
    )


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_a_signal_as_the_temporary_file_is_made_leaves_nothing(tmp_path, signame):
    (tmp_path / "out").mkdir()
    done = _run(tmp_path, "mkstemp", signame, "convert", TOY, "-o", tmp_path / "out" / "x.jsonl")
    number = getattr(signal, signame)
    assert (done.returncode, done.stderr) == (128 + number, b"chatpipe: terminated\n")
    assert os.listdir(tmp_path / "out") == []


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
@pytest.mark.parametrize("exists", [False, True], ids=["new", "existing"])
def test_a_signal_as_the_staging_folder_is_made_leaves_nothing(tmp_path, signame, exists):
    folder = tmp_path / "od"
    if exists:
        folder.mkdir()
        (folder / "old.jsonl").write_text("kept\n")
    done = _run(tmp_path, "mkdtemp", signame, "convert", TOY, "--output-dir", folder)
    number = getattr(signal, signame)
    assert (done.returncode, done.stderr) == (128 + number, b"chatpipe: terminated\n")
    left = sorted(os.listdir(tmp_path))
    assert left == (["od"] if exists else [])
    if exists:
        assert os.listdir(folder) == ["old.jsonl"]
