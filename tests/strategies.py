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


# every rule of convert_to_openai_messages' block table (spec §3.3), valid and broken
_mimes = st.sampled_from(["image/png", "audio/wav", "audio/mpeg", "application/pdf"])
_maybe = st.booleans()


@st.composite
def openai_blocks(draw):
    kind = draw(st.integers(0, 25))
    text = draw(texts)
    if kind == 0:
        return {"type": "text", "text": text, "annotations": [], "id": "x"}
    if kind == 1:
        return {"type": "text"}
    if kind == 2:
        return {
            "type": "image_url",
            "image_url": draw(
                st.one_of(st.just({"url": "https://u", "detail": "low"}), st.just("https://u"))
            ),
        }
    if kind == 3:
        return {"type": "image_url"}
    if kind == 4:  # v1 data blocks
        block = {"type": draw(st.sampled_from(["image", "audio", "file", "video", "text-plain"]))}
        for key, value in (
            ("url", "https://d"),
            ("base64", "QUJD"),
            ("file_id", "file-1"),
            ("text", "t"),
        ):
            if draw(_maybe):
                block[key] = value
        if draw(_maybe):
            block["mime_type"] = draw(_mimes)
        if draw(_maybe):
            block[draw(st.sampled_from(["filename", "extras", "metadata"]))] = (
                "f.pdf" if draw(_maybe) else {"filename": "g.pdf"}
            )
        return block
    if kind == 5:  # v0 data blocks
        source = draw(st.sampled_from(["url", "base64", "id", "text"]))
        block = {"type": draw(st.sampled_from(["image", "audio", "file"])), "source_type": source}
        block.update(
            {
                "url": {"url": "https://v0", "text": "https://v0"},
                "base64": {"data": "QUJD"},
                "id": {"id": "file-2"},
            }.get(source, {})
        )
        if source == "text":
            block["url"] = "https://t"
        if draw(_maybe):
            block["mime_type"] = draw(_mimes)
        return block
    if kind == 6:  # Anthropic image
        source = {"type": "base64", "media_type": "image/png", "data": "QUJD"}
        if draw(_maybe):
            source = {"type": "url", "url": "https://a"}
        return {"type": "image", "source": source}
    if kind == 7:
        return {"type": "image", "cache_control": {"type": "ephemeral"}}
    if kind == 8:
        file = {"file_data": "data:application/pdf;base64,QUJD"}
        if draw(_maybe):
            file["filename"] = draw(st.one_of(st.none(), st.just("doc.pdf")))
        return {"type": "file", "file": file}
    if kind == 9:
        return {"type": "file", "file": {"file_id": "file-9"}}
    if kind == 10:
        return {
            "type": "input_audio",
            "input_audio": draw(
                st.sampled_from([{"data": "QUJD", "format": "wav"}, {"data": "QUJD"}, "x"])
            ),
        }
    if kind == 11:
        block = {
            "type": "tool_use",
            "id": draw(st.sampled_from(["c1", "tu1"])),
            "name": "search",
            "input": {"q": text},
        }
        if draw(st.integers(0, 5)) == 0:
            del block["input"]
        return block
    if kind == 12:
        block = {
            "type": "function_call",
            "call_id": draw(st.sampled_from(["c1", "fc1"])),
            "name": "f",
            "arguments": '{"a": 1}',
        }
        if draw(st.integers(0, 5)) == 0:
            del block["name"]
        return block
    if kind == 13:
        block = {
            "type": "tool_result",
            "tool_use_id": "tu1",
            "content": draw(st.one_of(texts, st.lists(st.one_of(texts, text_blocks), max_size=2))),
        }
        if draw(_maybe):
            block["is_error"] = True
        if draw(st.integers(0, 6)) == 0:
            del block["content"]
        return block
    if kind == 14:
        return {"type": "json", "json": draw(json_objects)}
    if kind == 15:
        return {"json": draw(json_values)}
    if kind == 16:
        return {
            "type": "guard_content",
            "guard_content": {
                "text": draw(st.one_of(texts, st.builds(lambda t: {"text": t}, texts)))
            },
        }
    if kind == 17:
        return {"type": "guard_content"}
    if kind == 18:
        return {"type": "thinking", "thinking": text, "signature": "sig"}
    if kind == 19:
        return {"type": "reasoning", "reasoning": text}
    if kind == 20:
        return {"type": "non_standard", "value": {"a": 1}}
    if kind == 21:
        return {"no_type": text}
    if kind == 22:
        return {"type": "tool_call", "id": "c9", "name": "f", "args": {}}
    if kind == 23:
        return {"type": "media", "mime_type": "image/png"}
    if kind == 24:
        return {"type": "server_tool_call", "id": "s", "name": "web", "args": {}}
    return text


