"""Hypothesis strategies: message-shaped data for differential tests against langchain-core."""

from __future__ import annotations

from hypothesis import strategies as st

# text that exercises escaping and unicode: markup, quotes, control and line-break chars
_ALPHABET = st.sampled_from(
    list("abcxyz ABC019_-")
    + list("<>&\"'\\/{}[]:,\n\r\t")
    + ["é", "ß", "中", "🚀", "\u2028", "\u2029", "\x85", "\x00", "\u200b"]
)
texts = st.text(_ALPHABET, max_size=12)
short_names = st.sampled_from(["a", "b", "search", "get_weather", "x y", ""])
ids = st.one_of(
    st.none(),
    st.sampled_from(["id1", "id2", "run-abc", "lc_run-1", "lc_abc", "lc_run-zz", "", "call_1"]),
)

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**53), max_value=2**53),
    st.floats(allow_nan=False, allow_infinity=False),
    texts,
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(list("abcdk")), inner, max_size=3),
    ),
    max_leaves=6,
)
json_objects = st.dictionaries(
    st.sampled_from(["a", "b", "city", "q", "n"]), json_values, max_size=3
)

text_blocks = st.builds(lambda t: {"type": "text", "text": t}, texts)
blocks = st.one_of(
    text_blocks,
    st.builds(lambda t: {"type": "text", "text": t, "index": 0}, texts),
    st.builds(lambda u: {"type": "image", "url": u}, texts),
    st.builds(lambda u: {"type": "image_url", "image_url": {"url": u}}, texts),
    st.builds(lambda r: {"type": "reasoning", "reasoning": r}, texts),
    st.just({"type": "text", "text": None}),
    st.builds(lambda v: {"type": "weird", "value": v}, json_scalars),
)
contents = st.one_of(texts, st.lists(st.one_of(texts, blocks), max_size=4))

tool_calls = st.builds(
    lambda name, args, id_: {"name": name, "args": args, "id": id_},
    short_names,
    json_objects,
    ids,
)
invalid_tool_calls = st.builds(
    lambda name, args, id_, err: {"name": name, "args": args, "id": id_, "error": err},
    st.one_of(st.none(), short_names),
    st.one_of(st.none(), texts),
    ids,
    st.one_of(st.none(), texts),
)
_token = st.integers(min_value=0, max_value=10_000)
usages = st.one_of(
    st.none(),
    st.builds(
        lambda i, o, t: {"input_tokens": i, "output_tokens": o, "total_tokens": t},
        _token,
        _token,
        _token,
    ),
    st.builds(
        lambda i, o, cr, r: {
            "input_tokens": i,
            "output_tokens": o,
            "total_tokens": i + o,
            "input_token_details": {"cache_read": cr},
            "output_token_details": {"reasoning": r},
        },
        _token,
        _token,
        _token,
        _token,
    ),
)
# metadata whose values merge (strings concatenate, ints add, lists and dicts merge)
merge_values = st.one_of(
    st.none(),
    texts,
    st.integers(0, 9),
    st.lists(st.integers(0, 3), max_size=2),
    st.dictionaries(st.sampled_from(["p", "q"]), st.one_of(texts, st.integers(0, 3)), max_size=2),
)
merge_dicts = st.dictionaries(
    st.sampled_from(["k", "model_name", "id", "index", "created", "model_provider", "n"]),
    merge_values,
    max_size=3,
)
chunk_args = st.one_of(
    st.none(),
    st.sampled_from(['{"q": "we', 'ather"}', "{", "}", "[1, 2", '"x', "", "{}", '{"a": 1}', "nul"]),
)
tool_call_chunks = st.builds(
    lambda name, args, id_, index: {"name": name, "args": args, "id": id_, "index": index},
    st.one_of(st.none(), short_names),
    chunk_args,
    ids,
    st.one_of(st.none(), st.integers(0, 2)),
)


