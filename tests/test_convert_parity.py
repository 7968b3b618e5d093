"""convert_to_messages against langchain-core, and the real-world shapes it rejects."""

from __future__ import annotations

import langchain_core.messages as lc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chatpipe as cp
from chatpipe.errors import ChatpipeError
from conftest import Tally, outcome
from strategies import contents, openai_messages, texts

message_likes = st.one_of(
    openai_messages(),
    texts,
    st.tuples(
        st.sampled_from(["human", "user", "ai", "assistant", "system", "developer", "x"]), contents
    ),
)


def test_same_messages_wherever_langchain_succeeds():
    tally = Tally("convert_to_messages")

    @settings(max_examples=500, deadline=None)
    @given(st.lists(message_likes, max_size=5))
    def check(items):
        theirs = outcome(lc.convert_to_messages, items)
        try:
            ours = cp.convert_to_messages(items)
        except ChatpipeError:
            # chatpipe may refuse only what langchain-core refuses too
            assert theirs[0] == "error"
        if theirs[0] == "ok":
            assert cp.messages_to_dict(ours) == lc.messages_to_dict(theirs[1])
            tally("compared" if items else "empty")
            return
        # refused (chatpipe reads some of it on purpose, the README says which): the items
        # langchain-core reads are compared (it reads each item of a list on its own)
        kept = [item for item in items if outcome(lc.convert_to_messages, [item])[0] == "ok"]
        if not kept:
            tally("langchain refuses every item")
            return
        ours, theirs = cp.convert_to_messages(kept), lc.convert_to_messages(kept)
        assert cp.messages_to_dict(ours) == lc.messages_to_dict(theirs)
        tally("compared, refused ones left out")

    check()
    tally.require(0.7, "compared", "compared, refused ones left out")  # about 90 %


def test_canonical_dicts_rebuild_in_langchain():
    """The canonical flat dict is loadable by langchain-core's constructors as is."""
    from langchain_core.messages import (
        AIMessage,
        ChatMessage,
        FunctionMessage,
        HumanMessage,
        SystemMessage,
        ToolMessage,
    )

    classes = {
        "human": HumanMessage,
        "ai": AIMessage,
        "system": SystemMessage,
        "tool": ToolMessage,
        "function": FunctionMessage,
        "chat": ChatMessage,
    }
    tally = Tally("canonical dicts rebuilt by langchain-core's constructors")

    @settings(max_examples=200, deadline=None)
    @given(st.lists(openai_messages(), max_size=5))
    def check(items):
        try:
            ours = cp.convert_to_messages(items)
        except ChatpipeError:
            tally("refused")
            return
        for message in ours:
            flat = cp.message_to_canonical(message)
            rebuilt = classes[flat.pop("type")](**flat)
            assert lc.messages_to_dict([rebuilt]) == cp.messages_to_dict([message])
        tally("rebuilt" if ours else "empty")

    check()
    tally.require(0.6, "rebuilt")  # 80 to 90 %


def test_assistant_without_content_key_is_an_empty_ai_message():
    raw = {
        "role": "assistant",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}
        ],
    }
    assert outcome(lc.convert_to_messages, [raw])[0] == "error"
    [message] = cp.convert_to_messages([raw])
    assert message == cp.AIMessage("", tool_calls=[{"name": "f", "args": {"x": 1}, "id": "c1"}])


def test_unparsable_arguments_become_invalid_tool_calls():
    raw = {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{bad"}},
            {"id": "c2", "type": "function", "function": {"name": "g", "arguments": "[1]"}},
            {
                "id": "c3",
                "type": "function",
                "function": {"name": "h", "arguments": '"{\\"a\\": 2}"'},
            },
            {"id": "c4", "type": "function", "function": {"name": "k", "arguments": ""}},
        ],
    }
    assert outcome(lc.convert_to_messages, [raw])[0] == "error"
    [message] = cp.convert_to_messages([raw])
    assert [(c["name"], c["args"]) for c in message.tool_calls] == [("h", {"a": 2}), ("k", {})]
    assert [(c["name"], c["args"], c["id"]) for c in message.invalid_tool_calls] == [
        ("f", "{bad", "c1"),
        ("g", "[1]", "c2"),
    ]
    assert all(c["error"] for c in message.invalid_tool_calls)


def test_tool_results_without_ids_pair_with_calls_by_order():
    raw = [
        {
            "role": "assistant",
            "tool_calls": [
                {"type": "function", "function": {"name": "a", "arguments": {}}},
                {"type": "function", "function": {"name": "b", "arguments": {"q": 1}}},
            ],
        },
        {"role": "tool", "name": "a", "content": "ra"},
        {"role": "tool", "name": "b", "content": "rb"},
    ]
    assert outcome(lc.convert_to_messages, raw)[0] == "error"
    ai, first, second = cp.convert_to_messages(raw)
    assert [c["id"] for c in ai.tool_calls] == ["call_0_0", "call_0_1"]
    assert (first.tool_call_id, second.tool_call_id) == ("call_0_0", "call_0_1")


def test_custom_roles_become_chat_messages():
    assert outcome(lc.convert_to_messages, [{"role": "critic", "content": "x"}])[0] == "error"
    assert cp.convert_to_messages([{"role": "critic", "content": "x"}]) == [
        cp.ChatMessage("x", role="critic")
    ]
    assert cp.convert_to_messages([("critic", "x")]) == [cp.ChatMessage("x", role="critic")]


