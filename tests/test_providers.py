"""Provider exports, requests, responses and streams: every sample reads with nothing lost,
streams spell their messages, exports branch as asked, and the writers make valid shapes."""

from __future__ import annotations

import base64
import contextlib
import itertools
import json

import pytest
import yaml
from typer.testing import CliRunner

import chatpipe as cp
from chatpipe.cli import app
from chatpipe.errors import DataError
from chatpipe.formats.exports import ReadOptions
from chatpipe.formats.registry import get_dialect
from chatpipe.pipeline.reading import read
from chatpipe.pipeline.writing import write_records
from conftest import FIXTURES
from test_fixtures import leaves, parsed_and_kept

runner = CliRunner()
PROVIDERS = (
    "anthropic_messages",
    "gemini",
    "openai_responses",
    "sharegpt",
    "chatgpt_export",
    "claude_export",
    "ai_sdk_ui",
)
STREAMS = ("openai_stream",)
DOCUMENTS = sorted(
    p for p in FIXTURES.iterdir() if p.name.split("__")[0] in PROVIDERS and "_stream" not in p.name
)
# values that name a role or speaker in the source: they become message types
SPEAKERS = {"human", "gpt", "assistant", "system", "function_call", "observation", "user", "model"}


def load(path):
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".yaml":
        return yaml.safe_load(text)
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return json.loads(text)


def without_duplicates(value):
    """Claude.ai's ``text`` repeats its content blocks joined; it is not data of its own.
    A ChatGPT node's link to a child the file does not hold (a fragment cut from a longer
    export) names nothing there is to keep."""
    for conversation in value if isinstance(value, list) else [value]:
        mapping = conversation.get("mapping") if isinstance(conversation, dict) else None
        for node in (mapping or {}).values():
            if isinstance(node, dict) and isinstance(node.get("children"), list):
                node["children"] = [c for c in node["children"] if c in mapping]
        for message in conversation.get("chat_messages") or ():
            content = message.get("content") or []
            joined = "".join(str(b.get("text") or b.get("thinking") or "") for b in content)
            if content and message.get("text") == joined:
                del message["text"]
    return value


def canonical(path, **options):
    conversations = read([str(path)], options=ReadOptions(**options))
    lines = write_records(conversations, get_dialect("canonical").write_messages, lambda: False)
    return [json.loads(line) for line in lines]


def output_leaves(records):
    """Leaves of the output, looking inside JSON text too (tool results are JSON text)."""
    kept = set(leaves(records))
    for value in list(kept):
        if isinstance(value, str) and value[:1] in "[{":
            with contextlib.suppress(ValueError):
                kept |= set(leaves(json.loads(value)))
    return kept


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.name)
def test_every_sample_converts_with_nothing_lost(path):
    result = runner.invoke(app, ["convert", "--branch", "all", "--include-hidden", str(path)])
    assert result.exit_code == 0, result.stderr
    records = canonical(path, branch="all", include_hidden=True)
    kept = output_leaves(records)
    missing = {
        v
        for v in leaves(without_duplicates(load(path)))
        if v not in kept
        and v not in SPEAKERS
        and not parsed_and_kept(v, kept)
        and not data_url_kept(v, kept)
    }
    assert not missing, sorted(map(str, missing))[:5]


def data_url_kept(value, kept) -> bool:
    """A data URL is kept when its media type and base64 payload are (a block's
    ``mime_type`` and ``base64``)."""
    if not isinstance(value, str) or not value.startswith("data:") or ";base64," not in value:
        return False
    mime, payload = value[5:].split(";base64,", 1)
    return mime in kept and payload in kept


def stream_messages(name):
    return [m for c in read([str(FIXTURES / name)]) for m in c.messages]


