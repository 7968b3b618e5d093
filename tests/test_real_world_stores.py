"""Agents' saved histories, history stores and training datasets that chatpipe once refused
or misread (issue 39: bare Anthropic arrays, processor media parts, JSONL of arrays,
Conversations API item lists, LangChain's file stores, ms-swift / Firefly pairs, Alpaca).

Each test reads a fixture from a real public file (or, where none exists, one written from
the documented shape; fixtures/SOURCES.md says which) and checks the exact result.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from chatpipe.cli import app
from conftest import FIXTURES

runner = CliRunner()


def run(*args, input=None):
    result = runner.invoke(app, [str(a) for a in args], input=input)
    return result.exit_code, result.stdout, result.stderr


def records(*args, input=None):
    code, out, err = run("convert", *args, input=input)
    assert (code, err) == (0, ""), err
    return [json.loads(line) for line in out.splitlines()]


def fixture(name):
    return FIXTURES / name


# -- a bare array of Anthropic turns (Cline's api_conversation_history.json) ---------------


def test_a_bare_array_of_anthropic_turns_reads_as_anthropic():
    path = fixture("anthropic_messages__derived_bare_array_thinking_tool_use_tool_result.json")
    code, _, err = run("convert", "-v", path)
    assert (code, err) == (0, f"chatpipe: read {path}: anthropic (json, message per record)\n")
    human, ai, tool = records(path)
    assert human == {
        "type": "human",
        "content": [{"text": "What is the largest city in the user country?", "type": "text"}],
    }
    assert [b["type"] for b in ai["content"]] == ["thinking", "text", "tool_use"]
    assert ai["tool_calls"] == [
        {
            "name": "get_user_country",
            "args": {},
            "id": "toolu_01YGzqpRE16Vricda3Aqcejo",
            "type": "tool_call",
        }
    ]
    # the tool result is a tool message answering the call, not a human turn
    assert tool == {"type": "tool", "content": "Mexico", "tool_call_id": ai["tool_calls"][0]["id"]}


def test_cline_history_keeps_its_calls_its_image_and_its_own_fields():
    path = fixture("anthropic_messages__cline_api_conversation_history_trimmed.json")
    messages = records(path)
    assert [m["type"] for m in messages] == ["human", "ai", "human", "ai", "ai", "human"]
    assert [c["name"] for c in messages[3]["tool_calls"]] == [
        "list_files",
        "read_file",
        "read_file",
    ]
    # Cline's own keys beside role and content stay with the turn
    assert messages[0]["additional_kwargs"] == {"ts": 1777073160794}
    assert sorted(messages[1]["additional_kwargs"]) == ["metrics", "modelInfo", "ts"]
    assert messages[1]["additional_kwargs"]["modelInfo"] == {
        "modelId": "claude_4_5_opus",
        "providerId": "openai",
        "mode": "plan",
    }
    [image] = [b for b in messages[5]["content"] if b["type"] == "image"]
    assert image["source"]["media_type"] == "image/png"


def test_a_malformed_image_is_located_and_skipping_skips_its_conversation(tmp_path):
    # no media_type, and bytes that are no image's: nothing tells what the image is (a
    # PNG's or JPEG's bytes would: tests/test_provider_apis.py)
    bad = [
        {"role": "user", "content": [{"type": "text", "text": "look"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
        {
            "role": "user",
            "content": [{"type": "image", "source": {"type": "base64", "data": "AAAAAAAAAAA="}}],
        },
    ]
    good = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "r"}]},
    ]
    array = tmp_path / "history.json"
    array.write_text(json.dumps(bad, indent=1), encoding="utf-8")
    said = "content block 1: the image's base64 source has no 'media_type'"
    hint = "(give it the media's type, e.g. image/png)"
    assert run("convert", array) == (
        1,
        "",
        f"chatpipe: error: {array}:20:2: message 3: {said} {hint}\n",
    )
    assert run("convert", "--on-error", "skip", array) == (
        0,
        "",
        f"chatpipe: skipped: {array}:20:2: message 3: {said}; its conversation is left out "
        f"{hint}\nchatpipe: warning: skipped 1 bad record\n"
        f"chatpipe: warning: no conversations read from {array}\n",  # (its one was skipped)
    )
    # one conversation a line: the bad one is skipped, the next one written
    lines = tmp_path / "histories.jsonl"
    lines.write_text(json.dumps(bad) + "\n" + json.dumps(good) + "\n", encoding="utf-8")
    code, out, err = run("convert", "--on-error", "skip", lines)
    assert (code, err) == (
        0,
        f"chatpipe: skipped: {lines}:1:1: message 3: {said} {hint}\n"
        "chatpipe: warning: skipped 1 bad record\n",
    )
    assert json.loads(out)["messages"] == [
        {"type": "human", "content": "hi"},
        {
            "type": "ai",
            "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}],
            "tool_calls": [{"name": "f", "args": {}, "id": "t1", "type": "tool_call"}],
        },
        {"type": "tool", "content": "r", "tool_call_id": "t1"},
    ]


def test_an_anthropic_array_validates_with_its_tool_results(tmp_path):
    path = tmp_path / "history.json"
    turns = [
        {"role": "user", "content": "read a.py"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "read", "input": {}}],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "print(1)"},
                {"type": "text", "text": "<environment_details>...</environment_details>"},
            ],
        },
        {"role": "assistant", "content": [{"type": "text", "text": "It prints 1."}]},
    ]
    path.write_text(json.dumps(turns), encoding="utf-8")
    # a user turn of tool results and text is several messages, each checked
    for args in ((), ("--from", "anthropic")):
        assert run("validate", *args, path) == (0, "", "chatpipe: no problems found\n")


def test_openai_messages_with_blocks_of_their_own_stay_openai(tmp_path):
    """An image part or a tool call is OpenAI's: no Anthropic block type, no detection."""
    path = tmp_path / "log.json"
    path.write_text(
        json.dumps(
            [
                {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "u"}}]},
                {"role": "assistant", "content": "x", "tool_calls": []},
            ]
        ),
        encoding="utf-8",
    )
    code, _, err = run("convert", "-v", path)
    assert (code, err) == (0, f"chatpipe: read {path}: openai (json, message per record)\n")


