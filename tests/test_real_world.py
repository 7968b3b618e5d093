"""The shapes real files have that chatpipe once failed on (issue 18), one fixture each.

Every test reads a fixture from a real public file (or, where none exists, one written from
the provider's documented behaviour; fixtures/SOURCES.md says which) and checks the exact
result, so it fails on the behaviour it was written against.
"""

from __future__ import annotations

import json

from typer.testing import CliRunner

from chatpipe.cli import app
from chatpipe.pipeline.reading import read
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
    from chatpipe.formats.openai_stream import assemble_openai

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
    from chatpipe.formats.anthropic_stream import assemble_stream

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


# -- exports -------------------------------------------------------------------------------


def test_export_records_without_a_tree_are_empty_conversations_with_their_metadata():
    name = "chatgpt_export__documented_listing_items_without_mapping.json"
    code, out, err = run("convert", "-v", FIXTURES / name)
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert [len(r["messages"]) for r in records] == [4, 0, 0]
    assert [r.get("title") for r in records[1:]] == ["Greeting", "Bread recipe"]
    assert records[2]["id"] == "6a1f0d71-0c4e-8a93-b2f6-7e9d1c3a5f08"
    assert f"{FIXTURES / name}:1:5275: conversation 'Greeting' has no messages" in err
    name = "claude_export__documented_listing_item_without_chat_messages.json"
    code, out, err = run("convert", "-v", FIXTURES / name)
    assert code == 0, err
    last = json.loads(out.splitlines()[-1])
    assert last["messages"] == [] and last["name"] == "Trip planning"
    assert "conversation 'Trip planning' has no messages" in err


def test_an_export_tree_of_the_wrong_kind_is_named_in_words(tmp_path):
    for field, good, bad in (("mapping", {}, [1]), ("chat_messages", [], {"a": 1})):
        path = tmp_path / "bad.json"
        path.write_text(json.dumps([{"title": "t", field: good}, {"title": "u", field: bad}]))
        code, _, err = run("convert", path)
        assert code == 1
        [line] = err.splitlines()
        assert f'the "{field}" field must be' in line and f"{path}:1:" in line
        assert "Error:" not in line


def test_a_claude_conversation_that_branches_gives_its_newest_leaf_and_says_so():
    path = FIXTURES / "claude_export__documented_retried_answer_no_current_leaf.json"
    for command in (
        ["convert"],
        ["openai"],
        ["buffer"],
        ["count"],
        ["trim", "--max-tokens", "100000"],
        ["stats"],
        ["validate"],
        ["filter"],
        ["merge"],
    ):
        code, out, err = run(*command, path)
        assert code == 0, (command, err)
        if command[0] != "validate":
            assert err.splitlines()[-1] == (
                "chatpipe: 1 conversation branches and names no current leaf: wrote its newest"
                " branch, 1 other branch left out (--branch all writes them)"
            ), command
    [record] = [json.loads(line) for line in run("convert", path)[1].splitlines()]
    assert record["messages"][-1]["content"].startswith("Here is a shorter answer")
    assert record["branch"] == {
        "leaf": "9b1f3c2e-7a4d-4e8b-b0c5-2f6e1d9a8c71",
        "left_out": 1,
        "chosen": "newest",
    }
    code, out, err = run("openai", "--branch", "all", path)
    assert code == 0 and len(out.splitlines()) == 2 and err == ""
    code, out, _ = run("convert", "-q", path)
    assert code == 0


def test_a_pasted_file_is_written_as_each_dialect_can_hold_it():
    path = FIXTURES / "claude_export__documented_pasted_file_attachment.json"
    csv = "name,rating,price\nThe Good Alley Sandwich Bakery,4.8,$$\nCrumb & Co,3.9,$\nLe Fournil,4.4,$$$\n"
    code, out, err = run("convert", "--to", "openai", path)
    assert code == 0, err
    user = json.loads(out)["messages"][2]
    assert user["content"][1] == {
        "type": "text",
        "text": f'<file name="bakeries.csv">\n{csv}</file>',
    }
    assert "text files (OpenAI has no text-file part) in 1 message: written as text parts" in err
    # openai is langchain's convert_to_openai_messages, which has no text-file part (#39)
    code, out, err = run("openai", path)
    assert (code, out) == (1, "")
    assert err == (
        f"chatpipe: error: {path}:2:3: Block of type text-plain is not supported. "
        "(convert --to openai writes text files as text parts)\n"
    )
    code, out, err = run("convert", "--to", "anthropic", path)
    assert code == 0, err
    assert json.loads(out)["messages"][2]["content"][1] == {
        "type": "document",
        "source": {"type": "text", "media_type": "text/plain", "data": csv},
        "title": "bakeries.csv",
    }


