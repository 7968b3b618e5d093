"""Rows straight into chat-template messages (fast/template_rows.py) against the ordinary
way: reading the row into messages, then shaping them (templates/messages.py).

Generated OpenAI rows mix the plain shapes the fast way takes with every near miss it
must hand to the ordinary way (an extra key, list or missing content, a call without an
id, arguments that are not an object, double-encoded arguments, unknown roles); the two
ways must give the same dicts, key order included, and ``chatpipe template`` the same
bytes and errors with the fast paths on and off.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import chatpipe.pipeline.fast_hooks
from chatpipe.cli import app
from chatpipe.errors import Location
from chatpipe.fast.template_rows import template_row
from chatpipe.formats.openai import OpenAIDialect
from chatpipe.templates.messages import ShapedMessages, chat_messages
from conftest import FIXTURES, Tally

runner = CliRunner()
TEMPLATES = FIXTURES / "chat_templates"

TEXT = st.lists(st.sampled_from([*"ab <>&\"'\n\\é🚀\x00", "{", "Human: "]), max_size=8).map("".join)
CALL_IDS = ["c1", "c2", "c3"]


@st.composite
def arguments(draw, misses):
    kind = draw(st.integers(0, 9)) if misses else 9
    if kind == 0:
        return "{not json"
    if kind == 1:
        return "[1, 2]"
    if kind == 2:
        return ""
    if kind == 3:
        return json.dumps(json.dumps({"q": draw(TEXT)}))  # double-encoded
    if kind == 4:
        return {"q": draw(TEXT)}  # an object, not its text
    if kind == 5:
        return '{"n": 1e400, "big": 123456789012345678901234567890}'
    return json.dumps(
        {"q": draw(TEXT), "n": draw(st.integers(-5, 5)), "x": [1.0, None, True]},
        ensure_ascii=draw(st.booleans()),
    )


@st.composite
def call(draw, misses):
    value = {
        "id": draw(st.sampled_from(CALL_IDS)),
        "type": "function",
        "function": {
            "name": draw(st.sampled_from(["search", "get"])),
            "arguments": draw(arguments(misses)),
        },
    }
    miss = draw(st.integers(0, 14)) if misses else 14
    if miss == 0:
        del value["id"]
    elif miss == 1:
        value["id"] = ""
    elif miss == 2:
        value["index"] = 0
    elif miss == 3:
        value["type"] = "custom"
    elif miss == 4:
        del value["function"]["name"]
    elif miss == 5:
        value["function"] = {"arguments": "{}", "name": "get"}  # other key order
    return value


@st.composite
def message(draw, misses):
    roles = ["user", "assistant", "system", "tool", "human", "ai"]
    role = draw(st.sampled_from([*roles, "developer"] if misses else roles))
    value = {"role": role, "content": draw(TEXT)}
    if role == "tool":
        value["tool_call_id"] = draw(st.sampled_from([*CALL_IDS, "unknown"]))
    if role in ("assistant", "ai") and draw(st.integers(0, 2)):
        value["tool_calls"] = draw(st.lists(call(misses), min_size=1, max_size=3))
        if draw(st.booleans()):
            value["content"] = None
    miss = draw(st.integers(0, 16)) if misses else 16
    if miss == 0:
        value["name"] = "bob"
    elif miss == 1:
        del value["content"]
    elif miss == 2:
        value["content"] = [{"type": "text", "text": draw(TEXT)}]
    elif miss == 3 and role == "tool":
        value["tool_call_id"] = draw(st.sampled_from(["", 7, None]))
    elif miss == 4:
        value["reasoning_content"] = draw(TEXT)
    elif miss == 5:
        value["content"] = ""
    return value


# rows of plain shapes only, and rows where any message or call may be a near miss
ROWS = st.builds(
    lambda messages, tools: {"messages": messages, **tools},
    st.booleans().flatmap(lambda misses: st.lists(message(misses), min_size=1, max_size=6)),
    st.sampled_from([{}, {"tools": [{"type": "function", "function": {"name": "get"}}]}]),
)


def test_a_row_gives_the_dicts_the_ordinary_way_gives():
    # the tally in the same test as its examples (under xdist, two tests of a file may run
    # in two processes, each with its own tally)
    shaped_tally = Tally("template rows, fast way against the ordinary one")

    @settings(max_examples=600, deadline=None)
    @given(row=ROWS)
    def check(row):
        dialect, location = OpenAIDialect(), Location("rows.jsonl", 3)
        fast = template_row(dialect, row, location)
        if fast is None:
            shaped_tally("fallback")
            return
        ordinary = dialect.read_conversation(row, location)
        assert type(fast.messages) is ShapedMessages
        # repr shows key order, which a template iterating a dict would see
        assert repr(fast.messages) == repr(chat_messages(ordinary.messages))
        assert (fast.meta, fast.location, fast.messages_key) == (
            ordinary.meta,
            ordinary.location,
            ordinary.messages_key,
        )
        shaped_tally("shaped, with calls" if "tool_calls" in repr(fast.messages) else "shaped")

    check()
    shaped_tally.require(0.25, "shaped", "shaped, with calls")
    shaped_tally.require(0.10, "shaped, with calls")
    shaped_tally.require(0.10, "fallback")


@pytest.mark.parametrize(
    "value",
    [
        {"messages": "not a list"},
        {"messages": [{"role": "user", "content": "x"}], "choices": []},
        {"chosen": [{"role": "user", "content": "x"}]},
        ["user", "x"],
    ],
)
def test_what_is_not_a_plain_row_takes_the_ordinary_way(value):
    assert template_row(OpenAIDialect(), value, Location("f", 1)) is None


def test_a_row_of_another_dialect_takes_the_ordinary_way():
    from chatpipe.formats.registry import get_dialect

    row = {"messages": [{"role": "user", "content": "x"}]}
    assert template_row(get_dialect("canonical"), row, Location("f", 1)) is None
    assert template_row(OpenAIDialect(), row, Location("f", 1)).messages == [
        {"role": "user", "content": "x"}
    ]


def _template(monkeypatch, fast, args, data=None):
    monkeypatch.setattr(chatpipe.pipeline.fast_hooks, "ENABLED", fast)
    result = runner.invoke(app, ["template", *args], input=data)
    return result.exit_code, result.stdout, result.stderr


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    rows=st.lists(ROWS, min_size=2, max_size=6),
    template=st.sampled_from(
        [
            "Qwen-Qwen2.5-7B-Instruct.jinja",
            "Qwen-Qwen3-0.6B.jinja",
            "meta-llama-Llama-3.1-8B-Instruct.jinja",
            "mistralai-Mistral-Nemo-Instruct-2407.jinja",
        ]
    ),
)
def test_chatpipe_template_writes_the_same_with_the_fast_way(monkeypatch, rows, template):
    data = "".join(json.dumps(row) + "\n" for row in rows)
    args = ["--chat-template", str(TEMPLATES / template), "--on-error", "skip", "-"]
    expected = _template(monkeypatch, False, args, data)
    assert _template(monkeypatch, True, args, data) == expected


def _rows(path):
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict) and isinstance(value.get("messages"), list):
            yield value


FIXTURE_ROWS = [p for p in sorted(FIXTURES.rglob("*.jsonl")) if any(_rows(p))]


def test_every_fixture_of_rows_renders_the_same_with_the_fast_way(monkeypatch):
    rendered = []
    for path in FIXTURE_ROWS:
        args = [
            "-v",  # what is said of the reading, too
            "--chat-template",
            str(TEMPLATES / "Qwen-Qwen2.5-7B-Instruct.jinja"),
            "--on-error",
            "skip",
            str(path),
        ]
        expected = _template(monkeypatch, False, args)
        assert _template(monkeypatch, True, args) == expected, path.name
        if expected[1]:
            rendered.append(path.name)
    # Qwen 2.5's template refuses list content, which most datasets' rows hold
    assert len(rendered) >= 4, rendered


def test_some_fixture_rows_take_the_fast_way():
    fast = [
        path.name
        for path in FIXTURE_ROWS
        if any(template_row(OpenAIDialect(), row, Location("f", 1)) for row in _rows(path))
    ]
    assert len(fast) >= 3, fast
