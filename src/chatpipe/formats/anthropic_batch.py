"""Anthropic Message Batches: requests ``{custom_id, params}`` (one a JSONL line, or the
``{"requests": [...]}`` body a batch is created with) and results ``{custom_id, result:
{type: succeeded | errored | canceled | expired, message | error}}``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..errors import ChatpipeError, DataError, Location
from ..model import Conversation
from .anthropic import AnthropicDialect, is_anthropic_response, message_from_response
from .batch import LINE_FIELDS, REQUESTS, RESULTS, BatchDialect, not_chat
from .tool_specs import for_target, parsed

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


class AnthropicBatchDialect(BatchDialect):
    name = "anthropic-batch"
    description = "Anthropic Message Batches requests {custom_id, params} and results"
    example = "anthropic_batch__documented_results.jsonl"
    required = ("model", "max_tokens")
    id_rule = re.compile(r"[a-zA-Z0-9_-]{1,64}")
    checked_as = "anthropic"
    api = "Anthropic Message Batches"
    checks = ("anthropic-batch",)
    line_keys = frozenset(("custom_id", "params", "result", "requests"))

    def is_conversation(self, value: Any) -> bool:
        return is_request(value) or is_result(value) or is_requests_body(value)

    def request_rules(self, check: str) -> Any:
        from .api_request_rules import anthropic

        return anthropic(batch=True) if check in self.checks else None

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
        from .anthropic_writer import write_turns  # (loaded to write)

        turns = write_turns(messages, self.writing)[1]
        content = [b for turn in turns for b in _blocks(turn["content"])]
        written = {**message, "content": content}
        line["result"] = {**result, "message": _in_order(written, message)}
        return line

    def request(
        self, custom_id: str, conversation: Conversation, number: int, settings: dict[str, Any]
    ) -> dict[str, Any]:
        from .anthropic_writer import request_fields, write_turns  # (loaded to write)

        writing, meta = self.writing, conversation.meta
        system, turns = write_turns(conversation.messages, writing)
        params: dict[str, Any] = {
            "model": settings["model"],
            "max_tokens": settings["max_tokens"],
        }
        if system is not None:
            params["system"] = system
        params["messages"] = turns
        if writing.strict:
            fields = {k: v for k, v in meta.items() if k not in LINE_FIELDS and k not in params}
            params.update(request_fields(fields, writing))
            return {"custom_id": custom_id, "params": params}
        for key, value in self.body_fields(meta, PARAMS).items():
            # other providers' tool lists (JSON text, Gemini's declarations) as Anthropic's
            params[key] = for_target(parsed(value), "anthropic")[0] if key == "tools" else value
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