def test_a_conversation_the_target_cannot_hold_is_skipped_with_on_error_skip(tmp_path):
    path = tmp_path / "w.jsonl"
    path.write_text(
        '{"messages":[{"type":"human","content":[{"type":"image_url"}]}]}\n'
        '{"messages":[{"type":"human","content":"ok"}]}\n'
    )
    code, _, err = run("convert", "--to", "openai", path)
    assert code == 1 and len(err.splitlines()) == 1 and f"{path}:1:1:" in err
    for command in (["convert", "--to", "openai"], ["openai"]):
        code, out, err = run(*command, "--on-error", "skip", path)
        assert code == 0
        assert out == '{"messages":[{"role":"user","content":"ok"}]}\n'
        assert err.splitlines() == [
            f"chatpipe: skipped: {path}:1:1: Unrecognized content block at messages[0].content[0]"
            " has 'type': 'image_url' but is missing expected key(s) ['image_url']. Full content"
            " block: {'type': 'image_url'}",
            "chatpipe: warning: skipped 1 bad record",
        ]


def test_a_record_of_an_unexpected_shape_is_said_in_words(tmp_path):
    path = tmp_path / "odd.json"
    path.write_text('{"mapping":{"a":{"message":{"author":5}}}}')
    code, _, err = run("convert", path)
    assert code == 1
    assert err == (
        f"chatpipe: error: {path}:1:1: cannot read this record as chatgpt-export: a field holds"
        " a value of another kind than this dialect needs (check the record against the"
        " dialect, or name another with --from)\n"
    )


def test_chatgpt_thoughts_keep_their_text_as_reasoning():
    path = FIXTURES / "chatgpt_export__documented_o3_thoughts_reasoning_recap.json"
    [record] = [json.loads(line) for line in run("convert", path)[1].splitlines()]
    thoughts, recap, older, answer = record["messages"][1:]
    assert thoughts["content"][0]["reasoning"] == (
        "9.9 is 9.90, and 9.90 is more than 9.11, so 9.9 is larger."
    )
    assert thoughts["content"][0]["extras"]["thoughts"][0]["summary"] == "Comparing decimals"
    assert older["content"] == [
        {"type": "reasoning", "reasoning": "Older exports put the thought text in parts."}
    ]
    # the recap is reasoning that says it is one (#49)
    assert recap["content"] == [
        {
            "type": "reasoning",
            "reasoning": "Thought for 4 seconds",
            "extras": {"content_type": "reasoning_recap"},
        }
    ]
    assert answer["content"] == "9.9 is larger than 9.11."


# -- datasets ------------------------------------------------------------------------------


def test_llamafactory_media_parts_become_media_blocks():
    path = FIXTURES / "hf_messages__llamafactory_v1_multimodal_first3.jsonl"
    code, out, err = run("openai", path)
    assert code == 0, err
    first = json.loads(out.splitlines()[0])["messages"][0]
    assert first["content"] == [
        {"type": "image_url", "image_url": {"url": "data/mllm_demo_data/1.jpg"}},
        {"type": "text", "text": "Who are they?"},
    ]
    [human, *_] = messages("hf_messages__llamafactory_v1_multimodal_first3.jsonl")
    assert human.content[0] == {"type": "image", "url": "data/mllm_demo_data/1.jpg"}


def test_llamafactory_preference_rows_read_the_chosen_conversation():
    path = FIXTURES / "hf_messages__llamafactory_v1_dpo_first3.jsonl"
    code, out, err = run("convert", "-v", path)
    assert code == 0, err
    assert "llamafactory (jsonl, conversation per record)" in err
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) == 3
    assert [m["type"] for m in rows[0]["messages"]] == ["system", "human", "ai"]
    assert rows[1]["messages"][2]["content"] == [{"type": "text", "text": "D: considerate"}]
    assert rows[1]["rejected_messages"][2]["content"][0]["value"].startswith(
        " Based on the context"
    )


