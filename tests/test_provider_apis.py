"""Provider APIs' own records and the datasets of issue 49, read with nothing lost: Bedrock
Converse, Cohere v2, Mistral's chunk lists, Ollama's /api/chat, verl and TRL rows, ms-swift
rows; and the Bedrock Converse and Ollama requests chatpipe writes. Every check compares
with the file's own texts, taken from the file here, not with chatpipe's earlier output."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from chatpipe.cli import app
from chatpipe.formats.detect import detect
from chatpipe.pipeline.reading import read
from conftest import FIXTURES

runner = CliRunner()


def run(*args, input=None):
    result = runner.invoke(app, [str(a) for a in args], input=input)
    return result.exit_code, result.stdout, result.stderr


def load(name):
    return json.loads((FIXTURES / name).read_text("utf-8"))


def lines(name):
    text = (FIXTURES / name).read_text("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def conversations(name):
    found = list(read([str(FIXTURES / name)]))
    for conversation in found:
        conversation.messages = list(conversation.messages)
    return found


def blocks(message, kind):
    content = message.content
    return (
        [b for b in content if isinstance(b, dict) and b.get("type") == kind]
        if isinstance(content, list)
        else []
    )


def texts(message):
    if isinstance(message.content, str):
        return [message.content] if message.content else []
    return [b["text"] for b in blocks(message, "text")]


def reasonings(message):
    return [b["reasoning"] for b in blocks(message, "reasoning")]


# -- Bedrock Converse ---------------------------------------------------------------------


def bedrock_texts(content, key):
    return [b[key] for b in content if key in b]


def test_a_bedrock_request_gives_its_reasoning_calls_and_tool_results():
    name = "bedrock_converse__pydanticai_req_reasoning_tool_use_tool_result.json"
    request = load(name)
    (conversation,) = conversations(name)
    user, assistant, result = request["messages"]
    human, ai, tool = conversation.messages
    assert human.type == "human" and texts(human) == bedrock_texts(user["content"], "text")
    thought = assistant["content"][0]["reasoningContent"]["reasoningText"]
    [reasoning] = blocks(ai, "reasoning")
    assert (reasoning["reasoning"], reasoning["extras"]["signature"]) == (
        thought["text"],
        thought["signature"],
    )
    assert texts(ai) == bedrock_texts(assistant["content"], "text")
    use = assistant["content"][2]["toolUse"]
    assert ai.tool_calls == [
        {"name": use["name"], "args": use["input"], "id": use["toolUseId"], "type": "tool_call"}
    ]
    answer = result["content"][0]["toolResult"]
    assert (tool.type, tool.tool_call_id, tool.status) == ("tool", answer["toolUseId"], "success")
    assert tool.content == answer["content"][0]["text"]
    # the tools are the conversation's, as every writer knows them
    spec = request["toolConfig"]["tools"][0]["toolSpec"]
    assert conversation.meta["tools"] == [
        {
            "type": "function",
            "function": {"name": spec["name"], "parameters": spec["inputSchema"]["json"]},
        }
    ]
    assert (
        conversation.meta["additionalModelRequestFields"]
        == (request["additionalModelRequestFields"])
    )


def test_bedrock_documents_and_a_system_cache_point_are_kept():
    name = "bedrock_converse__pydanticai_req_two_pdf_documents.json"
    request = load(name)
    (conversation,) = conversations(name)
    documents = [
        b["document"] for m in request["messages"] for b in m["content"] if "document" in b
    ]
    files = [b for m in conversation.messages for b in blocks(m, "file")]
    assert [(f["base64"], f["mime_type"], f["extras"]["filename"]) for f in files] == [
        (d["source"]["bytes"], "application/pdf", d["name"]) for d in documents
    ]
    said = [t for m in request["messages"] for t in bedrock_texts(m["content"], "text")]
    assert [t for m in conversation.messages for t in texts(m)] == said

    name = "bedrock_converse__pydanticai_req_system_cache_point.json"
    request = load(name)
    (conversation,) = conversations(name)
    system = conversation.messages[0]
    [text] = blocks(system, "text")
    assert text["text"] == request["system"][0]["text"]
    assert text["extras"]["cachePoint"] == request["system"][1]["cachePoint"]
    # and written back where it stood
    code, out, _ = run("convert", FIXTURES / name, "--to", "bedrock-converse")
    assert code == 0 and json.loads(out)["system"] == request["system"]


def test_a_bedrock_response_gives_its_stop_reason_and_usage():
    name = "bedrock_converse__pydanticai_resp_reasoning_text_tool_use.json"
    response = load(name)
    (conversation,) = conversations(name)
    [ai] = conversation.messages
    content = response["output"]["message"]["content"]
    assert reasonings(ai) == [content[0]["reasoningContent"]["reasoningText"]["text"]]
    assert texts(ai) == [content[1]["text"]]
    assert [c["id"] for c in ai.tool_calls] == [content[2]["toolUse"]["toolUseId"]]
    assert ai.response_metadata["stopReason"] == response["stopReason"] == "tool_use"
    usage = response["usage"]
    assert ai.usage_metadata["output_tokens"] == usage["outputTokens"]
    assert ai.usage_metadata["total_tokens"] == usage["totalTokens"]


def test_bedrock_stream_events_are_joined_in_either_form():
    name = "bedrock_converse__vercel_stream_reasoning_events.jsonl"
    events = lines(name)
    deltas = [e["contentBlockDelta"]["delta"] for e in events if "contentBlockDelta" in e]
    thought = "".join(
        d["reasoningContent"].get("text", "") for d in deltas if "reasoningContent" in d
    )
    signature = next(
        d["reasoningContent"]["signature"]
        for d in deltas
        if "signature" in d.get("reasoningContent", {})
    )
    said = "".join(d["text"] for d in deltas if "text" in d)
    (conversation,) = conversations(name)
    [ai] = conversation.messages
    assert reasonings(ai) == [thought] and texts(ai) == [said]
    assert blocks(ai, "reasoning")[0]["extras"]["signature"] == signature
    stop = next(e["messageStop"] for e in events if "messageStop" in e)
    assert ai.response_metadata["stopReason"] == stop["stopReason"]
    assert ai.usage_metadata["output_tokens"] == events[-1]["metadata"]["usage"]["outputTokens"]

    name = "bedrock_converse__pydanticai_stream_aws_frames_nova.jsonl"
    frames = lines(name)
    said = "".join(
        f["payload"]["delta"].get("text", "")
        for f in frames
        if f["headers"][":event-type"] == "contentBlockDelta"
    )
    (conversation,) = conversations(name)
    [ai] = conversation.messages
    assert texts(ai) == [said] and "p" not in ai.response_metadata


def test_a_tool_the_service_ran_and_redacted_reasoning_are_the_answers_blocks():
    name = "bedrock_converse__pydanticai_req_code_interpreter_system_tool.json"
    request = load(name)
    (conversation,) = conversations(name)
    turn = request["messages"][1]["content"]
    ai = conversation.messages[2]
    [ran] = blocks(ai, "server_tool_call")
    [result] = blocks(ai, "server_tool_result")
    assert (ran["id"], ran["name"], ran["args"]) == (
        turn[0]["toolUse"]["toolUseId"],
        turn[0]["toolUse"]["name"],
        turn[0]["toolUse"]["input"],
    )
    assert (result["tool_call_id"], result["output"]) == (
        turn[1]["toolResult"]["toolUseId"],
        turn[1]["toolResult"]["content"],
    )
    assert [c["id"] for c in ai.tool_calls] == [turn[2]["toolUse"]["toolUseId"]]
    assert conversation.meta["toolConfig"]["tools"] == request["toolConfig"]["tools"][1:]

    name = "bedrock_converse__pydanticai_resp_redacted_reasoning.json"
    response = load(name)
    [ai] = conversations(name)[0].messages
    hidden = response["output"]["message"]["content"][0]["reasoningContent"]["redactedContent"]
    assert blocks(ai, "redacted_thinking") == [{"type": "redacted_thinking", "data": hidden}]


def test_a_bedrock_request_written_back_is_the_request():
    for name in (
        "bedrock_converse__pydanticai_req_reasoning_tool_use_tool_result.json",
        "bedrock_converse__pydanticai_req_two_pdf_documents.json",
        "bedrock_converse__pydanticai_req_code_interpreter_system_tool.json",
        "bedrock_converse__pydanticai_req_tool_results_then_images.json",
    ):
        request = load(name)
        code, out, err = run("convert", FIXTURES / name, "--to", "bedrock-converse")
        assert (code, err) == (0, "")
        written = json.loads(out)
        assert written["messages"] == request["messages"]
        assert written.get("system") == (request.get("system") or None)
        assert written.get("toolConfig") == request.get("toolConfig")


def test_bedrock_blocks_kept_as_extras_are_written_back_and_converse_takes_them(tmp_path):
    # an S3 document's bucket owner, cache points after a tool result and after an image,
    # and an answer's citations: read into the blocks' extras, written back as they were
    from chatpipe.formats.bedrock_check import bedrock_converse

    s3 = {"s3Location": {"uri": "s3://b/k.pdf", "bucketOwner": "123456789012"}}
    cited = {
        "content": [{"text": "The forecast says 18 C."}],
        "citations": [
            {
                "title": "doc",
                "sourceContent": [{"text": "18 C"}],
                "location": {"documentPage": {"documentIndex": 0, "start": 1, "end": 2}},
            }
        ],
    }
    image = {"format": "png", "source": {"bytes": "iVBORw0KGgo="}}
    request = {
        "modelId": "anthropic.claude-3-5-sonnet",
        "messages": [
            {
                "role": "user",
                "content": [
                    {"text": "What does it say?"},
                    {"document": {"format": "pdf", "source": s3, "name": "doc"}},
                    {"image": image},
                    {"cachePoint": {"type": "default"}},
                ],
            },
            {
                "role": "assistant",
                "content": [{"toolUse": {"toolUseId": "t1", "name": "get", "input": {}}}],
            },
            {
                "role": "user",
                "content": [
                    {
                        "toolResult": {
                            "toolUseId": "t1",
                            "content": [{"text": "ok"}],
                            "status": "success",
                        }
                    },
                    {"cachePoint": {"type": "default"}},
                ],
            },
            {"role": "assistant", "content": [{"citationsContent": cited}]},
        ],
        "toolConfig": {
            "tools": [{"toolSpec": {"name": "get", "inputSchema": {"json": {"type": "object"}}}}]
        },
    }
    assert bedrock_converse(request) == []
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request), encoding="utf-8")
    code, out, err = run("convert", path, "--to", "bedrock-converse")
    assert (code, err) == (0, "")
    assert json.loads(out) == request
    # another app's citations in a block's extras (a Claude export's) are not Bedrock's:
    # the text is written, the citations said
    other = {
        "type": "text",
        "text": "x",
        "extras": {"citations": [{"uuid": "u", "start_index": 0}]},
    }
    line = json.dumps({"messages": [{"type": "ai", "content": [other]}]})
    path.write_text(line + "\n", encoding="utf-8")
    code, out, err = run("convert", "--from", "canonical", path, "--to", "bedrock-converse")
    assert json.loads(out)["messages"][0]["content"] == [{"text": "x"}]
    assert "cannot hold content-part fields the API does not take" in err
    # another format's citations (Anthropic's, at the block's top level) are not Bedrock's
    anthropic = {"role": "assistant", "content": [{"type": "text", "text": "x", "citations": []}]}
    path.write_text(json.dumps({"messages": [anthropic]}), encoding="utf-8")
    code, out, _ = run("convert", "--from", "anthropic", path, "--to", "bedrock-converse")
    assert json.loads(out)["messages"][0]["content"] == [{"text": "x"}]


def write_lines(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def delta(index, **body):
    return {"contentBlockDelta": {"delta": body, "contentBlockIndex": index}}


def test_a_bedrock_stream_of_every_event_kind_is_its_responses(tmp_path):
    # ConverseStream's events as boto3 gives them (AWS's API reference, ConverseStream)
    cited = {"title": "Forecast", "sourceContent": [{"text": "18 C"}], "location": {}}
    events = [
        {"messageStart": {"role": "assistant"}},
        delta(0, reasoningContent={"text": "The user wants "}),
        delta(0, reasoningContent={"text": "the weather."}),
        delta(0, reasoningContent={"signature": "c2ln"}),
        {"contentBlockStop": {"contentBlockIndex": 0}},
        delta(1, text="Paris is mild"),
        delta(1, citation=cited),
        {"contentBlockStart": {"start": {"toolUse": {"toolUseId": "t1", "name": "weather"}}}},
        delta(2, toolUse={"input": '{"city": '}),
        delta(2, toolUse={"input": '"Paris"}'}),
        {"messageStop": {"stopReason": "tool_use"}},
        {"metadata": {"usage": {"inputTokens": 10, "outputTokens": 20}, "metrics": {"a": 1}}},
        # a second answer: its messageStart begins another response
        {"messageStart": {"role": "assistant"}},
        delta(0, reasoningContent={"redactedContent": "cmVk"}),
        {"contentBlockStart": {"start": {"toolUse": {"toolUseId": "t2", "name": "shell"}}}},
        delta(1, toolUse={"input": "ls -la"}),
        {"contentBlockStart": {"start": {"toolUse": {"toolUseId": "t3", "name": "now"}}}},
        {"contentBlockDelta": {"contentBlockIndex": 3}},  # (a delta with nothing in it)
        {"messageStop": {"stopReason": "tool_use"}},
    ]
    # (the tool blocks' starts name their index as the deltas do)
    events[7]["contentBlockStart"]["contentBlockIndex"] = 2
    events[14]["contentBlockStart"]["contentBlockIndex"] = 1
    events[16]["contentBlockStart"]["contentBlockIndex"] = 2
    first, second = conversations(write_lines(tmp_path / "stream.jsonl", events))
    [ai] = first.messages
    assert ai.content == [
        {
            "type": "reasoning",
            "reasoning": "The user wants the weather.",
            "extras": {"signature": "c2ln"},
        },
        {"type": "text", "text": "Paris is mild", "extras": {"citations": [cited]}},
    ]
    assert [(c["id"], c["name"], c["args"]) for c in ai.tool_calls] == [
        ("t1", "weather", {"city": "Paris"})
    ]
    assert ai.response_metadata["stopReason"] == "tool_use"
    assert ai.response_metadata["metrics"] == {"a": 1}
    assert ai.usage_metadata == {"input_tokens": 10, "output_tokens": 20, "total_tokens": 30}
    [ai] = second.messages
    assert ai.content == [{"type": "redacted_thinking", "data": "cmVk"}]
    # arguments that are not JSON make an invalid call; a call given none takes none
    assert [(c["id"], c["args"]) for c in ai.invalid_tool_calls] == [("t2", "ls -la")]
    assert [(c["id"], c["name"], c["args"]) for c in ai.tool_calls] == [("t3", "now", {})]


def test_a_bedrock_stream_cut_short_is_what_it_spelled(tmp_path):
    # (before: "not a Bedrock Converse request or response (top-level keys: output)")
    events = [{"messageStart": {"role": "assistant"}}, delta(0, text="Mild, ")]
    path = write_lines(tmp_path / "cut.jsonl", [*events, delta(0, text="18 C.")])
    code, out, err = run("convert", path)
    assert (code, err) == (0, "")
    [answer] = json.loads(out)["messages"]
    assert (answer["type"], answer["content"]) == ("ai", "Mild, 18 C.")
    assert "stopReason" not in answer["response_metadata"]


BEDROCK_REQUEST = {"messages": [{"role": "user", "content": [{"text": "Hi"}]}], "modelId": "m"}
BEDROCK_RESPONSE = {
    "output": {"message": {"role": "assistant", "content": [{"text": "Hello"}]}},
    "stopReason": "end_turn",
}


def test_bedrock_records_of_every_kind_are_read_in_order_with_from(tmp_path):
    saved = [  # an agent's saved turns (Strands Agents' session messages)
        {"role": "user", "content": [{"text": "Weather?"}]},
        {
            "role": "assistant",
            "content": [{"toolUse": {"toolUseId": "t1", "name": "w", "input": {}}}],
        },
        {
            "role": "user",
            "content": [{"toolResult": {"toolUseId": "t1", "content": [{"json": {"c": 18}}]}}],
        },
    ]
    records = [
        BEDROCK_REQUEST,
        BEDROCK_RESPONSE,
        *saved,
        {"messageStart": {"role": "assistant"}},
        delta(0, text="Mild."),  # (cut short: no messageStop, no metadata)
        {"role": "user", "content": "Thanks"},  # (a turn after a stream begins anew)
    ]
    path = write_lines(tmp_path / "mixed.jsonl", records)
    found = list(read([str(path)], dialect="bedrock-converse"))
    assert [[(m.type, m.content) for m in c.messages] for c in found] == [
        [("human", "Hi")],
        [("ai", "Hello")],
        [
            ("human", "Weather?"),
            ("ai", ""),
            ("tool", [{"type": "text", "text": '{"c": 18}', "extras": {"json": {"c": 18}}}]),
        ],
        [("ai", "Mild.")],
        [("human", "Thanks")],
    ]
    assert [str(c.location) for c in found] == [f"{path}:{n}:1" for n in (1, 2, 3, 6, 8)]
    assert found[0].meta["modelId"] == "m" and found[1].meta["stopReason"] == "end_turn"


def test_a_record_bedrock_cannot_read_is_one_line_or_skipped(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(
        json.dumps(BEDROCK_REQUEST)
        + "\n"
        + '{"foo": 1}\n{broken\n'
        + json.dumps(BEDROCK_RESPONSE)
        + "\n"
    )
    code, out, err = run("convert", "--from", "bedrock-converse", path)
    assert (code, len(out.splitlines())) == (1, 1)
    assert err == (
        f"chatpipe: error: {path}:2:1: not a Bedrock Converse record "
        "(a request, a response, a ConverseStream event or a message)\n"
    )
    code, out, err = run("convert", "--from", "bedrock-converse", "--on-error", "skip", path)
    assert [json.loads(line)["messages"][0]["content"] for line in out.splitlines()] == [
        "Hi",
        "Hello",
    ]
    assert f"skipped: {path}:2:1: not a Bedrock Converse record" in err
    assert f"skipped: {path}:3:2: invalid JSON" in err and "skipped 2 bad records" in err


def test_bedrock_documents_s3_media_guard_content_and_citations_are_read(tmp_path):
    cited = {"title": "notes", "sourceContent": [{"text": "a"}], "location": {}}
    s3_image = {"uri": "s3://bucket/a.png", "bucketOwner": "111122223333"}
    odd_source = {"uri": "https://example.com/a.jpg"}
    guard = {"guardContent": {"text": {"text": "guard this", "qualifiers": ["guard_content"]}}}
    request = {
        "system": [{"cachePoint": {"type": "default"}}, {"text": "Be brief."}],
        "messages": [
            {
                "role": "user",
                "content": [
                    {"text": "Compare these."},
                    {"document": {"format": "txt", "name": "notes", "source": {"text": "notes"}}},
                    {
                        "document": {
                            "format": "md",
                            "name": "parts",
                            "source": {"content": [{"text": "a"}, {"text": "b"}]},
                        }
                    },
                    {"image": {"format": "png", "source": {"s3Location": s3_image}}},
                    {"video": {"format": "mp4", "source": {"s3Location": {"uri": "s3://b/v.mp4"}}}},
                    # Strands Agents' sessions keep bytes as {"__bytes_encoded__", "data"}
                    {
                        "audio": {
                            "format": "xyz",
                            "source": {"bytes": {"__bytes_encoded__": True, "data": "AAAA"}},
                        }
                    },
                    {"image": {"format": "jpeg", "source": odd_source}},
                    guard,
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {
                        "citationsContent": {
                            "content": [{"text": "It says a."}],
                            "citations": [cited],
                        }
                    },
                    {"reasoningContent": {"somethingElse": 1}},
                    {
                        "toolUse": {
                            "toolUseId": "srv1",
                            "name": "nova_code_interpreter",
                            "type": "server_tool_use",
                            "input": "print(1)",
                        }
                    },
                    {"toolUse": {"toolUseId": "t1", "name": "lookup", "input": {"q": "a"}}},
                    {"cachePoint": {"type": "default"}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "toolResult": {
                            "toolUseId": "t1",
                            "content": [{"text": "no"}],
                            "status": "error",
                        }
                    },
                    {"cachePoint": {"type": "default"}},
                ],
            },
        ],
    }
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request))
    [conversation] = conversations(path)
    system, user, assistant, result = conversation.messages
    point = {"bedrock": {"cachePoint": {"type": "default"}}}
    assert (system.content, system.additional_kwargs) == ("Be brief.", point)
    assert user.content == [
        {"type": "text", "text": "Compare these."},
        {"type": "text-plain", "mime_type": "text/plain", "text": "notes", "title": "notes"},
        {"type": "text-plain", "mime_type": "text/plain", "text": "a\nb", "title": "parts"},
        {
            "type": "image",
            "url": "s3://bucket/a.png",
            "mime_type": "image/png",
            "extras": {"bucketOwner": "111122223333"},
        },
        {"type": "video", "url": "s3://b/v.mp4", "mime_type": "video/mp4"},
        {"type": "audio", "base64": "AAAA", "extras": {"format": "xyz"}},
        {"type": "image", "mime_type": "image/jpeg", "extras": {"source": odd_source}},
        {"type": "non_standard", "value": guard},
    ]
    assert assistant.content == [
        {"type": "text", "text": "It says a.", "extras": {"citations": [cited]}},
        {"type": "non_standard", "value": {"reasoningContent": {"somethingElse": 1}}},
        {
            "type": "server_tool_call",
            "id": "srv1",
            "name": "nova_code_interpreter",
            "args": {},
            "extras": {"type": "server_tool_use", "input": "print(1)"},
        },
    ]
    assert [c["id"] for c in assistant.tool_calls] == ["t1"]
    # a cache point after a tool call, or after tool results, is the turn's
    assert assistant.additional_kwargs == point
    assert (result.type, result.content, result.status) == ("tool", "no", "error")
    assert result.additional_kwargs == point


def test_bedrock_turns_one_a_line_and_blocks_that_are_not_objects(tmp_path):
    turns = [
        {"role": "user", "content": [{"text": "Weather?"}]},
        {
            "role": "assistant",
            "content": [{"toolUse": {"toolUseId": "t1", "name": "w", "input": {}}}],
        },
        {
            "role": "user",
            "content": [{"toolResult": {"toolUseId": "t1", "content": [{"text": "18"}]}}],
        },
        {"role": "assistant", "content": "18 C"},
    ]
    path = write_lines(tmp_path / "turns.jsonl", turns)
    code, out, err = run("convert", "--to", "openai", path)
    assert (code, err) == (0, "")
    assert [json.loads(line)["role"] for line in out.splitlines()] == [
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    assert json.loads(out.splitlines()[-1])["content"] == "18 C"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"messages": [{"role": "user", "content": [{"image": "a.png"}]}]}))
    code, out, err = run("convert", bad)
    assert (code, out) == (1, "")
    assert (
        err == f"chatpipe: error: {bad}:1:1: message 1: a Bedrock image block must be an object\n"
    )


def test_bedrock_usage_with_the_cache_and_a_response_that_is_no_answer(tmp_path):
    usage = {"inputTokens": 5, "outputTokens": 7, "cacheReadInputTokens": 100}
    usage["cacheWriteInputTokens"] = 20
    answered = {**BEDROCK_RESPONSE, "usage": usage}
    unknown = {**BEDROCK_RESPONSE, "usage": {"inputTokens": "5"}}
    bare = {"output": BEDROCK_RESPONSE["output"], "usage": None}
    path = write_lines(tmp_path / "responses.jsonl", [answered, unknown, bare])
    first, second, third = conversations(path)
    assert first.messages[0].usage_metadata == {
        "input_tokens": 125,
        "output_tokens": 7,
        "total_tokens": 132,
        "input_token_details": {"cache_read": 100, "cache_creation": 20},
    }
    assert second.messages[0].usage_metadata is None
    assert third.messages[0].usage_metadata is None and third.messages[0].content == "Hello"
    results = {"toolResult": {"toolUseId": "t1", "content": [{"text": "18"}]}}
    asked = {"role": "user", "content": [results, {"text": "and?"}]}
    path = tmp_path / "response.json"
    path.write_text(json.dumps({"output": {"message": asked}, "stopReason": "end_turn"}))
    code, _, err = run("convert", path)
    assert code == 1
    assert err == (
        f"chatpipe: error: {path}:1:1: a Bedrock response's message must be the assistant's\n"
    )


def test_the_bedrock_dialect_reads_one_turn_a_message_and_says_what_it_cannot():
    import pytest

    from chatpipe.errors import DataError, Location, ValidationError
    from chatpipe.formats.registry import get_dialect

    dialect = get_dialect("bedrock-converse")
    turn = {"role": "assistant", "content": [{"text": "Hello"}]}
    event = {"messageStart": {"role": "assistant"}}
    assert [dialect.is_message(v) for v in (turn, BEDROCK_REQUEST, event)] == [True, False, False]
    assert [dialect.is_conversation(v) for v in (BEDROCK_REQUEST, BEDROCK_RESPONSE, turn)] == [
        True,
        True,
        False,
    ]
    assert [dialect.is_stream_event(v) for v in (event, turn)] == [True, False]
    said = dialect.read_message(turn)
    assert (said.type, said.content) == ("ai", "Hello")
    results = {"toolResult": {"toolUseId": "t1", "content": [{"text": "18"}]}}
    with pytest.raises(ValidationError, match="a user turn with tool results is several"):
        dialect.read_message({"role": "user", "content": [results, {"text": "and?"}]})
    with pytest.raises(ValidationError, match="not a Bedrock Converse message"):
        dialect.read_message({"role": "tool", "content": []})
    with pytest.raises(DataError, match="not a Bedrock Converse request or response"):
        dialect.read_conversation({"contents": []}, Location("x.json"))


def test_a_bedrock_response_whose_content_is_no_list_is_located(tmp_path):
    path = tmp_path / "response.json"
    answer = {"role": "assistant", "content": 5}
    path.write_text(json.dumps({"output": {"message": answer}, "stopReason": "end_turn"}))
    code, out, err = run("convert", path)
    assert (code, out) == (1, "")
    assert err == (
        f"chatpipe: error: {path}:1:1: message 1: "
        "a Bedrock message's content must be a list of blocks\n"
    )


# -- Cohere v2 ----------------------------------------------------------------------------


def test_cohere_responses_give_thinking_tool_plans_calls_and_citations():
    name = "cohere__vercel_resp_reasoning_thinking_part.json"
    response = load(name)
    [ai] = conversations(name)[0].messages
    parts = response["message"]["content"]
    assert reasonings(ai) == [p["thinking"] for p in parts if p["type"] == "thinking"]
    assert texts(ai) == [p["text"] for p in parts if p["type"] == "text"]
    assert ai.response_metadata["finish_reason"] == response["finish_reason"]
    assert ai.usage_metadata["input_tokens"] == response["usage"]["tokens"]["input_tokens"]
    assert ai.usage_metadata["input_token_details"] == {
        "cache_read": response["usage"]["cached_tokens"]
    }

    name = "cohere__vercel_resp_tool_plan_tool_calls.json"
    response = load(name)
    [ai] = conversations(name)[0].messages
    assert reasonings(ai) == [response["message"]["tool_plan"]]
    assert [(c["id"], c["name"], c["args"]) for c in ai.tool_calls] == [
        (c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in response["message"]["tool_calls"]
    ]

    name = "cohere__vercel_resp_document_citations.json"
    response = load(name)
    [ai] = conversations(name)[0].messages
    assert ai.response_metadata["citations"] == response["message"]["citations"]


def test_cohere_streams_are_joined():
    name = "cohere__vercel_stream_tool_plan_tool_calls.jsonl"
    events = lines(name)
    plan = "".join(
        e["delta"]["message"]["tool_plan"] for e in events if e["type"] == "tool-plan-delta"
    )
    arguments: dict = {}
    for event in events:
        if event["type"] in ("tool-call-start", "tool-call-delta"):
            piece = event["delta"]["message"]["tool_calls"]["function"]["arguments"]
            arguments[event["index"]] = arguments.get(event["index"], "") + piece
    [ai] = conversations(name)[0].messages
    assert reasonings(ai) == [plan]
    assert [c["args"] for c in ai.tool_calls] == [
        json.loads(a) for _, a in sorted(arguments.items())
    ]
    assert ai.response_metadata["finish_reason"] == events[-1]["delta"]["finish_reason"]

    name = "cohere__vercel_stream_reasoning_events.jsonl"
    events = lines(name)
    pieces = [e["delta"]["message"]["content"] for e in events if e["type"] == "content-delta"]
    [ai] = conversations(name)[0].messages
    assert reasonings(ai) == ["".join(p.get("thinking", "") for p in pieces)]
    assert texts(ai) == ["".join(p.get("text", "") for p in pieces)]


def test_thinking_parts_of_openai_shaped_requests_are_reasoning_not_anthropic():
    # Cohere's unsigned thinking parts, Mistral's thinking chunk lists: OpenAI's shape,
    # reasoning as reasoning
    name = "cohere__pydanticai_req_thinking_history.json"
    request = load(name)
    assert detect(request)[0].name == "openai"
    ai = conversations(name)[0].messages[1]
    parts = request["messages"][1]["content"]
    assert reasonings(ai) == [p["thinking"] for p in parts if p["type"] == "thinking"]
    assert texts(ai) == [p["text"] for p in parts if p["type"] == "text"]

    name = "mistral__pydanticai_req_thinking_chunk_lists.json"
    request = load(name)
    assert detect(request)[0].name == "openai"
    ai = conversations(name)[0].messages[1]
    parts = request["messages"][1]["content"]
    chunks = [c["text"] for p in parts if p["type"] == "thinking" for c in p["thinking"]]
    assert len(chunks) == 3 and reasonings(ai) == chunks
    assert texts(ai) == [p["text"] for p in parts if p["type"] == "text"]


def test_a_mistral_stream_joins_its_thinking_chunks():
    name = "mistral__vercel_stream_magistral_thinking_chunks.jsonl"
    chunks = lines(name)
    thought, said = "", ""
    for chunk in chunks:
        for part in chunk["choices"][0]["delta"].get("content") or ():
            if part["type"] == "thinking":
                thought += "".join(t["text"] for t in part["thinking"])
            else:
                said += part["text"]
    [ai] = conversations(name)[0].messages
    assert reasonings(ai) == [thought] and texts(ai) == [said]


# -- Ollama -------------------------------------------------------------------------------


def test_an_ollama_response_gives_thinking_calls_and_counts():
    name = "ollama__ollama-bash-lib_thinking_tool_call_response.json"
    response = load(name)
    [ai] = conversations(name)[0].messages
    assert reasonings(ai) == [response["message"]["thinking"]]
    call = response["message"]["tool_calls"][0]["function"]
    assert [(c["name"], c["args"]) for c in ai.tool_calls] == [(call["name"], call["arguments"])]
    assert ai.tool_calls[0]["id"]  # (Ollama gives none: one made, stable)
    assert ai.usage_metadata["input_tokens"] == response["prompt_eval_count"]
    assert ai.usage_metadata["output_tokens"] == response["eval_count"]


def test_an_ollama_stream_is_joined_to_its_done_line():
    name = "ollama__semantic-kernel_chat_stream.jsonl"
    chunks = lines(name)
    [ai] = conversations(name)[0].messages
    assert ai.content == "".join(c["message"]["content"] for c in chunks)
    assert ai.response_metadata["done_reason"] == chunks[-1]["done_reason"]
    assert ai.usage_metadata["output_tokens"] == chunks[-1]["eval_count"]


def test_ollama_requests_give_images_thinking_and_tools_by_name():
    name = "ollama__documented_chat_requests_history_images_tools_thinking.jsonl"
    requests = lines(name)
    found = conversations(name)
    assert len(found) == len(requests)
    [image] = blocks(found[1].messages[0], "image")
    assert (image["base64"], image["mime_type"]) == (
        requests[1]["messages"][0]["images"][0],
        "image/png",
    )
    exchange = requests[4]["messages"]
    _, _, ai, tool, last = found[4].messages
    assert reasonings(ai) == [exchange[2]["thinking"]]
    assert tool.name == exchange[3]["tool_name"] and tool.tool_call_id == ai.tool_calls[0]["id"]
    assert reasonings(last) == [exchange[4]["thinking"]] and texts(last) == [exchange[4]["content"]]
    assert found[4].meta["think"] is True and found[2].meta["options"] == requests[2]["options"]


def test_ollama_requests_written_back_are_the_requests():
    name = "ollama__documented_chat_requests_history_images_tools_thinking.jsonl"
    code, out, err = run("convert", FIXTURES / name, "--to", "ollama")
    assert code == 0
    written = [json.loads(line) for line in out.splitlines()]
    given = [{k: v for k, v in r.items() if k != "stream"} for r in lines(name)]
    assert written == given
    # the stream settings the sender chooses are left out, and said
    assert "ollama cannot hold streaming settings" in err


OLLAMA_TIME = "2024-07-02T11:45:16Z"


def ollama_chunk(done=False, **message):
    return {
        "model": "qwen3",
        "created_at": OLLAMA_TIME,
        "message": {"role": "assistant", **message},
        "done": done,
    }


def test_an_ollama_file_of_streams_requests_and_turns_is_read_in_order(tmp_path):
    call = {"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}
    done = ollama_chunk(True, content="Checking.")
    done.update(done_reason="stop", total_duration=5, prompt_eval_count=11, eval_count=7)
    records = [
        ollama_chunk(content="", thinking="Need the "),
        ollama_chunk(content="", thinking="weather."),
        ollama_chunk(content="", tool_calls=[call]),
        done,
        ollama_chunk(content="Cut "),  # (a stream cut short: what it spelled)
        {"model": "llama3.2", "messages": [{"role": "user", "content": "hi"}], "keep_alive": "5m"},
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "content": "18 C", "tool_name": "get_weather"},
        {"model": "llama3.2", "created_at": OLLAMA_TIME, "response": "The", "done": False},
        {"foo": 1},
        {"role": "user", "content": "Thanks"},
    ]
    path = write_lines(tmp_path / "ollama.jsonl", records)
    path.write_text(path.read_text().replace('{"foo": 1}\n', '{"foo": 1}\n{broken\n'))
    code, out, err = run("convert", path)
    assert code == 1 and len(out.splitlines()) == 5
    assert err == (
        f"chatpipe: error: {path}:11:1: not an Ollama chat record (a request, a response "
        "or stream chunk {message, done}, a message)\n"
    )
    errors = skipping()
    found = list(read([str(path)], errors=errors))
    assert [str(e).split(": ")[0] for e in errors.skipped] == [f"{path}:11:1", f"{path}:12:2"]
    answer = found[0].messages[0]
    assert answer.content == [
        {"type": "reasoning", "reasoning": "Need the weather."},
        {"type": "text", "text": "Checking."},
    ]
    assert [(c["name"], c["args"]) for c in answer.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    assert answer.response_metadata["done_reason"] == "stop"
    assert answer.usage_metadata == {"input_tokens": 11, "output_tokens": 7, "total_tokens": 18}
    assert [[(m.type, m.content) for m in c.messages] for c in found[1:]] == [
        [("ai", "Cut ")],
        [("human", "hi")],
        [("human", "Weather?"), ("ai", ""), ("tool", "18 C")],
        [("ai", "The")],
        [("human", "Thanks")],
    ]
    asked, result = found[3].messages[1:]
    assert (result.name, result.tool_call_id) == ("get_weather", asked.tool_calls[0]["id"])
    assert found[1].meta["done"] is False and found[2].meta["keep_alive"] == "5m"
    assert [str(c.location) for c in found] == [f"{path}:{n}:1" for n in (1, 5, 6, 7, 10, 13)]
    # a stream at the end of a file, its done line never written, is what it spelled
    whole = ollama_chunk(True, content="Hi")
    path = write_lines(tmp_path / "cut.jsonl", [whole, records[4]])
    assert [[m.content for m in c.messages] for c in conversations(path)] == [["Hi"], ["Cut "]]


def skipping():
    from chatpipe.pipeline.opening import ErrorLog

    return ErrorLog("skip")


def test_an_ollama_log_a_message_a_line_with_images_and_calls(tmp_path):
    png = (
        "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGM4IScHRAwQCgAfJgQRoo8ir"
        "wAAAABJRU5ErkJggg=="
    )
    call = {"function": {"name": "lookup", "arguments": {"q": "cat"}}, "id": "call_9"}
    turns = [
        {"role": "user", "content": "What is this?", "images": [png, "./photos/cat.jpg"]},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "content": "a cat", "tool_name": "lookup"},
        {"role": "assistant", "content": "A cat.", "tool_name": "lookup"},
    ]
    path = write_lines(tmp_path / "log.jsonl", turns)
    [conversation] = conversations(path)
    user, asked, result, answer = conversation.messages
    assert user.content == [
        {"type": "text", "text": "What is this?"},
        {"type": "image", "base64": png, "mime_type": "image/png"},
        {"type": "image", "url": "./photos/cat.jpg"},  # (a path, as clients take)
    ]
    assert [(c["id"], c["name"], c["args"]) for c in asked.tool_calls] == [
        ("call_9", "lookup", {"q": "cat"})
    ]
    assert (result.tool_call_id, result.name, result.content) == ("call_9", "lookup", "a cat")
    # (a tool's name on a turn that is no tool's result is kept, not made its name)
    assert answer.name is None
    assert answer.additional_kwargs == {"ollama": {"tool_name": "lookup"}}


def test_an_ollama_request_with_a_format_and_data_url_images(tmp_path):
    png = (
        "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGM4IScHRAwQCgAfJgQRoo8ir"
        "wAAAABJRU5ErkJggg=="
    )
    schema = {"type": "object", "properties": {"animal": {"type": "string"}}}
    request = {
        "model": "llava",
        "messages": [
            {
                "role": "user",
                "content": "Name the animal.",
                "images": [f"data:image/png;base64,{png}"],
            }
        ],
        "format": schema,
    }
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request))
    [conversation] = conversations(path)
    [user] = conversation.messages
    assert user.content == [
        {"type": "text", "text": "Name the animal."},
        {"type": "image", "base64": png, "mime_type": "image/png"},
    ]
    assert (conversation.meta["format"], conversation.meta["model"]) == (schema, "llava")


def test_ollama_messages_that_cannot_be_read_are_located(tmp_path):
    def request(*messages):
        return {"model": "m", "messages": list(messages), "options": {}}

    user = {"role": "user", "content": "hi"}
    bad = [
        (
            request(user, {"role": "user", "content": ["hi"]}),
            "message 2: an Ollama message's content must be text",
        ),
        (
            request({"role": "user", "images": "x"}),
            "message 1: an Ollama message's images must be a list of base64 texts",
        ),
        (
            request({"role": "user", "images": [5]}),
            "message 1: an Ollama image must be base64 text",
        ),
        (
            request({"role": "assistant", "tool_calls": [{"name": "f"}]}),
            "message 1: an Ollama tool call needs its function {name, arguments}",
        ),
        (
            {
                "created_at": OLLAMA_TIME,
                "message": {"role": "assistant", "content": 5},
                "done": True,
            },
            "message 1: an Ollama message's content must be text",
        ),
    ]
    for number, (record, said) in enumerate(bad):
        path = tmp_path / f"bad{number}.json"
        path.write_text(json.dumps(record))
        code, out, err = run("convert", path)
        assert (code, out, err) == (1, "", f"chatpipe: error: {path}:1:1: {said}\n")


def test_the_ollama_dialect_reads_a_message_a_chunk_and_a_stream():
    import pytest

    from chatpipe.errors import DataError, Location
    from chatpipe.formats.registry import get_dialect

    dialect = get_dialect("ollama")
    chunk = ollama_chunk(True, content="Hello")
    request = {"model": "m", "messages": []}
    assert [dialect.is_stream_event(v) for v in (chunk, request)] == [True, False]
    assert [dialect.is_conversation(v) for v in (chunk, request, {"role": "user"})] == [
        True,
        True,
        False,
    ]
    said = dialect.read_message({"role": "user", "content": "hi", "tool_call_id": "null"})
    assert (said.type, said.content) == ("human", "hi")
    assert said.additional_kwargs == {"ollama": {"tool_call_id": "null"}}
    [answer] = dialect.read_conversation(chunk, Location("r.json")).messages
    assert (answer.type, answer.content) == ("ai", "Hello")
    with pytest.raises(DataError, match="not an Ollama request or response"):
        dialect.read_conversation({"contents": []}, Location("r.json"))
    pieces = [ollama_chunk(content="Hel"), ollama_chunk(True, content="lo")]
    [streamed] = dialect.read_stream(pieces, Location("s.jsonl"))
    assert [m.content for m in streamed.messages] == ["Hello"]


# -- datasets -----------------------------------------------------------------------------


def test_a_verl_row_is_its_prompt_with_the_rows_fields():
    name = "verl__verl-pr3489_gsm8k_tool_agent_rows.jsonl"
    rows = lines(name)
    found = conversations(name)
    assert [[(m.type, m.content) for m in c.messages] for c in found] == [
        [({"system": "system", "user": "human"}[m["role"]], m["content"]) for m in row["prompt"]]
        for row in rows
    ]
    assert found[0].meta["reward_model"] == rows[0]["reward_model"]
    assert found[0].meta["extra_info"] == rows[0]["extra_info"]


def test_trl_image_parts_stand_for_the_rows_images():
    name = "hf_messages__documented_trl_image_index_parts.jsonl"
    rows = lines(name)
    found = conversations(name)
    first = [b for m in found[0].messages for b in blocks(m, "image")]
    assert [b["url"] for b in first] == rows[0]["images"]
    assert "images" not in found[0].meta  # (every image stands in a message)
    [image] = blocks(found[1].messages[0], "image")
    assert image["base64"] == rows[1]["images"][0]["bytes"]
    # a prompt-completion row, its image part with no index: the row's next image
    human, ai = found[2].messages
    assert [b["url"] for b in blocks(human, "image")] == rows[2]["images"]
    assert texts(ai) == [rows[2]["completion"][0]["content"][0]["text"]]


def test_an_image_object_with_a_url_is_an_image_openai_writes():
    name = "hf_messages__documented_image_object_url.jsonl"
    rows = lines(name)
    code, out, err = run("convert", FIXTURES / name, "--to", "openai")
    assert code == 0, err
    written = [json.loads(line) for line in out.splitlines()]
    url = rows[0]["messages"][0]["content"][0]["image"]["url"]
    assert written[0]["messages"][0]["content"][0] == {
        "type": "image_url",
        "image_url": {"url": url},
    }
    data_url = rows[1]["messages"][0]["content"][1]["image"]["url"]
    assert written[1]["messages"][0]["content"][1]["image_url"]["url"] == data_url


def test_ms_swift_rows_are_read_and_written_back():
    name = "ms_swift__ms-swift_query_response_history.jsonl"
    rows = lines(name)
    found = conversations(name)
    for row, conversation in zip(rows, found, strict=True):
        said = [row["system"]] if "system" in row else []
        for prompt, answer in row.get("history") or ():
            said += [prompt, answer]
        said += [row["query"], row["response"]]
        assert [m.content for m in conversation.messages] == said
    code, out, _ = run("convert", FIXTURES / name, "--to", "ms-swift")
    assert code == 0
    assert [json.loads(line) for line in out.splitlines()] == rows


# -- leftovers ----------------------------------------------------------------------------


def test_a_claude_code_session_with_no_parent_links_is_read_in_file_order():
    name = "claude_code__derived_lines_without_parent_uuid.jsonl"
    linked = "claude_code__entire_2026_compaction_lines18_44.jsonl"
    code, out, err = run("convert", FIXTURES / name, "--to", "openai")
    assert code == 0
    # the messages the session's linked lines give (each keeps its line's envelope, which
    # there holds the links)
    _, same, said = run("convert", FIXTURES / linked, "--to", "openai")

    def turns(written):
        return [{k: v for k, v in m.items() if k != "claude_code"} for m in written["messages"]]

    assert turns(json.loads(out)) == turns(json.loads(same)) and err == said
    # and every prompt the file holds is there, in its order
    typed = [
        line["message"]["content"]
        for line in lines(name)
        if line["type"] == "user" and isinstance(line["message"]["content"], str)
    ]
    written = [m["content"] for m in json.loads(out)["messages"] if m["role"] in ("user", "system")]
    assert typed and [t for t in written if t in typed] == typed


def test_an_anthropic_image_without_its_media_type_is_typed_by_its_bytes():
    name = "anthropic_messages__derived_image_base64_without_media_type.json"
    request = load(name)
    data = next(
        b["source"]["data"]
        for m in request["messages"]
        for b in m["content"]
        if b.get("type") == "image"
    )
    code, out, err = run("convert", FIXTURES / name, "--to", "openai")
    assert code == 0 and "image" not in err  # (the request's settings are said: #48)
    assert f"data:image/jpeg;base64,{data}" in out


def test_reasoning_kept_in_a_field_is_shown_or_said():
    name = "openai_stream__vercel_xai_reasoning_content_tool_call_trimmed.jsonl"
    thought = "".join(
        c["choices"][0]["delta"].get("reasoning_content") or ""
        for c in lines(name)
        if c.get("choices")
    )
    code, out, _ = run("convert", FIXTURES / name, "--to", "markdown")
    assert code == 0 and f"> {thought}" in out
    # Anthropic takes back only its own signed thinking: left out, said (#48)
    code, out, err = run("convert", FIXTURES / name, "--to", "anthropic")
    assert code == 0 and thought not in out
    assert "anthropic cannot hold reasoning that is not Anthropic's signed thinking" in err
    for target, field in (
        ("gemini", '"thought":true'),
        ("bedrock-converse", "reasoningText"),
        ("ollama", "thinking"),
    ):
        code, out, _ = run("convert", FIXTURES / name, "--to", target)
        assert code == 0 and thought in out and field in out


def test_openrouter_reasoning_details_are_the_reasoning_writers_take(tmp_path):
    # OpenRouter's reasoning_details: summaries, texts, encrypted data (no text to show)
    details = [
        {"type": "reasoning.summary", "summary": "Plan: add."},
        {"type": "reasoning.text", "text": "2 + 2 is 4.", "signature": None},
        {"type": "reasoning.encrypted", "data": "gAAAA"},
    ]
    blank = [{"type": "reasoning.encrypted", "data": "x"}, {"type": "reasoning.text", "text": " "}]
    messages = [
        {"role": "user", "content": "2+2?"},
        {"role": "assistant", "content": "4", "reasoning_details": details},
        {"role": "user", "content": "and 3+3?"},
        {"role": "assistant", "content": "6", "reasoning": "  ", "reasoning_details": blank},
    ]
    path = write_lines(tmp_path / "openrouter.jsonl", [{"messages": messages}])
    code, out, _ = run("convert", path, "--to", "ollama")
    assert code == 0
    turns = json.loads(out)["messages"]
    assert turns[1] == {
        "role": "assistant",
        "content": "4",
        "thinking": "Plan: add.\n\n2 + 2 is 4.",
    }
    assert turns[3] == {"role": "assistant", "content": "6"}
    code, out, _ = run("convert", path, "--to", "markdown")
    assert code == 0 and "> Plan: add.\n>\n> 2 + 2 is 4.\n\n4\n" in out


# -- what the request writers leave out, said ---------------------------------------------


def test_request_writers_say_what_they_leave_out():
    # a conversation's own fields, an image given by URL, a tool schema's keys
    name = "openai_chat__pydanticai_req_tool_call_then_image_url.json"
    code, out, err = run("convert", FIXTURES / name, "--to", "bedrock-converse")
    assert code == 0 and "http" not in out
    assert "bedrock-converse cannot hold media given by URL or file id" in err
    code, out, err = run("convert", FIXTURES / name, "--to", "ollama")
    assert code == 0 and "ollama cannot hold images given by URL" in err
    name = "mistral__pydanticai_req_tool_roundtrip_prefix.json"
    code, out, err = run("convert", FIXTURES / name, "--to", "ollama")
    request = json.loads(out)
    assert "additionalProperties" not in request["tools"][0]["function"]["parameters"]
    assert (
        "tool-schema keys Ollama's tool model does not take: left out of 1 conversation "
        "(additionalProperties;"
    ) in err
    assert (
        "conversation fields the API does not take: left out of 1 conversation (n, tool_choice;"
        in err
    )
    assert request["options"] == {"top_p": 1.0}
    # a call to a tool the conversation does not declare: declared, said
    name = "openai_stream__vercel_xai_reasoning_content_tool_call_trimmed.jsonl"
    code, out, err = run("convert", FIXTURES / name, "--to", "bedrock-converse")
    [spec] = json.loads(out)["toolConfig"]["tools"]
    assert spec["toolSpec"]["name"] == "weather"
    assert "tool calls to tools the conversation does not declare" in err


def test_gemini_cli_checkpoints_are_their_history(tmp_path):
    name = "gemini_cli__documented_checkpoint_history.json"
    checkpoint = load(name)
    (conversation,) = conversations(name)
    said = [p["text"] for c in checkpoint["history"] for p in c["parts"] if "text" in p]
    assert [t for m in conversation.messages if m.type != "tool" for t in texts(m)] == said
    call = checkpoint["history"][3]["parts"][1]["functionCall"]
    ai, tool = conversation.messages[3:5]
    assert [(c["id"], c["name"], c["args"]) for c in ai.tool_calls] == [
        (call["id"], call["name"], call["args"])
    ]
    assert tool.tool_call_id == call["id"]
    assert conversation.meta == {"authType": checkpoint["authType"]}
    # the older form, a bare list of the contents, is the same conversation (it was read
    # as OpenAI messages with no content)
    legacy = tmp_path / "checkpoint-before-refactor.json"
    legacy.write_text(json.dumps(checkpoint["history"]), encoding="utf-8")
    code, out, err = run("convert", legacy)
    assert (code, err) == (0, "")
    expected = run("convert", FIXTURES / name)[1]
    assert json.loads(out)["messages"] == json.loads(expected)["messages"]


def test_a_command_with_no_to_writes_a_provider_record_back_whole():
    # head, redact... write the input's dialect: its other fields kept (--to writes the
    # request only, and says what it leaves out)
    name = "bedrock_converse__vercel_resp_reasoning_signature.json"
    response = load(name)
    code, out, err = run("head", "-n", "1", FIXTURES / name)
    written = json.loads(out)
    assert (code, err) == (0, "")
    assert {k: written[k] for k in ("stopReason", "usage", "metrics")} == {
        k: response[k] for k in ("stopReason", "usage", "metrics")
    }
    code, out, err = run("convert", FIXTURES / name, "--to", "bedrock-converse")
    assert set(json.loads(out)) == {"messages"}
    assert "the API does not take: left out of 1 conversation (metrics, stopReason, usage;" in err


def test_settings_of_other_providers_take_their_place_in_a_bedrock_request():
    name = "anthropic_messages__pydanticai_req_thinking_text_tool_use_tool_result.json"
    request = load(name)
    code, out, err = run("convert", FIXTURES / name, "--to", "bedrock-converse")
    written = json.loads(out)
    assert code == 0 and "thinking" not in err
    assert written["inferenceConfig"] == {"maxTokens": request["max_tokens"]}
    assert written["additionalModelRequestFields"] == {"thinking": request["thinking"]}
    assert [t["toolSpec"]["name"] for t in written["toolConfig"]["tools"]] == [
        t["name"] for t in request["tools"]
    ]
    # the signed thinking goes back as Bedrock's reasoning, signature and all
    thinking = next(b for m in request["messages"] for b in m["content"] if b["type"] == "thinking")
    reasoning = next(
        b["reasoningContent"]["reasoningText"]
        for m in written["messages"]
        for b in m["content"]
        if "reasoningContent" in b
    )
    assert reasoning == {"text": thinking["thinking"], "signature": thinking["signature"]}


def test_an_ollama_generate_stream_is_its_answer(tmp_path):
    # /api/generate's chunks, as Ollama's API documentation shows them
    chunks = [
        {
            "model": "llama3.2",
            "created_at": "2023-08-04T08:52:19.385406455-07:00",
            "response": "The",
            "done": False,
        },
        {
            "model": "llama3.2",
            "created_at": "2023-08-04T08:52:19.385406455-07:00",
            "response": " sky",
            "done": False,
        },
        {
            "model": "llama3.2",
            "created_at": "2023-08-04T19:22:45.499127Z",
            "response": "",
            "done": True,
            "context": [1, 2, 3],
            "total_duration": 10706818083,
            "prompt_eval_count": 26,
            "eval_count": 259,
        },
    ]
    path = tmp_path / "generate.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in chunks), encoding="utf-8")
    [conversation] = conversations(path)
    [ai] = conversation.messages
    assert (ai.type, ai.content) == ("ai", "The sky")
    assert ai.usage_metadata["output_tokens"] == 259
    assert conversation.meta["context"] == [1, 2, 3]


def test_cohere_v1_requests_responses_and_streams():
    name = "cohere__documented_v1_request_response_stream.jsonl"
    request, response = lines(name)
    first, second = conversations(name)
    history = request["chat_history"]
    said = [request["preamble"], *(t["message"] for t in history if "message" in t)]
    said.append(request["message"])
    assert [m.content for m in first.messages if m.type != "tool"] == said
    asked = history[3]["tool_calls"]
    ai = first.messages[4]
    assert [(c["name"], c["args"]) for c in ai.tool_calls] == [
        (c["name"], c["parameters"]) for c in asked
    ]
    results = [m for m in first.messages if m.type == "tool"]
    assert [m.tool_call_id for m in results] == [c["id"] for c in ai.tool_calls]
    assert [json.loads(m.content) for m in results] == [
        r["outputs"] for r in history[4]["tool_results"]
    ]
    # v1 tools are function tools every writer knows
    tool = request["tools"][0]
    declared = first.meta["tools"][0]["function"]
    assert (
        declared["parameters"]["properties"]["day"]["description"]
        == (tool["parameter_definitions"]["day"]["description"])
    )
    answer = second.messages[-1]
    assert answer.content == response["text"] and answer.id == response["generation_id"]
    assert answer.response_metadata["citations"] == response["citations"]

    name = "cohere__documented_v1_stream_events.jsonl"
    events = lines(name)
    [conversation] = conversations(name)
    pieces = "".join(e["text"] for e in events if e["event_type"] == "text-generation")
    assert conversation.messages[-1].content == pieces
