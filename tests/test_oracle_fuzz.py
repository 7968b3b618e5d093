"""Fuzzing with an oracle: a conversation drawn as plain facts (who said what, which calls,
which result answers which call) is written by hand in each dialect's own wire form, read
back by chatpipe, and compared message by message with the facts; the same records, broken,
end in one clear line that names no Python exception."""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from chatpipe.cli import app
from chatpipe.pipeline.reading import read
from conftest import Tally

# text that survives every dialect: no empty strings (Gemini drops empty parts), and no
# leading or trailing white space (ShareGPT exports are trimmed by some readers)
words = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zs", "Zl", "Zp")),
    min_size=1,
    max_size=12,
)
texts = st.lists(
    st.one_of(words, st.sampled_from(['"quoted"', "a\\b", "<tag>", "é", "\u2028x", "{}"])),
    min_size=1,
    max_size=4,
).map(" ".join)
names = st.sampled_from(["search", "get_weather", "read_file", "run_python"])
arguments = st.dictionaries(
    st.sampled_from(["q", "city", "path", "n", "flags"]),
    st.one_of(words, st.integers(-5, 10**6), st.booleans(), st.lists(words, max_size=2)),
    max_size=3,
)


@st.composite
def facts(draw):
    """[("system"|"human"|"ai", text), ("calls", [(name, args)]), ("result", k, text)]"""
    out = []
    if draw(st.booleans()):
        out.append(("system", draw(texts)))
    for _ in range(draw(st.integers(1, 3))):
        out.append(("human", draw(texts)))
        if draw(st.booleans()):
            calls = draw(st.lists(st.tuples(names, arguments), min_size=1, max_size=2))
            out.append(("calls", calls))
            out.extend(("result", k, draw(texts)) for k in range(len(calls)))
        out.append(("ai", draw(texts)))
    return out


# -- each dialect's wire form, written here by hand (not by chatpipe's writers) --------------


def openai(conversation):
    messages, ids = [], []
    for fact in conversation:
        if fact[0] in ("system", "human", "ai"):
            role = {"system": "system", "human": "user", "ai": "assistant"}[fact[0]]
            messages.append({"role": role, "content": fact[1]})
        elif fact[0] == "calls":
            ids = [f"call_{len(messages)}_{k}" for k in range(len(fact[1]))]
            calls = [
                {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
                for i, (n, a) in zip(ids, fact[1], strict=True)
            ]
            messages.append({"role": "assistant", "content": None, "tool_calls": calls})
        else:
            messages.append({"role": "tool", "tool_call_id": ids[fact[1]], "content": fact[2]})
    return {"messages": messages}


def sharegpt(conversation):
    turns = []
    for fact in conversation:
        if fact[0] in ("system", "human", "ai"):
            turns.append(
                {
                    "from": {"system": "system", "human": "human", "ai": "gpt"}[fact[0]],
                    "value": fact[1],
                }
            )
        elif fact[0] == "calls":  # parallel calls: one turn holding a list (LLaMA-Factory)
            calls = [{"name": name, "arguments": args} for name, args in fact[1]]
            value = calls[0] if len(calls) == 1 else calls
            turns.append({"from": "function_call", "value": json.dumps(value, ensure_ascii=False)})
        else:
            turns.append({"from": "observation", "value": fact[2]})
    return {"conversations": turns}


def anthropic(conversation):
    record, messages, ids = {}, [], []
    for fact in conversation:
        if fact[0] == "system":
            record["system"] = fact[1]
        elif fact[0] in ("human", "ai"):
            role = "user" if fact[0] == "human" else "assistant"
            messages.append({"role": role, "content": [{"type": "text", "text": fact[1]}]})
        elif fact[0] == "calls":
            ids = [f"toolu_{len(messages)}_{k}" for k in range(len(fact[1]))]
            blocks = [
                {"type": "tool_use", "id": i, "name": name, "input": args}
                for i, (name, args) in zip(ids, fact[1], strict=True)
            ]
            messages.append({"role": "assistant", "content": blocks})
            messages.append({"role": "user", "content": []})
        else:
            messages[-1]["content"].append(
                {"type": "tool_result", "tool_use_id": ids[fact[1]], "content": fact[2]}
            )
    record["messages"] = messages
    return record


def gemini(conversation):
    record, contents, calls = {}, [], []
    for fact in conversation:
        if fact[0] == "system":
            record["systemInstruction"] = {"parts": [{"text": fact[1]}]}
        elif fact[0] in ("human", "ai"):
            role = "user" if fact[0] == "human" else "model"
            contents.append({"role": role, "parts": [{"text": fact[1]}]})
        elif fact[0] == "calls":
            calls = fact[1]
            parts = [{"functionCall": {"name": name, "args": args}} for name, args in calls]
            contents.append({"role": "model", "parts": parts})
            contents.append({"role": "user", "parts": []})
        else:
            name = calls[fact[1]][0]
            contents[-1]["parts"].append(
                {"functionResponse": {"name": name, "response": {"output": fact[2]}}}
            )
    record["contents"] = contents
    return record


DIALECTS = {"openai": openai, "sharegpt": sharegpt, "anthropic": anthropic, "gemini": gemini}


def observed(conversation):
    """What chatpipe read, in the facts' terms: tool results name the call they answer by
    its position (k-th call of the last calling message)."""
    out, ids = [], []
    for message in conversation.messages:
        if message.type == "ai" and message.tool_calls:
            ids = [c["id"] for c in message.tool_calls]
            out.append(("calls", [(c["name"], c["args"]) for c in message.tool_calls]))
            if message.text.strip():
                out.append(("ai", message.text))
        elif message.type == "tool":
            content = message.content
            if isinstance(content, str) and content.startswith('{"output"'):
                content = json.loads(content)["output"]
            answered = ids.index(message.tool_call_id) if message.tool_call_id in ids else None
            out.append(("result", answered, content))
        else:
            out.append((message.type, message.text))
    return out


def test_each_dialect_reads_back_what_was_written(tmp_path_factory):
    tally = Tally("oracle: well-formed records")

    @settings(max_examples=300, deadline=None)
    @given(st.sampled_from(sorted(DIALECTS)), st.lists(facts(), min_size=1, max_size=3))
    def check(dialect, conversations):
        path = tmp_path_factory.mktemp("oracle") / f"{dialect}.jsonl"
        records = [DIALECTS[dialect](c) for c in conversations]
        path.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
        )
        got = [observed(c) for c in read([str(path)], dialect=dialect)]
        want = conversations
        if dialect == "gemini":  # a function response holds an object: {"output": text}
            got = [[_gemini_text(f) for f in c] for c in got]
        assert got == want
        tally(
            f"{dialect} {'with tools' if any(f[0] == 'calls' for c in want for f in c) else 'text'}"
        )

    check()
    tally.require(0.5, *(f"{d} with tools" for d in DIALECTS))