@st.composite
def openai_writer_messages(draw):
    kind = draw(st.sampled_from(["human", "ai", "ai", "system", "tool", "function", "chat"]))
    content = draw(st.one_of(texts, st.lists(openai_blocks(), max_size=4)))
    kwargs = {"content": content, "name": draw(st.one_of(st.none(), short_names)), "id": draw(ids)}
    if draw(st.integers(0, 3)) == 0:
        kwargs["additional_kwargs"] = {"refusal": draw(st.one_of(st.none(), texts))}
    if kind == "ai":
        kwargs["tool_calls"] = draw(
            st.lists(
                st.builds(
                    lambda i, a: {"name": "search", "args": a, "id": i},
                    st.sampled_from(["c1", "c2", None]),
                    json_objects,
                ),
                max_size=2,
            )
        )
        kwargs["invalid_tool_calls"] = draw(st.lists(invalid_tool_calls, max_size=1))
    elif kind == "system" and draw(_maybe):
        kwargs["additional_kwargs"] = {"__openai_role__": "developer"}
    elif kind == "tool":
        kwargs["tool_call_id"] = "tu1"
        kwargs["status"] = draw(st.sampled_from(["success", "error"]))
        kwargs["artifact"] = draw(st.one_of(st.none(), json_scalars))
    elif kind == "function":
        kwargs["name"] = "fn"
    elif kind == "chat":
        kwargs["role"] = draw(st.sampled_from(["critic", "user"]))
    return kind, kwargs