def test_openai_streams_reassemble():
    [message] = stream_messages("openai_stream__pydanticai_tool_call_fragmented_args.jsonl")
    assert [(c["name"], c["id"]) for c in message.tool_calls] == [
        ("get_capital", "call_ZR5UUuTt3pf61kjwAJIYdVMj")
    ]
    assert message.tool_calls[0]["args"] == {"country": "UK"}
    sse = stream_messages("openai_stream__pydanticai_tool_call_fragmented_args.sse")
    assert cp.messages_to_dict(sse) == cp.messages_to_dict([message])
    [parallel] = stream_messages(
        "openai_stream__pydanticai_parallel_tool_calls_index0_index1.jsonl"
    )
    assert len(parallel.tool_calls) == 2
    [azure] = stream_messages("openai_stream__vercel_azure_model_router.chunks.jsonl")
    assert azure.text == "Capital of Denmark."
    assert azure.response_metadata["finish_reason"] == "stop"
    assert azure.response_metadata["model_name"] == "gpt-5-nano-2025-08-07"
    [xai] = stream_messages("openai_stream__vercel_xai_reasoning_content_tool_call_trimmed.jsonl")
    reasoning = xai.additional_kwargs["reasoning_content"]
    assert reasoning.startswith("First, the user is asking about the weather in San Francisco")
    assert xai.tool_calls == [
        {
            "name": "weather",
            "args": {"location": "San Francisco"},
            "id": "call_79382389",
            "type": "tool_call",
        }
    ]


def test_anthropic_streams_reassemble():
    [message] = stream_messages("anthropic_messages__pydanticai_stream_thinking_text.jsonl")
    kinds = [b["type"] for b in message.content]
    assert kinds[0] == "thinking" and message.content[0]["signature"]
    assert "text" in kinds and message.usage_metadata["output_tokens"] > 1
    [tool] = stream_messages("anthropic_messages__vercel_stream_tool_use_input_json_delta.jsonl")
    # the input_json_delta fragments joined into one object, in the block and the call
    elements = {
        "elements": [{"location": "San Francisco", "temperature": 58, "condition": "sunny"}]
    }
    assert tool.content == [
        {
            "type": "tool_use",
            "id": "toolu_01KFbKqPYSuAKujiL6mTfzYA",
            "name": "json",
            "input": elements,
        }
    ]
    assert tool.tool_calls == [
        {
            "name": "json",
            "args": elements,
            "id": "toolu_01KFbKqPYSuAKujiL6mTfzYA",
            "type": "tool_call",
        }
    ]


def test_gemini_streams_rebuild_partial_arguments():
    [message] = stream_messages("gemini__vercel_stream_partial_args_function_calls.jsonl")
    assert [c["args"] for c in message.tool_calls] == [
        {"location": "Boston"},
        {"location": "San Francisco"},
    ]
    # the signature of the first call's part, kept by call id (base64 text, whole)
    signatures = message.additional_kwargs["thought_signatures"]
    assert list(signatures) == ["call_0_0"]
    assert (
        signatures["call_0_0"].startswith("CiMBjz1rX25KieIB4d4AwFn8")
        and len(signatures["call_0_0"]) > 1000
    )


def test_responses_streams_one_conversation_per_response():
    conversations = list(
        read(
            [
                str(
                    FIXTURES
                    / "openai_responses__vercel_stream_reasoning_summary_multi_response.jsonl"
                )
            ]
        )
    )
    assert len(conversations) == 4
    [custom] = stream_messages("openai_responses__vercel_stream_custom_tool_call.jsonl")
    assert custom.tool_calls[0]["args"] == {"input": "SELECT * FROM users WHERE age > 25"}


def test_chatgpt_branches():
    path = FIXTURES / "chatgpt_export__mitkury_handmade_user_edit_branch.json"
    [active] = canonical(path)
    assert active["messages"][-1]["content"].startswith(
        "Here's how to write a function in JavaScript"
    )
    assert active["branch"]["left_out"] == 1
    assert len(canonical(path, branch="all")) == 2
    data = json.loads(path.read_text())
    for conversation in data if isinstance(data, list) else [data]:
        conversation.pop("current_node", None)
    # no active leaf named: the newest leaf, marked as chosen so (#18)
    [newest] = get_dialect("chatgpt-export").read_conversations(
        data[0] if isinstance(data, list) else data, cp.errors.Location("x"), ReadOptions()
    )
    assert newest.meta["branch"]["chosen"] == "newest"
    assert newest.meta["branch"]["left_out"] == 1
    latest = list(
        get_dialect("chatgpt-export").read_conversations(
            data[0] if isinstance(data, list) else data,
            cp.errors.Location("x"),
            ReadOptions("latest"),
        )
    )
    assert len(latest) == 1


