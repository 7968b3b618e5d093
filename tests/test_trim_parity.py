"""trim_messages and count_tokens_approximately against langchain-core, every option."""

from __future__ import annotations

import langchain_core.messages as lc
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from langchain_core.messages import BaseMessage as LcBaseMessage
from langchain_core.messages.utils import count_tokens_approximately as lc_count

import chatpipe as cp
from chatpipe.model import BaseMessage
from chatpipe.ops.count import MessagesCounter, count_tokens_approximately, resolve_counter
from chatpipe.ops.trim import trim_messages
from chatpipe.ops.trim_stream import keep_tool_pairs, trim_last_stream
from conftest import Tally, assert_same_outcome, outcome
from strategies import json_objects, message_kwargs
from test_model_parity import build, built_both

TYPE_NAMES = ["human", "ai", "system", "tool", "function", "chat"]
LC_CLASSES = {
    "human": lc.HumanMessage,
    "ai": lc.AIMessage,
    "system": lc.SystemMessage,
    "tool": lc.ToolMessage,
}
CP_CLASSES = {
    "human": cp.HumanMessage,
    "ai": cp.AIMessage,
    "system": cp.SystemMessage,
    "tool": cp.ToolMessage,
}


def lc_chars(message: LcBaseMessage) -> int:
    return len(str(message.content)) // 3 + 1


def cp_chars(message: BaseMessage) -> int:
    return len(str(message.content)) // 3 + 1


# (this module's annotations are strings; both libraries look for the class itself)
lc_chars.__annotations__["message"] = LcBaseMessage
cp_chars.__annotations__["message"] = BaseMessage

COUNTERS = {
    "approximate": ("approximate", "approximate"),
    "len": (len, len),
    "per_message": (cp_chars, lc_chars),
}


@st.composite
def conversations(draw, min_size=0):
    messages = message_kwargs().filter(lambda c: c[0] != "remove")
    cases = draw(st.lists(messages, min_size=min_size, max_size=7))
    if draw(st.booleans()):
        cases.insert(0, ("system", {"content": draw(st.text(max_size=30))}))
    return cases


@st.composite
def trim_options(draw):
    """Options langchain-core accepts; the budget and start_on/end_on (types the
    conversation holds) are drawn with the conversation."""
    strategy = draw(st.sampled_from(["last", "last", "first"]))
    options = {
        "strategy": strategy,
        "allow_partial": draw(st.booleans()),
        # langchain-core refuses include_system and start_on with "first" (tested below)
        "include_system": strategy == "last" and draw(st.booleans()),
        "counter": draw(st.sampled_from(list(COUNTERS))),
    }
    return options


def realise(spec, classes):
    if spec is None or isinstance(spec, str):
        return spec
    return [classes[s[2:]] if s.startswith("C:") else s for s in spec]


def run(module_trim, messages, options, classes, counter):
    return module_trim(
        messages,
        max_tokens=options["budget"],
        token_counter=counter,
        strategy=options["strategy"],
        allow_partial=options["allow_partial"],
        include_system=options["include_system"],
        start_on=realise(options["start_on"], classes),
        end_on=realise(options["end_on"], classes),
    )


def lc_total(messages, counter):
    """langchain-core's own count of the whole input, with the counter the trim uses."""
    if counter == "approximate":
        return lc_count(messages)
    if counter == "len":
        return len(messages)
    return sum(lc_chars(m) for m in messages)


def kind_of(before, after) -> str:
    if not after:
        return "empty"
    if lc.messages_to_dict(after) == lc.messages_to_dict(before):
        return "whole"
    return "cut"


