"""The message model against langchain-core: construction, .text, dicts, chunk addition."""

from __future__ import annotations

import langchain_core.messages as lc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chatpipe as cp
from conftest import assert_same_outcome, outcome
from strategies import ai_chunk_kwargs, contents, merge_dicts, message_kwargs

CLASS_NAMES = {
    "human": "HumanMessage",
    "ai": "AIMessage",
    "system": "SystemMessage",
    "tool": "ToolMessage",
    "function": "FunctionMessage",
    "chat": "ChatMessage",
    "remove": "RemoveMessage",
}


def build(module, kind, kwargs, chunk=False):
    name = CLASS_NAMES[kind] + ("Chunk" if chunk else "")
    return getattr(module, name)(**kwargs)


def built_both(cases):
    """The messages of ``[(kind, kwargs), ...]`` built by chatpipe and by langchain-core,
    as two outcomes that have failed alike if either failed."""
    ours = outcome(lambda: [build(cp, k, dict(kw)) for k, kw in cases])
    theirs = outcome(lambda: [build(lc, k, dict(kw)) for k, kw in cases])
    assert_same_outcome(ours, theirs)
    return ours, theirs


@settings(max_examples=400, deadline=None)
@given(message_kwargs(), st.booleans())
def test_construction_and_messages_to_dict_match(case, chunk):
    kind, kwargs = case
    if chunk and kind == "remove":
        chunk = False
    ours = outcome(build, cp, kind, dict(kwargs), chunk)
    theirs = outcome(build, lc, kind, dict(kwargs), chunk)
    assert_same_outcome(ours, theirs)
    if ours[0] == "ok":
        assert cp.messages_to_dict([ours[1]]) == lc.messages_to_dict([theirs[1]])
        assert ours[1].text == theirs[1].text
        back = cp.messages_from_dict(cp.messages_to_dict([ours[1]]))
        lc_back = lc.messages_from_dict(lc.messages_to_dict([theirs[1]]))
        assert cp.messages_to_dict(back) == lc.messages_to_dict(lc_back)
        if not chunk:
            assert back == [ours[1]]
        plain = cp.message_chunk_to_message(ours[1])
        assert cp.messages_to_dict([plain]) == lc.messages_to_dict(
            [lc.message_chunk_to_message(theirs[1])]
        )


@settings(max_examples=300, deadline=None)
@given(st.lists(ai_chunk_kwargs(), min_size=2, max_size=4))
def test_ai_chunk_addition_matches(chunks):
    # fresh objects for every sum: langchain-core mutates list content while adding
    def ours():
        return [cp.AIMessageChunk(**dict(c)) for c in chunks]

    def theirs():
        return [lc.AIMessageChunk(**dict(c)) for c in chunks]

    built = outcome(ours), outcome(theirs)
    assert_same_outcome(*built)
    if built[0][0] == "error":
        return
    for add in (_fold, lambda ms: ms[0] + ms[1:]):
        sum_ours = outcome(lambda add=add: add(ours()))
        sum_theirs = outcome(lambda add=add: add(theirs()))
        assert_same_outcome(sum_ours, sum_theirs)
        if sum_ours[0] == "ok":
            assert _dump(sum_ours[1]) == _lc_dump(sum_theirs[1])


def _fold(chunks):
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    return total


def _dump(message):
    return _unordered_usage(cp.messages_to_dict([message])[0])


def _lc_dump(message):
    return _unordered_usage(lc.messages_to_dict([message])[0])


def _unordered_usage(value):
    # langchain builds summed usage from a set: key order is not stable (spec §1.3)
    usage = value["data"].get("usage_metadata")
    if usage is not None:
        value["data"]["usage_metadata"] = {k: usage[k] for k in sorted(usage)}
    return value


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(
        [
            "HumanMessageChunk",
            "SystemMessageChunk",
            "ChatMessageChunk",
            "ToolMessageChunk",
            "FunctionMessageChunk",
        ]
    ),
    st.lists(
        st.tuples(contents, merge_dicts, st.sampled_from(["r1", "r2"])), min_size=2, max_size=3
    ),
)
def test_other_chunk_addition_matches(name, parts):
    def make(module):
        chunks = []
        for content, kwargs, tag in parts:
            extra = {"role": tag} if name == "ChatMessageChunk" else {}
            if name == "ToolMessageChunk":
                extra = {"tool_call_id": tag, "artifact": kwargs.get("k")}
            if name == "FunctionMessageChunk":
                extra = {"name": tag}
            chunks.append(getattr(module, name)(content=content, additional_kwargs=kwargs, **extra))
        return _fold(chunks)

    ours, theirs = outcome(make, cp), outcome(make, lc)
    assert_same_outcome(ours, theirs)
    if ours[0] == "ok":
        assert cp.messages_to_dict([ours[1]]) == lc.messages_to_dict([theirs[1]])