def test_a_cycle_in_parent_links_is_an_error():
    export = {
        "mapping": {
            "a": {
                "id": "a",
                "parent": "b",
                "message": {
                    "id": "a",
                    "author": {"role": "user"},
                    "content": {"content_type": "text", "parts": ["x"]},
                },
            },
            "b": {"id": "b", "parent": "a", "message": None},
        },
        "current_node": "a",
    }
    with pytest.raises(DataError, match="loop"):
        list(
            get_dialect("chatgpt-export").read_conversations(
                export, cp.errors.Location("x"), ReadOptions()
            )
        )


def test_claude_export_prefers_content_and_keeps_thinking():
    [conversation] = canonical(FIXTURES / "claude_export__yaleman_2025_thinking.json")
    assistant = conversation["messages"][1]
    assert assistant["content"][0]["type"] == "reasoning"
    assert conversation["name"] == "Bleep bloop"


def test_anthropic_writer_shape():
    path = FIXTURES / "anthropic_messages__pydanticai_req_system_parallel_tool_use_results.json"
    [record] = [
        json.loads(line)
        for line in runner.invoke(
            app, ["convert", "--to", "anthropic", str(path)]
        ).stdout.splitlines()
    ]
    roles = [m["role"] for m in record["messages"]]
    assert all(a != b for a, b in itertools.pairwise(roles))  # turns alternate
    assert roles[0] == "user"
    results = [
        b
        for m in record["messages"]
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    assert len(results) == 4
    openai_in = FIXTURES / "openai_tool_calls.jsonl"
    [converted] = [
        json.loads(line)
        for line in runner.invoke(
            app, ["convert", "--to", "anthropic", str(openai_in)]
        ).stdout.splitlines()
    ]
    assert converted["system"] == "You are a weather assistant. Answer briefly."
    assert [m["role"] for m in converted["messages"]] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    assert [b["type"] for b in converted["messages"][2]["content"]] == [
        "tool_result",
        "tool_result",
    ]


def _without_false_errors(value):
    if isinstance(value, dict):
        return {
            k: _without_false_errors(v) for k, v in value.items() if (k, v) != ("is_error", False)
        }
    if isinstance(value, list):
        return [_without_false_errors(v) for v in value]
    return value


@pytest.mark.parametrize(
    "path", sorted(FIXTURES.glob("anthropic_messages__pydanticai_req_*.json")), ids=lambda p: p.name
)
def test_anthropic_requests_round_trip(path):
    result = runner.invoke(app, ["convert", "--to", "anthropic", str(path)])
    assert _without_false_errors(json.loads(result.stdout)) == _without_false_errors(load(path))


def test_gemini_writer_shape():
    out = runner.invoke(
        app, ["convert", "--to", "gemini", str(FIXTURES / "openai_tool_calls.jsonl")]
    )
    [record] = [json.loads(line) for line in out.stdout.splitlines()]
    assert record["systemInstruction"] == {
        "parts": [{"text": "You are a weather assistant. Answer briefly."}]
    }
    roles = [c["role"] for c in record["contents"]]
    assert set(roles) <= {"user", "model"} and all(a != b for a, b in itertools.pairwise(roles))
    calls = [
        p["functionCall"] for c in record["contents"] for p in c["parts"] if "functionCall" in p
    ]
    responses = [
        p["functionResponse"]
        for c in record["contents"]
        for p in c["parts"]
        if "functionResponse" in p
    ]
    assert [c["id"] for c in calls] == [r["id"] for r in responses] == ["call_paris", "call_koeln"]
    path = FIXTURES / "gemini__pydanticai_req_parallel_function_calls_thought_signature.json"
    back = json.loads(runner.invoke(app, ["convert", "--to", "gemini", str(path)]).stdout)
    # (its first turn, a user's empty text, is left out: the API refuses it)
    assert load(path)["contents"][0]["parts"] == [{"text": ""}]
    assert (
        back["contents"] == [c for c in back["contents"] if c["parts"]]
        and len(back["contents"]) == len(load(path)["contents"]) - 1
    )
    assert (
        back["contents"][0]["parts"][0]["thoughtSignature"]
        == load(path)["contents"][1]["parts"][0]["thoughtSignature"]
    )


def test_sharegpt_writer_round_trip():
    path = FIXTURES / "sharegpt__llamafactory_glaive_toolcall_first12.json"
    result = runner.invoke(app, ["convert", "--to", "sharegpt", str(path)])
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    original = load(path)
    assert [[t["from"] for t in r["conversations"]] for r in rows] == [
        [t["from"] for t in r["conversations"]] for r in original
    ]
    assert [r["tools"] for r in rows] == [r["tools"] for r in original]
    preference = FIXTURES / "sharegpt__llamafactory_dpo_preference_first5.json"
    rows = [
        json.loads(line)
        for line in runner.invoke(
            app, ["convert", "--to", "sharegpt", str(preference)]
        ).stdout.splitlines()
    ]
    assert [r["chosen"] for r in rows] == [r["chosen"] for r in load(preference)]
    assert [r["rejected"] for r in rows] == [r["rejected"] for r in load(preference)]


def test_markdown_and_yaml_writers():
    markdown = runner.invoke(
        app,
        [
            "convert",
            "--to",
            "markdown",
            str(FIXTURES / "chatgpt_export__realazthat_2024_code_interpreter.json"),
        ],
    ).stdout
    assert markdown.startswith("# Average Distance in U(0,1)\n")
    assert "### Assistant" in markdown and "Tool call `python`" in markdown
    document = yaml.safe_load(
        runner.invoke(
            app, ["convert", "--to", "yaml", str(FIXTURES / "openai_tool_calls.jsonl")]
        ).stdout
    )
    assert [m["type"] for m in document] == [
        "system",
        "human",
        "ai",
        "tool",
        "tool",
        "ai",
        "human",
        "ai",
    ]


def test_what_a_target_cannot_hold_is_said_once_per_kind():
    result = runner.invoke(
        app, ["convert", "--to", "sharegpt", str(FIXTURES / "openai_tool_calls.jsonl")]
    )
    assert result.exit_code == 0
    assert result.stderr.splitlines() == [
        "chatpipe: warning: sharegpt cannot hold tool call ids (ShareGPT pairs calls and results by order): left out of 1 message (-v lists them)",
        "chatpipe: warning: sharegpt cannot hold content other than text (images, files, reasoning, ...): left out of 1 message (-v lists them)",
    ]
    verbose = runner.invoke(
        app, ["convert", "-v", "--to", "sharegpt", str(FIXTURES / "openai_tool_calls.jsonl")]
    )
    assert "chatpipe:   conversation 1, message 7" in verbose.stderr.splitlines()
    clean = runner.invoke(
        app, ["convert", "--to", "anthropic", str(FIXTURES / "openai_tool_calls.jsonl")]
    )
    assert clean.stderr == ""


def test_a_thousand_conversation_export_is_read_in_one_pass(tmp_path):
    """Element positions are counted as the array is read, in one pass (no per-record
    scans from the line's start: tests/test_json_array.py counts the bytes looked at)."""
    from chatpipe.io.readers import Source, read_records

    export = [
        {"mapping": {"r": {"id": "r", "message": None, "parent": None}}, "title": str(i)}
        for i in range(1000)
    ]
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(export))
    records = list(read_records(Source(str(path))))
    assert (records[999].location.line, records[999].location.col) == (
        1,
        len(json.dumps(export[:999])) + 2,
    )


