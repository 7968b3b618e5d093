"""chatpipe.pipeline, the way to run chatpipe's work from Python: the same bytes as the
commands that run it."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

from chatpipe.ops.count import resolve_counter
from chatpipe.pipeline import Trim, read, write

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "fixtures"
CASES = [
    ("sharegpt__fastchat_dummy_conversation_first20.json", "openai", False),
    ("openai_tool_calls.jsonl", "canonical", True),
]


def _cli(*argv: str) -> bytes:
    done = subprocess.run(
        [sys.executable, "-m", "chatpipe", *argv], capture_output=True, check=True
    )
    return done.stdout


@pytest.mark.parametrize(("name", "to", "per_message"), CASES)
def test_read_trim_write_gives_what_the_trim_command_writes(name, to, per_message):
    path = str(FIXTURES / name)
    trim = Trim(120, resolve_counter("approximate"), start_on=["human"])
    conversations = (c.with_messages(trim(c)) for c in read([path]))
    pieces = list(write(conversations, to, message_per_line=per_message))
    expected = _cli("trim", "--max-tokens", "120", "--start-on", "human", "--to", to, path)
    assert len(pieces) >= 2
    assert b"\n".join(pieces) + b"\n" == expected


def test_a_document_is_written_as_convert_writes_it():
    path = str(FIXTURES / "claude_export__yaleman_2025_thinking.json")
    pieces = list(write(read([path]), "markdown"))
    assert b"".join(pieces) == _cli("convert", "--to", "markdown", path)
    assert b"## " in b"".join(pieces) or b"# " in b"".join(pieces)
