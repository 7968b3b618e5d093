"""``--to openai-responses``: Responses API ``input`` items with ``instructions`` from the
system turn, round-tripping the requests chatpipe reads."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from chatpipe.cli import app
from conftest import FIXTURES

runner = CliRunner()
REQUESTS = sorted(FIXTURES.glob("openai_responses__*_req_*.json"))


def cli(*args, input=None):
    result = runner.invoke(app, list(args), input=input)
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.name)
def test_a_request_chatpipe_reads_is_written_as_the_same_request(path, tmp_path):
    code, read, err = cli("convert", str(path))
    assert (code, err) == (0, "")
    code, written, err = cli("convert", "--to", "openai-responses", "--keep-extras", str(path))
    assert (code, err) == (0, "")
    again = tmp_path / "again.jsonl"
    again.write_text(written)
    code, reread, err = cli("convert", "--from", "openai-responses", str(again))
    assert (code, err, reread) == (0, "", read)


EVERY_ITEM = {
    "model": "gpt-x",
    "instructions": "Be brief.",
    "input": [
        "a bare string item",
        {"role": "developer", "content": "Use tools.", "id": "d1"},
        {"role": "system", "content": "sys"},
        {
            "type": "message",
            "role": "assistant",
            "id": "msg_1",
            "status": "completed",
            "content": [
                {"type": "output_text", "text": "x", "annotations": []},
                {"type": "refusal", "refusal": "no"},
                {"type": "mystery_part", "v": 1},
            ],
        },
        {"type": "custom_tool_call", "call_id": "ct1", "name": "sh", "input": "ls"},
        {"type": "custom_tool_call_output", "call_id": "ct1", "output": "a b"},
        {"type": "web_search_call", "id": "ws1", "status": "completed"},
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [{"type": "summary_text", "text": "think"}],
            "encrypted_content": "gAAA",
        },
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_1",
            "name": "f",
            "arguments": '{"a": 1}',
            "status": "completed",
        },
        {"type": "function_call_output", "call_id": "call_1", "output": "one"},
    ],
}


def test_every_kind_of_item_is_written_back():
    request = EVERY_ITEM
    code, out, err = cli(
        "convert", "--to", "openai-responses", "--keep-extras", "-", input=json.dumps(request)
    )
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "model": "gpt-x",
        "instructions": "Be brief.",
        "input": [
            {"role": "user", "content": "a bare string item"},
            {"role": "developer", "content": "Use tools.", "id": "d1"},
            {"role": "system", "content": "sys"},
            {
                "type": "message",
                "role": "assistant",
                "content": [
                    {"type": "output_text", "text": "x", "annotations": []},
                    {"type": "refusal", "refusal": "no"},
                    {"type": "mystery_part", "v": 1},
                ],
                "id": "msg_1",
                "status": "completed",
            },
            {"type": "custom_tool_call", "call_id": "ct1", "name": "sh", "input": "ls"},
            {"type": "custom_tool_call_output", "call_id": "ct1", "output": "a b"},
            {"type": "web_search_call", "id": "ws1", "status": "completed"},
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [{"type": "summary_text", "text": "think"}],
                "encrypted_content": "gAAA",
            },
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_1",
                "status": "completed",
                "name": "f",
                "arguments": '{"a": 1}',
            },
            {"type": "function_call_output", "call_id": "call_1", "output": "one"},
        ],
    }


def test_by_default_each_item_holds_only_what_the_api_takes_and_the_rest_is_said():
    code, out, err = cli("convert", "--to", "openai-responses", "-", input=json.dumps(EVERY_ITEM))
    assert code == 0
    items = json.loads(out)["input"]
    # an easy message takes no id; the part no Responses content has, and the web search
    # logged without the action the API needs, are left out; the rest as it came
    assert items[1] == {"role": "developer", "content": "Use tools."}
    assert items[3]["content"] == [
        {"type": "output_text", "text": "x", "annotations": []},
        {"type": "refusal", "refusal": "no"},
    ]
    assert [i.get("type") for i in items] == [
        None,
        None,
        None,
        "message",
        "custom_tool_call",
        "custom_tool_call_output",
        "reasoning",
        "function_call",
        "function_call_output",
    ]
    assert err == (
        "chatpipe: warning: openai-responses cannot hold message fields the API does not "
        "take: left out of 1 message (id; -v lists them)\n"
        "chatpipe: warning: openai-responses cannot hold content blocks with no Responses "
        "part: left out of 1 message (mystery_part; -v lists them)\n"
        "chatpipe: warning: openai-responses cannot hold built-in tool items without what the "
        "API needs to take them back: left out of 1 message (web_search_call without action; "
        "-v lists them)\n"
    )


def test_a_chat_log_becomes_a_request_with_its_system_turn_as_instructions():
    path = FIXTURES / "openai_chat__pydanticai_req_system_tools_tool_result.json"
    code, out, err = cli("convert", "--to", "openai-responses", str(path))
    assert (code, err) == (
        0,
        "chatpipe: warning: openai-responses cannot hold conversation fields the API does not "
        "take: left out of 1 conversation (n; -v lists them)\n",
    )
    assert out == (
        '{"model":"gpt-4.1-mini","stream":false,"tool_choice":"auto","tools":[{"type":'
        '"function","description":"","name":"get_temperature","parameters":{"additionalProperties"'
        ':false,"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"},'
        '"strict":true}],"instructions":"You are a helpful assistant.","input":[{"role":"user",'
        '"content":"What is the temperature in Tokyo?"},{"type":"function_call","call_id":'
        '"call_bhZkmIKKItNGJ41whHUHB7p9","name":"get_temperature","arguments":"{\\"city\\": '
        '\\"Tokyo\\"}"},{"type":"function_call_output","call_id":"call_bhZkmIKKItNGJ41whHUHB7p9",'
        '"output":"20.0"}]}\n'
    )


def test_media_and_files_become_input_parts():
    conversation = {
        "messages": [
            {
                "type": "human",
                "content": [
                    {"type": "image", "base64": "iVBO", "mime_type": "image/png"},
                    {"type": "image", "file_id": "file-1"},
                    {"type": "file", "url": "https://e.x/a.pdf", "filename": "a.pdf"},
                    {"type": "file", "base64": "JVBE", "mime_type": "application/pdf"},
                    {
                        "type": "image_url",
                        "image_url": {"url": "https://e.x/b.png", "detail": "low"},
                    },
                    {
                        "type": "text-plain",
                        "text": "notes",
                        "title": "n.txt",
                        "mime_type": "text/plain",
                    },
                ],
            },
            {
                "type": "ai",
                "content": "",
                "invalid_tool_calls": [
                    {
                        "type": "invalid_tool_call",
                        "id": "c9",
                        "name": "g",
                        "args": "{bad",
                        "error": None,
                    }
                ],
            },
        ]
    }
    code, out, err = cli(
        "convert",
        "--from",
        "canonical",
        "--to",
        "openai-responses",
        "-",
        input=json.dumps(conversation),
    )
    assert (code, err) == (0, "")
    assert json.loads(out)["input"] == [
        {
            "role": "user",
            "content": [
                # (detail: the API's own default, which its type asks for)
                {
                    "type": "input_image",
                    "image_url": "data:image/png;base64,iVBO",
                    "detail": "auto",
                },
                {"type": "input_image", "file_id": "file-1", "detail": "auto"},
                {"type": "input_file", "file_url": "https://e.x/a.pdf", "filename": "a.pdf"},
                {"type": "input_file", "file_data": "data:application/pdf;base64,JVBE"},
                {"type": "input_image", "image_url": "https://e.x/b.png", "detail": "low"},
                {"type": "input_text", "text": '<file name="n.txt">\nnotes\n</file>'},
            ],
        },
        {"type": "function_call", "call_id": "c9", "name": "g", "arguments": "{bad"},
    ]


def test_what_the_responses_api_cannot_hold_is_said():
    path = FIXTURES / "anthropic_messages__pydanticai_req_redacted_thinking_history.json"
    code, out, err = cli("convert", "--to", "openai-responses", str(path))
    assert code == 0
    # (Anthropic's max_tokens is the Responses API's max_output_tokens)
    assert json.loads(out)["max_output_tokens"] == json.loads(path.read_text())["max_tokens"]
    assert err == (
        "chatpipe: warning: openai-responses cannot hold another model's redacted thinking: "
        "left out of 1 message (-v lists them)\n"
        "chatpipe: warning: openai-responses cannot hold conversation fields the API does not "
        "take: left out of 1 conversation (thinking; -v lists them)\n"
    )
    path = FIXTURES / "anthropic_messages__pydanticai_req_thinking_text_tool_use_tool_result.json"
    code, out, err = cli("convert", "--to", "openai-responses", str(path))
    assert code == 0
    assert (
        "chatpipe: warning: openai-responses cannot hold reasoning that is not a Responses "
        "reasoning item (the API takes back only its own, by id with its encrypted content): "
        "left out of 1 message (-v lists them)\n"
    ) in err
    items = json.loads(out)["input"]  # (the turn's text, then its call)
    assert [(i.get("type"), i.get("role")) for i in items][1:3] == [
        (None, "assistant"),
        ("function_call", None),
    ]
    # with --keep-extras, written as a reasoning item of its text, and said so
    code, out, err = cli("convert", "--to", "openai-responses", "--keep-extras", str(path))
    assert code == 0
    assert err == (
        "chatpipe: warning: reasoning that is not a Responses reasoning item in 1 message: "
        "written as reasoning items of summary text, without the id and encrypted content the "
        "API needs to take them back (-v lists them)\n"
    )
    reasoning = json.loads(out)["input"][1]
    assert reasoning["type"] == "reasoning" and "id" not in reasoning
    path = FIXTURES / "openai_chat__pydanticai_req_input_audio.json"
    code, out, err = cli("convert", "--to", "openai-responses", str(path))
    assert (code, json.loads(out)["input"]) == (
        0,
        [
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "Whose name is mentioned in the audio?"}
                ],
            }
        ],
    )
    assert "cannot hold audio and video" in err
