"""An API's format written as requests that API takes (#48): what it does not take left out
and said, reasoning where the API has a field for it, --keep-extras for the superset, the
known faults of the writers fixed, and the commands that write their input's dialect. The
records themselves are checked with the providers' own types in test_provider_schemas.py."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import provider_schemas as ps
from chatpipe.cli import app
from conftest import FIXTURES

runner = CliRunner()
CHATGPT = FIXTURES / "chatgpt_export__pkuppens_2023_conversations_subset.json"
CLAUDE_CODE = FIXTURES / "claude_code__daaain_handmade_compact_after_rewind.jsonl"
THINKING = FIXTURES / "anthropic_messages__pydanticai_req_thinking_text_tool_use_tool_result.json"
RESPONSES = FIXTURES / "openai_responses__pydanticai_req_input_reasoning_function_call_output.json"


def cli(*args, input=None):
    result = runner.invoke(app, [str(a) for a in args], input=input)
    return result.exit_code, result.stdout, result.stderr


def records(out):
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def log(*messages):
    return "".join(json.dumps(m) + "\n" for m in messages)


# -- what the API does not take: left out, and said with its names -------------------------


def test_a_conversations_own_fields_and_a_readers_are_left_out_and_named():
    code, out, err = cli("convert", "--to", "anthropic", "-v", CHATGPT)
    assert code == 0
    for request in records(out):
        assert set(request) <= {"system", "messages"}
        assert all(set(turn) == {"role", "content"} for turn in request["messages"])
    lines = err.splitlines()
    fields = lines.index(
        "chatpipe: warning: anthropic cannot hold conversation fields the API does not take: "
        "left out of 4 conversations"
    )
    export = json.loads(CHATGPT.read_text())
    # -v names them, as the export holds them, conversation by conversation
    named = lines[fields + 1].split(": ", 2)[2].split(", ")
    assert named[:3] == ["title", "create_time", "update_time"]
    assert set(named) <= set(export[0]) | {"branch"}
    assert "chatpipe:   conversation 1, message 1: chatgpt (the chatgpt-export record's own " in (
        err
    )


def test_the_warning_names_what_was_left_out_without_v():
    code, _, err = cli("convert", "--to", "gemini", CLAUDE_CODE)
    assert code == 0
    assert (
        "chatpipe: warning: gemini cannot hold message fields the API does not take: left out "
        "of 9 messages (claude_code; -v lists them)"
    ) in err.splitlines()


def test_keep_extras_writes_what_the_api_does_not_take():
    strict = records(cli("convert", "--to", "openai", CHATGPT)[1])
    code, out, err = cli("convert", "--to", "openai", "--keep-extras", CHATGPT)
    assert (code, err) == (0, "")
    kept = records(out)
    assert [r["title"] for r in kept] == [c["title"] for c in json.loads(CHATGPT.read_text())]
    assert all("chatgpt" in m for m in kept[0]["messages"])
    assert [[m["content"] for m in r["messages"]] for r in strict] == [
        [m["content"] for m in r["messages"]] for r in kept
    ]


def test_a_conversation_with_nothing_to_send_makes_no_request():
    rows = log({"messages": [{"role": "user", "content": "hi"}]}, {"messages": []})
    rows += log({"messages": [{"role": "system", "content": "Be brief."}]})
    for to in ("openai", "anthropic", "gemini", "openai-responses"):
        code, out, err = cli("convert", "--to", to, "-", input=rows)
        assert code == 0 and len(records(out)) == 1, to
        assert err == (
            f"chatpipe: warning: {to} cannot hold conversations with no turns to send (no "
            "request is written for them): left out of 2 conversations (-v lists them)\n"
        )
    assert len(records(cli("convert", "--to", "openai", "--keep-extras", "-", input=rows)[1])) == 3


def test_request_settings_are_left_out_of_a_row_and_kept_in_a_request():
    row = {"messages": [{"role": "user", "content": "hi"}], "temperature": 0.2, "title": "t"}
    code, out, err = cli("convert", "--to", "openai", "-", input=json.dumps(row))
    assert records(out) == [{"messages": [{"role": "user", "content": "hi"}]}]
    assert "cannot hold request settings" in err and "(temperature; -v lists them)" in err
    batch = ("--to", "openai-batch", "--model", "m")
    code, out, err = cli("convert", *batch, "-", input=json.dumps(row))
    assert code == 0
    assert records(out)[0]["body"] == {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "temperature": 0.2,
    }
    assert "(title; -v lists them)" in err


# -- the faults the issue names --------------------------------------------------------------


def test_a_responses_tool_turn_to_openai_has_no_empty_content_array():
    code, out, _ = cli("convert", "--to", "openai", RESPONSES)
    assert code == 0
    [row] = records(out)
    calls = [m for m in row["messages"] if m.get("tool_calls")]
    assert calls and all(m["content"] != [] for m in row["messages"])
    assert ps.openai_chat(row) == []


def test_responses_items_carry_no_readers_fields():
    for path in (CLAUDE_CODE, FIXTURES / "gemini_cli__entire_2026_session_tools_info.json"):
        code, out, _ = cli("convert", "--to", "openai-responses", path)
        assert code == 0 and records(out)
        for request in records(out):
            for item in request["input"]:
                assert not {"claude_code", "gemini_cli"} & set(item), item
                assert ps.openai_responses(request) == []


@pytest.mark.parametrize(
    "tools",
    [
        json.dumps([{"type": "function", "function": {"name": "f", "parameters": {}}}]),
        {"functionDeclarations": [{"name": "f", "description": "F."}]},
    ],
    ids=["json-text", "gemini-dict"],
)
def test_anthropic_batch_translates_tools_given_as_text_or_as_gemini_declares_them(tools):
    row = {"messages": [{"role": "user", "content": "hi"}], "tools": tools}
    args = ("--to", "anthropic-batch", "--model", "m", "--max-tokens", "9")
    code, out, err = cli("convert", *args, "-", input=json.dumps(row))
    assert code == 0, err
    [request] = records(out)
    [tool] = request["params"]["tools"]
    assert tool["name"] == "f" and tool["input_schema"]["type"] == "object"
    assert ps.anthropic_batch(request) == []


def test_tool_choices_are_said_the_way_each_api_says_them():
    row = {
        "messages": [{"role": "user", "content": "weather?"}],
        "tools": [{"type": "function", "function": {"name": "w", "parameters": {}}}],
        "tool_choice": "required",
    }
    text = json.dumps(row)
    anthropic = records(cli("convert", "--to", "anthropic", "-", input=text)[1])[0]
    assert anthropic["tool_choice"] == {"type": "any"}
    gemini = records(cli("convert", "--to", "gemini", "-", input=text)[1])[0]
    assert gemini["toolConfig"] == {"functionCallingConfig": {"mode": "ANY"}}
    named = json.dumps({**row, "tool_choice": {"type": "function", "function": {"name": "w"}}})
    responses = records(cli("convert", "--to", "openai-responses", "-", input=named)[1])[0]
    assert responses["tool_choice"] == {"type": "function", "name": "w"}
    assert [ps.anthropic(anthropic), ps.gemini(gemini), ps.openai_responses(responses)] == [
        [],
        [],
        [],
    ]


# -- reasoning: in the API's field, or left out, as --reasoning asks -------------------------

REASONED = log(
    {"role": "user", "content": "2+2?"},
    {"role": "assistant", "content": "4", "reasoning_content": "Two and two make four."},
)


def test_chat_completions_has_no_reasoning_field_unless_asked_for_one():
    code, out, err = cli("convert", "--to", "openai", "-", input=REASONED)
    assert records(out)[1] == {"role": "assistant", "content": "4"}
    assert "openai cannot hold reasoning (Chat Completions has no field for it;" in err
    code, out, err = cli(
        "convert", "--to", "openai", "--reasoning", "reasoning-content", "-", input=REASONED
    )
    assert (code, err) == (0, "")
    assert records(out)[1]["reasoning_content"] == "Two and two make four."


def test_signed_thinking_goes_back_to_anthropic_and_to_gemini_as_thought():
    code, out, err = cli("convert", "--to", "anthropic", THINKING)
    assert (code, err) == (0, "")
    given = json.loads(THINKING.read_text())["messages"][1]["content"][0]
    assert records(out)[0]["messages"][1]["content"][0] == given  # (signed: taken back)
    code, out, err = cli("convert", "--to", "gemini", THINKING)
    assert code == 0
    part = records(out)[0]["contents"][1]["parts"][0]
    assert part == {"text": given["thinking"], "thought": True}
    code, out, err = cli("convert", "--to", "anthropic", "--reasoning", "drop", THINKING)
    assert records(out)[0]["messages"][1]["content"][0]["type"] == "text"
    assert "anthropic cannot hold reasoning (left out, as --reasoning drop asks)" in err


def test_responses_reasoning_items_with_their_ids_go_back_to_responses():
    code, out, err = cli("convert", "--to", "openai-responses", RESPONSES)
    assert (code, err) == (0, "")
    given = [i for i in json.loads(RESPONSES.read_text())["input"] if i.get("type") == "reasoning"]
    written = [i for i in records(out)[0]["input"] if i.get("type") == "reasoning"]
    assert written == given and given


def test_a_bad_reasoning_choice_or_an_api_setting_elsewhere_is_a_usage_error():
    code, _, err = cli("convert", "--to", "openai", "--reasoning", "text", CHATGPT)
    assert code == 2 and "--reasoning must be one of field, drop, reasoning-content" in err
    code, _, err = cli("convert", "--to", "sharegpt", "--keep-extras", CHATGPT)
    assert code == 2
    assert "--to sharegpt takes no --keep-extras: only --to openai, anthropic, gemini" in err


# -- commands that write their input's dialect -----------------------------------------------


def test_a_read_only_input_is_written_canonical_and_said_once():
    for command in (("head", "-n", "5"), ("sample", "-n", "2", "--seed", "1"), ("dedupe",)):
        code, out, err = cli(*command, CHATGPT)
        assert code == 0
        said = "chatpipe: chatgpt-export is read only: wrote canonical instead"
        assert err.splitlines().count(said) == 1, command
        assert records(out)[0]["messages"][0]["type"] == "human"


def test_a_turn_that_holds_nothing_is_left_out_and_said_where_the_api_refuses_it():
    # Anthropic refuses an empty turn and an empty text block, Gemini a turn of no parts:
    # the empty user turn is left out, said, and the two user turns either side of the
    # empty answer are one turn (the roles alternate)
    given = log(
        {"role": "user", "content": ""},
        {"role": "assistant", "content": "hi"},
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": ""},
        {"role": "user", "content": "again"},
    )
    said = (
        "cannot hold turns that held nothing the API takes (left out whole): left out of 2 messages"
    )
    for target, key, text in (
        ("anthropic", "messages", "content"),
        ("gemini", "contents", "parts"),
    ):
        code, out, err = cli("convert", "--from", "openai", "--to", target, input=given)
        assert code == 0 and said in err, err
        turns = records(out)[0][key]
        assert [t["role"] for t in turns] == [
            "assistant" if target == "anthropic" else "model",
            "user",
        ]
        assert turns[1][text] == (
            [{"type": "text", "text": "q"}, {"type": "text", "text": "again"}]
            if target == "anthropic"
            else [{"text": "q"}, {"text": "again"}]
        )
        # --keep-extras writes the turns as they were read, for chatpipe to read back
        code, out, err = cli(
            "convert", "--from", "openai", "--to", target, "--keep-extras", input=given
        )
        assert code == 0 and len(records(out)[0][key]) == 5, (target, out)


def test_another_apis_signature_of_reasoning_is_said_where_its_text_is_written():
    # the reasoning's text goes where the target has a place for it; the token that only
    # the API that signed it checks (Anthropic's signature, Gemini's thought signature, the
    # Responses API's encrypted content) is left out, and said
    said = "cannot hold another API's signatures of reasoning (only the API that signed one takes it back)"
    signed = {
        "anthropic": {"type": "thinking", "thinking": "Think.", "signature": "c2ln"},
        "gemini": {
            "type": "reasoning",
            "reasoning": "Think.",
            "extras": {"thought_signature": "c2ln"},
        },
        "openai": {
            "type": "reasoning",
            "reasoning": "Think.",
            "extras": {"encrypted_content": "gAAA"},
        },
    }
    targets = {  # the target, its settings, and the API whose signature it takes back
        "gemini": ((), "gemini"),
        "bedrock-converse": ((), "anthropic"),
        "ollama": ((), None),
        "openai": (("--reasoning", "reasoning-content"), None),
    }
    for api, block in signed.items():
        given = log(
            {"type": "human", "content": "q"},
            {"type": "ai", "content": [block, {"type": "text", "text": "a"}]},
        )
        for target, (settings, own) in targets.items():
            code, out, err = cli(
                "convert", "--from", "canonical", "--to", target, *settings, input=given
            )
            assert code == 0, err
            assert "Think." in out, (api, target, out)  # (the text is written)
            assert (said in err) == (api != own), (api, target, err)


def test_what_a_text_block_holds_beside_its_text_is_said_where_it_is_left_out():
    # Anthropic's citations (and a reader's extras) on an answer's text: written where the
    # target has their place (Anthropic), said where the text is written alone
    cited = [{"type": "char_location", "cited_text": "x", "document_index": 0}]
    text = {"type": "text", "text": "cited", "citations": cited}
    given = log({"type": "human", "content": "q"}, {"type": "ai", "content": [text]})
    said = "cannot hold content-part fields the API does not take: left out of 1 message"
    for target in ("openai", "openai-responses", "gemini", "bedrock-converse", "ollama"):
        code, out, err = cli("convert", "--from", "canonical", "--to", target, input=given)
        assert code == 0 and "cited" in out and said in err, (target, err)
        assert "char_location" not in out, target
    code, out, err = cli("convert", "--from", "canonical", "--to", "anthropic", input=given)
    assert code == 0 and err == "" and records(out)[0]["messages"][1]["content"] == [text]
    # an empty list, or a key langchain gives every block, is nothing left out
    plain = {"type": "text", "text": "a", "annotations": [], "id": "b1"}
    given = log({"type": "human", "content": "q"}, {"type": "ai", "content": [plain]})
    for target in ("openai", "gemini", "ollama"):
        code, _, err = cli("convert", "--from", "canonical", "--to", target, input=given)
        assert code == 0 and err == "", (target, err)


def test_a_media_blocks_own_fields_are_said_where_they_are_left_out():
    # a reader's fields on an image (a caption, its size): no API takes them, every API
    # writer says so (Gemini and Responses did; the others left them out unsaid)
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    image = {"type": "image", "base64": png, "mime_type": "image/png"}
    said = "cannot hold content-part fields the API does not take: left out of 1 message"
    targets = ("openai", "openai-responses", "anthropic", "gemini", "bedrock-converse", "ollama")
    for extras in (
        {"caption": "a cat", "width": 1},
        {"filename": "cat.png"},
    ):  # (no API names images)
        content = [{"type": "text", "text": "see"}, {**image, "extras": extras}]
        given = log({"type": "human", "content": content})
        for target in targets:
            code, out, err = cli("convert", "--from", "canonical", "--to", target, input=given)
            assert code == 0 and png in out and said in err, (target, extras, err)
    # an image's detail, which Chat Completions takes too (a Responses image kept it)
    given = log({"type": "human", "content": [{**image, "extras": {"detail": "high"}}]})
    code, out, err = cli("convert", "--from", "canonical", "--to", "openai", input=given)
    part = records(out)[0]["content"][0]  # (a log of messages, written message by message)
    assert code == 0 and err == "" and part["image_url"]["detail"] == "high", (out, err)
    # a document's name is written where the API names documents: nothing to say
    pdf = {"type": "file", "base64": "JVBERi0xLjQK", "mime_type": "application/pdf"}
    given = log({"type": "human", "content": [{**pdf, "extras": {"filename": "plan.pdf"}}]})
    for target in ("openai", "openai-responses", "anthropic", "bedrock-converse"):
        code, out, err = cli("convert", "--from", "canonical", "--to", target, input=given)
        assert code == 0 and err == "" and "plan" in out, (target, err, out)


def test_a_run_that_fails_says_its_error_alone():
    # the note of what was written comes when the run ends well: a run that fails after
    # writing its first conversation says one thing, its error (found by the CI's fuzz run)
    for command in (("trim", "--max-tokens", "20"), ("head", "-n", "5"), ("convert",)):
        code, _, err = cli(*command, input=b'{"mapping": {}}\nnull\n{"mapping": {}}\n')
        assert code == 1, command
        assert err.startswith("chatpipe: error: <stdin>:2:1: cannot read this record"), err
        assert len(err.splitlines()) == 1 and "read only" not in err, err
        code, _, err = cli(*command, input=b'{"mapping": {}}\n')
        said = (
            ""
            if command == ("convert",)
            else "chatpipe: chatgpt-export is read only: wrote canonical instead\n"
        )
        assert code == 0 and err == said, command  # (convert writes canonical: nothing to say)


def test_split_says_once_which_dialect_it_wrote(tmp_path):
    code, _, err = cli("split", "--ratio", "a=0.5,b=0.5", "--output-dir", tmp_path / "s", CHATGPT)
    assert code == 0
    assert err == "chatpipe: chatgpt-export is read only: wrote canonical instead\n"


def test_an_api_input_is_written_back_whole_and_a_batch_keeps_its_requests():
    request = {
        "model": "claude-x",
        "max_tokens": 9,
        "messages": [{"role": "user", "content": "hi", "ts": 1}],
    }
    code, out, err = cli("head", "-n", "1", "-", input=json.dumps(request))
    assert (code, err) == (0, "")
    assert records(out) == [{"messages": request["messages"], "model": "claude-x", "max_tokens": 9}]
    batch = FIXTURES / "openai_batch__litellm_chat_input.jsonl"
    code, out, err = cli("head", "-n", "1", batch)
    assert (code, err) == (0, "")
    assert records(out) == [json.loads(batch.read_text().splitlines()[0])]
    # a batch's results are written back as results, as read (#51)
    results = FIXTURES / "openai_batch__litellm_chat_output.jsonl"
    code, out, err = cli("head", "-n", "1", results)
    assert (code, err) == (0, "")
    assert records(out) == [json.loads(results.read_text().splitlines()[0])]


def test_split_to_an_api_writes_every_conversation_on_its_side(tmp_path):
    """split --to openai wrote every side empty, each conversation "with no turns to send":
    the side's key read the messages that the loss check passes on once, and the writer
    got none (#48 with #50's split)."""
    source = FIXTURES / "sharegpt__fastchat_dummy_conversation_first20.json"
    code, _, err = cli(
        "split", "--ratio", "a=0.5,b=0.5", "--to", "openai", "--output-dir", tmp_path / "o", source
    )
    assert code == 0, err
    assert "no turns to send" not in err
    written = [
        r for side in ("a", "b") for r in records((tmp_path / "o" / f"{side}.jsonl").read_text())
    ]
    assert len(written) == 20 and all(len(r["messages"]) >= 2 for r in written)
