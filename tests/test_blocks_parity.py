"""Paths of langchain-core that no other differential test reached: the content-block
factories, is_data_content_block, AIMessage reading additional_kwargs["tool_calls"], the
content_blocks= argument, type-keyed dicts, message-like inputs to the utilities, trim's
text_splitter and the legacy function_call in convert_to_openai_messages."""

from __future__ import annotations

import re

import langchain_core.messages as lc
import langchain_core.messages.content as lc_content
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chatpipe as cp
from chatpipe.formats.coerce import convert_to_openai_messages
from chatpipe.model import blocks as cp_blocks
from conftest import Tally, assert_same_outcome, outcome
from strategies import json_objects, texts

MADE_UP_ID = re.compile(r"lc_[0-9a-f-]{36}")
maybe_text = st.one_of(st.none(), texts)
extras = st.dictionaries(st.sampled_from(["cache_control", "name", "detail"]), texts, max_size=2)
index = st.one_of(st.none(), st.integers(0, 3), st.just("lc_0"))
data_kwargs = st.fixed_dictionaries(
    {},
    optional={
        "url": maybe_text,
        "base64": maybe_text,
        "file_id": maybe_text,
        "mime_type": maybe_text,
        "id": maybe_text,
        "index": index,
    },
)

FACTORIES = {
    "create_text_block": st.tuples(
        st.tuples(texts),
        st.fixed_dictionaries(
            {}, optional={"id": maybe_text, "index": index, "annotations": st.none()}
        ),
    ),
    "create_image_block": st.tuples(st.just(()), data_kwargs),
    "create_video_block": st.tuples(st.just(()), data_kwargs),
    "create_audio_block": st.tuples(st.just(()), data_kwargs),
    "create_file_block": st.tuples(st.just(()), data_kwargs),
    "create_plaintext_block": st.tuples(
        st.just(()),
        st.fixed_dictionaries(
            {},
            optional={
                k: maybe_text
                for k in ("text", "url", "base64", "file_id", "title", "context", "id")
            },
        ),
    ),
    "create_tool_call": st.tuples(
        st.tuples(texts, json_objects), st.fixed_dictionaries({}, optional={"id": maybe_text})
    ),
    "create_reasoning_block": st.tuples(
        st.tuples(maybe_text), st.fixed_dictionaries({}, optional={"id": maybe_text})
    ),
    "create_citation": st.tuples(
        st.just(()),
        st.fixed_dictionaries(
            {},
            optional={
                "url": maybe_text,
                "title": maybe_text,
                "start_index": st.one_of(st.none(), st.integers(0, 9)),
                "end_index": st.one_of(st.none(), st.integers(0, 9)),
                "cited_text": maybe_text,
                "id": maybe_text,
            },
        ),
    ),
    "create_non_standard_block": st.tuples(
        st.tuples(json_objects), st.fixed_dictionaries({}, optional={"id": maybe_text})
    ),
}


def without_made_up_ids(block):
    """Both libraries make a fresh ``lc_<uuid4>`` when no id is given: the shape is
    compared, not the random value."""
    made_up = isinstance(block, dict) and MADE_UP_ID.fullmatch(str(block.get("id")))
    if made_up:
        block = {**block, "id": "lc_<uuid4>"}
    return block


def cp_factory(name):
    return getattr(cp, name, None) or getattr(cp_blocks, name)


def test_block_factories_match_langchain():
    tally = Tally("create_*_block")

    @settings(max_examples=600, deadline=None)
    @given(st.sampled_from(sorted(FACTORIES)), st.data())
    def check(name, data):
        args, kwargs = data.draw(FACTORIES[name], label="arguments")
        kwargs = dict(kwargs)
        if name not in ("create_non_standard_block",):
            kwargs.update(data.draw(extras, label="extras"))
        theirs = outcome(getattr(lc_content, name), *args, **kwargs)
        ours = outcome(cp_factory(name), *args, **kwargs)
        assert_same_outcome(ours, theirs)
        if ours[0] == "ok":
            assert without_made_up_ids(ours[1]) == without_made_up_ids(theirs[1])
            assert not kwargs.get("id") or ours[1]["id"] == kwargs["id"]
        tally(f"{'made' if ours[0] == 'ok' else 'refused'}")

    check()
    tally.require(0.6, "made")


