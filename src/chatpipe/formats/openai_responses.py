"""The OpenAI Responses API: requests and responses (``input`` / ``output`` items) and the
Conversations API's listed items (reading them: openai_responses_items.py; their event
streams: openai_responses_stream.py)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import Location
from ..model import AnyMessage
from .base import (
    CONVERSATIONS,
    LIKELY,
    VARIANT,
    Conversation,
    Dialect,
    Guess,
    Kept,
    Sample,
    dict_blocks,
)
from .openai_responses_items import conversation_from_response, messages_from_items

_RESPONSE_ITEM_TYPES = frozenset(
    (
        "message",
        "function_call",
        "function_call_output",
        "reasoning",
        "custom_tool_call",
        "custom_tool_call_output",
        "item_reference",
    )
)


def is_responses_request(value: Any) -> bool:
    if not isinstance(value, dict) or "input" not in value or "messages" in value:
        return False
    items = value["input"]
    if isinstance(items, str):
        return "instructions" in value or "model" in value
    return isinstance(items, list) and (
        "instructions" in value
        or any(
            isinstance(i, dict)
            and (
                (isinstance(i.get("type"), str) and i["type"] in _RESPONSE_ITEM_TYPES)
                or any(
                    isinstance(p, dict) and p.get("type") in ("input_text", "output_text")
                    for p in (i.get("content") if isinstance(i.get("content"), list) else ())
                )
            )
            for i in items
        )
    )


# what a Responses API request holds (a request with other keys is another dialect's
# record with an ``input`` field, such as an alpaca row)
_REQUEST_KEYS = frozenset(
    (
        "model",
        "input",
        "instructions",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "previous_response_id",
        "conversation",
        "reasoning",
        "text",
        "temperature",
        "top_p",
        "top_logprobs",
        "max_output_tokens",
        "max_tool_calls",
        "truncation",
        "store",
        "stream",
        "stream_options",
        "background",
        "include",
        "metadata",
        "prompt",
        "prompt_cache_key",
        "safety_identifier",
        "service_tier",
        "user",
    )
)


def is_responses_response(value: Any) -> bool:
    """A response: its ``output`` items (a record that kept a response's other fields
    beside another dialect's messages, as chatpipe writes them, holds no output)."""
    output = value.get("output") if isinstance(value, dict) else None
    return isinstance(output, list) and (
        value.get("object") == "response"
        or all(isinstance(i, dict) and "type" in i for i in output)
    )


def is_item_list(value: Any) -> bool:
    """A page of items as the Conversations API (``/conversations/{id}/items``) and the
    Responses API (``/responses/{id}/input_items``) list them: ``{"object": "list",
    "data": [items], "first_id", "last_id", "has_more"}`` (Assistants' thread messages,
    listed the same way, have no item types)."""
    if not isinstance(value, dict) or value.get("object") != "list":
        return False
    items = value.get("data")
    return (
        isinstance(items, list)
        and bool(items)
        and all(isinstance(i, dict) and isinstance(i.get("type"), str) for i in items)
        and any(i["type"] in _RESPONSE_ITEM_TYPES for i in items)
    )


_ANSWER_TYPES = frozenset(("reasoning", "function_call", "custom_tool_call"))


def newest_first(items: list[dict[str, Any]]) -> bool:
    """Whether a listed page runs newest first (the APIs' default order, ``desc``): a
    tool's output listed before its call, or, with no calls to tell, an assistant's
    answer first and a user's or system's message last."""
    calls: dict[Any, int] = {}
    outputs: dict[Any, int] = {}
    for index, item in enumerate(items):
        kind, call_id = item["type"], item.get("call_id")
        if call_id is not None:
            places = outputs if kind.endswith("_output") else calls
            places.setdefault(call_id, index)
    for call_id, index in calls.items():
        if call_id in outputs:
            return outputs[call_id] < index
    first, last = items[0], items[-1]
    answer = first["type"] in _ANSWER_TYPES or (
        first["type"] == "message" and first.get("role") == "assistant"
    )
    asked = last["type"] == "message" and last.get("role") in ("user", "system", "developer")
    return answer and asked


_FOREIGN_REASONING = Kept(
    "reasoning that is not a Responses reasoning item",
    "written as reasoning items of summary text, without the id and encrypted content the "
    "API needs to take them back",
)


def _cannot_hold(message: AnyMessage) -> list[str]:
    found: list[str] = []
    blocks = dict_blocks(message)
    kinds = {b.get("type") for b in blocks}
    if kinds & {"audio", "video", "input_audio"}:
        found.append("audio and video (it takes text, images and files)")
    if "redacted_thinking" in kinds:
        found.append("another model's redacted thinking")
    if "thinking" in kinds or any(
        b.get("type") == "reasoning" and "id" not in (b.get("extras") or {}) for b in blocks
    ):
        found.append(_FOREIGN_REASONING)
    if message.type in ("chat", "function"):
        found.append("chat and function roles (written as user turns)")
    if message.name:
        found.append("message names")
    return found


class ResponsesDialect(Dialect):
    name = "openai-responses"
    writable = True
    conversation_records = True
    description = (
        "OpenAI Responses API requests {input, instructions}, responses {output}, and "
        "listed items (Conversations API)"
    )
    example = "openai_responses__pydanticai_req_input_reasoning_function_call_output.json"

    def is_conversation(self, value: Any) -> bool:
        return is_responses_request(value) or is_responses_response(value) or is_item_list(value)

    def score(self, sample: Sample) -> Guess | None:
        first = sample.first
        if isinstance(first, dict) and isinstance(first.get("messages"), list):
            return None  # (a conversation of another dialect that kept a response's fields)
        if is_responses_response(first) or is_item_list(first):
            return Guess(LIKELY, CONVERSATIONS)
        if is_responses_request(first):
            # typed input items are Responses' own; an ``input`` text among keys a request
            # does not have is another dialect's field (an alpaca row's)
            own = isinstance(first["input"], list) or not first.keys() - _REQUEST_KEYS
            return Guess(LIKELY if own else VARIANT, CONVERSATIONS)
        return None

    def losses(self) -> Any:
        return _cannot_hold

    def read_message(self, value: Any) -> Any:
        [message] = messages_from_items([value])
        return message

    def read_conversation(self, value: Any, location: Location) -> Conversation:
        if is_item_list(value):
            return _listed_items(value, location)
        if is_responses_response(value) and "input" not in value:
            return conversation_from_response(value, location)
        items = value.get("input")
        items = [items] if isinstance(items, str) else list(items or [])
        messages = messages_from_items(items, value.get("instructions"))
        meta = {k: v for k, v in value.items() if k != "input" and not (k == "instructions" and v)}
        return Conversation(messages, meta, location)

    def write_messages(self, messages: Iterable[AnyMessage]) -> Iterator[Any]:
        from .openai_responses_writer import write_input

        return iter(write_input(messages)[1])

    def write_conversation(self, conversation: Conversation) -> dict[str, Any]:
        from .openai_responses_writer import write_request

        return write_request(conversation.messages, conversation.meta)


def _listed_items(value: dict[str, Any], location: Location) -> Conversation:
    """A listed page of items as its conversation, oldest first: a page listed newest
    first (the default) is turned round, and says so with ``"order": "desc"``."""
    items = value["data"]
    meta = {k: (None if k == "data" else v) for k, v in value.items()}
    if newest_first(items):
        items = items[::-1]
        meta.setdefault("order", "desc")
    return Conversation(messages_from_items(items), meta, location, "data")