def test_sharegpt_preference_answers_given_as_text():
    path = FIXTURES / "sharegpt__documented_preference_string_answers.json"
    code, out, err = run("convert", path)
    assert code == 0, err
    first = json.loads(out.splitlines()[0])
    assert first["messages"][-1]["type"] == "ai"
    assert first["messages"][-1]["content"].startswith("That sounds like a fun and engaging idea")
    assert first["rejected"].startswith("Hello! I'd be happy to help you create a")
    code, out, _ = run("convert", "--to", "sharegpt", path)
    written = json.loads(out.splitlines()[0])
    assert written["chosen"] == json.loads(path.read_text())[0]["chosen"]


def test_a_bad_chosen_turn_names_its_field(tmp_path):
    path = tmp_path / "c.json"
    path.write_text('[{"conversations":[{"from":"human","value":"hi"}],"chosen":5}]')
    code, _, err = run("convert", path)
    assert code == 1
    assert err == (
        f'chatpipe: error: {path}:1:2: message 2: "chosen": a turn must be {{"from", "value"}}\n'
    )


def test_double_encoded_arguments_are_reported_and_written_back_as_they_came():
    path = FIXTURES / "openai_chat__documented_double_encoded_arguments.jsonl"
    raw = json.loads(path.read_text())["messages"][2]["tool_calls"][0]["function"]["arguments"]
    [row] = [json.loads(line) for line in run("openai", "--keep-fields", path)[1].splitlines()]
    assert row["messages"][2]["tool_calls"][0]["function"]["arguments"] == raw
    keep = ("convert", "--to", "openai", "--keep-extras")
    [row] = [json.loads(line) for line in run(*keep, path)[1].splitlines()]
    assert row["messages"][2]["tool_calls"][0]["function"]["arguments"] == raw
    # a request for the API: the arguments as JSON text of the object they mean, once
    [row] = [json.loads(line) for line in run("convert", "--to", "openai", path)[1].splitlines()]
    arguments = row["messages"][2]["tool_calls"][0]["function"]["arguments"]
    assert json.loads(arguments) == json.loads(json.loads(raw))
    [row] = [json.loads(line) for line in run("openai", path)[1].splitlines()]
    assert json.loads(row["messages"][2]["tool_calls"][0]["function"]["arguments"]) == {
        "file_path": "plan.md",
        "content": "plan",
    }
    code, out, _ = run("validate", path)
    assert code == 1
    assert out == (
        f"{path}:1:1: message 3: double_encoded_arguments: tool call 'write_file' (call_1): the"
        " arguments are JSON text of JSON text (read decoded) (write arguments once as JSON"
        " text of an object)\n"
    )


# -- found reading the code ----------------------------------------------------------------


def test_every_module_chatpipe_imports_outside_the_standard_library_is_declared():
    """typing_extensions was imported on Python 3.10 but not declared (item 16)."""
    import ast
    import re
    import sys
    from pathlib import Path

    import tomllib

    root = Path(__file__).resolve().parent.parent
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    declared = {
        re.split(r"[<>=!~;\[ ]", spec, maxsplit=1)[0].lower().replace("-", "_")
        for spec in project["dependencies"]
    }
    optional = {
        re.split(r"[<>=!~;\[ ]", spec, maxsplit=1)[0].lower().replace("-", "_")
        for specs in project["optional-dependencies"].values()
        for spec in specs
    }
    names = {"yaml": "pyyaml", "markdown_it": "markdown_it_py", "google": "google_genai"}
    found = set()
    for path in (root / "src" / "chatpipe").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    third_party = {
        names.get(m, m)
        for m in found
        if m not in sys.stdlib_module_names and m not in ("chatpipe", "__future__")
    }
    missing = {m for m in third_party if m.lower() not in declared | optional}
    assert not missing, missing
    assert "typing_extensions" in declared


