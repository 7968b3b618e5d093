"""Anthropic Message Batches: requests ``{custom_id, params}`` (one a JSONL line, or the
``{"requests": [...]}`` body a batch is created with) and results ``{custom_id, result:
{type: succeeded | errored | canceled | expired, message | error}}``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..errors import ChatpipeError, DataError, Location
from ..model import Conversation
from .anthropic import AnthropicDialect, is_anthropic_response, message_from_response, write_turns
from .batch import REQUESTS, RESULTS, BatchDialect, not_chat

RESULT_TYPES = ("succeeded", "errored", "canceled", "expired")
# what a Messages request holds besides its messages, system, model and max_tokens
PARAMS = frozenset(
    (
        "tools",
        "tool_choice",
        "temperature",
        "top_p",
        "top_k",
        "stop_sequences",
        "thinking",
        "metadata",
        "service_tier",
    )
)


def is_request(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("custom_id"), str)
        and isinstance(value.get("params"), dict)
    )


def is_result(value: Any) -> bool:
    result = value.get("result") if isinstance(value, dict) else None
    return (
        isinstance(result, dict)
        and isinstance(value.get("custom_id"), str)
        and result.get("type") in RESULT_TYPES
    )


def is_requests_body(value: Any) -> bool:
    """The body a batch is created with: ``{"requests": [{custom_id, params}, ...]}``."""
    requests = value.get("requests") if isinstance(value, dict) else None
    return isinstance(requests, list) and bool(requests) and is_request(requests[0])


def _failure(result: dict[str, Any]) -> str | None:
    kind = result.get("type")
    if kind == "succeeded":
        return None
    error = result.get("error")
    inner = error.get("error") if isinstance(error, dict) else None  # {type: error, error: {}}
    said = inner if isinstance(inner, dict) else error
    if isinstance(said, dict) and (said.get("type") or said.get("message")):
        return f"{kind}: " + ": ".join(str(said[k]) for k in ("type", "message") if said.get(k))
    return str(kind)


def _tool(tool: Any) -> Any:
    """An OpenAI function tool as Anthropic takes it; other tools as they are."""
    function = tool.get("function") if isinstance(tool, dict) else None
    if not isinstance(function, dict):
        return tool
    out = {"name": function.get("name"), "description": function.get("description")}
    out = {k: v for k, v in out.items() if v is not None}
    out["input_schema"] = function.get("parameters") or {"type": "object", "properties": {}}
    return out


class AnthropicBatchDialect(BatchDialect):
    name = "anthropic-batch"
    description = "Anthropic Message Batches requests {custom_id, params} and results"
    example = "anthropic_batch__documented_results.jsonl"
    required = ("model", "max_tokens")
    id_rule = re.compile(r"[a-zA-Z0-9_-]{1,64}")
    checked_as = "anthropic"
    line_keys = frozenset(("custom_id", "params", "result", "requests"))

    def is_conversation(self, value: Any) -> bool:
        return is_request(value) or is_result(value) or is_requests_body(value)

    def role(self, value: Any) -> str | None:
        if is_request(value) or is_requests_body(value):
            return REQUESTS
        return RESULTS if is_result(value) else None

    def read_conversations(
        self, value: Any, location: Location, options: Any = None
    ) -> Iterator[Conversation]:
        if not is_requests_body(value):
            yield self.read_conversation(value, location)
            return
        for index, request in enumerate(value["requests"]):
            try:
                yield self.read_request(request, location)
            except ChatpipeError as exc:
                raise exc.located(location.at_message(index)) from None

    def read_request(self, value: dict[str, Any], location: Location) -> Conversation:
        if not is_request(value):
            raise not_chat("no custom_id and params", location)
        if not isinstance(value["params"].get("messages"), list):
            raise DataError(
                'the request\'s params have no "messages" list',
                location,
                hint="a Message Batches request holds its conversation in params.messages",
            )
        read = AnthropicDialect().read_conversation(value["params"], location)
        meta = {"custom_id": value["custom_id"], **read.meta}
        return Conversation(read.messages, meta, location, read.messages_key)

    def read_result(self, value: dict[str, Any], location: Location) -> Conversation:
        result = value["result"]
        failure = _failure(result)
        message = result.get("message")
        meta: dict[str, Any] = {"custom_id": value["custom_id"]}
        if failure is None and is_anthropic_response(message):
            meta["result"] = {
                **result,
                "message": {k: v for k, v in message.items() if k != "content"},
            }
            return Conversation([message_from_response(message)], meta, location)
        meta["result"] = result
        meta["batch_error"] = failure or "succeeded, with no message"
        return Conversation([], meta, location)

    def is_result(self, meta: dict[str, Any]) -> bool:
        return "result" in meta and "model" not in meta

    def write_result(self, conversation: Conversation) -> dict[str, Any]:
        """A result line as it was read, its message's content written back."""
        line = {k: v for k, v in conversation.meta.items() if k != "batch_error"}
        result, messages = line.get("result"), list(conversation.messages)
        message = result.get("message") if isinstance(result, dict) else None
        if not messages or not isinstance(message, dict):
            return line  # (errored, canceled, expired: no message)
        turns = write_turns(messages)[1]
        content = [b for turn in turns for b in _blocks(turn["content"])]
        written = {**message, "content": content}
        line["result"] = {**result, "message": _in_order(written, message)}
        return line

    def request(
        self, custom_id: str, conversation: Conversation, number: int, settings: dict[str, Any]
    ) -> dict[str, Any]:
        system, turns = write_turns(conversation.messages)
        params: dict[str, Any] = {
            "model": settings["model"],
            "max_tokens": settings["max_tokens"],
        }
        if system is not None:
            params["system"] = system
        params["messages"] = turns
        for key, value in self.body_fields(conversation.meta, PARAMS, number).items():
            tools = key == "tools" and isinstance(value, list)  # (Gemini's one object: kept)
            params[key] = [_tool(t) for t in value] if tools else value
        return {"custom_id": custom_id, "params": params}


def _blocks(content: Any) -> list[Any]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def _in_order(written: dict[str, Any], read: dict[str, Any]) -> dict[str, Any]:
    """``written``'s fields in the order the message read had them (content where it
    stood: after role)."""
    order = [k for k in read if k != "content"]
    at = order.index("role") + 1 if "role" in order else len(order)
    order[at:at] = ["content"]
    return {k: written[k] for k in order if k in written}
