"""Cohere's v2 chat API: responses and the events of a streamed one (its requests are
OpenAI's shape, which the ``openai`` dialect reads, ``thinking`` parts as reasoning); and
its v1 API's requests, responses and streams (cohere_v1.py).

A response is ``{id, message: {role, content: [{type: text | thinking}], tool_plan,
tool_calls, citations}, finish_reason, usage: {billed_units, tokens, cached_tokens}}``:
text parts are text, ``thinking`` parts reasoning, and ``tool_plan`` (the chain of thought
Cohere writes before calling tools) a reasoning block marked ``tool_plan`` in its
extras; tool calls are OpenAI's; ``citations`` and ``finish_reason`` stay in the message's
``response_metadata``. A stream's events (``message-start``, ``content-start``,
``content-delta``, ``tool-plan-delta``, ``tool-call-start``, ``tool-call-delta``,
``citation-start``, ``message-end``...) are joined into the response they spell, one for
each ``message-start``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, DataError, Location
from ..model import AIMessage
from . import cohere_v1 as v1
from .base import CERTAIN, CONVERSATIONS, LIKELY, STREAM, Conversation, Guess, Sample, StreamDialect
from .openai_messages import message_from_dict
from .tool_links import link_tool_results

EVENTS = (
    frozenset(("message-start", "content-start", "content-delta", "content-end", "tool-plan-delta"))
    | frozenset(
        ("tool-call-start", "tool-call-delta", "tool-call-end", "citation-start", "citation-end")
    )
    | frozenset(("message-end", "debug"))
)


def is_response(value: Any) -> bool:
    message = value.get("message") if isinstance(value, dict) else None
    return (
        isinstance(message, dict)
        and message.get("role") == "assistant"
        and isinstance(value.get("finish_reason"), str)
        and "choices" not in value
        and "done" not in value
    )


def is_event(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("type") in EVENTS
        and ("delta" in value or "index" in value or value["type"] in ("message-end", "debug"))
    )


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    plan = message.get("tool_plan")
    if isinstance(plan, str) and plan:
        blocks.append({"type": "reasoning", "reasoning": plan, "extras": {"tool_plan": True}})
    content = message.get("content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}] if content else []
    for part in content or ():
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "thinking":
            rest = {k: v for k, v in part.items() if k not in ("type", "thinking")}
            block = {"type": "reasoning", "reasoning": part.get("thinking") or ""}
            blocks.append({**block, "extras": rest} if rest else block)
        elif kind == "text":
            blocks.append({k: v for k, v in part.items()})
        else:
            blocks.append({"type": "non_standard", "value": part})
    return blocks


def read_response(value: dict[str, Any], location: Location) -> Conversation:
    message = value["message"]
    blocks = _blocks(message)
    fields: dict[str, Any] = {"role": "assistant", "content": blocks}
    if len(blocks) == 1 and blocks[0]["type"] == "text" and len(blocks[0]) == 2:
        fields["content"] = blocks[0]["text"]
    if message.get("tool_calls"):
        fields["tool_calls"] = message["tool_calls"]
    rest = {
        k: v
        for k, v in message.items()
        if k not in ("role", "content", "tool_plan", "tool_calls") and v not in (None, [], "")
    }
    try:
        ai = message_from_dict(fields)
    except ChatpipeError as exc:
        raise exc.located(location.at_message(0)) from None
    metadata = {k: v for k, v in value.items() if k not in ("message", "id")}
    metadata.update(rest)  # (citations)
    metadata["model_provider"] = "cohere"
    ai.response_metadata = metadata
    if isinstance(value.get("id"), str):
        ai.id = value["id"]
    if isinstance(ai, AIMessage):
        ai.usage_metadata = _usage(value.get("usage"))
    meta = {k: v for k, v in value.items() if k != "message"}
    return Conversation(list(link_tool_results([ai])), meta, location)


def _usage(usage: Any) -> dict[str, Any] | None:
    """langchain's usage from Cohere's tokens (what the model read and wrote), cache
    reads as such."""
    tokens = usage.get("tokens") if isinstance(usage, dict) else None
    if not isinstance(tokens, dict):
        tokens = usage.get("billed_units") if isinstance(usage, dict) else None
    if not isinstance(tokens, dict):
        return None
    given, produced = tokens.get("input_tokens") or 0, tokens.get("output_tokens") or 0
    if not isinstance(given, (int, float)) or not isinstance(produced, (int, float)):
        return None
    found: dict[str, Any] = {
        "input_tokens": int(given),
        "output_tokens": int(produced),
        "total_tokens": int(given + produced),
    }
    cached = usage.get("cached_tokens")
    if isinstance(cached, int) and cached:
        found["input_token_details"] = {"cache_read": cached}
    return found


class _Stream:
    """A streamed response's events, joined into the response they spell."""

    def __init__(self, start: dict[str, Any]) -> None:
        message = (start.get("delta") or {}).get("message") or {}
        self.response: dict[str, Any] = {"id": start.get("id")}
        self.message: dict[str, Any] = {"role": message.get("role") or "assistant"}
        self.parts: dict[int, dict[str, Any]] = {}
        self.calls: dict[int, dict[str, Any]] = {}
        self.citations: list[Any] = []
        self.plan = ""

    def add(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        index = event.get("index", 0)
        delta = event.get("delta") if isinstance(event.get("delta"), dict) else {}
        message = delta.get("message") if isinstance(delta.get("message"), dict) else {}
        if kind in ("content-start", "content-delta"):
            piece = message.get("content") if isinstance(message.get("content"), dict) else {}
            part = self.parts.setdefault(index, {"type": piece.get("type") or "text"})
            for key in ("text", "thinking"):
                if isinstance(piece.get(key), str):
                    part[key] = part.get(key, "") + piece[key]
        elif kind == "tool-plan-delta" and isinstance(message.get("tool_plan"), str):
            self.plan += message["tool_plan"]
        elif kind in ("tool-call-start", "tool-call-delta"):
            piece = message.get("tool_calls") if isinstance(message.get("tool_calls"), dict) else {}
            function = piece.get("function") if isinstance(piece.get("function"), dict) else {}
            call = self.calls.setdefault(index, {"type": "function", "function": {}})
            if piece.get("id"):
                call["id"] = piece["id"]
            held = call["function"]
            if function.get("name"):
                held["name"] = function["name"]
            held["arguments"] = held.get("arguments", "") + (function.get("arguments") or "")
        elif kind == "citation-start" and message.get("citations") is not None:
            self.citations.append(message["citations"])
        elif kind == "message-end":
            self.response.update({k: v for k, v in delta.items() if k != "message"})

    def spelled(self) -> dict[str, Any]:
        message = {**self.message, "content": [p for _, p in sorted(self.parts.items())]}
        if self.plan:
            message["tool_plan"] = self.plan
        if self.calls:
            message["tool_calls"] = [c for _, c in sorted(self.calls.items())]
        if self.citations:
            message["citations"] = self.citations
        return {**self.response, "message": message}


class CohereDialect(StreamDialect):
    name = "cohere"
    description = (
        "Cohere chat responses {message, finish_reason, usage} and stream events (v2), "
        "v1 requests, responses and streams {chat_history, message | text}"
    )
    example = "cohere__vercel_resp_reasoning_thinking_part.json"
    holds_artifacts = False

    def score(self, sample: Sample) -> Guess | None:
        first = sample.first
        if is_event(first) or v1.is_event(first):
            return Guess(CERTAIN, STREAM)
        if self.is_conversation(first):
            return Guess(LIKELY, CONVERSATIONS)
        return None

    def is_stream_event(self, value: Any) -> bool:
        return is_event(value) or v1.is_event(value)

    def is_conversation(self, value: Any) -> bool:
        return is_response(value) or v1.is_response(value) or v1.is_request(value)

    def read_conversation(self, value: Any, location: Location) -> Conversation:
        if is_response(value):
            return read_response(value, location)
        if v1.is_response(value):
            return v1.read_response(value, location)
        if v1.is_request(value):
            return v1.read_request(value, location)
        raise DataError(
            "not a Cohere chat response or v1 request",
            location,
            hint="no message with a finish_reason, no chat_history",
        )

    def read_stream(self, values: Iterable[Any], location: Location) -> Iterator[Conversation]:
        values = iter(values)
        first = next(values, None)
        if first is None:
            return
        if v1.is_event(first):
            yield from v1.read_events(itertools.chain([first], values), location)
            return
        yield from self._read_v2(itertools.chain([first], values), location)

    def _read_v2(self, values: Iterable[Any], location: Location) -> Iterator[Conversation]:
        stream: _Stream | None = None
        for value in values:
            if is_response(value):
                yield read_response(value, location)
            elif not is_event(value):
                raise DataError(
                    "not a Cohere chat event", location, hint="a type such as content-delta"
                )
            elif value["type"] == "message-start" or stream is None:
                if stream is not None:
                    yield read_response(stream.spelled(), location)
                stream = _Stream(value)
                if value["type"] != "message-start":
                    stream.add(value)
            else:
                stream.add(value)
        if stream is not None:
            yield read_response(stream.spelled(), location)
