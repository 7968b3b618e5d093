"""convert_to_openai_messages against langchain-core in string, block and strict modes."""

from __future__ import annotations

import langchain_core.messages as lc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chatpipe as cp
from chatpipe.errors import ConversionError
from chatpipe.formats.coerce import convert_to_openai_messages
from conftest import Tally, assert_same_outcome, outcome
from strategies import openai_writer_messages
from test_model_parity import built_both

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
        ours, theirs = built_both(cases)
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


# one block per rule of spec §3.3's table (first matching rule wins), in a human and an AI
# message, each compared with langchain-core in both pass-through modes and both formats
BLOCK_RULES = {
    "text": {"type": "text", "text": "t", "annotations": [], "cache_control": {"type": "x"}},
    "text without text": {"type": "text"},
    "image_url": {"type": "image_url", "image_url": {"url": "https://u", "detail": "low"}},
    "image_url string": {"type": "image_url", "image_url": "https://u", "other": 1},
    "image_url missing": {"type": "image_url"},
    "data image url": {"type": "image", "url": "https://u", "mime_type": "image/png"},
    "data image url and base64": {"type": "image", "url": "https://u", "base64": "QUJD"},
    "data image base64": {"type": "image", "base64": "QUJD", "mime_type": "image/png"},
    "data image base64 no mime": {"type": "image", "base64": "QUJD"},
    "data image v0 url": {"type": "image", "source_type": "url", "url": "https://u"},
    "data image v0 base64": {
        "type": "image",
        "source_type": "base64",
        "data": "QUJD",
        "mime_type": "image/jpeg",
    },
    "data image file_id": {"type": "image", "file_id": "f1"},
    "data image v0 id": {"type": "image", "source_type": "id", "id": "f1"},
    "anthropic image": {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "QUJD"},
    },
    "anthropic image url source": {"type": "image", "source": {"type": "url", "url": "https://u"}},
    "image with neither": {"type": "image", "detail": "x"},
    "openai file": {"type": "file", "file": {"file_data": "data:application/pdf;base64,QUJD"}},
    "openai file named": {"type": "file", "file": {"file_data": "QUJD", "filename": "a.pdf"}},
    "openai file id": {"type": "file", "file": {"file_id": "file-1"}},
    "data file base64": {"type": "file", "base64": "QUJD", "mime_type": "application/pdf"},
    "data file base64 extras name": {
        "type": "file",
        "base64": "QUJD",
        "mime_type": "application/pdf",
        "extras": {"filename": "e.pdf"},
    },
    "data file base64 no mime": {"type": "file", "base64": "QUJD"},
    "data file id": {"type": "file", "file_id": "f1"},
    "data file v0 id": {"type": "file", "source_type": "id", "id": "f1"},
    "data file url": {"type": "file", "url": "https://u/a.pdf"},
    "data file text only": {"type": "file", "text": "t"},
    "input_audio": {"type": "input_audio", "input_audio": {"data": "QUJD", "format": "wav"}},
    "data audio base64": {"type": "audio", "base64": "QUJD", "mime_type": "audio/mpeg"},
    "data audio base64 no mime": {"type": "audio", "base64": "QUJD"},
    "data audio url": {"type": "audio", "url": "https://u/a.wav"},
    "data video": {"type": "video", "url": "https://u/v.mp4"},
    "data text-plain": {"type": "text-plain", "text": "t", "mime_type": "text/plain"},
    "tool_use": {"type": "tool_use", "id": "tu1", "name": "f", "input": {"q": "é"}},
    "tool_use missing": {"type": "tool_use", "id": "tu1"},
    "function_call": {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
    "tool_result": {"type": "tool_result", "tool_use_id": "tu1", "content": "out"},
    "tool_result error": {
        "type": "tool_result",
        "tool_use_id": "tu1",
        "content": [{"type": "text", "text": "bad"}],
        "is_error": True,
    },
    "tool_result missing": {"type": "tool_result", "content": "out"},
    "json": {"type": "json", "json": {"a": "é", "b": [1, 2]}},
    "json key": {"json": {"a": 1}},
    "guard_content": {"type": "guard_content", "guard_content": {"text": "g"}},
    "guard_content key": {"guard_content": "plain"},
    "media image": {"type": "media", "mime_type": "image/png", "data": b"ABC"},
    "media image as text": {"type": "media", "mime_type": "image/png", "data": "QUJD"},
    "media audio": {"type": "media", "mime_type": "audio/wav", "data": b"ABC"},
    "refusal": {"type": "refusal", "refusal": "no"},
    "empty refusal": {"type": "refusal", "refusal": ""},
    "thinking": {"type": "thinking", "thinking": "hm", "signature": "s"},
    "reasoning": {"type": "reasoning", "reasoning": "hm"},
    "non_standard": {"type": "non_standard", "value": {"a": 1}},
    "v1 tool_call": {"type": "tool_call", "id": "c1", "name": "f", "args": {}},
    "document": {"type": "document", "source": {"type": "text", "data": "d"}},
    "typeless": {"foo": "bar"},
}


@pytest.mark.parametrize("rule", sorted(BLOCK_RULES))
@pytest.mark.parametrize("kind", ["HumanMessage", "AIMessage"])
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"pass_through_unknown_blocks": False},
        {"text_format": "block"},
        {"text_format": "block", "pass_through_unknown_blocks": False},
    ],
)
def test_each_rule_of_the_block_table_as_langchain(rule, kind, options):
    import warnings

    def write(module, convert):
        blocks = [{"type": "text", "text": "before"}, BLOCK_RULES[rule]]
        message = getattr(module, kind)(blocks)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return convert([module.HumanMessage("q"), message], **options)

    theirs = outcome(write, lc, lc.convert_to_openai_messages)
    ours = outcome(write, cp, convert_to_openai_messages)
    assert_same_outcome(ours, theirs)
    assert ours[0] != "ok" or ours == theirs
