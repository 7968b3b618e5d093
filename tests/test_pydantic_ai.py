"""pydantic-ai message histories (``ModelMessagesTypeAdapter`` dumps): read with nothing
lost, written back as they came, and written from other dialects."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from chatpipe.cli import app
from conftest import FIXTURES
from test_fixtures import leaves, parsed_and_kept
from test_providers import output_leaves

runner = CliRunner()
DUMPS = sorted(FIXTURES.glob("pydantic_ai__*"))
DICE = FIXTURES / "pydantic_ai__afarntrog_gemini_dice_tool_calls.json"
STORE = FIXTURES / "pydantic_ai__generated_pydantic_ai_2_68_one_message_a_line.jsonl"


def cli(*args, input=None):
    result = runner.invoke(app, list(args), input=input)
    return result.exit_code, result.stdout, result.stderr


def load(path):
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines()]
    return json.loads(text)


def unkinded(value):
    """A dump without the fields that name its shape (``kind``, ``part_kind``)."""
    if isinstance(value, dict):
        return {k: unkinded(v) for k, v in value.items() if k not in ("kind", "part_kind")}
    if isinstance(value, list):
        return [unkinded(v) for v in value]
    return value


def without_nulls(history):
    """A dump as chatpipe writes it back: the fields of its messages and parts that hold
    nothing left out (pydantic-ai reads them as their defaults), but a tool's content and a
    request's instructions; a user prompt's items likewise."""

    def kept(fields):
        return {
            k: v for k, v in fields.items() if v is not None or k in ("content", "instructions")
        }

    def part(fields):
        content = fields.get("content")
        if isinstance(content, list):  # a user prompt's items
            fields = {**fields, "content": [kept(i) if isinstance(i, dict) else i for i in content]}
        return kept(fields)

    return [kept({**m, "parts": [part(p) for p in m["parts"]]}) for m in history]


@pytest.mark.parametrize("path", DUMPS, ids=lambda p: p.name)
def test_every_dump_converts_with_nothing_lost(path):
    code, out, err = cli("convert", str(path))
    assert (code, err) == (0, "")
    kept = output_leaves([json.loads(line) for line in out.splitlines()])
    missing = {
        v for v in leaves(unkinded(load(path))) if v not in kept and not parsed_and_kept(v, kept)
    }
    assert not missing, sorted(map(str, missing))[:5]


@pytest.mark.parametrize("path", DUMPS, ids=lambda p: p.name)
def test_a_dump_is_written_back_as_it_came(path):
    code, out, err = cli("convert", "--to", "pydantic-ai", str(path))
    assert (code, err) == (0, "")
    assert json.loads(out) == without_nulls(load(path))


def test_a_message_store_reads_one_model_message_a_line():
    code, out, err = cli("convert", str(STORE))
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "messages": [
            {
                "type": "human",
                "content": "What is 2 + 2?",
                "response_metadata": {
                    "timestamp": "2025-10-01T12:00:10Z",
                    "request": {
                        "timestamp": "2025-10-01T12:00:10Z",
                        "run_id": "run-2",
                        "state": "complete",
                    },
                },
            },
            {
                "type": "ai",
                "content": "4",
                "id": "chatcmpl-1",
                "usage_metadata": {"input_tokens": 8, "output_tokens": 1, "total_tokens": 9},
                "response_metadata": {
                    "usage": {
                        "input_tokens": 8,
                        "cache_write_tokens": 0,
                        "cache_write_1h_tokens": 0,
                        "cache_read_tokens": 0,
                        "output_tokens": 1,
                        "output_reasoning_tokens": 0,
                        "input_audio_tokens": 0,
                        "cache_audio_read_tokens": 0,
                        "output_audio_tokens": 0,
                        "audio_seconds": 0.0,
                        "details": {},
                        "cost": None,
                    },
                    "model_name": "gpt-4o-mini",
                    "timestamp": "2025-10-01T12:00:11Z",
                    "provider_name": "openai",
                    "provider_response_id": "chatcmpl-1",
                    "finish_reason": "stop",
                    "run_id": "run-2",
                    "state": "complete",
                },
            },
        ]
    }


def test_several_histories_are_one_dump_a_line_and_read_back(tmp_path):
    code, out, err = cli("convert", "--to", "pydantic-ai", str(DICE), str(STORE))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert [len(json.loads(line)) for line in lines] == [7, 2]
    written = tmp_path / "histories.jsonl"
    written.write_text(out)
    code, back, err = cli("buffer", str(written))
    assert (code, err) == (0, "")
    assert back.splitlines()[1] == json.dumps("Human: What is 2 + 2?\nAI: 4")


def test_a_chat_log_becomes_a_history_with_its_tools_named():
    path = FIXTURES / "openai_chat__pydanticai_req_system_tools_tool_result.json"
    code, out, err = cli("convert", "--to", "pydantic-ai", str(path))
    assert (code, err) == (0, "")
    assert json.loads(out) == [
        {
            "parts": [
                {"content": "You are a helpful assistant.", "part_kind": "system-prompt"},
                {"content": "What is the temperature in Tokyo?", "part_kind": "user-prompt"},
            ],
            "instructions": None,
            "kind": "request",
        },
        {
            "parts": [
                {
                    "tool_name": "get_temperature",
                    "args": {"city": "Tokyo"},
                    "tool_call_id": "call_bhZkmIKKItNGJ41whHUHB7p9",
                    "part_kind": "tool-call",
                }
            ],
            "kind": "response",
        },
        {
            "parts": [
                {
                    "tool_name": "get_temperature",
                    "content": "20.0",
                    "tool_call_id": "call_bhZkmIKKItNGJ41whHUHB7p9",
                    "part_kind": "tool-return",
                }
            ],
            "instructions": None,
            "kind": "request",
        },
    ]


def test_retries_thinking_and_json_tool_returns_read_as_messages():
    path = FIXTURES / "pydantic_ai__generated_pydantic_ai_2_68_thinking_retry_media.json"
    code, out, err = cli("convert", str(path))
    assert (code, err) == (0, "")
    messages = json.loads(out)["messages"]
    assert messages[0] == {
        "type": "system",
        "content": "Answer in one sentence.",
        "additional_kwargs": {"source": "instructions"},
    }
    retry = messages[4]
    assert (retry["type"], retry["status"], retry["additional_kwargs"]) == (
        "tool",
        "error",
        {"part_kind": "retry-prompt"},
    )
    returned = messages[6]
    assert (returned["content"], returned["artifact"], returned["additional_kwargs"]) == (
        '{"confirmed": true, "table": 12}',
        {"booking_id": "B-77"},
        {"content_is_json": True},
    )
    assert messages[8]["additional_kwargs"] == {"part_kind": "retry-feedback"}
    assert messages[3]["usage_metadata"] == {
        "input_tokens": 120,
        "output_tokens": 40,
        "total_tokens": 160,
        "input_token_details": {"cache_read": 100},
    }


def test_a_record_that_is_not_a_model_message_is_said_in_words(tmp_path):
    path = tmp_path / "store.jsonl"
    lines = STORE.read_text().splitlines()
    path.write_text(lines[0] + '\n{"role": "user", "content": "hi"}\n')
    code, _, err = cli("convert", str(path))
    assert code == 1
    assert err == (
        f"chatpipe: error: {path}:1:1: model message 2 is not a pydantic-ai request or response "
        "(top-level keys: role, content)\n"
    )


def test_what_pydantic_ai_cannot_hold_is_said():
    log = '{"role": "user", "name": "ann", "content": "hi"}\n'
    code, out, err = cli("convert", "--to", "pydantic-ai", "-", input=log)
    assert (code, json.loads(out)) == (
        0,
        [
            {
                "parts": [{"content": "hi", "part_kind": "user-prompt"}],
                "instructions": None,
                "kind": "request",
            }
        ],
    )
    assert err == (
        "chatpipe: warning: pydantic-ai cannot hold message names: left out of 1 message "
        "(-v lists them)\n"
    )


def test_messages_of_other_dialects_become_parts_of_their_kind():
    conversation = {
        "messages": [
            {
                "type": "human",
                "content": [
                    "look",
                    {"type": "image", "url": "https://e.x/a.png"},
                    {"type": "audio", "base64": "UklG", "mime_type": "audio/wav"},
                    {"type": "image_url", "image_url": {"url": "https://e.x/b.png"}},
                ],
            },
            {
                "type": "ai",
                "content": [
                    {"type": "thinking", "thinking": "hm", "signature": "s1"},
                    {"type": "reasoning", "reasoning": "so"},
                    "plain",
                    {"type": "text", "text": "done"},
                ],
                "tool_calls": [{"name": "f", "args": {"a": 1}, "id": "c1", "type": "tool_call"}],
                "invalid_tool_calls": [
                    {
                        "type": "invalid_tool_call",
                        "id": "c2",
                        "name": "g",
                        "args": "{x",
                        "error": None,
                    }
                ],
                "usage_metadata": {
                    "input_tokens": 5,
                    "output_tokens": 7,
                    "total_tokens": 12,
                    "input_token_details": {"cache_read": 2, "cache_creation": 1},
                    "output_token_details": {"reasoning": 3},
                },
                "id": "r1",
            },
            {"type": "tool", "content": "ok", "tool_call_id": "c1"},
            {"type": "chat", "role": "critic", "content": "again"},
        ]
    }
    code, out, err = cli(
        "convert", "--from", "canonical", "--to", "pydantic-ai", "-", input=json.dumps(conversation)
    )
    assert code == 0
    assert err == (
        "chatpipe: warning: pydantic-ai cannot hold chat and function roles (written as user "
        "prompts): left out of 1 message (-v lists them)\n"
    )
    assert json.loads(out) == [
        {
            "parts": [
                {
                    "content": [
                        "look",
                        {"url": "https://e.x/a.png", "kind": "image-url"},
                        {"data": "UklG", "media_type": "audio/wav", "kind": "binary"},
                        {"url": "https://e.x/b.png", "kind": "image-url"},
                    ],
                    "part_kind": "user-prompt",
                }
            ],
            "instructions": None,
            "kind": "request",
        },
        {
            "parts": [
                {
                    "content": "hm",
                    "signature": "s1",
                    "provider_name": "anthropic",
                    "part_kind": "thinking",
                },
                {"content": "so", "part_kind": "thinking"},
                {"content": "plain", "part_kind": "text"},
                {"content": "done", "part_kind": "text"},
                {
                    "tool_name": "f",
                    "args": {"a": 1},
                    "tool_call_id": "c1",
                    "part_kind": "tool-call",
                },
                {"tool_name": "g", "args": "{x", "tool_call_id": "c2", "part_kind": "tool-call"},
            ],
            "usage": {
                "input_tokens": 5,
                "cache_read_tokens": 2,
                "cache_write_tokens": 1,
                "output_tokens": 7,
                "details": {"reasoning_tokens": 3},
            },
            "provider_response_id": "r1",
            "kind": "response",
        },
        {
            "parts": [
                {
                    "tool_name": "f",
                    "content": "ok",
                    "tool_call_id": "c1",
                    "part_kind": "tool-return",
                },
                {"content": "again", "part_kind": "user-prompt"},
            ],
            "instructions": None,
            "kind": "request",
        },
    ]
    # and back: the tool call whose arguments are not JSON stays as it came
    code, back, err = cli("convert", "-", input=out)
    assert (code, err) == (0, "")
    ai = json.loads(back)["messages"][1]
    assert ai["invalid_tool_calls"] == [
        {"type": "invalid_tool_call", "id": "c2", "name": "g", "args": "{x", "error": None}
    ]
    assert ai["usage_metadata"] == conversation["messages"][1]["usage_metadata"]
