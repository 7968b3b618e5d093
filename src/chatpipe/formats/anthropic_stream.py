"""Anthropic Messages API streams (``message_start`` ... ``message_stop`` events, JSONL or SSE)
reassembled into responses, then read as the anthropic dialect reads them."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import DataError, Location
from .anthropic import message_from_response
from .base import Conversation, StreamDialect

STREAM_EVENTS = frozenset(
    (
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
        "error",
    )
)


def assemble_stream(events: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Responses spelled by a run of stream events (several streams may follow each other).

    A new ``message_start`` ends the message before it, unless it repeats that message's
    id (gateways such as LiteLLM's and Bifrost's send the start twice): then the message
    goes on, and the repeat only fills fields the first start left empty.
    """
    message: dict[str, Any] | None = None
    partial: dict[int, str] = {}
    for event in events:
        kind = event.get("type")
        if kind == "message_start":
            started = event.get("message") or {}
            if message is not None and started.get("id") and started.get("id") == message.get("id"):
                # a gateway repeating the start of the same message: it continues
                for key, value in started.items():
                    if key != "content" and message.get(key) is None:
                        message[key] = value
                continue
            if message is not None:
                yield _finish(message, partial)
            message, partial = dict(started), {}
            message["content"] = list(message.get("content") or [])
        elif message is None:
            continue
        elif kind == "content_block_start":
            block = dict(event.get("content_block") or {})
            index = _block_index(event, message["content"], True)
            if index == len(message["content"]):
                message["content"].append(block)
            else:  # (a block started again)
                message["content"][index] = block
        elif kind == "content_block_delta":
            index = _block_index(event, message["content"], False)
            block = message["content"][index]
            delta = event.get("delta") or {}
            dtype = delta.get("type")
            if dtype == "text_delta":
                block["text"] = block.get("text", "") + delta.get("text", "")
            elif dtype == "thinking_delta":
                block["thinking"] = block.get("thinking", "") + delta.get("thinking", "")
            elif dtype == "signature_delta":
                block["signature"] = block.get("signature", "") + delta.get("signature", "")
            elif dtype == "input_json_delta":
                partial[index] = partial.get(index, "") + delta.get("partial_json", "")
            elif dtype == "citations_delta":
                block.setdefault("citations", []).append(delta.get("citation"))
        elif kind == "message_delta":
            message.update(event.get("delta") or {})
            usage = event.get("usage")
            if isinstance(usage, dict):
                message["usage"] = {**(message.get("usage") or {}), **usage}
        elif kind == "message_stop":
            yield _finish(message, partial)
            message, partial = None, {}
    if message is not None:
        yield _finish(message, partial)


def _block_index(event: dict[str, Any], content: list[Any], starting: bool) -> int:
    """The content block an event names by its ``index``: one already started, or (a
    start) the next; any other is refused, never padded with empty blocks up to it."""
    seen = len(content)
    index = event.get("index", seen if starting else 0)
    last = seen if starting else seen - 1
    if type(index) is not int or not 0 <= index <= last:
        shown = repr(index) if len(repr(index)) <= 40 else repr(index)[:40] + "..."
        started = f"{seen} block{'s' if seen != 1 else ''} started before it"
        raise DataError(
            f"a {event.get('type')} event with index {shown}: {started}",
            hint="the blocks of a message are numbered 0, 1, 2... in the order they start; "
            "this stream is damaged",
        )
    return index


def _finish(message: dict[str, Any], partial: dict[int, str]) -> dict[str, Any]:
    for index, text in partial.items():
        try:
            message["content"][index]["input"] = json.loads(text) if text else {}
        except json.JSONDecodeError:
            message["content"][index]["input"] = {}
            message["content"][index]["partial_json"] = text
    return message


class AnthropicStreamDialect(StreamDialect):
    name = "anthropic-stream"
    description = "Anthropic stream events (JSONL or SSE), reassembled into messages"
    example = "anthropic_messages__pydanticai_stream_thinking_text.jsonl"
    stream = True

    def is_stream_event(self, value: Any) -> bool:
        return (
            isinstance(value, dict)
            and isinstance(value.get("type"), str)
            and value["type"] in STREAM_EVENTS
        )

    def read_stream(self, values: Iterable[Any], location: Location) -> Iterator[Conversation]:
        for response in assemble_stream(v for v in values if isinstance(v, dict)):
            yield Conversation([message_from_response(response)], {}, location)