@st.composite
def ai_chunk_kwargs(draw):
    kwargs = {
        "content": draw(contents),
        "additional_kwargs": draw(merge_dicts),
        "response_metadata": draw(merge_dicts),
        "id": draw(ids),
        "tool_call_chunks": draw(st.lists(tool_call_chunks, max_size=3)),
        "usage_metadata": draw(usages),
    }
    if draw(st.booleans()):
        kwargs["chunk_position"] = "last"
    return kwargs


@st.composite
def message_kwargs(draw):
    """(class name, kwargs) for any message class, with every field in play."""
    kind = draw(st.sampled_from(["human", "ai", "system", "tool", "function", "chat", "remove"]))
    kwargs = {
        "content": draw(contents),
        "additional_kwargs": draw(
            st.dictionaries(st.sampled_from(["k", "refusal"]), json_values, max_size=2)
        ),
        "response_metadata": draw(
            st.dictionaries(st.sampled_from(["model_name", "x"]), json_values, max_size=2)
        ),
        "name": draw(st.one_of(st.none(), short_names)),
        "id": draw(ids),
    }
    if kind == "ai":
        kwargs["tool_calls"] = draw(st.lists(tool_calls, max_size=2))
        kwargs["invalid_tool_calls"] = draw(st.lists(invalid_tool_calls, max_size=1))
        kwargs["usage_metadata"] = draw(usages)
    elif kind == "tool":
        kwargs["tool_call_id"] = draw(st.sampled_from(["call_1", "", "x"]))
        kwargs["status"] = draw(st.sampled_from(["success", "error"]))
        kwargs["artifact"] = draw(st.one_of(st.none(), json_values))
    elif kind == "function":
        kwargs["name"] = draw(short_names)
    elif kind == "chat":
        kwargs["role"] = draw(st.sampled_from(["critic", "User", "", "bot"]))
    elif kind == "remove":
        del kwargs["content"]
        kwargs["id"] = draw(st.sampled_from(["m1", "m2"]))
    if draw(st.booleans()):
        kwargs["example"] = draw(st.booleans())
    return kind, kwargs


_arguments = st.one_of(
    st.builds(lambda o: __import__("json").dumps(o), json_objects),
    st.sampled_from(['{"a": "line\nbreak"}', "{bad", "[1]", '"{\\"a\\": 1}"', "", "null", "0"]),
)
openai_tool_calls = st.builds(
    lambda id_, name, args: {
        "id": id_,
        "type": "function",
        "function": {"name": name, "arguments": args},
    },
    st.sampled_from(["call_1", "call_2", ""]),
    short_names,
    _arguments,
)


@st.composite
def openai_messages(draw):
    """OpenAI-style role dicts, including shapes langchain-core rejects."""
    role = draw(
        st.sampled_from(
            [
                "user",
                "assistant",
                "system",
                "developer",
                "tool",
                "function",
                "human",
                "ai",
                "critic",
            ]
        )
    )
    message = {"role": role}
    if draw(st.integers(0, 5)):
        message["content"] = draw(st.one_of(st.none(), contents))
    if draw(st.booleans()):
        message["name"] = draw(short_names)
    if role == "assistant" and draw(st.booleans()):
        message["tool_calls"] = draw(st.lists(openai_tool_calls, min_size=1, max_size=2))
    if role == "tool" and draw(st.integers(0, 4)):
        message["tool_call_id"] = draw(st.sampled_from(["call_1", "call_2", ""]))
    if draw(st.booleans()):
        message[draw(st.sampled_from(["refusal", "weight", "id", "audio"]))] = draw(json_scalars)
    return message


