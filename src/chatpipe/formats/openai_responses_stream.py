"""The OpenAI Responses API's event streams (``response.created``, ``output_item.done``,
``response.completed``...): each response a stream holds, read as a conversation."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import Location
from .base import Conversation, StreamDialect
from .openai_responses_items import conversation_from_response


def is_responses_event(value: Any) -> bool:
    return isinstance(value, dict) and str(value.get("type", "")).startswith("response.")


class ResponsesStreamDialect(StreamDialect):
    name = "openai-responses-stream"
    description = "OpenAI Responses API stream events, one response per response.completed"
    example = "openai_responses__pydanticai_stream_events_after_tool.jsonl"
    stream = True

    def is_stream_event(self, value: Any) -> bool:
        return is_responses_event(value)

    def read_stream(self, values: Iterable[Any], location: Location) -> Iterator[Conversation]:
        latest: dict[str, Any] | None = None
        items: dict[int, Any] = {}
        for value in values:
            if not isinstance(value, dict):
                continue
            kind = value.get("type")
            if kind in ("response.created", "response.in_progress"):
                latest, items = value.get("response"), {}
            elif kind == "response.output_item.done":
                items[value.get("output_index", len(items))] = value.get("item")
            elif kind in ("response.completed", "response.failed", "response.incomplete"):
                yield conversation_from_response(value.get("response") or {}, location)
                latest, items = None, {}
        if latest is not None:  # a truncated capture: the items that finished
            response = dict(latest)
            response["output"] = [items[i] for i in sorted(items)]
            yield conversation_from_response(response, location)