@pytest.mark.parametrize(
    "block",
    [
        {"type": "image", "url": "https://u"},
        {"type": "image", "base64": "QUJD", "mime_type": "image/png"},
        {"type": "file", "file_id": "f1"},
        {"type": "text-plain", "text": "x"},
        {"type": "image", "source_type": "url", "url": "https://u"},
        {"type": "image", "source_type": "base64", "data": "QUJD"},
        {"type": "file", "source_type": "id", "id": "f"},
        {"type": "file", "source_type": "text", "url": "https://u"},
        {"type": "file", "source_type": "text", "text": "t"},
        {"type": "image", "source_type": "url"},
        {"type": "image", "source_type": "base64"},
        {"type": "image", "source_type": "id"},
        {"type": "image", "source_type": "other", "data": "x"},
        {"type": "image"},
        {"type": "text", "text": "t"},
        {"type": "image_url", "image_url": {"url": "https://u"}},
        {"type": "audio", "base64": "QUJD"},
        {"type": "video", "url": "https://u"},
        {"type": "tool_call", "id": "c", "name": "f", "args": {}},
        {},
    ],
)
def test_is_data_content_block_matches_langchain(block):
    assert cp.is_data_content_block(block) is lc.is_data_content_block(block)


@pytest.mark.parametrize(
    "raw_calls",
    [
        [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}],
        [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{bad"}}],
        [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": ""}}],
        [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}},
            {"id": "c2", "type": "function", "function": {"name": "g", "arguments": "[1]"}},
        ],
        [{"id": "c1", "type": "function", "function": {"name": "f"}}],
        [{"id": "c1", "type": "function"}],
        [{"type": "function", "function": {"name": "f", "arguments": "{}"}}],
        "not a list",
    ],
)
def test_ai_message_reads_tool_calls_from_additional_kwargs_as_langchain(raw_calls):
    def make(module):
        return module.AIMessage("x", additional_kwargs={"tool_calls": raw_calls})

    ours, theirs = outcome(make, cp), outcome(make, lc)
    assert_same_outcome(ours, theirs)
    if ours[0] == "error":
        return
    assert cp.messages_to_dict([ours[1]]) == lc.messages_to_dict([theirs[1]])
    assert ours[1].tool_calls == theirs[1].tool_calls
    assert ours[1].invalid_tool_calls == theirs[1].invalid_tool_calls


@pytest.mark.parametrize("kind", ["HumanMessage", "AIMessage", "SystemMessage", "ToolMessage"])
@pytest.mark.parametrize(
    "blocks",
    [
        [{"type": "text", "text": "hello"}],
        [{"type": "text", "text": "a"}, {"type": "image", "url": "https://u"}],
        [{"type": "reasoning", "reasoning": "hm"}, {"type": "text", "text": "b"}],
        [{"type": "tool_call", "id": "c9", "name": "f", "args": {"a": 1}}],
        [],
    ],
)
def test_content_blocks_argument_as_langchain(kind, blocks):
    def make(module):
        extra = {"tool_call_id": "c1"} if kind == "ToolMessage" else {}
        return getattr(module, kind)(content_blocks=blocks, **extra)

    ours, theirs = outcome(make, cp), outcome(make, lc)
    assert_same_outcome(ours, theirs)
    if ours[0] == "ok":
        assert cp.messages_to_dict([ours[1]]) == lc.messages_to_dict([theirs[1]])


@pytest.mark.parametrize(
    "item",
    [
        {"type": "human", "content": "h"},
        {"type": "ai", "content": "a", "tool_calls": [{"name": "f", "args": {}, "id": "1"}]},
        {"type": "system", "content": "s"},
        {"type": "tool", "content": "t", "tool_call_id": "1"},
        {"type": "function", "content": "r", "name": "f"},
        {"type": "remove", "id": "x"},
        {"type": "developer", "content": "d"},
        ("human", "h"),
        ("ai", "a"),
        ("user", "u"),
        ("assistant", "a"),
        "just a string",
    ],
)
def test_type_keyed_dicts_tuples_and_strings_convert_as_langchain(item):
    theirs = outcome(lc.convert_to_messages, [item])
    ours = outcome(cp.convert_to_messages, [item])
    assert_same_outcome(ours, theirs)
    if ours[0] == "ok":
        assert cp.messages_to_dict(ours[1]) == lc.messages_to_dict(theirs[1])


