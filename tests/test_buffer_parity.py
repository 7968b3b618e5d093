"""get_buffer_string against langchain-core, byte for byte, in both formats."""

from __future__ import annotations

import langchain_core.messages as lc
from hypothesis import given, settings
from hypothesis import strategies as st

import chatpipe as cp
from chatpipe.render.buffer import get_buffer_string
from conftest import assert_same_outcome, outcome
from strategies import render_messages, texts
from test_model_parity import build

prefixes = st.fixed_dictionaries(
    {},
    optional={
        "human_prefix": st.sampled_from(["User", "Q&A User", "<H>", "human"]),
        "ai_prefix": st.sampled_from(["Bot", 'A"I', "Assistant"]),
        "system_prefix": st.sampled_from(["Sys", "SYSTEM"]),
        "function_prefix": st.sampled_from(["Fn"]),
        "tool_prefix": st.sampled_from(["Obs", "T'ool"]),
        "message_separator": st.one_of(st.sampled_from(["", " | ", "\n\n"]), texts),
    },
)


@settings(max_examples=700, deadline=None)
@given(st.lists(render_messages(), max_size=5), prefixes, st.sampled_from(["prefix", "xml"]))
def test_same_string_as_langchain(cases, options, fmt):
    ours = [build(cp, kind, dict(kwargs)) for kind, kwargs in cases]
    theirs = [build(lc, kind, dict(kwargs)) for kind, kwargs in cases]
    expected = outcome(lc.get_buffer_string, theirs, format=fmt, **options)
    if expected[0] == "error":  # only for a non-string text block in XML (spec §13.15)
        assert fmt == "xml"
        return
    assert get_buffer_string(ours, format=fmt, **options) == expected[1]


def test_spec_examples():
    assert (
        get_buffer_string(
            [cp.SystemMessage("Be brief."), cp.HumanMessage("Hi"), cp.AIMessage("Hello!")]
        )
        == "System: Be brief.\nHuman: Hi\nAI: Hello!"
    )
    assert get_buffer_string([cp.HumanMessage("")]) == "Human: "
    call = cp.AIMessage("", tool_calls=[{"id": "call_1", "name": "search", "args": {"q": "<é>"}}])
    assert get_buffer_string([call], format="xml") == (
        '<message type="ai">\n  <tool_call id="call_1" name="search">{"q": "&lt;é&gt;"}'
        "</tool_call>\n</message>"
    )
    role = cp.ChatMessage("c", role="a\"b'c\n\t\r")
    assert get_buffer_string([role], format="xml") == (
        '<message type="a&quot;b\'c&#10;&#9;&#13;">c</message>'
    )


def test_unsupported_format_and_message_type():
    """Refused as langchain-core refuses them: the same exception class and words."""
    ours = outcome(get_buffer_string, [], format="json")
    assert ours[0] == "error" and ours[1].kind is ValueError
    assert_same_outcome(ours, outcome(lc.get_buffer_string, [], format="json"))
    # (each names the message as its own class's repr shows it)
    ours = outcome(get_buffer_string, [cp.RemoveMessage(id="1")])
    theirs = outcome(lc.get_buffer_string, [lc.RemoveMessage(id="1")])
    assert ours[0] == theirs[0] == "error" and ours[1].kind is theirs[1].kind is ValueError
    said = "Got unsupported message type: "
    assert ours[1].message.startswith(said) and theirs[1].message.startswith(said)


def test_non_string_text_block_renders_instead_of_crashing():
    message = cp.HumanMessage([{"type": "text", "text": 5}])
    assert (
        outcome(
            lc.get_buffer_string, [lc.HumanMessage([{"type": "text", "text": 5}])], format="xml"
        )[0]
        == "error"
    )
    assert get_buffer_string([message], format="xml") == '<message type="human">5</message>'