def test_verbose_says_how_many_branches_were_left_out():
    path = FIXTURES / "chatgpt_export__mitkury_handmade_user_edit_branch.json"
    result = runner.invoke(app, ["convert", "-v", str(path)])
    assert result.stderr.splitlines()[-1] == (
        f"chatpipe: {path}:2:3: wrote the active branch; 1 other branch left out "
        "(--branch all writes them)"
    )


def _cli(*args, input=None):
    result = runner.invoke(app, list(args), input=input)
    return result.exit_code, result.stdout, result.stderr


def _first_message(record):
    """The first message of a record read with the dialect detected, after a clean run."""
    code, out, err = _cli("convert", "-", input=json.dumps(record))
    assert (code, err) == (0, "")
    return json.loads(out)["messages"][0]


def test_anthropic_messages_one_a_line():
    log = (
        '{"role": "user", "content": "plain text turn"}\n'
        '{"role": "assistant", "content": [{"type": "text", "text": "Let me look."}, '
        '{"type": "tool_use", "id": "tu1", "name": "get", "input": {"q": 1}}]}\n'
    )
    code, out, err = _cli("convert", "--from", "anthropic", "-", input=log)
    assert (code, err) == (0, "")
    assert [json.loads(line) for line in out.splitlines()] == [
        {"type": "human", "content": "plain text turn"},
        {
            "type": "ai",
            "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "tu1", "name": "get", "input": {"q": 1}},
            ],
            "tool_calls": [{"name": "get", "args": {"q": 1}, "id": "tu1", "type": "tool_call"}],
        },
    ]
    # a user turn that answers tools is several messages: the log is read whole (#39)
    turn = (
        '{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu1", '
        '"content": "r"}, {"type": "text", "text": "and?"}]}\n'
    )
    expected = [
        {"type": "tool", "content": "r", "tool_call_id": "tu1"},
        {"type": "human", "content": [{"type": "text", "text": "and?"}]},
    ]
    code, out, err = _cli("convert", "--from", "anthropic", "-", input=turn)
    assert (code, err) == (0, "")
    assert [json.loads(line) for line in out.splitlines()] == expected
    code, out, err = _cli(
        "convert", "--from", "anthropic", "-", input='{"messages": [' + turn.strip() + "]}\n"
    )
    assert (code, err) == (0, "")
    assert json.loads(out)["messages"] == expected


