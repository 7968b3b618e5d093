"""The shapes real files have that chatpipe once failed on (issue 18), one fixture each.

Every test reads a fixture from a real public file (or, where none exists, one written from
the provider's documented behaviour; fixtures/SOURCES.md says which) and checks the exact
result, so it fails on the behaviour it was written against.
"""

from __future__ import annotations

import json

from typer.testing import CliRunner

from chatpipe.cli import app
from chatpipe.formats import read
from conftest import FIXTURES

runner = CliRunner()


def messages(name, **options):
    from chatpipe.formats.exports import ReadOptions

    return [
        m for c in read([str(FIXTURES / name)], options=ReadOptions(**options)) for m in c.messages
    ]


def run(*args):
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


# -- streams -------------------------------------------------------------------------------


def test_a_tool_call_header_repeated_in_every_chunk_is_kept_once():
    [message] = messages("openai_stream__documented_repeated_tool_call_header.jsonl")
    assert [(c["id"], c["name"], c["args"]) for c in message.tool_calls] == [
        ("call_a1f0", "read_file", {"path": "README.md"}),
        ("call_b2e1", "terminal", {"command": "ls -la"}),
    ]
    code, out, _ = run(
        "convert",
        "--to",
        "openai",
        FIXTURES / "openai_stream__documented_repeated_tool_call_header.jsonl",
    )
    assert code == 0
    calls = json.loads(out)["messages"][0]["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["read_file", "terminal"]


def test_a_name_streamed_in_fragments_is_still_joined():
    from chatpipe.formats.streams import assemble_openai

    def chunk(name, args):
        call = {"index": 0, "function": {"name": name, "arguments": args}}
        return {
            "id": "c1",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"tool_calls": [call]}}],
        }

    [message] = assemble_openai([chunk("get_", "{"), chunk("weather", "}")])
    assert message.tool_calls[0]["name"] == "get_weather"


def test_openrouter_reasoning_details_keep_their_format_once():
    [message] = messages("openai_stream__openrouter_claude_reasoning_details.jsonl")
    [detail] = message.additional_kwargs["reasoning_details"]
    assert detail["format"] == "anthropic-claude-v1"
    assert detail["type"] == "reasoning.text"
    assert detail["index"] == 0
    assert detail["text"].startswith("The user is greeting me") and detail["signature"]
    assert message.response_metadata["finish_reason"] == "stop"


def test_chunk_addition_keeps_langchain_rules():
    """The stream readers' identities do not leak into AIMessageChunk.__add__ (parity)."""
    from chatpipe import AIMessageChunk

    left = AIMessageChunk("", additional_kwargs={"format": "x", "name": "n"})
    right = AIMessageChunk("", additional_kwargs={"format": "x", "name": "n"})
    assert (left + right).additional_kwargs == {"format": "xx", "name": "nn"}


def test_a_repeated_message_start_continues_the_same_message():
    name = "anthropic_messages__vercel_stream_duplicate_message_start.jsonl"
    [message] = messages(name)
    assert message.id == "msg_dup"
    assert message.content == [{"type": "text", "text": "Hello, World!"}]
    assert message.usage_metadata["output_tokens"] == 227
    code, out, _ = run("convert", FIXTURES / name)
    assert code == 0 and len(out.splitlines()) == 1


def test_a_new_message_id_still_starts_a_new_message():
    from chatpipe.formats.anthropic import assemble_stream

    def start(mid):
        return {"type": "message_start", "message": {"id": mid, "role": "assistant", "content": []}}

    def text(t):
        return [
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": t}},
        ]

    out = list(assemble_stream([start("a"), *text("one"), start("b"), *text("two")]))
    assert [(m["id"], m["content"][0]["text"]) for m in out] == [("a", "one"), ("b", "two")]
