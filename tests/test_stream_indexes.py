"""Indexes in stream events name what came before them, never make room up to themselves
(#51): an Anthropic ``content_block_start`` with ``index`` 2000000 padded a million empty
blocks (a million tokens counted; 2**70 grew to gigabytes), a Gemini ``partialArgs`` path
``$.a[2000000]`` a list of two million nulls. The first is refused in one line at its
event; the second kept unread beside its call, as Gemini's reader keeps any piece it
cannot place."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from chatpipe.cli import app

_START = {
    "type": "message_start",
    "message": {"id": "m", "type": "message", "role": "assistant", "content": [], "model": "x"},
}


def _block(kind: str, index, **more):
    event = {"type": kind, "index": index, **more}
    if kind == "content_block_start":
        event["content_block"] = {"type": "text", "text": ""}
    else:
        event["delta"] = {"type": "text_delta", "text": "x"}
    return event


def _run(tmp_path, events, *args):
    path = tmp_path / "stream.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    result = CliRunner().invoke(app, [*args, str(path)])
    return path, result


@pytest.mark.parametrize("index", [2_000_000, -1, "1", None, 1.0])
def test_an_anthropic_block_started_past_the_next_is_refused_at_its_line(tmp_path, index):
    events = [
        _START,
        _block("content_block_start", 0),
        _block("content_block_delta", 0),
        _block("content_block_start", index),
        _block("content_block_delta", index),
        {"type": "message_stop"},
    ]
    path, result = _run(tmp_path, events, "count")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        f"chatpipe: error: {path}:4:1: a content_block_start event with index {index!r}: 1 "
        "block started before it (the blocks of a message are numbered 0, 1, 2... in the "
        "order they start; this stream is damaged)\n"
    )


def test_an_anthropic_index_of_2_to_the_70_is_one_line_under_a_memory_cap(tmp_path):
    """It grew to 19 GB; under a cap, six chained MemoryError tracebacks. (In a process of
    its own, under 512 MiB of address space: a test that pads must fail, not take the
    machine's memory.)"""
    path = tmp_path / "stream.jsonl"
    events = [_START, _block("content_block_start", 0), _block("content_block_start", 2**70)]
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    limit = 512 << 20
    code = (
        "import resource, sys, runpy\n"
        f"resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))\n"
        f"sys.argv = ['chatpipe', 'count', {str(path)!r}]\n"
        "runpy.run_module('chatpipe', run_name='__main__')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert (done.returncode, done.stdout) == (1, b"")
    assert done.stderr.decode() == (
        f"chatpipe: error: {path}:3:1: a content_block_start event with index {2**70}: 1 "
        "block started before it (the blocks of a message are numbered 0, 1, 2... in the "
        "order they start; this stream is damaged)\n"
    )


def test_an_anthropic_delta_to_a_block_not_started_is_refused_at_its_line(tmp_path):
    events = [_START, _block("content_block_start", 0), _block("content_block_delta", 1)]
    path, result = _run(tmp_path, events, "convert")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr.startswith(
        f"chatpipe: error: {path}:3:1: a content_block_delta event with index 1: 1 block "
        "started before it"
    )


def test_blocks_in_order_and_a_block_started_again_still_read(tmp_path):
    events = [
        _START,
        _block("content_block_start", 0),
        _block("content_block_delta", 0),
        _block("content_block_start", 1),
        _block("content_block_start", 1),  # started again: replaces it, as before
        _block("content_block_delta", 1),
        {"type": "content_block_start", "content_block": {"type": "text", "text": "z"}},
        {"type": "message_stop"},
    ]
    _, result = _run(tmp_path, events, "convert", "--to", "anthropic")
    assert result.exit_code == 0, result.stderr
    [response] = [json.loads(line) for line in result.stdout.splitlines()]
    texts = [block["text"] for message in response["messages"] for block in message["content"]]
    assert texts == ["x", "x", "z"]


def _gemini_call(pieces, name=None):
    call = {"partialArgs": pieces, "willContinue": True}
    if name:
        call["name"] = name
    return {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": call}]}}]}


@pytest.mark.parametrize("index", [2_000_000, 2**70])
def test_a_gemini_partial_args_index_past_its_list_is_kept_unread(tmp_path, index):
    """Padded with nulls up to it (2000000: two million; 2**70: an internal
    OverflowError), the piece is now kept unread beside the call, as a piece with no
    place it can be set at is."""
    events = [
        _gemini_call([{"jsonPath": "$.a[0]", "stringValue": "x"}], name="f"),
        _gemini_call([{"jsonPath": "$.a[1]", "stringValue": "y"}]),
        _gemini_call([{"jsonPath": f"$.a[{index}]", "stringValue": "z"}]),
    ]
    _, result = _run(tmp_path, events, "convert")
    assert (result.exit_code, result.stderr) == (0, "")
    [conversation] = [json.loads(line) for line in result.stdout.splitlines()]
    [message] = conversation["messages"]
    assert message["tool_calls"][0]["args"] == {"a": ["x", "y"]}
    assert message["response_metadata"]["unreadPartialArgs"] == [
        {"jsonPath": f"$.a[{index}]", "stringValue": "z"}
    ]