# -- Hugging Face processors' media parts ---------------------------------------------------


def test_processor_media_parts_become_media_blocks_with_their_extras():
    path = fixture("hf_messages__documented_processor_media_parts.jsonl")
    first, second, third = (r["messages"][0]["content"] for r in records(path))
    assert first[0] == {
        "type": "image",
        "url": "https://qianwen-res.oss-cn-beijing.aliyuncs.com/Qwen-VL/assets/demo.jpeg",
    }
    assert second[:2] == [
        {
            "type": "image",
            "url": "file:///path/to/your/image.jpg",
            "extras": {"resized_height": 280, "resized_width": 420},
        },
        {
            "type": "video",
            "url": "file:///path/to/video1.mp4",
            "extras": {"max_pixels": 151200, "fps": 1.0},
        },
    ]
    assert third[:3] == [
        {
            "type": "audio",
            "url": "https://qianwen-res.oss-cn-beijing.aliyuncs.com/Qwen2-Audio/audio/"
            "glass-breaking-151256.mp3",
        },
        {"type": "image", "url": "./cat.jpg"},
        {"type": "image", "base64": "/9j/4AAQSkZJRgABAQ==", "mime_type": "image/jpeg"},
    ]


def test_openai_writes_processor_images_as_image_parts(tmp_path):
    path = tmp_path / "row.jsonl"
    path.write_text(
        fixture("hf_messages__documented_processor_media_parts.jsonl")
        .read_text(encoding="utf-8")
        .splitlines()[0]
        + "\n",
        encoding="utf-8",
    )
    code, out, err = run("openai", path)
    assert (code, err) == (0, "")
    assert json.loads(out)["messages"][0] == {
        "role": "user",
        "content": [
            {
                "type": "image_url",
                "image_url": {
                    "url": "https://qianwen-res.oss-cn-beijing.aliyuncs.com/Qwen-VL/assets/demo.jpeg"
                },
            },
            {"type": "text", "text": "Describe this image."},
        ],
    }