def _gemini_text(fact):
    if fact[0] == "result" and isinstance(fact[2], dict):
        return (fact[0], fact[1], fact[2].get("output"))
    return fact


# -- broken records: a clear line, no Python exception ---------------------------------------

PYTHON_NAMES = re.compile(
    r"Traceback|\b(Key|Type|Attribute|Index|Value|Name|Unicode\w*|Recursion|Assertion)Error\b"
    r"|\bException\b|NoneType|\bdict\b object|object has no attribute"
)


@st.composite
def breakages(draw):
    """A well-formed record with one thing wrong in it."""
    dialect = draw(st.sampled_from(sorted(DIALECTS)))
    record = DIALECTS[dialect](draw(facts()))
    paths = list(_paths(record))
    where = draw(st.sampled_from(paths))
    how = draw(st.sampled_from(["delete", "null", "number", "list", "string", "object"]))
    return dialect, _broken(record, where, how)


def _paths(value, path=()):
    if isinstance(value, dict):
        for k, v in value.items():
            yield (*path, k)
            yield from _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield (*path, i)
            yield from _paths(v, (*path, i))


def _broken(record, where, how):
    record = json.loads(json.dumps(record))
    parent = record
    for step in where[:-1]:
        parent = parent[step]
    last = where[-1]
    if how == "delete":
        del parent[last]
    else:
        parent[last] = {
            "null": None,
            "number": 7,
            "list": [1, "x"],
            "string": "x",
            "object": {"z": 1},
        }[how]
    return record


runner = CliRunner()


def test_broken_records_end_in_one_clear_line(tmp_path_factory):
    tally = Tally("oracle: broken records")

    @settings(max_examples=400, deadline=None)
    @given(breakages())
    def check(case):
        dialect, record = case
        path = tmp_path_factory.mktemp("broken") / "in.jsonl"
        path.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
        result = runner.invoke(app, ["convert", "--from", dialect, str(path)])
        assert result.exit_code in (0, 1), result.output
        if result.exit_code == 0:
            tally("still readable")  # e.g. a text replaced by another text
            return
        lines = result.stderr.splitlines()
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith(f"chatpipe: error: {path}:1"), lines[0]
        assert not PYTHON_NAMES.search(lines[0]), lines[0]
        assert result.stdout == ""
        tally("refused")

    check()
    tally.require(0.2, "refused")
