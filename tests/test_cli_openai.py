"""``chatpipe openai`` and ``convert --to openai``: shapes, errors, lossless round trips."""

from __future__ import annotations

import copy
import json

import langchain_core.messages as lc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from chatpipe.cli import app
from conftest import FIXTURES
from strategies import openai_wire_messages

runner = CliRunner()
TOOL_LOG = FIXTURES / "openai_tool_calls.jsonl"


def cli(*args, input=None):
    return runner.invoke(app, list(args), input=input)


def lines(text):
    return [json.loads(line) for line in text.splitlines()]


def test_every_mode_equals_langchain_on_a_real_log():
    raw = [json.loads(line) for line in TOOL_LOG.read_text(encoding="utf-8").splitlines()]
    for args, kwargs in (
        ((), {}),
        (("--text-format", "block"), {"text_format": "block"}),
        (
            ("--include-id", "--no-pass-through-unknown-blocks"),
            {"include_id": True, "pass_through_unknown_blocks": False},
        ),
    ):
        result = cli("openai", *args, str(TOOL_LOG))
        assert result.exit_code == 0, result.stderr
        assert lines(result.stdout) == lc.convert_to_openai_messages(
            lc.convert_to_messages(raw), **kwargs
        )


def test_conversation_records_keep_tools_and_json_prints_one_document():
    row = {
        "messages": [{"role": "user", "content": "q"}],
        "tools": [{"type": "function"}],
        "parallel_tool_calls": False,
    }
    result = cli("openai", input=json.dumps(row) + "\n")
    assert lines(result.stdout) == [row]
    document = cli("openai", "--json", str(TOOL_LOG))
    assert json.loads(document.stdout) == lines(cli("openai", str(TOOL_LOG)).stdout)


def test_errors_name_file_message_and_block(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text(
        '{"role":"user","content":"a"}\n'
        '{"role":"user","content":[{"type":"text","text":"b"},'
        '{"type":"video","url":"https://v"}]}\n'
    )
    result = cli("openai", str(path))
    assert result.exit_code == 1
    assert result.stderr == f"chatpipe: error: {path}:1:1: Block of type video is not supported.\n"
    strict = cli(
        "openai",
        "--no-pass-through-unknown-blocks",
        input='{"role":"user","content":[{"type":"text","text":"b"},{"type":"x"}]}\n',
    )
    assert strict.exit_code == 1
    assert strict.stderr.startswith(
        "chatpipe: error: <stdin>:1:1: Unrecognized content block at messages[0].content[1] "
        "does not match OpenAI"
    )


def test_keep_fields_writes_back_what_langchain_drops():
    message = {
        "role": "assistant",
        "content": "hi",
        "weight": 0,
        "refusal": None,
        "audio": {"id": "a1"},
    }
    plain = cli("openai", input=json.dumps(message) + "\n")
    assert lines(plain.stdout) == [{"role": "assistant", "content": "hi"}]
    kept = cli("openai", "--keep-fields", input=json.dumps(message) + "\n")
    assert lines(kept.stdout) == [message]


def canonical_openai(message):
    """What a round trip must keep, in a comparable form."""
    out = copy.deepcopy(message)
    if out.get("content") is None:
        out["content"] = ""
    for call in out.get("tool_calls", ()):
        call["function"]["arguments"] = json.loads(call["function"]["arguments"])
    return out


@settings(max_examples=200, deadline=None)
@given(st.lists(openai_wire_messages(), min_size=1, max_size=6), st.booleans())
def test_openai_logs_round_trip_losslessly(messages, as_rows):
    if as_rows:
        row = {
            "messages": messages,
            "tools": [{"type": "function", "function": {"name": "f"}}],
            "parallel_tool_calls": True,
        }
        text = json.dumps(row) + "\n"
    else:
        text = "".join(json.dumps(m) + "\n" for m in messages)
    for command in (
        ("convert", "--to", "openai", "--keep-extras"),  # (faithful: what its reader kept)
        ("openai", "--keep-fields", "--text-format", "keep"),
    ):
        result = cli(*command, input=text)
        assert result.exit_code == 0, result.stderr
        back = lines(result.stdout)
        if as_rows:
            [back_row] = back
            assert {k: v for k, v in back_row.items() if k != "messages"} == {
                k: v for k, v in row.items() if k != "messages"
            }
            back = back_row["messages"]
        assert [canonical_openai(m) for m in back] == [canonical_openai(m) for m in messages]


def test_samples_round_trip(tmp_path):
    for name in (
        "openai_chat__cookbook_toy_chat_fine_tuning.jsonl",
        "mellea__mellea_req_multi_turn.json",
    ):
        path = FIXTURES / name
        result = cli("convert", "--to", "openai", "--keep-extras", str(path))
        assert result.exit_code == 0
        text = path.read_text(encoding="utf-8")
        original = (
            [json.loads(line) for line in text.splitlines()]
            if name.endswith(".jsonl")
            else [json.loads(text)]
        )
        assert lines(result.stdout) == original
    # a fine-tuning file the API takes as it is: the same rows by default, nothing said
    path = FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"
    result = cli("convert", "--to", "openai", str(path))
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == "".join(
        json.dumps(json.loads(line), separators=(",", ":"), ensure_ascii=False) + "\n"
        for line in path.read_text().splitlines()
    )


@pytest.mark.parametrize(
    "block",
    [
        {"type": "text-plain", "mime_type": "text/plain", "text": "file body", "title": "a.txt"},
        {"type": "text-plain", "mime_type": "text/plain", "url": "https://e.x/a.txt"},
    ],
    ids=["text", "url"],
)
def test_a_text_file_fails_as_in_langchain_and_converts_as_text(block):
    """`openai` is langchain-core's convert_to_openai_messages: a text-plain block is its
    ValueError; `convert --to openai` is where a text file is written down as text (#39)."""
    import chatpipe as cp
    from conftest import Failure

    content = [{"type": "text", "text": "see"}, block]
    with pytest.raises(ValueError) as theirs:
        lc.convert_to_openai_messages([lc.HumanMessage(content)])
    with pytest.raises(ValueError) as ours:
        cp.convert_to_openai_messages([cp.HumanMessage(content)])
    assert Failure(ours.value) == Failure(theirs.value)
    record = json.dumps({"messages": [{"type": "human", "content": content}]}) + "\n"
    result = cli("openai", input=record)
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        f"chatpipe: error: <stdin>:1:1: {theirs.value} "
        "(convert --to openai writes text files as text parts)\n"
    )
    converted = cli("convert", "--to", "openai", input=record)
    assert converted.exit_code == 0
    written = lines(converted.stdout)[0]["messages"][0]["content"]
    if "text" in block:
        assert written == [
            {"type": "text", "text": "see"},
            {"type": "text", "text": '<file name="a.txt">\nfile body\n</file>'},
        ]
        assert "written as text parts headed by the file's name" in converted.stderr
    else:
        assert written == [{"type": "text", "text": "see"}]
        assert "openai cannot hold text files known only by url or id" in converted.stderr