# every block kind the XML buffer format knows, and some it skips
_urls = st.sampled_from(
    [
        'https://x/a.png?a=1&b="2"',
        "https://x/b.png",
        "data:image/png;base64,AA",
        "",
        "it's",
        "a\"b'c",
    ]
)
render_blocks = st.one_of(
    blocks,
    st.builds(lambda t: {"type": "text", "text": t, "url": "data:x"}, texts),
    st.builds(
        lambda k, u, f: {"type": k, "url": u, "file_id": f},
        st.sampled_from(["image", "audio", "video"]),
        _urls,
        st.sampled_from(["", "file-1"]),
    ),
    st.builds(
        lambda k, f: {"type": k, "file_id": f}, st.sampled_from(["image", "audio", "video"]), texts
    ),
    st.builds(
        lambda b, u: {"type": "image", "base64": b, "url": u, "mime_type": "image/png"},
        st.sampled_from(["", "AAAA"]),
        _urls,
    ),
    st.builds(
        lambda t, b: {"type": "text", "text": t, "base64": b}, texts, st.sampled_from(["", "A"])
    ),
    st.builds(lambda u: {"type": "image_url", "image_url": {"url": u, "detail": "low"}}, _urls),
    st.just({"type": "image_url", "image_url": "https://x/c.png"}),
    st.builds(
        lambda t: {"type": "text-plain", "text": t, "mime_type": "text/plain"},
        st.one_of(
            texts,
            st.builds(lambda c, n: c * n, st.sampled_from(["<", "é", "a"]), st.integers(495, 505)),
        ),
    ),
    st.builds(
        lambda i, n, a: {"type": "server_tool_call", "id": i, "name": n, "args": a},
        st.one_of(st.none(), texts),
        st.one_of(st.none(), texts),
        json_objects,
    ),
    st.builds(
        lambda i, s, o: {"type": "server_tool_result", "tool_call_id": i, "status": s, "output": o},
        texts,
        st.sampled_from(["success", "error", ""]),
        st.one_of(json_values, st.builds(lambda n: "x" * n, st.integers(495, 505))),
    ),
    st.builds(lambda r: {"type": "refusal", "refusal": r}, texts),
    st.builds(lambda v: {"type": "non_standard", "value": v}, json_objects),
    st.just({"type": "tool_use", "id": "t", "name": "n", "input": {}}),
    st.just({"type": "file", "url": "https://x/f.pdf"}),
    st.just({"no_type": 1}),
)
render_contents = st.one_of(texts, st.lists(st.one_of(texts, render_blocks), max_size=5))
long_ids = st.one_of(ids, st.builds(lambda n: "c" * n, st.integers(60, 70)))
render_tool_calls = st.builds(
    lambda name, args, id_: {"name": name, "args": args, "id": id_},
    short_names,
    json_objects,
    long_ids,
)
function_calls = st.one_of(
    st.builds(
        lambda n, a: {"name": n, "arguments": a},
        st.one_of(st.none(), short_names),
        st.one_of(st.none(), st.just(""), texts, st.just('{"a": 1}')),
    ),
)


@st.composite
def render_messages(draw):
    """(class name, kwargs) for messages that exercise every part of the buffer formats."""
    kind = draw(st.sampled_from(["human", "ai", "ai", "system", "tool", "function", "chat"]))
    kwargs = {
        "content": draw(render_contents),
        "name": draw(st.one_of(st.none(), short_names)),
        "id": draw(ids),
    }
    if kind == "ai":
        kwargs["tool_calls"] = draw(st.lists(render_tool_calls, max_size=2))
        if draw(st.booleans()):
            kwargs["additional_kwargs"] = {"function_call": draw(function_calls)}
        if draw(st.booleans()):
            kwargs["invalid_tool_calls"] = [{"name": "bad", "args": "{", "id": "i", "error": None}]
    elif kind == "tool":
        kwargs["tool_call_id"] = "call_1"
    elif kind == "function":
        kwargs["name"] = draw(short_names)
    elif kind == "chat":
        kwargs["role"] = draw(st.sampled_from(["critic", "Moderator", "a\"b'c\n\t\r", "Q&A", ""]))
    return kind, kwargs
