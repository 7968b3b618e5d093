"""The error messages docs/langchain-differences.md pins where chatpipe says better what langchain-core says
wrongly (conftest.pinned_messages, which the differential tests accept): each line is a
message chatpipe really raises, and a message changed in any of its words is not pinned."""

from __future__ import annotations

import pytest

import chatpipe as cp
from chatpipe.formats.coerce import convert_to_openai_messages as to_openai
from conftest import pinned_messages

H = cp.HumanMessage

# a call for each pinned line, and the message it raises, word for word
RAISED = [
    (
        lambda: to_openai([H([{"type": "tool_use", "id": "c", "name": "f", "input": {}}])]),
        "messages[0].content[0]: a tool call block in a human message "
        "(only AI messages make tool calls)",
    ),
    (
        lambda: to_openai([H([{"type": "file", "base64": "QQ=="}])]),
        "a base64 file block needs a mime_type",
    ),
    (
        lambda: to_openai([H([{"type": "audio", "base64": "QQ=="}])]),
        "a base64 audio block needs a mime_type",
    ),
    (
        lambda: cp.count_tokens_approximately([H([{"type": "text", "text": None}])]),
        "a text block without text cannot be counted",
    ),
    (
        lambda: to_openai([H([{"type": "media", "mime_type": "image/png", "data": "QQ=="}])]),
        "expected raw bytes of media data, got a string",
    ),
    (
        lambda: cp.count_tokens_approximately([H([{"type": 5}])]),
        "a content block's type must be a string, got 5",
    ),
    (
        lambda: cp.trim_messages([H("x")], max_tokens=5, token_counter="no such"),
        "Invalid token_counter shortcut 'no such'. (available: approximate, messages, "
        "tiktoken:ENCODING, hf:TOKENIZER.JSON)",
    ),
    (
        lambda: cp.convert_to_messages([{"type": "critic"}]),
        "a 'critic' message needs 'content' (keys found: type)",
    ),
    (
        lambda: cp.AIMessage("", tool_calls=[{"name": "f", "args": [], "id": None}]),
        "a tool call's args must be an object, got a list",
    ),
    (lambda: H("x", name=5), "name must be a string, got a number"),
    (
        lambda: cp.AIMessage("", tool_calls=[{"name": "f", "args": {}, "id": 5}]),
        "a tool call's id must be a string or null, got a number",
    ),
    (lambda: H("x", response_metadata="r"), "response_metadata must be an object, got a string"),
    (lambda: H(5), "HumanMessage content must be a string or a list, got a number"),
    (lambda: H([5]), "HumanMessage content items must be strings or objects, got a number"),
    (lambda: cp.ToolMessage("x"), "a tool message needs a tool_call_id"),
    (lambda: cp.ToolMessage("x", tool_call_id=None), "tool_call_id must be a string"),
    (lambda: cp.ChatMessage("x"), "a chat message needs a role string"),
    (lambda: cp.FunctionMessage("x"), "a function message needs a name"),
    (
        lambda: cp.messages_from_dict([{"type": "human"}]),
        "a {type, data} message needs a 'data' object",
    ),
    (
        lambda: cp.messages_from_dict([{"type": "human", "data": {}}]),
        "a human message needs 'content'",
    ),
    (lambda: H(), "HumanMessage needs content"),
    (lambda: H("x", type="ai"), "HumanMessage has type 'human', got 'ai'"),
    (
        lambda: cp.ToolMessage("x", tool_call_id="c", status="maybe"),
        "status must be 'success' or 'error', got 'maybe'",
    ),
    (
        lambda: cp.AIMessage(
            "x", usage_metadata={"input_tokens": "x", "output_tokens": 1, "total_tokens": 1}
        ),
        "usage_metadata.input_tokens must be an integer, got 'x'",
    ),
    (lambda: cp.RemoveMessage(id=None), "a remove message needs an id"),
    (
        lambda: to_openai(
            [H([{"no_type": 1}])], text_format="string", pass_through_unknown_blocks=True
        ),
        "messages[0]: a passed-through block without 'type' cannot be written in string mode "
        "(try --text-format block): {'no_type': 1}",
    ),
    (
        lambda: to_openai([H(["a", {"type": "image_url"}])]),
        "Unrecognized content block at messages[0].content[1] has 'type': 'image_url' but is "
        "missing expected key(s) ['image_url']. Full content block:\n\n{'type': 'image_url'}",
    ),
    (
        lambda: to_openai([cp.AIMessage([{"type": "function_call"}])]),
        "Unrecognized content block at messages[0].content[0] has 'type': 'function_call', "
        "but is missing expected key(s) ['call_id', 'name', 'arguments']. Full content "
        "block:\n\n{'type': 'function_call'}",
    ),
]


def _pinned_by(message: str) -> list[int]:
    return [k for k, pattern in enumerate(pinned_messages()) if pattern.fullmatch(message)]


@pytest.mark.parametrize(("make", "message"), RAISED, ids=[m[:40] for _, m in RAISED])
def test_each_pinned_message_is_one_chatpipe_raises(make, message):
    with pytest.raises(ValueError) as raised:
        make()
    assert str(raised.value) == message
    assert _pinned_by(message)


def test_every_pinned_line_is_raised():
    matched = {k for _, message in RAISED for k in _pinned_by(message)}
    assert [p.pattern for k, p in enumerate(pinned_messages()) if k not in matched] == []


# each a message above with one part changed (or another message of the same form that
# chatpipe raises where no langchain-core function is compared): none is pinned
CHANGED = [
    "name must be a str, got a number",
    "name must be a string, got 5",
    "nam must be a string, got a number",
    "a tool call's id must be a string or none, got a number",
    "a tool call's ident must be a string or null, got a number",
    "-n must be 0 or more, got 5",
    "chunk_position must be null or 'last', got 'x'",
    "usage_metadata.input_tokens must be a number, got 'x'",
    "usage_metadata.tokens must be an integer, got 'x'",
    "HumanMessage content must be a string or a list, got 5",
    "HumanMessage content items must be strings or objects, got {}",
    "HumanMesage needs content",
    "Human needs content",
    "HumanMessage has type human, got 'ai'",
    "HumanMessage has type 'person', got 'ai'",
    "messages[0].content[0]: a tool call block in a robot message "
    "(only AI messages make tool calls)",
    "a base64 image block needs a mime_type",
    "expected raw bytes of media data, got 'QQ=='",
    "a tool call's args must be an object, got []",
    "a robot message needs 'content'",
    "a critic message needs 'content' (keys found: type)",
    "Unrecognized content block at messages[0].content[0] has 'type': 'text' but is "
    "missing expected key(s) text. Full content block:\n\n{'type': 'text'}",
    "Unrecognized content block at messages[0] has 'type': 'text' but is missing expected "
    "key(s) ['text']. Full content block:\n\n{'type': 'text'}",
    "Unrecognized content block at messages[0].content[0] has 'type': 'image' but is "
    "missing expected key(s) ['image']. Full content block:\n\n{'type': 'image'}",
    "messages[0]: a passed-through block without 'type' cannot be written in string mode "
    "(try --text-format block): no_type",
]


@pytest.mark.parametrize("message", CHANGED)
def test_a_changed_message_is_not_pinned(message):
    assert _pinned_by(message) == []
