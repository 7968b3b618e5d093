"""The README's console examples are real: each command prints what the README shows."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from conftest import ROOT

BLOCK = re.compile(r"(`{3,})console\n(.*?)\1\n", re.S)


def examples():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for _, block in BLOCK.findall(text):
        command, _, output = block.partition("\n")
        assert command.startswith("$ ")
        yield command[2:], output


def test_readme_has_examples():
    assert len(list(examples())) >= 4


def test_readme_examples_print_what_they_show():
    bindir = os.path.dirname(sys.executable)
    env = {**os.environ, "PATH": bindir + os.pathsep + os.environ.get("PATH", "")}
    for command, shown in examples():
        # stdout and stderr in one stream, in the order a terminal shows them
        proc = subprocess.run(
            command,
            shell=True,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        assert proc.stdout == shown, command