def test_processor_video_becomes_a_gemini_file_part():
    path = fixture("hf_messages__documented_processor_media_parts.jsonl")
    code, out, err = run("convert", "--to", "gemini", path)
    # the processor's sizes have no field of Gemini's, its frame rate has
    assert (code, err) == (
        0,
        "chatpipe: warning: gemini cannot hold content-part fields the API does not take: left "
        "out of 1 message (resized_height, resized_width, max_pixels; -v lists them)\n",
    )
    parts = json.loads(out.splitlines()[1])["contents"][0]["parts"]
    assert parts[1]["fileData"] == {"fileUri": "file:///path/to/video1.mp4"}
    assert parts[1]["videoMetadata"] == {"fps": 1.0}


# -- JSONL whose every line is a bare array of messages -------------------------------------


def test_jsonl_of_message_arrays_is_one_conversation_a_line():
    arrays = records(fixture("openai_chat__derived_jsonl_bare_message_arrays_first4.jsonl"))
    rows = records(fixture("openai_chat__cookbook_toy_chat_fine_tuning.jsonl"))[:4]
    assert arrays == rows
    assert len(arrays) == 4 and arrays[1]["messages"][1] == {
        "type": "human",
        "content": "I lost my tennis match today.",
    }
    forced = records(
        "--from", "openai", fixture("openai_chat__derived_jsonl_bare_message_arrays_first4.jsonl")
    )
    assert forced == rows


# -- OpenAI Conversations API item lists ----------------------------------------------------


def test_a_conversation_item_list_is_read_oldest_first():
    path = fixture("openai_responses__documented_conversation_items_newest_first.json")
    [record] = records(path)
    assert [m["type"] for m in record["messages"]] == ["human", "ai", "tool", "ai"]
    assert record["messages"][0]["content"] == [
        {"type": "text", "text": "What's the weather in Paris?"}
    ]
    assert record["messages"][1]["tool_calls"] == [
        {
            "name": "get_weather",
            "args": {"city": "Paris"},
            "id": "call_Wm2hLq9sYk3vTzX1",
            "type": "tool_call",
        }
    ]
    assert record["messages"][2]["tool_call_id"] == "call_Wm2hLq9sYk3vTzX1"
    assert {k: v for k, v in record.items() if k != "messages"} == {
        "object": "list",
        "first_id": "msg_68b5f0a3c4d881939f2e9c1b7d1e3c5a",
        "last_id": "msg_68b5f0a0d7e38193a4c2b0f9e8d7c6b5",
        "has_more": False,
        "order": "desc",
    }


def test_the_api_reference_item_list_is_detected_in_its_order():
    path = fixture("openai_responses__openapi_conversation_items_create_example.json")
    code, _, err = run("convert", "-v", path)
    assert (code, err) == (
        0,
        f"chatpipe: read {path}: openai-responses (json, conversation per record)\n",
    )
    [record] = records(path)
    assert [m["content"][0]["text"] for m in record["messages"]] == ["Hello!", "How are you?"]
    assert "order" not in record


def test_which_way_a_listed_page_runs():
    from chatpipe.formats.openai_responses import newest_first

    def msg(role):
        return {"type": "message", "role": role, "content": []}

    call = {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}
    output = {"type": "function_call_output", "call_id": "c", "output": "o"}
    assert newest_first([msg("assistant"), output, call, msg("user")])
    assert not newest_first([msg("user"), call, output, msg("assistant")])
    # a call listed first, with its output: oldest first, whatever the ends say
    assert not newest_first([msg("assistant"), call, output, msg("user")])
    assert newest_first([msg("assistant"), msg("user")])
    assert not newest_first([msg("user"), msg("assistant")])
    assert not newest_first([msg("user"), msg("user")])


