"""Every real sample converts to canonical JSONL with nothing lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

import chatpipe as cp
from chatpipe.pipeline.reading import read
from chatpipe.pipeline.writing import write_records
from conftest import FIXTURES, Tally

SAMPLES = sorted(
    p
    for p in FIXTURES.iterdir()
    if p.name.split("__")[0] in ("openai_chat", "hf_messages", "langchain_dict", "mellea")
    or p.name in ("openai_tool_calls.jsonl", "mellea_messages.jsonl")
)
# keys whose values name the shape, not the data: roles become types, langchain's
# envelope names its class, Mellea marks its tool messages
STRUCTURAL = {"role", "type", "lc", "mellea_type"}


def load(path: Path):
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".yaml":
        return yaml.safe_load(text)
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return json.loads(text)


def leaves(value, key=None):
    """Every string and number in a JSON value; JSON-text arguments are looked inside."""
    if isinstance(value, dict):
        for k, v in value.items():
            if (k, v) == ("status", "success") or (k == "id" and isinstance(v, list)):
                continue  # a default the flat format omits; an envelope's class path
            yield from leaves(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from leaves(v, key)
    elif key in STRUCTURAL:
        return
    elif isinstance(value, (str, int, float)) and not isinstance(value, bool):
        yield value


def convert(path: Path) -> list:
    conversations = read([str(path)])
    lines = write_records(conversations, cp_dialect().write_messages, lambda: False)
    return [json.loads(line) for line in lines]


def cp_dialect():
    from chatpipe.formats.registry import get_dialect

    return get_dialect("canonical")


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_sample_converts_with_nothing_lost(path):
    records = convert(path)
    assert records, "a sample must give at least one conversation"
    kept = set(leaves(records))
    missing = {v for v in leaves(load(path)) if v not in kept and not parsed_and_kept(v, kept)}
    assert not missing, f"lost: {sorted(map(str, missing))[:5]}"


def parsed_and_kept(value, kept) -> bool:
    """JSON text (tool-call arguments) is kept when everything inside it is, and a data URL
    when its media type and its base64 are (a media block holds them apart)."""
    if isinstance(value, str) and value.startswith("data:") and ";base64," in value:
        mime, data = value[5:].split(";base64,", 1)
        return data in kept and (not mime or mime in kept)
    try:
        parsed = json.loads(value) if isinstance(value, str) else None
    except ValueError:
        return False
    return isinstance(parsed, (dict, list)) and set(leaves(parsed)) <= kept


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_canonical_output_reads_back_to_the_same_bytes(path, tmp_path):
    first = (
        b"\n".join(write_records(read([str(path)]), cp_dialect().write_messages, lambda: False))
        + b"\n"
    )
    again = tmp_path / "again.jsonl"
    again.write_bytes(first)
    second = (
        b"\n".join(write_records(read([str(again)]), cp_dialect().write_messages, lambda: False))
        + b"\n"
    )
    assert second == first


def test_tool_calls_ids_and_names_survive():
    [conversation] = list(
        read([str(FIXTURES / "openai_chat__pydanticai_req_system_tools_tool_result.json")])
    )
    ai = next(m for m in conversation.messages if isinstance(m, cp.AIMessage) and m.tool_calls)
    tool = next(m for m in conversation.messages if isinstance(m, cp.ToolMessage))
    assert ai.tool_calls[0]["name"] == "get_temperature"
    assert ai.tool_calls[0]["args"] == {"city": "Tokyo"}
    assert tool.tool_call_id == ai.tool_calls[0]["id"]
    assert conversation.meta["tools"][0]["function"]["name"] == "get_temperature"


def test_openai_logs_read_as_langchain_reads_them():
    """Where langchain-core can read a sample, chatpipe reads the same messages."""
    import langchain_core.messages as lc

    tally = Tally("openai_chat fixtures read as langchain reads them")
    for path in SAMPLES:
        if not path.name.startswith("openai_chat__"):
            continue
        data = load(path)
        rows = data if isinstance(data, list) else [data]
        for row, conversation in zip(rows, read([str(path)]), strict=True):
            raw = row if isinstance(row, list) else row.get("messages")
            if raw is None:  # a response (choices), not a request
                tally("no messages")
                continue
            try:
                theirs = lc.convert_to_messages(raw)
            except ValueError:  # langchain-core refuses it (pydantic's errors are ValueErrors)
                tally("langchain refuses")
                continue
            assert cp.messages_to_dict(list(conversation.messages)) == lc.messages_to_dict(theirs)
            tally("compared")
    tally.require(0.6, "compared")  # 14 of 20 rows


def test_llamafactory_parts_become_blocks_and_tool_calls():
    conversations = list(
        read([str(FIXTURES / "hf_messages__llamafactory_v1_reason_tool_use_first8.jsonl")])
    )
    messages = conversations[1].messages
    ai = messages[2]
    assert ai.content[0]["type"] == "reasoning"
    assert ai.tool_calls == [
        {
            "name": "get_movie_details",
            "args": {"title": "Inception"},
            "id": "call_2_0",
            "type": "tool_call",
        }
    ]
    assert messages[3].tool_call_id == "call_2_0"
    weights = list(
        read([str(FIXTURES / "hf_messages__llamafactory_v1_sft_loss_weight_first15.jsonl")])
    )
    assert weights[0].messages[0].additional_kwargs == {"loss_weight": 0.0}


def test_mellea_messages_map_attachments_and_tool_details():
    [conversation] = list(read([str(FIXTURES / "mellea_messages.jsonl")]))
    _, human, ai, tool, _ = conversation.messages
    assert human.content[1] == {
        "type": "text-plain",
        "mime_type": "text/plain",
        "text": "The only yellow fish is the purple bumble fish.",
        "title": "Fish facts",
        "id": "7",
    }
    assert human.content[2] == {"type": "image", "url": "https://example.com/fish.png"}
    assert ai.additional_kwargs == {
        "reasoning_content": "The document names it; check the catalogue."
    }
    assert (tool.name, tool.artifact, tool.additional_kwargs) == (
        "lookup",
        {"colour": "yellow"},
        {"args": {"species": "bumble"}},
    )


def test_langchain_forms_give_identical_messages():
    names = ["flat_model_dump", "lc_constructor", "messages_to_dict"]
    results = []
    for name in names:
        path = FIXTURES / f"langchain_dict__generated_{name}_openai_tool_image.json"
        [conversation] = list(read([str(path)]))
        results.append(cp.messages_to_dict(list(conversation.messages)))
    assert results[0] == results[1] == results[2]


@pytest.mark.parametrize(
    ("message", "blocks"),
    [
        (
            {"role": "user", "content": "see", "images": [{"url": "https://e.x/a.png"}]},
            [{"type": "text", "text": "see"}, {"type": "image", "url": "https://e.x/a.png"}],
        ),
        (
            {"role": "user", "content": "", "audio": [{"base64": "QUJD", "format": "wav"}]},
            [{"type": "audio", "base64": "QUJD", "mime_type": "audio/wav"}],
        ),
        (
            {"role": "user", "content": "hear", "audio": [{"url": "https://e.x/a.mp3"}]},
            [{"type": "text", "text": "hear"}, {"type": "audio", "url": "https://e.x/a.mp3"}],
        ),
        (
            {"role": "user", "content": "read", "documents": ["plain words"]},
            [
                {"type": "text", "text": "read"},
                {"type": "text-plain", "mime_type": "text/plain", "text": "plain words"},
            ],
        ),
    ],
)
def test_mellea_attachments_become_blocks(message, blocks, tmp_path):
    path = tmp_path / "m.jsonl"
    path.write_text(json.dumps(message) + "\n")
    [conversation] = list(read([str(path)], dialect="mellea"))
    assert next(iter(conversation.messages)).content == blocks


@pytest.mark.parametrize(
    ("message", "said"),
    [
        ({"role": "user", "content": "x", "images": [{"path": "a.png"}]}, "a Mellea image needs"),
        ({"role": "user", "content": "x", "audio": ["a.wav"]}, "a Mellea audio item needs"),
        ({"role": "user", "content": "x", "documents": [{"title": "t"}]}, "a Mellea document"),
        ({"content": "no role", "images": []}, "not a mellea message"),
    ],
)
def test_mellea_attachments_of_the_wrong_shape_are_said(message, said, tmp_path):
    from typer.testing import CliRunner

    from chatpipe.cli import app

    path = tmp_path / "m.jsonl"
    path.write_text(json.dumps(message) + "\n")
    result = CliRunner().invoke(app, ["convert", "--from", "mellea", str(path)])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr.startswith(f"chatpipe: error: {path}:1:1: {said}"), result.stderr
