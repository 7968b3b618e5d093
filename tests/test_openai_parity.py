"""convert_to_openai_messages against langchain-core in string, block and strict modes."""

from __future__ import annotations

import langchain_core.messages as lc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chatpipe as cp
from chatpipe.errors import ConversionError
from chatpipe.formats.openai_writer import convert_to_openai_messages
from conftest import Tally, assert_same_outcome, outcome
from strategies import openai_writer_messages
from test_model_parity import build

modes = st.fixed_dictionaries(
    {
        "text_format": st.sampled_from(["string", "block"]),
        "include_id": st.booleans(),
        "pass_through_unknown_blocks": st.booleans(),
    }
)


def test_same_dicts_and_same_failures_as_langchain():
    tally = Tally("convert_to_openai_messages")

    @settings(max_examples=1000, deadline=None)
    @given(st.lists(openai_writer_messages(), min_size=1, max_size=4), modes, st.booleans())
    def check(cases, options, single):
        ours = outcome(lambda: [build(cp, k, dict(kw)) for k, kw in cases])
        theirs = outcome(lambda: [build(lc, k, dict(kw)) for k, kw in cases])
        assert_same_outcome(ours, theirs)
        if ours[0] == "error":
            tally("invalid message")
            return
        if single:
            ours_in, theirs_in = ours[1][0], theirs[1][0]
        else:
            ours_in, theirs_in = ours[1], theirs[1]
        expected = outcome(lc.convert_to_openai_messages, theirs_in, **options)
        got = outcome(convert_to_openai_messages, ours_in, **options)
        assert_same_outcome(got, expected)
        if got[0] == "ok":
            assert got == expected
            tally("written")
        else:
            assert got[1].exc.__class__ is ConversionError
            tally("same error" if got == expected else "pinned error")

    check()
    tally.require(0.5, "written")


@pytest.mark.parametrize("pass_through", [True, False])
def test_refusal_blocks_as_langchain_writes_them(pass_through):
    blocks = [
        {"type": "refusal", "refusal": "no"},
        {"type": "refusal", "refusal": ""},
        {"type": "text", "text": "t"},
    ]
    options = {"pass_through_unknown_blocks": pass_through}
    theirs = lc.convert_to_openai_messages(lc.AIMessage(blocks), **options)
    ours = convert_to_openai_messages(cp.AIMessage(blocks), **options)
    assert ours == theirs
    # the empty refusal dropped, the other kept as a refusal part (spec §3.3)
    assert ours["content"] == [{"type": "refusal", "refusal": "no"}, {"type": "text", "text": "t"}]


def test_the_differential_tests_run_the_langchain_core_the_readme_names():
    import importlib.metadata
    import pathlib
    import re

    readme = (pathlib.Path(__file__).resolve().parent.parent / "README.md").read_text()
    named = set(re.findall(r"langchain-core==([0-9.]+)", readme))
    assert named == {importlib.metadata.version("langchain-core")}
    assert "langchain-core 1.8.1" in readme and named == {"1.8.1"}


def test_spec_examples():
    assert convert_to_openai_messages(
        cp.ToolMessage("res", tool_call_id="c1", name="f", status="error", artifact=1)
    ) == {"role": "tool", "name": "f", "tool_call_id": "c1", "content": "res"}
    assert (
        convert_to_openai_messages(
            cp.ToolMessage(["a", "b", {"type": "text", "text": "c"}], tool_call_id="x")
        )["content"]
        == "a\nb\nc"
    )
    thinking = cp.AIMessage(
        [
            {"type": "thinking", "thinking": "hmm", "signature": "sig"},
            {"type": "text", "text": "Let me"},
            {"type": "tool_use", "id": "tu1", "name": "search", "input": {"q": "é"}},
        ]
    )
    assert convert_to_openai_messages(thinking) == {
        "role": "assistant",
        "tool_calls": [
            {
                "type": "function",
                "id": "tu1",
                "function": {"name": "search", "arguments": '{"q": "é"}'},
            }
        ],
        "content": [
            {"type": "thinking", "thinking": "hmm", "signature": "sig"},
            {"type": "text", "text": "Let me"},
        ],
    }
    assert convert_to_openai_messages(("user", "x")) == [
        {"role": "user", "content": "user"},
        {"role": "user", "content": "x"},
    ]
