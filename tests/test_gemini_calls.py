"""Gemini function calls (issue 39): Gemini 3's streamed arguments assembled from their
``partialArgs`` paths (nested keys and arrays, across chunks, and in a request that replays
such a call), call ids paired with the ``functionResponse`` ids a file gives, and a stream
of one chunk read as a stream."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from chatpipe.cli import app
from chatpipe.formats.gemini_calls import CallPieces, apply_piece, path_steps
from chatpipe.pipeline.reading import read
from conftest import FIXTURES

runner = CliRunner()


def run(*args, input=None):
    result = runner.invoke(app, [str(a) for a in args], input=input)
    return result.exit_code, result.stdout, result.stderr


def calls(name):
    return [
        (c["name"], c["args"], c["id"])
        for conversation in read([str(FIXTURES / name)])
        for m in conversation.messages
        for c in getattr(m, "tool_calls", [])
    ]


def test_streamed_arguments_with_array_paths_become_lists():
    assert calls("gemini__vercel_stream_partial_args_array_no_closing_call.jsonl") == [
        (
            "writeItems",
            {
                "operations": [
                    {
                        "action": "add",
                        "description": "Fresh red apple",
                        "itemid": "apple_001",
                        "price": 0.5,
                    },
                    {
                        "action": "add",
                        "description": "Ripe yellow banana",
                        "itemid": "banana_001",
                        "price": 0.3,
                    },
                ]
            },
            "call_0_0",
        )
    ]


def test_streamed_arguments_nested_in_objects_and_arrays_with_strings_in_pieces():
    [(name, args, _)] = calls("gemini__vercel_stream_partial_args_nested_arrays.jsonl")
    recipe = args["recipe"]
    assert (name, sorted(args), sorted(recipe)) == (
        "cookRecipe",
        ["recipe"],
        ["ingredients", "name", "steps"],
    )
    assert recipe["name"] == "Lasagna"
    assert recipe["ingredients"][:2] == [
        {"amount": "16 oz", "name": "Lasagna noodles"},
        {"amount": "1 lb", "name": "Ground beef"},
    ]
    assert len(recipe["ingredients"]) == 10 and len(recipe["steps"]) == 10
    # "Cook ... set aside" and "." came as two pieces; "In a 9x13 ... spread a" and " thin ..."
    assert recipe["steps"][1] == (
        "Cook lasagna noodles according to package directions, drain and set aside."
    )
    assert recipe["steps"][4] == "In a 9x13 baking dish, spread a thin layer of meat sauce."


def test_a_call_with_no_arguments_then_streamed_ones():
    assert calls("gemini__vercel_stream_no_args_call_then_partial_args.jsonl") == [
        ("read_theme", {}, "call_0_0"),
        ("read_screen", {"id": "A"}, "call_0_1"),
        ("read_screen", {"id": "B"}, "call_0_2"),
        ("read_screen", {"id": "C"}, "call_0_3"),
    ]


def test_a_request_replaying_a_streamed_call_one_chunk_a_turn():
    """As a chat client records a streamed reply: each chunk's content a model turn."""
    [conversation] = read(
        [str(FIXTURES / "gemini__derived_req_replayed_streamed_call_history.json")]
    )
    human, ai, last, tool = conversation.messages
    assert human.content == "Add an apple at 0.50 and a banana at 0.30 to the list."
    assert ai.tool_calls == [
        {
            "name": "writeItems",
            "args": {
                "operations": [
                    {
                        "action": "add",
                        "description": "Fresh red apple",
                        "itemid": "apple_001",
                        "price": 0.5,
                    },
                    {
                        "action": "add",
                        "description": "Ripe yellow banana",
                        "itemid": "banana_001",
                        "price": 0.3,
                    },
                ]
            },
            "id": "call_1_0",
            "type": "tool_call",
        }
    ]
    assert (last.content, last.tool_calls) == ("", [])  # the stream's last chunk: {"text": ""}
    assert (tool.tool_call_id, tool.content) == ("call_1_0", '{"written": 2}')


def test_pieces_of_one_call_in_one_turn_of_a_request():
    request = {
        "contents": [
            {"role": "user", "parts": [{"text": "go"}]},
            {
                "role": "model",
                "parts": [
                    {"functionCall": {"name": "f", "willContinue": True}},
                    {
                        "functionCall": {
                            "partialArgs": [
                                {"jsonPath": "$.a.b[1]", "numberValue": 2},
                                {"jsonPath": "$['odd.key']", "boolValue": True},
                                {"jsonPath": "$.c", "nullValue": None},
                                {"jsonPath": "$.s", "stringValue": "one ", "willContinue": True},
                                {"jsonPath": "$.s", "stringValue": "two"},
                                {"jsonPath": "nowhere", "stringValue": "x"},
                            ],
                            "willContinue": True,
                        }
                    },
                    {"functionCall": {}},
                    {"text": "done"},
                ],
            },
        ]
    }
    code, out, err = run("convert", "-", input=json.dumps(request))
    assert (code, err) == (0, "")
    assert json.loads(out)["messages"][1] == {
        "type": "ai",
        "content": "done",
        "tool_calls": [
            {
                "name": "f",
                # $.a.b[1] with nothing at b[0]: kept unread, not padded with a null (#51)
                "args": {"odd.key": True, "c": None, "s": "one two"},
                "id": "call_1_0",
                "type": "tool_call",
            }
        ],
        "additional_kwargs": {
            "unread_partial_args": [
                {"jsonPath": "$.a.b[1]", "numberValue": 2},
                {"jsonPath": "nowhere", "stringValue": "x"},
            ]
        },
    }


