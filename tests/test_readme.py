"""The console examples of the README and of docs/*.md are real: each command prints what
the page shows (a block may hold several, each a `$ ` line), run where a reader of a clone runs it (its fixtures/ and bench/)."""

from __future__ import annotations

import subprocess

import pytest

from conftest import ROOT
from doc_blocks import NOT_RUN, Block, all_blocks, blocks, environment, place

CONSOLE = all_blocks("console")


def examples(block: Block) -> list[tuple[str, str]]:
    """(command, what it prints) of each ``$ command`` line of a block, in order."""
    assert block.text.startswith("$ "), f"{block.where}: a console block starts with '$ command'"
    found: list[tuple[str, str]] = []
    for line in block.text.splitlines(keepends=True):
        if line.startswith("$ "):
            found.append((line[2:].rstrip("\n"), ""))
        else:
            found[-1] = (found[-1][0], found[-1][1] + line)
    return found


def test_the_readme_has_its_examples():
    readme = [b for b in blocks(ROOT / "README.md") if b.language == "console"]
    assert 5 <= len(readme) <= 8


def test_every_readme_example_is_run():
    """Every example of the README is a block a test runs as written: console blocks here,
    sh walk-throughs and the library's python in tests/test_docs.py, all in a fresh clone
    (the tokenize example needed a train.jsonl that exists nowhere); text blocks are
    what a command printed, never a command."""
    readme = blocks(ROOT / "README.md")
    assert {b.language for b in readme} <= {"console", "sh", "python", "text"}
    assert not [b.where for b in readme if b.note]
    assert not [b.where for b in readme if b.language == "text" and b.text.startswith("$")]


def test_no_console_example_is_left_unrun():
    assert not [block.where for block in CONSOLE if block.note], (
        f"console examples always run: no '{NOT_RUN}' note before one"
    )


@pytest.mark.parametrize("block", CONSOLE, ids=[block.where for block in CONSOLE])
def test_the_example_prints_what_it_shows(block, tmp_path):
    folder = place(block, tmp_path)
    for command, shown in examples(block):  # (one after another, in one folder)
        # stdout and stderr in one stream, in the order a terminal shows them
        proc = subprocess.run(
            command,
            shell=True,
            executable="/bin/bash",
            cwd=folder,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=environment(),
        )
        assert proc.stdout == shown, f"{block.where}: {command}"