def test_chunk_addition_examples_from_spec():
    left = cp.AIMessageChunk(
        "", tool_call_chunks=[{"name": "search", "args": '{"q": "we', "id": "call_1", "index": 0}]
    )
    right = cp.AIMessageChunk(
        "",
        tool_call_chunks=[
            {"name": None, "args": 'ather"}', "id": None, "index": 0},
            {"name": "other", "args": "{}", "id": "call_2", "index": 1},
        ],
    )
    total = left + right
    assert [(c["name"], c["args"], c["id"], c["index"]) for c in total.tool_call_chunks] == [
        ("search", '{"q": "weather"}', "call_1", 0),
        ("other", "{}", "call_2", 1),
    ]
    assert total.tool_calls == [
        {"name": "search", "args": {"q": "weather"}, "id": "call_1", "type": "tool_call"},
        {"name": "other", "args": {}, "id": "call_2", "type": "tool_call"},
    ]
    ids = [
        ("lc_run-1", "run-abc", "run-abc"),
        ("lc_abc", "lc_run-x", "lc_run-x"),
        ("p1", "p2", "p1"),
    ]
    for a, b, expected in ids:
        assert (cp.AIMessageChunk("", id=a) + cp.AIMessageChunk("", id=b)).id == expected
    assert (cp.AIMessageChunk("", id="") + cp.AIMessageChunk("", id=None)).id is None


def test_text_joins_strings_and_text_blocks_only():
    content = [
        "a",
        {"type": "text", "text": "b"},
        {"type": "text", "text": None},
        {"type": "image", "url": "u"},
        {"type": "text", "text": "c"},
    ]
    assert cp.HumanMessage(content).text == "abc"


def test_adding_a_non_chunk_is_a_type_error():
    try:
        cp.AIMessageChunk("a") + "b"
    except TypeError as exc:
        assert 'for +: "AIMessageChunk" and "str"' in str(exc)
    else:
        raise AssertionError("adding a str must fail")


def test_values_compare_by_class_and_fields():
    assert cp.HumanMessage("a") == cp.HumanMessage("a")
    assert cp.HumanMessage("a") != cp.HumanMessageChunk("a")
    assert cp.HumanMessage("a", id="1") != cp.HumanMessage("a")
    assert cp.HumanMessage("a", example=True).example is True


@settings(max_examples=200, deadline=None)
@given(st.text(st.sampled_from(list('{}[]",:\\ \nab1tru')), max_size=14))
def test_parse_partial_json_matches(text):
    from langchain_core.utils.json import parse_partial_json

    ours, theirs = outcome(cp.parse_partial_json, text), outcome(parse_partial_json, text)
    assert ours == theirs


merge_scalars = st.one_of(
    st.none(), st.sampled_from(["a", "b", "", "lc_1"]), st.integers(0, 3), st.booleans()
)
indexed_blocks = st.fixed_dictionaries(
    {"index": st.sampled_from([0, 1, "lc_0", "x"])},
    optional={
        "type": st.sampled_from(["text", "non_standard", "tool_call_chunk"]),
        "id": st.sampled_from([None, "", "i1", "i2"]),
        "text": st.sampled_from(["a", "b"]),
        "value": st.fixed_dictionaries({}, optional={"type": st.just("x"), "k": st.just("v")}),
        "args": st.sampled_from(['{"a', '": 1}']),
    },
)
merge_values_deep = st.recursive(
    st.one_of(merge_scalars, st.lists(st.one_of(merge_scalars, indexed_blocks), max_size=3)),
    lambda inner: st.dictionaries(
        st.sampled_from(["k", "id", "index", "model_provider"]), inner, max_size=3
    ),
    max_leaves=6,
)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(["merge_dicts", "merge_lists", "merge_obj"]), st.data())
def test_the_merge_helpers_match_langchain(name, data):
    from langchain_core.utils import _merge as lc_merge

    from chatpipe.model import chunk_merge

    if name == "merge_dicts":
        values = st.dictionaries(
            st.sampled_from(["k", "id", "n", "index"]), merge_values_deep, max_size=3
        )
        args = data.draw(st.lists(values, min_size=2, max_size=3))
    elif name == "merge_lists":
        values = st.one_of(
            st.none(), st.lists(st.one_of(merge_scalars, indexed_blocks), max_size=3)
        )
        args = data.draw(st.lists(values, min_size=1, max_size=3))
    else:
        args = data.draw(st.lists(merge_values_deep, min_size=2, max_size=2))
    copy = __import__("copy").deepcopy
    theirs = outcome(getattr(lc_merge, name), *copy(args))
    ours = outcome(getattr(chunk_merge, name), *copy(args))
    assert_same_outcome(ours, theirs)
    assert ours[0] == "error" or ours == theirs


