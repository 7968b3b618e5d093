"""No turn is emptied silently (issue 39, item 5): a turn read with no content whose
record held text in a field the reader did not know is said on stderr (``-v``: which
message), and over every fixture the text of the input is in the canonical output, or the
run says what it left."""

from __future__ import annotations

import contextlib
import html
import json
import re
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from chatpipe import AIMessage, HumanMessage, ToolMessage
from chatpipe.cli import app
from chatpipe.pipeline.losses import unread
from expected_messages import conversation_fixtures

runner = CliRunner()
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def run(*args, input=None):
    result = runner.invoke(app, [str(a) for a in args], input=input)
    return result.exit_code, result.stdout, result.stderr


UI_LOG = {
    "id": "chat",
    "messages": [
        {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Hello there"}]},
        {"id": "a1", "role": "assistant", "parts": [{"type": "text", "text": "Hi!"}]},
        {"role": "assistant", "content": "", "created_at": "2026-01-01T00:00:00Z"},
    ],
}


def test_turns_read_empty_are_said_with_the_field_and_the_message():
    code, out, err = run("openai", "--from", "openai", "-", input=json.dumps(UI_LOG))
    assert code == 0
    assert json.loads(out)["messages"] == [
        {"role": "user", "content": ""},
        {"role": "assistant", "content": ""},
        {"role": "assistant", "content": ""},
    ]
    assert err == (
        "chatpipe: warning: text in fields the reader does not know ('parts') in 2 messages: "
        "read as empty turns (--from names a dialect) (-v lists them)\n"
    )
    code, _, err = run("buffer", "-v", "--from", "openai", "-", input=json.dumps(UI_LOG))
    assert code == 0
    assert err.splitlines()[1:] == [
        "chatpipe: row lane: 1 row read without messages",
        "chatpipe: warning: text in fields the reader does not know ('parts') in 2 messages: "
        "read as empty turns (--from names a dialect)",
        "chatpipe:   conversation 1, message 1",
        "chatpipe:   conversation 1, message 2",
    ]


def test_read_as_its_own_dialect_nothing_is_said():
    code, out, err = run("buffer", "-", input=json.dumps(UI_LOG))
    assert (code, err) == (0, "")
    assert out == "Human: Hello there\nAI: Hi!\nAI: \n"


@pytest.mark.parametrize(
    ("message", "said"),
    [
        (HumanMessage("hi"), []),
        (AIMessage("", tool_calls=[{"name": "f", "args": {}, "id": "c"}]), []),
        (AIMessage("", additional_kwargs={"refusal": "I can't help with that."}), []),
        (AIMessage("", additional_kwargs={"reasoning_content": "thinking"}), []),
        (AIMessage("", additional_kwargs={"weight": 0, "created": "2026-01-01"}), []),
        (
            ToolMessage("", tool_call_id="c", additional_kwargs={"output": {"text": "x"}}),
            ["text in fields the reader does not know ('output')"],
        ),
        (
            HumanMessage([], additional_kwargs={"body": [{"content": " "}], "message": "hey"}),
            ["text in fields the reader does not know ('message')"],
        ),
        (
            AIMessage("", additional_kwargs={"unread_partial_args": [{"stringValue": "x"}]}),
            ["text in fields the reader does not know ('unread_partial_args')"],
        ),
        (
            # an export's own record: its fields named as the input names them
            AIMessage("", additional_kwargs={"claude": {"text": "words", "index": 3}}),
            ["text in fields the reader does not take (claude-export: 'text')"],
        ),
        (
            HumanMessage("", additional_kwargs={"chatgpt": {"content": {"result": "r"}}, "x": 1}),
            ["text in fields the reader does not take (chatgpt-export: 'content')"],
        ),
        (
            AIMessage("", additional_kwargs={"codex": {"id": "7"}, "output": "done"}),
            ["text in fields the reader does not know ('output')"],
        ),
        ({"type": "human", "content": ""}, []),  # a fast path's plain dict
    ],
)
def test_what_counts_as_a_turn_read_empty(message, said):
    assert unread(message) == said


EMPTY_BLOCKS = FIXTURES / "claude_export__osteele_handmade_tool_use_artifact_empty_content.json"


def test_a_claude_message_whose_blocks_hold_nothing_is_read_from_its_text():
    """Content ``[]`` or one empty text block: the message's ``text`` is what it says."""
    code, out, err = run("convert", EMPTY_BLOCKS)
    assert (code, err) == (0, "")
    messages = json.loads(out)["messages"]
    assert [(m["type"], m["content"]) for m in messages[2:4]] == [
        ("human", "This message has empty content array - should show as empty"),
        ("ai", "This message has empty text in content item"),
    ]


# a message read empty whose record holds text in a field the Claude export reader leaves
# (a hand-made shape: an attachment with its text under "content")
UNTAKEN = {
    "uuid": "c1",
    "chat_messages": [
        {"uuid": "m1", "sender": "human", "text": "", "content": [{"type": "text", "text": "Hi"}]},
        {
            "uuid": "m2",
            "sender": "assistant",
            "text": "",
            "content": [],
            "attachments": [{"file_name": "notes.txt", "content": "the notes"}],
        },
    ],
}


def test_a_field_an_export_reader_leaves_is_named_as_the_input_names_it():
    """The dialect was found: the line names the record's field, and no --from."""
    code, out, err = run("buffer", "-", input=json.dumps(UNTAKEN))
    assert (code, out) == (0, "Human: Hi\nAI: \n")
    assert err == (
        "chatpipe: warning: text in fields the reader does not take (claude-export: "
        "'attachments') in 1 message: read as empty turns (-v lists them)\n"
    )
    code, _, err = run("buffer", "-v", "-", input=json.dumps(UNTAKEN))
    assert err.splitlines()[1:] == [
        "chatpipe: warning: text in fields the reader does not take (claude-export: "
        "'attachments') in 1 message: read as empty turns",
        "chatpipe:   conversation 1, message 2",
    ]


# keys under which the fixtures hold the text of their turns
TEXT_KEYS = {"text", "content", "value", "thinking", "reasoning", "refusal", "output"}
TEXT_KEYS |= {"stringValue", "delta", "partial_json", "arguments", "result", "errorText"}


def load(path):
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":  # (a chat log for people: its lines are its text, its
        # sessions' opening lines and the prefixes that say who wrote a line aside)
        lines = [re.sub(r"^(#### ?|> ?)", "", line) for line in text.splitlines()]
        return [{"text": line} for line in lines if not re.match(r"# [Aa]ider chat started", line)]
    if path.suffix in (".yaml", ".yml"):
        return yaml.safe_load(text)
    if path.suffix == ".sse" or text.lstrip().startswith("data:"):
        data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
        return [json.loads(d) for d in data if d != "[DONE]"]
    try:
        return json.loads(text)
    except ValueError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def texts(value, key=None):
    """The strings of a record held under the keys that hold turns' text."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from texts(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from texts(v, key)
    elif isinstance(value, str) and key in TEXT_KEYS and value.strip():
        yield value


def words_of(text: str) -> set[str]:
    """The words of a text; of JSON text, those of its values (its keys name fields that
    the canonical format may name otherwise: ``arguments`` is ``args`` there); of text
    with HTML entities (Open WebUI's ``<details>`` markup), those of the text they stand
    for."""
    text = html.unescape(text)
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    if isinstance(parsed, (dict, list)):
        return set(re.findall(r"\w+", " ".join(values(parsed))))
    return set(re.findall(r"\w+", text))


def values(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from values(v)
    elif isinstance(value, list):
        for v in value:
            yield from values(v)
    elif value is not None:
        yield str(value)


def strings(value):
    """Every string of the output (keys and numbers too), and those of the JSON text
    inside it."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)
    elif isinstance(value, (int, float)):
        yield str(value)
    elif isinstance(value, str):
        yield value
        if value[:1] in "[{":
            with contextlib.suppress(ValueError):
                yield from strings(json.loads(value))


@pytest.mark.parametrize("path", conversation_fixtures(), ids=lambda p: p.name)
def test_the_text_of_every_fixture_is_in_the_canonical_output_or_said(path):
    code, out, err = run("convert", "--branch", "all", "--include-hidden", path)
    assert code == 0, err
    output = "\n".join(s for line in out.splitlines() for s in strings(json.loads(line)))
    words = set(re.findall(r"\w+", output))
    # a text is there as it is (a stream's delta: inside the joined text), or word for
    # word (JSON text written again with other spacing)
    records = load(path)
    if path.name.startswith("codex__"):  # event_msg lines repeat the response_item lines
        records = [r for r in records if r.get("type") != "event_msg"]
    missing = [t for t in texts(records) if t not in output and not words_of(t) <= words]
    assert not missing or "warning" in err, (missing[:3], err)
