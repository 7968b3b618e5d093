"""Vercel AI SDK UIMessage logs, the ``ai-sdk-ui`` dialect (issue 39, item 4): detected
in every container they are kept in, and read part by part (text, reasoning, files,
sources, tool calls with their results, steps)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from chatpipe.cli import app
from chatpipe.formats.ai_sdk_ui import is_ui_message
from chatpipe.formats.detect import detect
from chatpipe.pipeline.reading import read
from conftest import FIXTURES
from expected_messages import conversation_fixtures

runner = CliRunner()
STORE = FIXTURES / "ai_sdk_ui__documented_chat_store_steps_sources.json"
SUBMIT = FIXTURES / "ai_sdk_ui__pydanticai_submit_message_every_part.json"


def run(*args, input=None):
    result = runner.invoke(app, [str(a) for a in args], input=input)
    return result.exit_code, result.stdout, result.stderr


USER = {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Hello there"}]}
ASSISTANT = {
    "id": "a1",
    "role": "assistant",
    "parts": [{"type": "step-start"}, {"type": "text", "text": "Hi!", "state": "done"}],
}


@pytest.mark.parametrize(
    ("text", "container", "shape"),
    [
        (json.dumps([USER, ASSISTANT]), "json", "message per record"),
        (json.dumps(USER) + "\n" + json.dumps(ASSISTANT) + "\n", "jsonl", "message per record"),
        (
            json.dumps({"id": "chat", "messages": [USER, ASSISTANT], "trigger": "submit-message"}),
            "json",
            "conversation per record",
        ),
    ],
    ids=["array", "jsonl", "request"],
)
def test_ui_messages_are_detected_and_read_with_their_text(text, container, shape):
    code, out, err = run("buffer", "-v", "-", input=text)
    assert code == 0
    assert err == f"chatpipe: read <stdin>: ai-sdk-ui ({container}, {shape})\n"
    assert out == "Human: Hello there\nAI: Hi!\n"


def test_a_log_that_starts_with_plain_content_turns_is_still_ai_sdk_ui():
    """AI SDK 4 logs: user turns with only ``content``, assistant turns with parts."""
    log = [{"role": "user", "content": "[INIT_CHAT]", "id": "Cn5W"}, ASSISTANT]
    code, out, err = run("convert", "-v", "-", input=json.dumps(log))
    assert code == 0
    assert err == "chatpipe: read <stdin>: ai-sdk-ui (json, message per record)\n"
    assert [json.loads(line) for line in out.splitlines()] == [
        {"type": "human", "content": "[INIT_CHAT]", "id": "Cn5W"},
        {
            "type": "ai",
            "content": [{"type": "text", "text": "Hi!", "extras": {"state": "done"}}],
            "id": "a1",
        },
    ]


def test_steps_tools_sources_and_files_of_a_stored_chat():
    [conversation] = read([str(STORE)])
    user, ai, weather, search, found, answer = list(conversation.messages)[:6]
    assert user.content[1] == {
        "type": "image",
        "url": "https://example.com/uploads/balcony.jpg",
        "mime_type": "image/jpeg",
        "filename": "balcony.jpg",
    }
    assert ai.id == "msg-7f2c1d0a9e8b"
    assert ai.additional_kwargs == {
        "tool_parts": {"call_W1x2y3": {"state": "output-available"}},
        "metadata": {"createdAt": 1767225600000, "model": "gpt-5-mini", "totalTokens": 812},
    }
    assert ai.content == [
        {
            "type": "reasoning",
            "reasoning": "The user wants current weather; call the weather tool first.",
            "extras": {"state": "done", "providerMetadata": {"openai": {"itemId": "rs_0a1b2c3d"}}},
        }
    ]
    assert (weather.type, weather.tool_call_id, weather.name, weather.content) == (
        "tool",
        "call_W1x2y3",
        "getWeatherInformation",
        '{"temperature": 18, "conditions": "light rain"}',
    )
    assert search.tool_calls == [
        {
            "name": "mcp__search__web",
            "args": {"query": "Berlin weather today"},
            "id": "call_S9t8u7",
            "type": "tool_call",
        }
    ]
    assert search.content == [
        {
            "type": "non_standard",
            "value": {
                "type": "data-weather",
                "id": "weather-1",
                "data": {"city": "Berlin", "temperature": 18},
            },
        }
    ]
    assert found.content == "Berlin: 18 °C, light rain, wind 12 km/h (dwd.de)"
    # the sources cite the answer after them
    assert answer.content[0]["annotations"] == [
        {
            "type": "citation",
            "url": "https://www.dwd.de/EN/weather/weather_climate_local/berlin.html",
            "title": "Deutscher Wetterdienst: Berlin",
            "extras": {"sourceId": "src_1"},
        },
        {
            "type": "citation",
            "title": "Berlin climate report",
            "extras": {
                "sourceId": "src_2",
                "mediaType": "application/pdf",
                "filename": "berlin-climate.pdf",
            },
        },
    ]


def test_denied_streaming_and_ai_sdk_4_tool_parts():
    [conversation] = read([str(STORE)])
    asked, denied, left, v4, v4_result, v4_text = list(conversation.messages)[7:]
    assert [c["id"] for c in asked.tool_calls] == ["call_D5e6f7", "call_P1q2r3"]
    assert asked.additional_kwargs["tool_parts"]["call_P1q2r3"] == {"state": "input-streaming"}
    assert (denied.status, denied.content) == (
        "error",
        "The user declined in the confirmation dialog.",
    )
    assert left.content[0]["text"] == "Okay, I left your saved locations as they are."
    assert (v4.id, v4.tool_calls[0]["args"], v4.additional_kwargs) == (
        "v4-message-1",
        {"city": "Köln"},
        {"tool_parts": {"call_v4a": {"state": "result", "step": 0}}},  # as it came
    )
    assert (v4_result.tool_call_id, v4_result.content) == ("call_v4a", "21 °C, sunny")
    assert v4_text.content == "Earlier answer, as AI SDK 4 stored it."


def test_a_submit_message_request_with_every_kind_of_part():
    code, out, err = run("convert", "-v", SUBMIT)
    assert code == 0
    assert err == f"chatpipe: read {SUBMIT}: ai-sdk-ui (json, conversation per record)\n"
    record = json.loads(out)
    assert (record["id"], record["trigger"]) == ("bvQXcnrJ4OA2iRKU", "submit-message")
    types = [m["type"] for m in record["messages"]]
    assert types == ["system", "human", "ai", "human", "ai", *["tool"] * 5, "ai"]
    errors = [m for m in record["messages"] if m.get("status") == "error"]
    assert [(m["tool_call_id"], m["content"]) for m in errors] == [
        ("toolu_01W2yGpGQcMx7pXV2zZ4sz9g", "Can't do that"),
        ("toolu_01W2yGpGQcMx7pXV2z", "Can't do that"),
    ]
    web = record["messages"][4]["additional_kwargs"]["tool_parts"]["toolu_01W2yGpGQcMx7pXV2zZ4s"]
    assert web == {
        "providerExecuted": True,
        "callProviderMetadata": {
            "pydantic_ai": {
                "call_meta": {"provider_name": "openai"},
                "return_meta": {"provider_name": "openai_return"},
            }
        },
        "state": "output-available",
    }


def test_validate_places_each_problem_at_its_record():
    code, out, _ = run("validate", STORE)
    assert code == 1
    assert out == (
        f"{STORE}:106:3: unanswered_tool_call: tool call 'call_P1q2r3' has no result "
        "(add the tool result, or drop the call)\n"
    )


@pytest.mark.parametrize(
    ("message", "said"),
    [
        ({"role": "tool", "parts": [{"type": "text", "text": "x"}]}, "not a ai-sdk-ui message"),
        ({"id": "m", "role": "user", "parts": "text"}, "'parts' must be a list of objects"),
    ],
)
def test_records_it_cannot_read_are_one_line(message, said):
    code, out, err = run("convert", "--from", "ai-sdk-ui", "-", input=json.dumps(message))
    assert (code, out) == (1, "")
    assert said in err and len(err.splitlines()) == 1


def test_tool_inputs_that_are_not_objects_are_kept_as_invalid_calls():
    message = {
        "id": "a",
        "role": "assistant",
        "parts": [
            {
                "type": "tool-Task",
                "toolCallId": "c3",
                "state": "output-available",
                "input": "not an object",
                "output": "done",
            },
            {
                "type": "tool-Json",
                "toolCallId": "c4",
                "state": "input-available",
                "input": '{"q": 1}',
            },
        ],
    }
    from chatpipe.formats.registry import get_dialect

    ai, result = get_dialect("ai-sdk-ui").read_message(message)
    assert ai.invalid_tool_calls == [
        {
            "type": "invalid_tool_call",
            "id": "c3",
            "name": "Task",
            "args": "not an object",
            "error": "input is not an object",
        }
    ]
    assert ai.tool_calls == [{"name": "Json", "args": {"q": 1}, "id": "c4", "type": "tool_call"}]
    assert (result.tool_call_id, result.content) == ("c3", "done")


def test_no_other_fixture_is_taken_for_ui_messages():
    """Detection over every fixture: only the ai-sdk-ui ones are UIMessages."""
    checked, ours = 0, 0
    for path in conversation_fixtures():
        text = path.read_text(encoding="utf-8")
        if path.suffix not in (".json", ".jsonl"):
            continue
        try:
            values = [json.loads(text)]
        except ValueError:
            values = [json.loads(line) for line in text.splitlines() if line.strip()]
        if len(values) == 1 and isinstance(values[0], list):
            values = values[0]
        found = detect(values[0], values[1:20]) if values else None
        is_ours = found is not None and found[0].name == "ai-sdk-ui"
        assert is_ours == path.name.startswith("ai_sdk_ui__"), path.name
        checked, ours = checked + 1, ours + is_ours
    assert checked > 100 and ours == len(list(FIXTURES.glob("ai_sdk_ui__*.json*"))) > 0


@pytest.mark.parametrize(
    "value",
    [
        {"role": "user", "parts": [{"text": "a Gemini content"}]},
        {"role": "model", "parts": [{"type": "text", "text": "x"}]},
        {"role": "user", "content": [{"type": "text", "text": "x"}], "parts": []},
        {"role": "user", "parts": []},
        {"role": "user", "parts": [{"type": "mystery"}]},
    ],
)
def test_shapes_that_are_not_ui_messages(value):
    assert not is_ui_message(value)