def test_an_assistants_thread_message_list_is_not_taken_for_items():
    page = {
        "object": "list",
        "data": [{"id": "msg_1", "object": "thread.message", "role": "user", "content": []}],
        "first_id": "msg_1",
        "last_id": "msg_1",
        "has_more": False,
    }
    code, _, err = run("convert", "-", input=json.dumps(page) + "\n")
    assert code == 1 and "cannot tell what chat format this is" in err


# -- LangChain's history stores -------------------------------------------------------------


def test_langchainjs_file_store_gives_each_session_with_its_ids():
    path = fixture("langchain_dict__langchainjs_file_history_three_sessions.json")
    sessions = records(path)
    assert [(s["user_id"], s["session_id"], len(s["messages"])) for s in sessions] == [
        ("user-id", "5c6b9202-b464-4eef-9e2f-77e41fb7cf42", 6),
        ("user-id", "acb9e78e-ac70-44e1-8dfd-7c6fd173b35e", 4),
        ("user-id", "1cf741c7-b9f3-46e7-ab94-8ca79d8d21cf", 4),
    ]
    assert sessions[0]["messages"][:2] == [
        {"type": "human", "content": "Hello AI"},
        {"type": "ai", "content": "Hello there! How can I help you today?\n"},
    ]
    # the default user id is the empty string
    assert records(fixture("langchain_dict__langchainjs_file_history_default_user.json")) == [
        {
            "user_id": "",
            "session_id": "663cd190-96f5-4df6-abae-016df68795d1",
            "messages": [
                {"type": "human", "content": "Ola"},
                {
                    "type": "ai",
                    "content": "Configure OPENAI_API_KEY para obter respostas inteligentes.",
                },
                {"type": "human", "content": "ola"},
                {
                    "type": "ai",
                    "content": "Configure OPENAI_API_KEY para obter respostas inteligentes.",
                },
            ],
        }
    ]


def test_a_langchainjs_store_keeps_context_and_reads_generic_messages():
    store = {
        "u1": {
            "s1": {
                "messages": [
                    {"type": "generic", "data": {"content": "hi", "role": "critic"}},
                    {"type": "ai", "data": {"content": "yo", "tool_calls": []}},
                ],
                "context": {"title": "first"},
            }
        }
    }
    assert records("-", input=json.dumps(store)) == [
        {
            "user_id": "u1",
            "session_id": "s1",
            "messages": [
                {"type": "chat", "content": "hi", "role": "critic"},
                {"type": "ai", "content": "yo"},
            ],
            "context": {"title": "first"},
        }
    ]
    store["u1"]["s1"]["messages"][1] = {"type": "ai", "data": {"content": 5}}
    code, out, err = run("convert", "-", input=json.dumps(store))
    assert (code, out) == (1, "")
    assert err.startswith("chatpipe: error: <stdin>:1:1: message 2: user 'u1', session 's1': ")