def test_ai_dict_usage_and_invalid_calls_go_to_their_fields():
    usage = {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}
    raw = {
        "role": "assistant",
        "content": "x",
        "usage_metadata": usage,
        "invalid_tool_calls": [{"name": "f", "args": "{", "id": "1", "error": None}],
    }
    [theirs] = lc.convert_to_messages([raw])
    assert theirs.usage_metadata is None  # langchain-core files them under additional_kwargs
    [ours] = cp.convert_to_messages([raw])
    assert ours.usage_metadata == usage
    assert ours.invalid_tool_calls[0]["args"] == "{"
    assert ours.additional_kwargs == {}


def test_developer_role_and_envelopes():
    [system] = cp.convert_to_messages([{"role": "developer", "content": "d"}])
    assert system.additional_kwargs == {"__openai_role__": "developer"}
    envelope = {
        "lc": 1,
        "type": "constructor",
        "id": ["langchain", "schema", "messages", "AIMessage"],
        "kwargs": {"content": "hi", "type": "ai"},
    }
    assert cp.convert_to_messages([envelope]) == [cp.AIMessage("hi")]


@pytest.mark.parametrize(
    "value",
    [
        {"role": "user", "content": "x", "example": True},
        {"role": "tool", "content": "r", "tool_call_id": "c1", "status": "error"},
        {"role": "tool", "content": "r", "tool_call_id": "c1", "artifact": {"rows": 2}},
        {"role": "remove", "content": "", "id": "m1"},
        {"role": "assistant", "content": "x", "response_metadata": {"model_name": "m"}},
        {"role": "assistant", "content": "x", "additional_kwargs": {"k": 1}, "other": 2},
        {"role": "assistant", "content": "x", "example": True, "id": "a1", "name": "bot"},
        {"role": "system", "content": "s", "name": "rules"},
        ["user", "a pair as a list"],
    ],
)
def test_the_fields_each_role_takes_match_langchain(value):
    theirs = lc.convert_to_messages([value])
    ours = cp.convert_to_messages([value])
    assert cp.messages_to_dict(ours) == lc.messages_to_dict(theirs)


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (["user", "x", "three"], "a message given as a list must be a (role, content) pair"),
        (7, "cannot read a message from a number"),
        (
            {"role": "assistant", "content": "", "tool_calls": ["call"]},
            "a tool call must be an object, got a string",
        ),
        (
            {"role": "assistant", "content": "", "tool_calls": [{"function": "f"}]},
            "a tool call's function must be an object",
        ),
        (
            {"role": "assistant", "content": "x", "additional_kwargs": [1]},
            "additional_kwargs must be an object",
        ),
    ],
)
def test_what_neither_library_reads_is_refused_in_words(value, said):
    with pytest.raises(Exception):  # noqa: B017 - langchain's own exception types vary
        lc.convert_to_messages([value])
    with pytest.raises(ChatpipeError) as caught:
        cp.convert_to_messages([value])
    assert caught.value.message == said


def test_a_custom_tool_call_is_read_where_langchain_crashes():
    # a difference docs/langchain-differences.md lists: OpenAI's custom tools take free text
    value = {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"type": "custom", "id": "c9", "custom": {"name": "sh", "input": "ls"}}],
    }
    with pytest.raises(TypeError, match="unexpected keyword argument 'custom'"):
        lc.convert_to_messages([value])
    (message,) = cp.convert_to_messages([value])
    assert message.tool_calls == [
        {"name": "sh", "args": {"input": "ls"}, "id": "c9", "type": "tool_call"}
    ]


@pytest.mark.parametrize(
    "message",
    [
        lc.RemoveMessage(id="m1"),
        lc.HumanMessage("hi", id="h1", name="ann"),
        lc.AIMessage("", tool_calls=[{"name": "f", "args": {"a": 1}, "id": "c1"}]),
        lc.ToolMessage("r", tool_call_id="c1", status="error"),
    ],
)
def test_langchain_envelopes_read_as_langchain_loads_them(message):
    import json
    import warnings

    from langchain_core.load import dumpd, load
    from typer.testing import CliRunner

    from chatpipe.cli import app

    envelope = dumpd(message)
    result = CliRunner().invoke(
        app,
        ["convert", "--from", "langchain", "--to", "langchain", "-"],
        input=json.dumps(envelope),
    )
    assert (result.exit_code, result.stderr) == (0, "")
    with warnings.catch_warnings():  # load is "in beta" in langchain-core
        warnings.simplefilter("ignore")
        theirs = load(envelope, allowed_objects="messages")
    assert [json.loads(result.stdout)] == lc.messages_to_dict([theirs])


def test_an_envelope_of_a_class_langchain_does_not_have_is_refused():
    import json

    from typer.testing import CliRunner

    from chatpipe.cli import app

    envelope = {
        "lc": 1,
        "type": "constructor",
        "id": ["langchain", "schema", "messages", "WizardMessage"],
        "kwargs": {"content": "x"},
    }
    result = CliRunner().invoke(
        app, ["convert", "--from", "langchain", "-"], input=json.dumps(envelope)
    )
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == "chatpipe: error: <stdin>:1:1: unknown message class 'WizardMessage'\n"
