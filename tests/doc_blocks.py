"""The code blocks of the README and of docs/*.md, and a folder to run them in.

A block is run by tests/test_readme.py (``console``: the command prints what the block
shows) or tests/test_docs.py (``sh`` walk-throughs, ``python``). A block the tests cannot
run says so in the page, on a quoted line just before it that starts with
``NOT_RUN`` and gives the reason; tests/test_docs.py lists each one too."""

from __future__ import annotations

import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from conftest import ROOT

NOT_RUN = "> Not run by the tests:"
_FENCE = re.compile(r"^(`{3,})([\w-]*)[ \t]*$")


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # of the opening fence, 1-based
    language: str
    text: str
    note: str | None  # the "Not run by the tests: ..." line before it, if any

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    @property
    def first_line(self) -> str:
        return self.text.split("\n", 1)[0]


def blocks(page: Path) -> list[Block]:
    """Every fenced block of a page, in order. A block closes at a line of the same fence
    alone, so a ````console block may hold ``` lines."""
    lines = page.read_text(encoding="utf-8").split("\n")
    found = []
    i = 0
    while i < len(lines):
        opened = _FENCE.match(lines[i])
        if not opened:
            i += 1
            continue
        fence, language = opened.groups()
        end = i + 1
        while end < len(lines) and lines[end] != fence:
            end += 1
        assert end < len(lines), f"{page}:{i + 1}: a code block that never closes"
        found.append(
            Block(page, i + 1, language, "\n".join(lines[i + 1 : end]) + "\n", _note(lines, i))
        )
        i = end + 1
    return found


def _note(lines: list[str], at: int) -> str | None:
    """The quoted note just before a block: its lines joined, or None."""
    i = at - 1
    while i >= 0 and not lines[i].strip():
        i -= 1
    quoted = []
    while i >= 0 and lines[i].startswith(">"):
        quoted.insert(0, lines[i].lstrip("> ").strip())
        i -= 1
    text = " ".join(quoted)
    return text if text.startswith(NOT_RUN[2:]) else None


def all_blocks(language: str) -> list[Block]:
    return [block for page in pages() for block in blocks(page) if block.language == language]


# the files the pages' walk-throughs name, as the fixtures give them
WORKSPACE = {
    "conversations.json": "chatgpt_export__pkuppens_2023_conversations_subset.json",
    "session.jsonl": "agent_session.jsonl",
    "train.jsonl": "openai_chat__cookbook_toy_chat_fine_tuning.jsonl",
    "export.json": "claude_export__documented_retried_answer_no_current_leaf.json",
    "logs/agent.jsonl": "agent_session.jsonl",
    "logs/weather.jsonl": "openai_tool_calls.jsonl",
}


def workspace(folder: Path) -> Path:
    """A folder where the pages' commands run as a reader's would: ``fixtures/`` and
    ``bench/`` as in a clone, and the files the walk-throughs name."""
    (folder / "fixtures").symlink_to(ROOT / "fixtures", target_is_directory=True)
    shutil.copytree(ROOT / "bench", folder / "bench", ignore=shutil.ignore_patterns("corpus"))
    for name, fixture in WORKSPACE.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / "fixtures" / fixture, folder / name)
    return folder


# what a fresh clone holds (git ls-files' top level): the README's examples run in it
CLONE = ("README.md", "CHANGELOG.md", "pyproject.toml", "src", "tests", "docs", "fixtures", "bench")


def clone(folder: Path) -> Path:
    """A folder as a fresh clone is, and nothing more: the README's examples run there
    after its own set-up (no file made up for them; what they write lands beside)."""
    for name in CLONE:
        (folder / name).symlink_to(ROOT / name, target_is_directory=(ROOT / name).is_dir())
    return folder


def place(block: Block, folder: Path) -> Path:
    """Where a block runs: the README's in a fresh clone, the docs' walk-throughs in a
    workspace holding the files they name."""
    return clone(folder) if block.page.name == "README.md" else workspace(folder)


def environment() -> dict[str, str]:
    """This interpreter's ``python`` and ``chatpipe`` first on PATH."""
    bindir = os.path.dirname(sys.executable)
    return {**os.environ, "PATH": bindir + os.pathsep + os.environ.get("PATH", "")}