def test_python_file_chat_message_history_reads_as_langchain_core_reads_it():
    from langchain_core.messages import messages_from_dict, messages_to_dict

    from chatpipe.formats.langchain import messages_to_dict as cp_messages_to_dict
    from chatpipe.pipeline.reading import read

    path = fixture("langchain_dict__python_file_chat_message_history.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    [conversation] = read([str(path)])
    assert cp_messages_to_dict(list(conversation.messages)) == messages_to_dict(
        messages_from_dict(data)
    )


# -- ms-swift / Firefly conversation pairs --------------------------------------------------


def test_swift_conversation_pairs_read_as_sharegpt():
    path = fixture("sharegpt__swift_conversation_pairs.jsonl")
    code, _, err = run("convert", "-v", path)
    assert (code, err) == (
        0,
        f"chatpipe: read {path}: sharegpt (jsonl, conversation per record)\n"
        "chatpipe: row lane: 3 rows of other shapes read the ordinary way\n",
    )
    assert records(path) == [
        {
            "messages": [
                {"type": "system", "content": "00000"},
                {"type": "human", "content": "11111"},
                {"type": "ai", "content": "22222"},
            ]
        },
        {"messages": [{"type": "human", "content": "aaaaa"}, {"type": "ai", "content": "bbbbb"}]},
        {
            "messages": [
                {"type": "human", "content": "AAAAA"},
                {"type": "ai", "content": "BBBBB"},
                {"type": "human", "content": "CCCCC"},
                {"type": "ai", "content": "DDDDD"},
                {"type": "human", "content": "EEEEE"},
                {"type": "ai", "content": "FFFFF"},
            ]
        },
    ]
    assert records("--from", "sharegpt", path) == records(path)


def test_firefly_rows_keep_their_fields_and_turns():
    path = fixture("sharegpt__firefly_moss_pairs_first3.jsonl")
    rows = records(path)
    assert [{k: v for k, v in r.items() if k != "messages"} for r in rows] == [
        {"conversation_id": n, "category": "Brainstorming", "dataset": "moss"} for n in (1, 2, 3)
    ]
    assert [len(r["messages"]) for r in rows] == [10, 8, 8]
    assert rows[1]["messages"][0] == {
        "type": "human",
        "content": "What best practices should I follow when designing a website?",
    }


def test_a_bad_pair_names_its_place():
    row = '{"conversation": [{"human": "a", "assistant": "b"}, {"human": 3}]}\n'
    assert run("convert", "-", input=row) == (
        1,
        "",
        'chatpipe: error: <stdin>:1:1: message 2: a {"human", "assistant"} turn must hold text\n',
    )


# -- Alpaca -----------------------------------------------------------------------------


def test_alpaca_rows_read_as_llamafactory_reads_them():
    path = fixture("alpaca__swift_history_system.jsonl")
    code, _, err = run("convert", "-v", path)
    assert (code, err) == (0, f"chatpipe: read {path}: alpaca (jsonl, conversation per record)\n")
    # system first, the history's pairs, then instruction and input joined by a line break
    assert records(path) == [
        {
            "messages": [
                {"type": "system", "content": "system123"},
                {"type": "human", "content": "aaaaa"},
                {"type": "ai", "content": "bbbbb"},
                {"type": "human", "content": "11111\n22222"},
                {"type": "ai", "content": "33333"},
            ]
        },
        {"messages": [{"type": "human", "content": "aaaaa"}, {"type": "ai", "content": "ccccc"}]},
        {
            "messages": [
                {"type": "human", "content": "AAAAA\nBBBBB"},
                {"type": "ai", "content": "CCCCC"},
            ]
        },
    ]


def test_llamafactory_alpaca_demo_joins_an_input_to_its_instruction():
    path = fixture("alpaca__llamafactory_en_demo_first6.json")
    rows = json.loads(path.read_text(encoding="utf-8"))
    read = records(path)
    assert len(read) == 6
    for row, record in zip(rows, read, strict=True):
        prompt = row["instruction"] + ("\n" + row["input"] if row["input"] else "")
        assert record == {
            "messages": [
                {"type": "human", "content": prompt},
                {"type": "ai", "content": row["output"]},
            ]
        }


def test_alpaca_preference_rows_keep_the_rejected_answer():
    path = fixture("alpaca__documented_preference_rows.json")
    first, _ = records(path)
    assert first == {
        "messages": [
            {
                "type": "human",
                "content": "Summarise the text in one sentence.\nCrepes are thin pancakes made "
                "from flour, eggs and milk, cooked quickly in a hot buttered pan.",
            },
            {
                "type": "ai",
                "content": "Crepes are thin, quickly cooked pancakes of flour, eggs and milk.",
            },
        ],
        "rejected": "Crepes are a kind of bread.",
    }
    code, out, err = run("convert", "--to", "alpaca", path)
    assert (code, err) == (0, "")
    assert json.loads(out.splitlines()[1]) == {
        "instruction": "Name a primary colour.",
        "input": "",
        "chosen": "Red.",
        "rejected": "Green, which is a primary colour of paint.",
    }


def test_alpaca_is_written_with_history_and_system():
    code, out, err = run("convert", "--to", "alpaca", fixture("alpaca__swift_history_system.jsonl"))
    assert (code, err) == (0, "")
    assert [json.loads(line) for line in out.splitlines()] == [
        {
            "instruction": "11111\n22222",
            "input": "",
            "output": "33333",
            "system": "system123",
            "history": [["aaaaa", "bbbbb"]],
        },
        {"instruction": "aaaaa", "input": "", "output": "ccccc"},
        {"instruction": "AAAAA\nBBBBB", "input": "", "output": "CCCCC"},
    ]


def test_a_sharegpt_preference_row_becomes_an_alpaca_preference_row():
    path = fixture("sharegpt__llamafactory_dpo_preference_first5.json")
    code, out, err = run("convert", "--to", "alpaca", path)
    assert (code, err) == (0, "")
    first = json.loads(out.splitlines()[0])
    source = json.loads(path.read_text(encoding="utf-8"))[0]
    assert sorted(first) == ["chosen", "input", "instruction", "rejected"]
    assert first["instruction"] == source["conversations"][-1]["value"]
    assert (first["chosen"], first["rejected"]) == (
        source["chosen"]["value"],
        source["rejected"]["value"],
    )


def test_what_an_alpaca_row_cannot_hold_is_reported():
    path = FIXTURES / "openai_tool_calls.jsonl"
    code, out, err = run("convert", "--to", "alpaca", "-v", path)
    assert code == 0
    assert json.loads(out) == {
        "instruction": "And this sky?",
        "input": "",
        "output": "Clear blue: no rain coming.",
        "system": "You are a weather assistant. Answer briefly.",
        "history": [
            [
                "What's the weather in Paris and in Köln?",
                "Paris: 18°C with light rain. Köln: 21°C and sunny.",
            ]
        ],
    }
    assert err == (
        f"chatpipe: read {path}: openai (jsonl, message per record)\n"
        "chatpipe: warning: alpaca cannot hold tool calls and tool results: left out of 3 "
        "messages\n"
        "chatpipe:   conversation 1, message 3\n"
        "chatpipe:   conversation 1, message 4\n"
        "chatpipe:   conversation 1, message 5\n"
        "chatpipe: warning: alpaca cannot hold content other than text (images, files, "
        "reasoning, ...): left out of 1 message\n"
        "chatpipe:   conversation 1, message 7\n"
    )


def test_turns_out_of_order_are_reported_not_merged():
    log = "\n".join(
        json.dumps(m)
        for m in [
            {"role": "assistant", "content": "Hello first."},
            {"role": "user", "content": "Q1"},
            {"role": "user", "content": "Q1 again"},
            {"role": "assistant", "content": "A1", "name": "bot"},
            {"role": "system", "content": "late rules"},
            {"role": "user", "content": "Q2"},
        ]
    )
    code, out, err = run("convert", "--to", "alpaca", "-", input=log + "\n")
    assert code == 0
    assert json.loads(out) == {
        "instruction": "Q2",
        "input": "",
        "output": "",
        "history": [["Q1", "A1"]],
    }
    assert err == (
        "chatpipe: warning: alpaca cannot hold turns out of user/assistant order (a row "
        "alternates them): left out of 2 messages (-v lists them)\n"
        "chatpipe: warning: alpaca cannot hold message names: left out of 1 message "
        "(-v lists them)\n"
        "chatpipe: warning: alpaca cannot hold system messages after the first message: left "
        "out of 1 message (-v lists them)\n"
    )


def test_a_bad_alpaca_row_names_its_field():
    row = '{"instruction": "a", "output": "b", "history": [["q"]]}\n'
    assert run("convert", "-", input=row) == (
        1,
        "",
        'chatpipe: error: <stdin>:1:1: "history" must be a list of [user, assistant] text '
        "pairs (a pair is not two strings)\n",
    )


# -- the hint when nothing is recognised ----------------------------------------------------


def test_the_hint_lists_only_dialects_from_reads():
    from chatpipe.formats.registry import readable

    code, out, err = run("convert", "-", input='{"foo": 1}\n')
    assert (code, out) == (1, "")
    assert err == (
        "chatpipe: error: <stdin>:1:1: cannot tell what chat format this is (top-level keys: "
        f"foo; name it with --from ({', '.join(readable())}))\n"
    )
    for written_only in ("markdown", "yaml", "html"):
        assert written_only not in err
    assert "alpaca" in err


def test_alpaca_rows_of_odd_shapes():
    from chatpipe.errors import Location, ValidationError
    from chatpipe.formats.alpaca import AlpacaDialect, AlpacaTurns
    from chatpipe.model import AIMessage, ChatMessage, HumanMessage

    assert run("convert", "-", input='{"instruction": "a", "output": 5}\n') == (
        1,
        "",
        'chatpipe: error: <stdin>:1:1: "output" must be text, got a number\n',
    )
    # a row with no answer is its prompt alone; a row with both answers keeps output
    assert records("-", input='{"instruction": "a", "input": null, "output": null}\n') == [
        {"messages": [{"type": "human", "content": "a"}]}
    ]
    both = {"instruction": "a", "output": "o", "chosen": "c", "rejected": "r"}
    assert records("-", input=json.dumps(both) + "\n") == [
        {
            "messages": [{"type": "human", "content": "a"}, {"type": "ai", "content": "c"}],
            "output": "o",
            "rejected": "r",
        }
    ]
    with pytest.raises(ValidationError, match="an alpaca row must be an object, got a list"):
        AlpacaDialect().read_conversation(["a"], Location("x"))
    assert run("convert", "--from", "alpaca", "-", input='{"instruction": "a"}\n')[2] == (
        'chatpipe: error: <stdin>:1:1: an alpaca row needs "instruction" and "output" (or '
        '"chosen" and "rejected") (top-level keys: instruction)\n'
    )
    turns = AlpacaTurns()
    assert turns(ChatMessage("x", role="critic")) == ["messages of other roles"]
    assert turns(HumanMessage("q")) == []
    assert turns(AIMessage("a")) == []
    # a TRL preference row's rejected messages give the rejected answer's text
    rejected = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "no"}]
    assert turns.row({"rejected": rejected, "id": 7}) == {
        "instruction": "q",
        "input": "",
        "chosen": "a",
        "rejected": "no",
        "id": 7,
    }
    assert not AlpacaDialect().is_conversation({"instruction": "a", "messages": []})