def test_anthropic_writer_takes_every_kind_of_image_reasoning_and_failed_tools():
    log = "\n".join(
        json.dumps(record)
        for record in [
            {"type": "system", "content": "Be brief."},
            {"type": "system", "content": [{"type": "text", "text": "Also kind."}]},
            {
                "type": "human",
                "content": [
                    {"type": "image", "url": "https://e.x/cat.png"},
                    {"type": "image", "base64": "iVBOR", "mime_type": "image/png"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
                    "a bare string",
                ],
            },
            {
                "type": "ai",
                "content": [
                    {"type": "reasoning", "reasoning": "thinking..."},
                    {"type": "text", "text": "ok"},
                ],
                "tool_calls": [{"name": "get", "args": {}, "id": "c1", "type": "tool_call"}],
            },
            {"type": "tool", "content": "boom", "tool_call_id": "c1", "status": "error"},
        ]
    )
    # (--keep-extras: another model's reasoning as a thinking block, which the API would
    # refuse without Anthropic's signature; by default it is left out, and said)
    code, out, err = _cli("convert", "--to", "anthropic", "--keep-extras", "-", input=log + "\n")
    assert (code, err) == (0, "")
    written = json.loads(out)
    code, strict, err = _cli("convert", "--to", "anthropic", "-", input=log + "\n")
    assert (code, err) == (
        0,
        "chatpipe: warning: anthropic cannot hold reasoning that is not Anthropic's signed "
        "thinking (the API takes back only its own thinking, with its signature): left out of "
        "1 message (-v lists them)\n",
    )
    assert json.loads(strict)["messages"][1]["content"] == written["messages"][1]["content"][1:]
    assert written == {
        "system": [{"type": "text", "text": "Be brief."}, {"type": "text", "text": "Also kind."}],
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "image", "source": {"type": "url", "url": "https://e.x/cat.png"}},
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"},
                    },
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"},
                    },
                    {"type": "text", "text": "a bare string"},
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "thinking...", "signature": ""},
                    {"type": "text", "text": "ok"},
                    {"type": "tool_use", "id": "c1", "name": "get", "input": {}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "c1",
                        "content": "boom",
                        "is_error": True,
                    }
                ],
            },
        ],
    }


def test_anthropic_writer_takes_chat_completions_files_and_plain_text_as_documents():
    # (before: a Chat Completions file part was left out, "files Anthropic cannot take")
    notes = base64.b64encode(b"plain notes").decode()
    human = {
        "type": "human",
        "content": [
            {"type": "text", "text": "Read these."},
            {
                "type": "file",
                "file": {"file_data": f"data:application/pdf;base64,{PDF}", "filename": "a.pdf"},
            },
            {"type": "file", "file": {"file_id": "file-abc"}},
            {"type": "file", "file": {"filename": "lost.pdf"}},  # (no data: left out, said)
            {"type": "file", "base64": notes, "mime_type": "text/plain"},
            {"type": "text-plain", "text": "more notes", "title": "notes.txt"},
            {"type": "file", "file_id": "file-xyz"},
            {"type": "json", "json": {"a": [1, 2]}},
        ],
    }
    code, out, err = _cli("convert", "--to", "anthropic", "-", input=json.dumps(human) + "\n")
    assert (code, err) == (
        0,
        "chatpipe: warning: anthropic cannot hold audio, video and files Anthropic cannot "
        "take: left out of 1 message (document; -v lists them)\n",
    )
    [user] = json.loads(out)["messages"]
    assert user["content"] == [
        {"type": "text", "text": "Read these."},
        {
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": PDF},
            "title": "a.pdf",
        },
        {"type": "document", "source": {"type": "file", "file_id": "file-abc"}},
        {
            "type": "document",
            "source": {"type": "text", "media_type": "text/plain", "data": "plain notes"},
        },
        {
            "type": "document",
            "source": {"type": "text", "media_type": "text/plain", "data": "more notes"},
            "title": "notes.txt",
        },
        {"type": "document", "source": {"type": "file", "file_id": "file-xyz"}},
        {"type": "text", "text": '{"a": [1, 2]}'},
    ]