WRONG_FIELDS = [
    ("human", {"content": 5}),
    ("human", {"content": [5]}),
    ("human", {"content": "x", "name": 5}),
    ("human", {"content": "x", "id": [1]}),
    ("human", {"content": "x", "additional_kwargs": []}),
    ("human", {"content": "x", "response_metadata": "x"}),
    ("ai", {"content": "x", "tool_calls": "x"}),
    ("ai", {"content": "x", "tool_calls": [5]}),
    ("ai", {"content": "x", "tool_calls": [{"name": 5, "args": {}, "id": "1"}]}),
    ("ai", {"content": "x", "tool_calls": [{"name": "f", "args": [], "id": "1"}]}),
    ("ai", {"content": "x", "tool_calls": [{"name": "f", "args": {}, "id": 5.5}]}),
    ("ai", {"content": "x", "invalid_tool_calls": [5]}),
    ("ai", {"content": "x", "invalid_tool_calls": [{"name": 1, "args": 2, "id": 3}]}),
    ("ai", {"content": "x", "usage_metadata": 5}),
    ("ai", {"content": "x", "usage_metadata": {"input_tokens": "x"}}),
    ("tool", {"content": "x"}),
    ("tool", {"content": "x", "tool_call_id": None}),
    ("chat", {"content": "x"}),
    ("function", {"content": "x"}),
]


@pytest.mark.parametrize(("kind", "kwargs"), WRONG_FIELDS)
def test_a_field_of_the_wrong_kind_is_refused_as_langchain_refuses_it(kind, kwargs):
    ours = outcome(build, cp, kind, dict(kwargs))
    theirs = outcome(build, lc, kind, dict(kwargs))
    assert theirs[0] == "error"
    assert_same_outcome(ours, theirs)


@pytest.mark.parametrize(
    "value",
    [
        {"type": "nope", "data": {}},
        {"type": 5, "data": {}},
        {"type": "human"},
        {"type": "human", "data": 5},
        {"type": "human", "data": {}},
        {"type": "remove", "data": {"id": "x", "content": ""}},
        {"type": "human", "data": {"content": "x", "bogus": 1}},
        {"type": "ai", "data": {"content": "x", "tool_calls": [], "example": True}},
    ],
)
def test_messages_from_dict_as_langchain(value):
    ours = outcome(cp.messages_from_dict, [value])
    theirs = outcome(lc.messages_from_dict, [value])
    assert_same_outcome(ours, theirs)
    assert ours[0] == "error" or cp.messages_to_dict(ours[1]) == lc.messages_to_dict(theirs[1])


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("HumanMessage", {"content": ("a", "b")}),  # a tuple of parts is a list
        ("HumanMessage", {}),
        ("HumanMessage", {"content": "x", "type": "ai"}),
        ("ToolMessage", {"content": "x", "tool_call_id": "c", "status": "maybe"}),
        ("ToolMessage", {"content": "x", "tool_call_id": "c", "status": "error"}),
        ("RemoveMessage", {"id": "m", "content": "x"}),
        ("RemoveMessage", {}),
    ],
)
def test_constructors_accept_and_refuse_what_langchain_does(name, kwargs):
    ours = outcome(lambda: getattr(cp, name)(**kwargs))
    theirs = outcome(lambda: getattr(lc, name)(**kwargs))
    assert_same_outcome(ours, theirs)
    if ours[0] == "ok":
        assert cp.messages_to_dict([ours[1]]) == lc.messages_to_dict([theirs[1]])


def test_copies_change_only_what_they_are_told():
    calls = [{"name": "f", "args": {"a": [1]}, "id": "c1"}]
    message = cp.AIMessage("hi", id="a1", name="bot", tool_calls=calls)
    changed = message.copy(content="bye", id="a2")
    assert (changed.content, changed.id, changed.name) == ("bye", "a2", "bot")
    assert changed.tool_calls == message.tool_calls and message.content == "hi"
    deep = message.deepcopy()
    deep.tool_calls[0]["args"]["a"].append(2)
    assert message.tool_calls[0]["args"] == {"a": [1]} and deep == message.copy(
        tool_calls=[{"name": "f", "args": {"a": [1, 2]}, "id": "c1"}]
    )
    remove = cp.RemoveMessage(id="m1")
    assert (remove.copy(id="m2").id, remove.deepcopy().id) == ("m2", "m1")
    # as langchain-core's model_copy(update=...) does
    theirs = lc.AIMessage("hi", id="a1", name="bot", tool_calls=calls).model_copy(
        update={"content": "bye", "id": "a2"}
    )
    assert cp.messages_to_dict([changed]) == lc.messages_to_dict([theirs])


def test_summed_usage_keeps_one_key_order_whatever_the_hash_seed():
    """merge's output was different from run to run: usage keys summed in a set's order."""
    import os
    import subprocess
    import sys

    import chatpipe

    here = os.path.dirname(os.path.dirname(chatpipe.__file__))  # (this checkout's chatpipe)
    code = (
        "from chatpipe.model.tool_calls import add_usage\n"
        "a = {'input_tokens': 1, 'output_tokens': 2, 'total_tokens': 3,"
        " 'input_token_details': {'cache_read': 1}}\n"
        "b = {'input_tokens': 1, 'output_tokens': 2, 'total_tokens': 3,"
        " 'output_token_details': {'reasoning': 2}}\n"
        "print(list(add_usage(a, b)))"
    )
    orders = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            env={"PYTHONHASHSEED": str(seed), "PATH": "/usr/bin:/bin", "PYTHONPATH": here},
            check=True,
        ).stdout
        for seed in range(8)
    }
    assert orders == {
        "['input_tokens', 'output_tokens', 'total_tokens', 'input_token_details', "
        "'output_token_details']\n"
    }