def test_what_is_not_a_langchainjs_store():
    from chatpipe.formats.langchain import is_file_store

    message = {"type": "human", "data": {"content": "hi"}}
    assert is_file_store({"u": {"s": {"messages": [message]}}})
    assert is_file_store({"u": {"s": {"messages": [message]}, "t": {"context": {}}}})
    for other in (
        {},
        {"u": []},
        {"u": {"s": []}},
        {"u": {"s": {"title": "x"}}},
        {"u": {"s": {"messages": {}}}},
        {"u": {"s": {"messages": [{"role": "user", "content": "hi"}]}}},
        {"u": {"s": {"messages": []}}},  # nothing in it says it holds chat messages
    ):
        assert not is_file_store(other), other


def test_a_bad_source_inside_a_tool_result_is_named_too():
    turn = {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "t1",
                "content": [{"type": "image", "source": {"type": "url"}}],
            }
        ],
    }
    request = {"messages": [{"role": "user", "content": "hi"}, turn]}
    assert run("convert", "--from", "anthropic", "-", input=json.dumps(request) + "\n") == (
        1,
        "",
        "chatpipe: error: <stdin>:1:1: message 2: content block 1 (a tool result), content "
        "block 1: the image's url source has no 'url' (an Anthropic url source needs url)\n",
    )
    turn["content"] = [{"type": "document", "source": "a.pdf"}]
    assert run("convert", "--from", "anthropic", "-", input=json.dumps(request) + "\n")[2] == (
        "chatpipe: error: <stdin>:1:1: message 2: content block 1: the document's source must "
        "be an object\n"
    )