PDF = "JVBERi0xLjQK"  # ("%PDF-1.4")


def test_anthropic_usage_counts_cached_input_as_langchain_anthropic_does():
    response = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": [{"type": "text", "text": "hi"}],
        "usage": {
            "input_tokens": 10,
            "output_tokens": 5,
            "cache_read_input_tokens": 3,
            "cache_creation_input_tokens": 2,
        },
    }
    assert _first_message(response)["usage_metadata"] == {
        "input_tokens": 15,  # uncached + read + written, as langchain-anthropic counts
        "output_tokens": 5,
        "total_tokens": 20,
        "input_token_details": {"cache_read": 3, "cache_creation": 2},
    }
    # a usage record that is not counts stays in the metadata only
    response["usage"] = {"input_tokens": "ten", "output_tokens": 5}
    message = _first_message(response)
    assert "usage_metadata" not in message
    assert message["response_metadata"]["usage"] == response["usage"]


def test_responses_input_items_of_every_kind():
    request = {
        "model": "gpt-x",
        "instructions": "Be brief.",
        "input": [
            "a bare string item",
            {"role": "developer", "content": "Use tools.", "id": "d1"},
            {"role": "system", "content": "sys"},
            {
                "type": "message",
                "role": "assistant",
                "content": [
                    {"type": "output_text", "text": "x"},
                    {"type": "refusal", "refusal": "no"},
                    {"type": "mystery_part", "v": 1},
                    "loose text",
                ],
            },
            {"type": "custom_tool_call", "call_id": "ct1", "name": "sh", "input": "ls"},
            {"type": "custom_tool_call_output", "call_id": "ct1", "output": "a b"},
            {"type": "web_search_call", "id": "ws1", "status": "completed"},
        ],
    }
    code, out, err = _cli("convert", "-", input=json.dumps(request))
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "messages": [
            {
                "type": "system",
                "content": "Be brief.",
                "additional_kwargs": {"source": "instructions"},
            },
            {"type": "human", "content": "a bare string item"},
            {
                "type": "system",
                "content": "Use tools.",
                "additional_kwargs": {"__openai_role__": "developer", "id": "d1"},
            },
            {"type": "system", "content": "sys"},
            {
                "type": "ai",
                "content": [
                    {"type": "text", "text": "x", "extras": {"source_type": "output_text"}},
                    {"type": "non_standard", "value": {"type": "refusal", "refusal": "no"}},
                    {"type": "non_standard", "value": {"type": "mystery_part", "v": 1}},
                    "loose text",
                ],
                "tool_calls": [
                    {"name": "sh", "args": {"input": "ls"}, "id": "ct1", "type": "tool_call"}
                ],
                "additional_kwargs": {
                    "refusal": "no",
                    "items": [{"type": "custom_tool_call", "call_id": "ct1"}],
                },
            },
            {
                "type": "tool",
                "content": "a b",
                "tool_call_id": "ct1",
                "additional_kwargs": {"type": "custom_tool_call_output"},
            },
            {
                "type": "ai",
                "content": [
                    {
                        "type": "non_standard",
                        "value": {"type": "web_search_call", "id": "ws1", "status": "completed"},
                    }
                ],
            },
        ],
        "model": "gpt-x",
    }
    # input as one string: a request when it names a model or instructions
    code, out, err = _cli("convert", "-", input='{"model": "m", "input": "just a question"}')
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "messages": [{"type": "human", "content": "just a question"}],
        "model": "m",
    }
    code, out, err = _cli("convert", "-", input='{"input": "just a question"}')
    assert (code, out) == (1, "") and "cannot tell what chat format this is" in err