@pytest.mark.parametrize(
    ("path", "steps"),
    [
        ("$.location", ["location"]),
        ("$.recipe.ingredients[10].amount", ["recipe", "ingredients", 10, "amount"]),
        ("$['a.b'][0]", ["a.b", 0]),
        ('$["q\\"uote"]', ['q"uote']),
        ("$", []),
        ("location", None),
        ("$.a[x]", None),
    ],
)
def test_json_paths(path, steps):
    assert path_steps(path) == steps


def test_pieces_that_cannot_be_set_are_kept_apart():
    args = {"a": "text"}
    assert not apply_piece(args, {"jsonPath": "$.a.b", "numberValue": 1})  # under a string
    assert not apply_piece(args, {"jsonPath": "$.x"})  # no value
    assert not apply_piece(args, "not a piece")
    assert apply_piece(args, {"json_path": "$.n", "number_value": 3})  # snake_case keys
    assert args == {"a": "text", "n": 3}
    pieces = CallPieces()
    pieces.add({"partialArgs": [{"jsonPath": "$.x", "stringValue": "y"}]})  # no call open
    assert pieces.unread == [{"jsonPath": "$.x", "stringValue": "y"}] and pieces.open is None


# -- ids: those the file gives win, made-up ones on both sides of a pair --------------------


def test_a_response_id_the_call_lacks_becomes_the_call_id():
    code, out, err = run(
        "openai", FIXTURES / "gemini__documented_req_response_ids_and_tool_list.json"
    )
    assert (code, err) == (0, "")
    record = json.loads(out)
    assistant, tool = record["messages"][2:4]
    assert assistant["tool_calls"] == [
        {
            "type": "function",
            "id": "run_shell_command-1763647449000-a2",
            "function": {
                "name": "run_shell_command",
                "arguments": '{"command": "wc -l README.md"}',
            },
        }
    ]
    assert tool["tool_call_id"] == "run_shell_command-1763647449000-a2"


def test_made_up_ids_on_both_sides_and_signatures_follow_a_renamed_call():
    request = {
        "contents": [
            {
                "role": "model",
                "parts": [
                    {"functionCall": {"name": "a", "args": {}}, "thoughtSignature": "sig"},
                    {"functionCall": {"name": "b", "args": {}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"id": "given", "name": "a", "response": {"r": 1}}},
                    {"functionResponse": {"name": "b", "response": {"r": 2}}},
                    {"functionResponse": {"id": "stray", "name": "c", "response": {}}},
                ],
            },
        ]
    }
    [conversation] = _read(request)
    ai, first, second, stray = conversation.messages
    assert [c["id"] for c in ai.tool_calls] == ["given", "call_0_1"]
    assert ai.additional_kwargs == {"thought_signatures": {"given": "sig"}}
    assert [m.tool_call_id for m in (first, second, stray)] == ["given", "call_0_1", "stray"]


def _read(record):
    from chatpipe.errors import Location
    from chatpipe.formats.registry import get_dialect

    return [get_dialect("gemini").read_conversation(record, Location("<test>"))]


# -- a stream of one chunk ----------------------------------------------------------------


ONE_CHUNK = {
    "type": "ai",
    "content": [{"type": "text", "text": "OK", "extras": {"thought_signature": "SIG"}}],
    "usage_metadata": {
        "input_tokens": 5,
        "output_tokens": 101,
        "total_tokens": 106,
        "output_token_details": {"reasoning": 100},
    },
    "response_metadata": {
        "finishReason": "STOP",
        "model_name": "gemini-3-flash-preview",
        "id": "a9--aa6MOKL4vdIPz7X2iQ4",
        "model_provider": "google_genai",
        "createTime": "2026-03-21T18:11:55.919086Z",
    },
}


@pytest.mark.parametrize(
    ("name", "container"),
    [
        ("gemini__pydanticai_stream_one_chunk_vertex_flex.sse", "sse"),
        ("gemini__documented_stream_one_chunk_json_array.json", "json"),
    ],
)
def test_a_stream_of_one_chunk_is_read_as_a_stream(name, container):
    path = FIXTURES / name
    code, out, err = run("convert", "-v", path)
    assert code == 0
    assert err == f"chatpipe: read {path}: gemini-stream ({container}, a stream of events)\n"
    record = json.loads(out)
    content = record["messages"][0]["content"][0]
    content["extras"]["thought_signature"] = "SIG"
    assert record == {"messages": [ONE_CHUNK]}  # the stream's fields: on its message only


def test_one_response_alone_is_still_a_response():
    chunk = json.loads(
        (FIXTURES / "gemini__documented_stream_one_chunk_json_array.json").read_text()
    )
    code, out, err = run("convert", "-v", "-", input=json.dumps(chunk[0]))
    assert code == 0
    assert err == "chatpipe: read <stdin>: gemini (json, conversation per record)\n"
    assert json.loads(out)["createTime"] == "2026-03-21T18:11:55.919086Z"