def test_trim_matches_langchain():
    tally = Tally("trim_messages")

    @settings(max_examples=1500, deadline=None)
    @given(
        conversations(min_size=2),
        trim_options(),
        st.data(),
        st.floats(0.0, 1.0),
        st.one_of(*[st.none()] * 8, st.just(1.0), st.floats(0.0, 1.3)),
    )
    def check(cases, options, data, share, beyond):
        ours_in, theirs_in = built_both(cases)
        if ours_in[0] == "error":
            tally("invalid input")
            return
        ours_counter, lc_counter = COUNTERS[options["counter"]]
        keep = data.draw(st.integers(1, len(cases) - 1), label="messages the budget holds")
        present = sorted({kind for kind, _ in cases})
        for key in ("start_on", "end_on"):
            named = st.sampled_from(present + [f"C:{k}" for k in present if k in CP_CLASSES])
            options[key] = data.draw(
                st.one_of(
                    *[st.none()] * 5,
                    named,
                    st.lists(st.one_of(named, st.sampled_from(TYPE_NAMES)), min_size=1, max_size=2),
                ),
                label=key,
            )
        if options["strategy"] == "first":
            options["start_on"] = None
        # most budgets cut the conversation somewhere inside it
        total = outcome(lc_total, theirs_in[1], options["counter"])
        # a text block of None, which langchain cannot count: test_count_matches_langchain
        assume(total[0] == "ok")
        # most budgets fall inside the conversation: what langchain counts for the k messages
        # the strategy keeps first, and part of the next one
        messages, n = theirs_in[1], len(theirs_in[1])
        kept = messages[n - keep :] if options["strategy"] == "last" else messages[:keep]
        budget = lc_total(kept, options["counter"]) + int(
            share
            * 0.99
            * lc_total(
                [messages[-keep - 1] if options["strategy"] == "last" else messages[keep]],
                options["counter"],
            )
        )
        if options["include_system"] and messages[0].type == "system":
            budget += lc_total(messages[:1], options["counter"])  # kept before the others
        options["budget"] = budget if beyond is None else round(total[1] * beyond)
        theirs = outcome(run, lc.trim_messages, theirs_in[1], options, LC_CLASSES, lc_counter)
        ours = outcome(run, trim_messages, ours_in[1], options, CP_CLASSES, ours_counter)
        assert_same_outcome(ours, theirs)
        if ours[0] == "error":
            tally("error")
            return
        tally(kind_of(theirs_in[1], theirs[1]))
        assert cp.messages_to_dict(ours[1]) == lc.messages_to_dict(theirs[1])
        # the input is never modified
        assert ours_in[1] == [build(cp, k, dict(kw)) for k, kw in cases]
        if options["strategy"] == "last" and options["counter"] in ("approximate", "len"):
            counter = MessagesCounter() if options["counter"] == "len" else "approximate"
            streamed, _ = trim_last_stream(
                iter(ours_in[1]),
                max_tokens=options["budget"],
                counter=resolve_counter(counter),
                allow_partial=options["allow_partial"],
                include_system=options["include_system"],
                start_on=realise(options["start_on"], CP_CLASSES),
                end_on=realise(options["end_on"], CP_CLASSES),
            )
            assert cp.messages_to_dict(streamed) == cp.messages_to_dict(ours[1])

    check()
    tally.require(0.45, "cut")  # 53–60 % in ten runs


@pytest.mark.parametrize(
    "options",
    [
        {"strategy": "first", "start_on": "human"},
        {"strategy": "first", "include_system": True},
        {"strategy": "middle"},
        {"token_counter": "no such counter"},
        {"token_counter": 5},
    ],
)
def test_option_combinations_langchain_refuses(options):
    def call(module_trim, messages):
        arguments = {"max_tokens": 10, "token_counter": len, **options}
        return module_trim(messages, **arguments)

    theirs = outcome(call, lc.trim_messages, [lc.SystemMessage("s"), lc.HumanMessage("h")])
    ours = outcome(call, trim_messages, [cp.SystemMessage("s"), cp.HumanMessage("h")])
    assert theirs[0] == "error"
    assert_same_outcome(ours, theirs)


@pytest.mark.parametrize("strategy", ["last", "first"])
@pytest.mark.parametrize("budget", [-1, 0])
def test_budgets_of_nothing_keep_what_langchain_keeps(strategy, budget):
    def call(module, classes):
        messages = [module.SystemMessage("s"), module.HumanMessage("h"), module.AIMessage("")]
        return module.trim_messages(
            messages,
            max_tokens=budget,
            token_counter=len,
            strategy=strategy,
            include_system=strategy == "last",
        )

    theirs = lc.messages_to_dict(call(lc, LC_CLASSES))
    assert cp.messages_to_dict(call(cp, CP_CLASSES)) == theirs


count_options = st.fixed_dictionaries(
    {},
    optional={
        "chars_per_token": st.sampled_from([4.0, 3.0, 2.5, 1.0, 0.7]),
        "extra_tokens_per_message": st.sampled_from([3.0, 0.0, 0.5, 0.1, 2]),
        "count_name": st.booleans(),
        "tokens_per_image": st.sampled_from([85, 0, 10]),
        "use_usage_metadata_scaling": st.booleans(),
        "tools": st.lists(json_objects, max_size=2),
    },
)


@st.composite
def counted(draw):
    cases = draw(conversations())
    for kind, kwargs in cases:
        if kind == "ai" and draw(st.booleans()):
            kwargs["response_metadata"] = {
                "model_provider": draw(st.sampled_from(["openai", "x", None]))
            }
    return cases


def test_count_matches_langchain():
    tally = Tally("count_tokens_approximately")

    @settings(max_examples=800, deadline=None)
    @given(counted(), count_options)
    def check(cases, options):
        ours_in, theirs_in = built_both(cases)
        if ours_in[0] == "error":
            tally("invalid message")
            return
        theirs = outcome(lc_count, theirs_in[1], **options)
        ours = outcome(count_tokens_approximately, ours_in[1], **options)
        assert_same_outcome(ours, theirs)
        assert ours[0] != "ok" or ours == theirs
        tally("error" if ours[0] == "error" else "zero" if ours[1] == 0 else "counted")

    check()
    tally.require(0.6, "counted")