def test_a_responses_stream_cut_before_completion_keeps_the_items_that_finished():
    lines = (
        (FIXTURES / "openai_responses__vercel_stream_custom_tool_call.jsonl")
        .read_text()
        .splitlines()
    )
    assert json.loads(lines[-1])["type"] == "response.completed"
    # (--keep-extras: the response's status with the messages)
    keep = ("--to", "openai", "--keep-extras")
    whole = json.loads(_cli("convert", *keep, "-", input="\n".join(lines))[1])
    code, out, err = _cli(
        "convert",
        "--from",
        "openai-responses-stream",
        *keep,
        "-",
        input="\n".join(lines[:-1]),
    )
    assert (code, err) == (0, "")
    cut = json.loads(out)
    # the call finished before the cut: it is there, as in the whole capture
    assert cut["messages"] == whole["messages"]
    assert cut["messages"][0]["tool_calls"][0]["function"]["name"] == "write_sql"
    assert (cut["status"], whole["status"]) == ("in_progress", "completed")


def test_gemini_writer_parts_of_every_kind():
    log = "\n".join(
        json.dumps(record)
        for record in [
            {
                "type": "human",
                "content": [
                    {"type": "image", "base64": "iVBOR", "mime_type": "image/png"},
                    {"type": "file", "url": "gs://b/doc.pdf", "mime_type": "application/pdf"},
                    {"type": "audio", "url": "https://e.x/a.mp3"},
                    {
                        "type": "non_standard",
                        "value": {"executableCode": {"language": "PYTHON", "code": "1+1"}},
                    },
                    {"type": "mystery", "x": 1},
                ],
            },
            {
                "type": "ai",
                "content": [
                    {
                        "type": "reasoning",
                        "reasoning": "hmm",
                        "extras": {"thought_signature": "sig=="},
                    },
                    {"type": "text", "text": "ok"},
                ],
            },
        ]
    )
    # by default a block with no part is left out, and said (with --keep-extras, JSON text)
    code, out, err = _cli("convert", "--to", "gemini", "-", input=log + "\n")
    assert code == 0
    assert err == (
        "chatpipe: warning: gemini cannot hold content blocks with no Gemini part: left out of "
        "1 message (mystery; -v lists them)\n"
    )
    assert '"mystery"' not in out
    code, out, err = _cli("convert", "--to", "gemini", "--keep-extras", "-", input=log + "\n")
    assert code == 0
    assert err == (
        "chatpipe: warning: gemini cannot hold blocks with no Gemini part (written as JSON text): "
        "left out of 1 message (-v lists them)\n"
    )
    assert json.loads(out) == {
        "contents": [
            {
                "role": "user",
                "parts": [
                    {"inlineData": {"mimeType": "image/png", "data": "iVBOR"}},
                    {"fileData": {"fileUri": "gs://b/doc.pdf", "mimeType": "application/pdf"}},
                    {"fileData": {"fileUri": "https://e.x/a.mp3"}},
                    {"executableCode": {"language": "PYTHON", "code": "1+1"}},
                    {"text": '{"type": "mystery", "x": 1}'},
                ],
            },
            {
                "role": "model",
                "parts": [
                    {"text": "hmm", "thought": True, "thoughtSignature": "sig=="},
                    {"text": "ok"},
                ],
            },
        ]
    }
    # and back: the thought and its signature come home
    back = _cli("convert", "--from", "gemini", "-", input=out)[1]
    assert json.loads(back)["messages"][1]["content"][0] == {
        "type": "reasoning",
        "reasoning": "hmm",
        "extras": {"thought_signature": "sig=="},
    }


def test_gemini_cached_tokens_and_a_system_instruction_that_is_not_text():
    response = {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "a"}]}}],
        "usageMetadata": {
            "promptTokenCount": 10,
            "candidatesTokenCount": 4,
            "totalTokenCount": 14,
            "cachedContentTokenCount": 6,
        },
    }
    assert _first_message(response)["usage_metadata"] == {
        "input_tokens": 10,
        "output_tokens": 4,
        "total_tokens": 14,
        "input_token_details": {"cache_read": 6},
    }
    request = {
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "systemInstruction": {"parts": [{"text": 5}]},
    }
    code, out, err = _cli("convert", "-", input=json.dumps(request))
    assert (code, out) == (1, "")
    assert err == "chatpipe: error: <stdin>:1:1: systemInstruction's parts must hold text strings\n"