def test_one_conversation_is_plain_text_whatever_holds_it(tmp_path):
    """buffer (and template) on one JSON document printed a JSON string (item 17)."""
    document = FIXTURES / "openai_chat__pydanticai_req_developer_role.json"
    assert run("buffer", document)[1] == "System: You are a helpful assistant.\nHuman: Hello\n"
    rows = (FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl").read_text()
    one = tmp_path / "one.jsonl"
    one.write_text(rows.splitlines()[0] + "\n")
    out = run("buffer", one)[1]
    assert out.startswith("System: You are a happy assistant") and out.count("\n") == 3
    two = tmp_path / "two.jsonl"
    two.write_text("\n".join(rows.splitlines()[:2]) + "\n")
    lines = run("buffer", two)[1].splitlines()
    assert len(lines) == 2 and all(json.loads(line).startswith("System:") for line in lines)


def test_every_stream_dialect_forced_on_records_of_another_kind_says_so():
    """gemini-stream read any record as a chunk and printed an empty message (item 18)."""
    path = FIXTURES / "openai_tool_calls.jsonl"
    for dialect in (
        "openai-stream",
        "anthropic-stream",
        "gemini-stream",
        "openai-responses-stream",
    ):
        code, out, err = run("convert", "--from", dialect, path)
        assert (code, out) == (1, ""), dialect
        assert err == (
            f"chatpipe: error: {path}:1:1: no {dialect} events here: nothing to read"
            " (leave --from out to detect the dialect)\n"
        )
    code, out, _ = run(
        "convert", "--from", "gemini-stream", FIXTURES / "gemini__vercel_stream_function_call.jsonl"
    )
    assert code == 0 and len(out.splitlines()) == 1


def test_trl_preference_rows_read_prompt_and_chosen_as_the_conversation():
    path = FIXTURES / "hf_preference__documented_trl_conversational.jsonl"
    code, out, err = run("convert", "-v", "--to", "openai", "--keep-extras", path)
    assert code == 0, err
    assert "openai (jsonl, conversation per record)" in err
    explicit, implicit = (json.loads(line) for line in out.splitlines())
    asked = {"role": "user", "content": "What color is the sky?"}
    blue = {"role": "assistant", "content": "It is blue."}
    assert explicit == {
        "messages": [asked, blue],
        "rejected": [{"role": "assistant", "content": "It is green."}],
    }
    assert implicit == {
        "messages": [asked, blue],
        "rejected": [asked, {"role": "assistant", "content": "It is green."}],
    }
    # a row the API takes holds the conversation; the rejected answer is said
    code, out, err = run("convert", "--to", "openai", path)
    assert [json.loads(line) for line in out.splitlines()] == [{"messages": [asked, blue]}] * 2
    assert err == (
        "chatpipe: warning: openai cannot hold conversation fields the API does not take: left "
        "out of 2 conversations (rejected; -v lists them)\n"
    )


MARKDOWN_BLOCKS = {
    "messages": [
        {
            "type": "human",
            "content": [
                "plain string part",
                {"type": "text", "text": "a text block"},
                {"type": "image", "url": "https://e.x/cat.png"},
                {"type": "image", "base64": "QUJD", "mime_type": "image/png"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,QUJD"}},
                {"type": "image_url", "image_url": "https://e.x/dog.png"},
                {"type": "audio", "url": "https://e.x/a.wav"},
                {"type": "file", "file_id": "f1", "extras": {"file_name": "report.pdf"}},
            ],
        },
        {
            "type": "ai",
            "content": [
                {"type": "thinking", "thinking": "step one\nstep two"},
                {"type": "reasoning", "reasoning": ""},
                {"type": "server_tool_call", "name": "web_search", "args": {"q": "```fenced```"}},
                {"type": "server_tool_result", "output": {"hits": 2}},
                {"type": "tool_result", "content": "done"},
                {"type": "mystery", "x": 1},
            ],
        },
    ]
}


def test_markdown_shows_every_kind_of_block(tmp_path):
    path = tmp_path / "blocks.jsonl"
    path.write_text(json.dumps(MARKDOWN_BLOCKS) + "\n")
    code, out, err = run("convert", "--to", "markdown", path)
    assert code == 0
    assert out == (
        "# plain string part a text block\n\n### User\n\nplain string part\n\na text block\n\n"
        "![image](https://e.x/cat.png)\n\n*[image]*\n\n*[image]*\n\n"
        "![image](https://e.x/dog.png)\n\n*[audio: https://e.x/a.wav]*\n\n"
        "*[file: report.pdf]*\n\n### Assistant\n\n> step one\n> step two\n\n"
        # a fence longer than any run of backticks inside it
        '````json\n{\n  "name": "web_search",\n  "arguments": {\n    "q": "```fenced```"\n'
        "  }\n}\n````\n\n"
        '```\n{\n  "hits": 2\n}\n```\n\n```\ndone\n```\n\n'
        '```json\n{\n  "type": "mystery",\n  "x": 1\n}\n```\n'
    )
    assert err == (
        "chatpipe: warning: markdown cannot hold inline media data (shown as a placeholder):"
        " left out of 1 message (-v lists them)\n"
    )