def test_count_examples_from_spec():
    assert count_tokens_approximately([]) == 0
    assert count_tokens_approximately([cp.HumanMessage("")]) == 4
    assert count_tokens_approximately([cp.HumanMessage("abcd", name="bob")]) == 6
    call = cp.AIMessage("hi", tool_calls=[{"id": "1", "name": "f", "args": {"a": 1}}])
    assert count_tokens_approximately([call]) == 22
    assert (
        count_tokens_approximately([cp.HumanMessage("a" * 10)], extra_tokens_per_message=0.5) == 5
    )


def test_trim_examples_from_spec():
    messages = [
        cp.SystemMessage("sys prompt"),
        cp.HumanMessage("first question\nsecond line\nthird line"),
        cp.AIMessage("answer one"),
        cp.HumanMessage("q2"),
        cp.AIMessage("", tool_calls=[{"id": "c1", "name": "search", "args": {"q": "x"}}]),
        cp.ToolMessage("tool out", tool_call_id="c1"),
        cp.AIMessage("final\nanswer\nhere"),
    ]
    trim = lambda **kw: trim_messages(messages, token_counter="approximate", **kw)  # noqa: E731
    assert trim(max_tokens=20) == messages[-2:]
    assert trim(max_tokens=20, include_system=True) == [messages[0], messages[-1]]
    assert trim(max_tokens=20, start_on="human") == []
    assert trim(max_tokens=9, allow_partial=True) == [cp.AIMessage("answer\nhere")]
    assert trim(max_tokens=20, strategy="first", allow_partial=True) == [
        messages[0],
        cp.HumanMessage("first question\nsecond line\n"),
    ]


tool_chat = st.lists(
    st.one_of(
        st.builds(lambda t: ("human", t), st.text(max_size=20)),
        st.builds(lambda n, t: ("calls", n, t), st.integers(1, 3), st.text(max_size=20)),
        st.builds(lambda t: ("ai", t), st.text(max_size=20)),
    ),
    max_size=8,
)


def build_tool_chat(plan):
    messages, n = [], 0
    for step in plan:
        if step[0] == "human":
            messages.append(cp.HumanMessage(step[1]))
        elif step[0] == "ai":
            messages.append(cp.AIMessage(step[1]))
        else:
            ids = [f"c{n + i}" for i in range(step[1])]
            n += step[1]
            messages.append(
                cp.AIMessage(
                    step[2], tool_calls=[{"name": "f", "args": {"i": i}, "id": i} for i in ids]
                )
            )
            messages.extend(cp.ToolMessage(step[2] + i, tool_call_id=i) for i in ids)
    return messages


def orphans(messages):
    """Tool results with no call before them; calls whose results exist but are missing."""
    problems = []
    calls = set()
    for m in messages:
        if isinstance(m, cp.AIMessage):
            calls.update(c["id"] for c in m.tool_calls)
        elif isinstance(m, cp.ToolMessage) and m.tool_call_id not in calls:
            problems.append(m.tool_call_id)
    answered = {m.tool_call_id for m in messages if isinstance(m, cp.ToolMessage)}
    problems += [c for c in calls if c not in answered]
    return problems


@settings(max_examples=500, deadline=None)
@given(tool_chat, st.integers(0, 150), st.sampled_from(["last", "first"]), st.booleans())
def test_keep_tool_pairs_never_leaves_an_orphan(plan, budget, strategy, partial):
    messages = build_tool_chat(plan)
    kept = trim_messages(
        messages,
        max_tokens=budget,
        token_counter="approximate",
        strategy=strategy,
        allow_partial=partial,
    )
    if strategy == "last":
        _, after = trim_last_stream(
            iter(messages),
            max_tokens=budget,
            counter=resolve_counter("approximate"),
            allow_partial=partial,
        )
    else:
        after = {m.tool_call_id for m in messages[len(kept) :] if isinstance(m, cp.ToolMessage)}
    fixed, dropped = keep_tool_pairs(kept, after)
    assert orphans(fixed) == []
    assert [m for m in kept if not any(m is d for d, _ in dropped)] == fixed


lines_text = st.lists(st.text(st.sampled_from("abc xyz"), max_size=9), min_size=1, max_size=8).map(
    "\n".join
)
long_content = st.one_of(
    lines_text,
    st.lists(
        st.one_of(
            lines_text,
            st.builds(lambda t: {"type": "text", "text": t}, lines_text),
            st.just({"type": "image_url", "image_url": {"url": "https://u"}}),
        ),
        min_size=1,
        max_size=4,
    ),
)