def test_llamafactory_media_parts_and_parts_of_its_own():
    row = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "image_url", "value": "data:image/png;base64,iVBOR", "size": [2, 2]},
                    {"type": "audio", "value": "data:;base64,AAAA"},
                    {"type": "text", "value": "what?"},
                    {"type": "table", "value": "a|b"},
                ],
            },
            {"role": "assistant", "content": [{"type": "text", "value": "a cat"}]},
        ]
    }
    code, out, err = _cli("convert", "-v", "-", input=json.dumps(row))
    assert code == 0 and "llamafactory (json, conversation per record)" in err
    assert json.loads(out)["messages"] == [
        {
            "type": "human",
            "content": [
                {
                    "type": "image",
                    "base64": "iVBOR",
                    "mime_type": "image/png",
                    "extras": {"size": [2, 2]},
                },
                {"type": "audio", "base64": "AAAA"},  # a data URL without a media type
                {"type": "text", "text": "what?"},
                {"type": "table", "value": "a|b"},  # a part of its own, kept as it is
            ],
        },
        {"type": "ai", "content": [{"type": "text", "text": "a cat"}]},
    ]


@pytest.mark.parametrize(
    ("message", "said"),
    [
        (
            {"role": "assistant", "content": [{"type": "tool_call", "value": "{not json"}]},
            'message 1: a tool_call part must be JSON text {"name", "arguments"}',
        ),
        (
            {
                "role": "assistant",
                "content": [{"type": "tool_call", "value": '{"name": "f", "arguments": "[1]"}'}],
            },
            "message 1: tool_call 'f': arguments must be a JSON object, got a list",
        ),
        ("hello", "message 1: not a llamafactory message (got a string)"),
    ],
)
def test_llamafactory_records_it_cannot_read_are_one_line(message, said):
    code, out, err = _cli(
        "convert", "--from", "llamafactory", "-", input=json.dumps({"messages": [message]})
    )
    assert (code, out, err) == (1, "", f"chatpipe: error: <stdin>:1:1: {said}\n")


def test_markdown_and_yaml_of_several_conversations():
    rows = FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"
    conversations = list(read([str(rows)]))
    assert len(conversations) == 5
    markdown = runner.invoke(app, ["convert", "--to", "markdown", str(rows)]).stdout
    sections = markdown.split("\n---\n\n")  # one per conversation
    # untitled rows: called by their first question (the fourth has none)
    assert [s.splitlines()[0] for s in sections] == [
        "# I fell off my bike today.",
        "# I lost my tennis match today.",
        "# I lost my book today.",
        "# Conversation 4",
        "# I'm hungry.",
    ]
    # each message's own text, as the dialect writes it alone, stands in its section
    dialect = get_dialect("markdown")
    for section, conversation in zip(sections, conversations, strict=True):
        for text in dialect.write_messages(conversation.messages):
            assert text in section
    document = yaml.safe_load(runner.invoke(app, ["convert", "--to", "yaml", str(rows)]).stdout)
    assert [len(c["messages"]) for c in document] == [len(c.messages) for c in conversations]
    canonical = [
        json.loads(line) for line in runner.invoke(app, ["convert", str(rows)]).stdout.splitlines()
    ]
    assert document == canonical
    yaml_dialect = get_dialect("yaml")
    assert list(yaml_dialect.write_messages(conversations[0].messages)) == canonical[0]["messages"]


def test_a_long_log_as_yaml_is_written_in_batches_that_make_one_list(monkeypatch):
    import chatpipe.formats.yaml as yaml_format

    monkeypatch.setattr(yaml_format, "_YAML_BATCH", 3)  # the tool-call log's 8 messages: 3 batches
    log = str(FIXTURES / "openai_tool_calls.jsonl")
    document = yaml.safe_load(runner.invoke(app, ["convert", "--to", "yaml", log]).stdout)
    canonical = [
        json.loads(line) for line in runner.invoke(app, ["convert", log]).stdout.splitlines()
    ]
    assert document == canonical and len(document) == 8