@pytest.mark.parametrize(
    ("item", "role", "content"),
    [
        ({"type": "chat", "content": "c", "role": "critic"}, "critic", "c"),
        ({"type": "nonsense", "content": "n"}, "nonsense", "n"),
        (("placeholder", "p"), "placeholder", "p"),
    ],
)
def test_a_type_langchain_refuses_is_a_chat_message_on_purpose(item, role, content):
    # docs/langchain-differences.md: "a role it does not know (a ChatMessage with that role)"
    theirs = outcome(lc.convert_to_messages, [item])
    assert theirs[0] == "error" and theirs[1].kind is ValueError
    assert "Unexpected message type" in theirs[1].message
    (ours,) = cp.convert_to_messages([item])
    assert isinstance(ours, cp.ChatMessage)
    assert (ours.role, ours.content) == (role, content)


def count_once(module, data):
    import langchain_core.messages.utils as lc_utils

    count = cp.count_tokens_approximately if module is cp else lc_utils.count_tokens_approximately
    return [count(data)]


MESSAGE_LIKE = [
    ("system", "be brief"),
    {"role": "user", "content": "first question here", "name": "bob"},
    ("ai", "first answer, long enough to count"),
    "a bare string is a human message",
    {"type": "ai", "content": "second answer", "id": "a2"},
    ("human", "last"),
]


@pytest.mark.parametrize(
    "call",
    [
        lambda m, data: m.trim_messages(data, max_tokens=20, token_counter="approximate"),
        lambda m, data: m.trim_messages(
            data, max_tokens=25, token_counter="approximate", include_system=True
        ),
        lambda m, data: m.trim_messages(data, max_tokens=3, token_counter=len, strategy="first"),
        lambda m, data: m.filter_messages(data, include_types=["human"]),
        lambda m, data: m.filter_messages(data, exclude_names=["bob"], include_ids=["a2"]),
        lambda m, data: m.merge_message_runs([*data, ("human", "again")]),
        count_once,
    ],
)
def test_message_like_inputs_to_the_utilities_as_langchain(call):
    theirs = call(lc, list(MESSAGE_LIKE))
    ours = call(cp, list(MESSAGE_LIKE))
    if theirs and isinstance(theirs[0], int):
        assert ours == theirs
    else:
        assert theirs  # something was kept to compare
        assert cp.messages_to_dict(ours) == lc.messages_to_dict(theirs)


def split_words(text: str) -> list[str]:
    return [w + " " for w in text.split(" ")]


@pytest.mark.parametrize("strategy", ["last", "first"])
@pytest.mark.parametrize("budget", [5, 9, 14, 22])
def test_trim_with_a_text_splitter_as_langchain(strategy, budget):
    def run(module):
        messages = [
            module.HumanMessage("one two three four five six seven"),
            module.AIMessage("alpha beta gamma delta epsilon zeta eta theta"),
        ]
        return module.trim_messages(
            messages,
            max_tokens=budget,
            token_counter=lambda ms: sum(len(str(m.content).split()) for m in ms),
            strategy=strategy,
            allow_partial=True,
            text_splitter=split_words,
        )

    theirs = run(lc)
    assert theirs and theirs != []  # a partial message, not nothing
    assert cp.messages_to_dict(run(cp)) == lc.messages_to_dict(theirs)


@pytest.mark.parametrize(
    "additional",
    [
        {"function_call": {"name": "f", "arguments": '{"a": 1}'}},
        {"function_call": {"name": "f", "arguments": "{}"}, "refusal": None},
        {"refusal": "I cannot help with that."},
    ],
)
@pytest.mark.parametrize("text_format", ["string", "block"])
def test_legacy_function_call_and_refusal_as_langchain(additional, text_format):
    def make(module):
        return module.AIMessage("answer", additional_kwargs=dict(additional))

    theirs = lc.convert_to_openai_messages(make(lc), text_format=text_format)
    ours = convert_to_openai_messages(make(cp), text_format=text_format)
    assert ours == theirs