@settings(max_examples=600, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["human", "ai", "system"]), long_content), min_size=1, max_size=5
    ),
    st.integers(0, 80),
    st.sampled_from(["last", "first"]),
    st.sampled_from(["approximate", "len", "per_message"]),
)
def test_partial_trimming_matches_langchain(parts, budget, strategy, counter):
    ours_in = [build(cp, k, {"content": c}) for k, c in parts]
    theirs_in = [build(lc, k, {"content": c}) for k, c in parts]
    ours_counter, lc_counter = COUNTERS[counter]
    options = {"max_tokens": budget, "strategy": strategy, "allow_partial": True}
    theirs = lc.trim_messages(theirs_in, token_counter=lc_counter, **options)
    ours = trim_messages(ours_in, token_counter=ours_counter, **options)
    assert cp.messages_to_dict(ours) == lc.messages_to_dict(theirs)


def _square_counter(messages):
    # not a sum of per-message costs: the stream must hand it the whole list
    return len(messages) ** 2 + sum(len(str(m.content)) for m in messages)


UNCOUNTABLE = [{"type": "text", "text": None}]


@pytest.mark.parametrize(
    ("cases", "options"),
    [
        (
            [
                ("system", {"content": "rules"}),
                ("human", {"content": "a" * 9}),
                ("ai", {"content": "b" * 9}),
                ("human", {"content": "c"}),
                ("ai", {"content": "d"}),
            ],
            {"max_tokens": 20, "include_system": True, "start_on": "human"},
        ),
        (
            [
                ("human", {"content": "a" * 30}),
                ("ai", {"content": "b"}),
                ("human", {"content": "c"}),
            ],
            {"max_tokens": 12, "end_on": "ai"},
        ),
        (  # an uncountable system message, kept: the count fails as langchain's does
            [("system", {"content": UNCOUNTABLE}), ("human", {"content": "hi"})],
            {"max_tokens": 50, "include_system": True},
        ),
        (  # an uncountable message in the kept window
            [("human", {"content": "hi"}), ("ai", {"content": UNCOUNTABLE})],
            {"max_tokens": 50},
        ),
        (  # an uncountable message after end_on: langchain counts it too
            [
                ("human", {"content": "hi"}),
                ("ai", {"content": "ok"}),
                ("human", {"content": UNCOUNTABLE}),
            ],
            {"max_tokens": 50, "end_on": "ai"},
        ),
    ],
)
@pytest.mark.parametrize("counter", ["square", "approximate"])
def test_the_stream_trims_as_langchain_with_any_counter(cases, options, counter):
    ours_in, theirs_in = built_both(cases)
    if counter == "square":
        ours_counter, theirs_counter = _square_counter, _square_counter
    else:
        ours_counter, theirs_counter = resolve_counter("approximate"), lc_count
    ours = outcome(lambda: trim_last_stream(iter(ours_in[1]), counter=ours_counter, **options)[0])
    theirs = outcome(
        lambda: lc.trim_messages(
            theirs_in[1], token_counter=theirs_counter, strategy="last", **options
        )
    )
    assert_same_outcome(ours, theirs)
    if ours[0] == "ok":
        assert cp.messages_to_dict(ours[1]) == lc.messages_to_dict(theirs[1])


def test_count_leaves_opaque_payloads_out():
    """Encrypted reasoning and thinking signatures are for the provider, not text a model
    reads: counted as langchain-core counts the message without them (#51; a Codex session
    counted 2.2 times what its template and tokenizer give). Without them, the same count."""
    opaque = "EqoBCkgIARABGAIiQL" * 60  # what a signature or encrypted reasoning looks like
    thinking = {"type": "thinking", "thinking": "let me see", "signature": opaque}
    reasoning = {
        "type": "reasoning",
        "reasoning": "checked the docs",
        "extras": {"encrypted_content": opaque, "summary": [{"type": "summary_text"}]},
    }
    redacted = {"type": "redacted_thinking", "data": opaque}
    text = {"type": "text", "text": "the answer", "extras": {"thought_signature": opaque}}
    content = [thinking, reasoning, redacted, text]
    readable = [
        {"type": "thinking", "thinking": "let me see"},
        {
            "type": "reasoning",
            "reasoning": "checked the docs",
            "extras": {"summary": [{"type": "summary_text"}]},
        },
        {"type": "redacted_thinking"},
        text,
    ]
    ours = count_tokens_approximately([cp.AIMessage(content)])
    assert ours == lc_count([lc.AIMessage(readable)])
    assert ours * 4 < lc_count([lc.AIMessage(content)])
    plain = [{"type": "thinking", "thinking": "x"}, {"type": "note", "n": [1, {"k": "v"}]}]
    assert count_tokens_approximately([cp.AIMessage(plain)]) == lc_count([lc.AIMessage(plain)])
