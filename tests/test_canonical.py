"""Canonical JSONL: key order, defaults omitted, escapes, byte-identical round trips."""

from __future__ import annotations

import json

from hypothesis import given, settings

import chatpipe as cp
from chatpipe.io.encode import dumps
from chatpipe.model.canonical import message_from_canonical, message_to_canonical
from conftest import Tally
from strategies import message_kwargs
from test_model_parity import build


def test_round_trip_is_byte_identical():
    tally = Tally("canonical round trip")

    @settings(max_examples=400, deadline=None)
    @given(message_kwargs())
    def check(case):
        kind, kwargs = case
        try:
            message = build(cp, kind, dict(kwargs))
        except cp.ValidationError:  # (no message: nothing to write)
            tally("invalid")
            return
        line = dumps(message_to_canonical(message))
        again = message_from_canonical(json.loads(line))
        assert again == message
        assert dumps(message_to_canonical(again)) == line
        assert b"\n" not in line and b"\xe2\x80\xa8" not in line and b"\xc2\x85" not in line
        tally("round trip")

    check()
    tally.require(0.5, "round trip")  # (most drawn messages are valid ones)


def test_key_order_and_omitted_defaults():
    message = cp.AIMessage(
        "hi",
        id="m1",
        name="bot",
        tool_calls=[{"name": "f", "args": {"b": 1, "a": 2}, "id": "c"}],
        usage_metadata={"input_tokens": 1, "output_tokens": 2, "total_tokens": 3},
        response_metadata={"model_name": "m"},
        additional_kwargs={"refusal": None},
    )
    assert dumps(message_to_canonical(message)) == (
        b'{"type":"ai","content":"hi","name":"bot","id":"m1",'
        b'"tool_calls":[{"name":"f","args":{"b":1,"a":2},"id":"c","type":"tool_call"}],'
        b'"usage_metadata":{"input_tokens":1,"output_tokens":2,"total_tokens":3},'
        b'"additional_kwargs":{"refusal":null},"response_metadata":{"model_name":"m"}}'
    )
    tool = cp.ToolMessage("r", tool_call_id="", status="error", artifact=[1])
    assert dumps(message_to_canonical(tool)) == (
        b'{"type":"tool","content":"r","tool_call_id":"","status":"error","artifact":[1]}'
    )
    assert dumps(message_to_canonical(cp.ChatMessage("c", role="critic"))) == (
        b'{"type":"chat","content":"c","role":"critic"}'
    )


def test_line_breaking_characters_are_escaped_and_floats_stay_floats():
    message = cp.HumanMessage(
        "a\u2028b\u2029c\x85d é", additional_kwargs={"f": 1.0, "g": 1e21, "i": 2}
    )
    line = dumps(message_to_canonical(message))
    assert (
        line
        == (
            '{"type":"human","content":"a\\u2028b\\u2029c\\u0085d é",'
            '"additional_kwargs":{"f":1.0,"g":1e+21,"i":2}}'
        ).encode()
    )
    assert message_from_canonical(json.loads(line)) == message


def test_chunks_are_written_as_their_plain_type():
    chunk = cp.AIMessageChunk(
        "a", tool_call_chunks=[{"name": "f", "args": "{}", "id": "1", "index": 0}]
    )
    assert message_to_canonical(chunk)["type"] == "ai"


def test_unknown_type_is_an_error_naming_the_choices():
    try:
        message_from_canonical({"type": "bogus", "content": ""})
    except cp.ValidationError as exc:
        assert "unknown message type 'bogus'" in str(exc)
        assert "human, ai" in str(exc)
    else:
        raise AssertionError("must fail")


def test_big_integers_are_written_exactly():
    message = cp.HumanMessage("x", additional_kwargs={"n": 2**70})
    assert dumps(message_to_canonical(message)).endswith(b'{"n":1180591620717411303424}}')