# OpenAI messages as the API and fine-tuning files hold them (for round trips)
_parts = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, texts),
    st.builds(
        lambda d: {"type": "image_url", "image_url": {"url": "https://i/x.png", "detail": d}},
        st.sampled_from(["auto", "low", "high"]),
    ),
    st.just({"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}),
    st.just(
        {
            "type": "file",
            "file": {"file_data": "data:application/pdf;base64,JVBE", "filename": "a.pdf"},
        }
    ),
)
_oai_content = st.one_of(texts, st.lists(_parts, min_size=1, max_size=3))


@st.composite
def openai_wire_messages(draw):
    role = draw(st.sampled_from(["system", "developer", "user", "assistant", "tool", "function"]))
    message: dict = {"role": role}
    if role == "assistant":
        if draw(_maybe):
            message["tool_calls"] = [
                {
                    "id": f"call_{n}",
                    "type": "function",
                    "function": {
                        "name": draw(short_names),
                        "arguments": __import__("json").dumps(draw(json_objects)),
                    },
                }
                for n in range(draw(st.integers(1, 2)))
            ]
            message["content"] = draw(st.sampled_from([None, ""]))
        else:
            message["content"] = draw(texts)
        for key, value in (
            ("refusal", draw(st.one_of(st.none(), texts))),
            ("weight", draw(st.sampled_from([0, 1]))),
            ("audio", {"id": "audio_1"}),
        ):
            if draw(_maybe):
                message[key] = value
    elif role == "tool":
        message["tool_call_id"] = "call_0"
        message["content"] = draw(texts)
    elif role == "function":
        message["name"] = draw(short_names.filter(bool))
        message["content"] = draw(texts)
    else:
        message["content"] = draw(_oai_content if role == "user" else texts)
    if role in ("user", "assistant", "system") and draw(_maybe):
        message["name"] = draw(short_names.filter(bool))
    return message


# -- structure fuzzing: the fixtures' own records, one value swapped for one of another kind
# (issue #51): every reader meets the shapes it was written for, but for one place where a
# dict, a list, a string, a number, a boolean or null (or a nested oddity) stands instead

_FIXTURES = __import__("pathlib").Path(__file__).resolve().parent.parent / "fixtures"
# what a value is swapped for: every JSON kind, and the nested shapes readers trip on
odd_values = st.one_of(
    st.sampled_from(
        [
            {},
            [],
            "",
            "x",
            0,
            -1,
            1.5,
            True,
            False,
            None,
            [{}],
            [[]],
            [None],
            ["x"],
            {"type": {}},
            {"type": []},
            {"type": "text", "text": {}},
            {"": None},
            "\x00\x1b[2J\x7f\x85",
            {"a": {"b": {"c": [{"d": []}]}}},
        ]
    ),
    st.integers(-3, 300),  # (an index far past its list is another item's: #51, item 2)
    st.floats(allow_nan=False, allow_infinity=False),
    texts,
    json_values,
)


def _records(path) -> tuple[str, object]:
    """A fixture's records: ("jsonl", [line values]), or (container, its document)."""
    import json

    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return "jsonl", [json.loads(line) for line in text.split("\n") if line.strip()]
    if path.suffix == ".yaml":
        return "yaml", __import__("yaml").safe_load(text)
    return "json", json.loads(text)


def _paths(value, path=()):
    """Every place in a JSON value, itself included (dicts by key, lists by index)."""
    yield path
    if isinstance(value, (dict, list)):
        for key, inner in value.items() if isinstance(value, dict) else enumerate(value):
            yield from _paths(inner, (*path, key))


def fixture_readers() -> dict[str, list]:
    """The fixtures readers read whole (JSON, JSONL, YAML; not the malformed ones), by the
    reader their name starts with: ``{reader: [(name, container, records, places)]}``."""
    found: dict[str, list] = {}
    for path in sorted(_FIXTURES.iterdir()):
        if path.suffix not in (".json", ".jsonl", ".yaml") or path.name.startswith("malformed"):
            continue
        container, records = _records(path)
        if container == "jsonl":  # a place in one of its lines
            places = [(i, *inner) for i, line in enumerate(records) for inner in _paths(line)]
        else:
            places = list(_paths(records))
        reader = path.name.split("__")[0].removesuffix(path.suffix)
        found.setdefault(reader, []).append((path.name, container, records, places))
    return found


def _swapped(value, path, new):
    import copy

    if not path:
        return new
    value = copy.deepcopy(value)
    inner = value
    for key in path[:-1]:
        inner = inner[key]
    inner[path[-1]] = new
    return value


def _written(container: str, records) -> bytes:
    import json

    if container == "jsonl":
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode()
    if container == "yaml":
        return __import__("yaml").safe_dump(records, allow_unicode=True).encode()
    return json.dumps(records, ensure_ascii=False).encode()


@st.composite
def swapped_fixtures(draw, readers: dict[str, list]):
    """(reader, fixture name, suffix, bytes): a fixture of a reader with the value at one
    of its places swapped for a value of another kind."""
    reader = draw(st.sampled_from(sorted(readers)))
    name, container, records, places = draw(st.sampled_from(readers[reader]))
    place = draw(st.sampled_from(places))
    new = draw(odd_values)
    suffix = {"jsonl": ".jsonl", "yaml": ".yaml"}.get(container, ".json")
    return reader, name, suffix, _written(container, _swapped(records, place, new))
