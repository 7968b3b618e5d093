"""The OpenAI Responses API: requests and responses (``input`` / ``output`` items) and their
event streams."""

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
    StreamDialect,
    dict_blocks,
)

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
    return isinstance(value, dict) and (
        value.get("object") == "response"
        or (
            isinstance(value.get("output"), list)
            and all(isinstance(i, dict) and "type" in i for i in value["output"])
        )
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


def _part_block(part: Any) -> Any:
    """A Responses content part as a standard block; extras keep the rest."""
    if not isinstance(part, dict):
        return part
    kind = part.get("type")
    if kind in ("input_text", "output_text", "text"):
        block: dict[str, Any] = {"type": "text", "text": part.get("text", "")}
        rest = {k: v for k, v in part.items() if k not in ("type", "text")}
        if rest.get("annotations") == []:
            rest.pop("annotations")
        if rest.get("logprobs") == []:
            rest.pop("logprobs")
        if kind != "input_text":
            rest["source_type"] = kind
        if rest:
            block["extras"] = rest
        return block
    if kind == "input_image":
        url = part.get("image_url")
        block = (
            {"type": "image", "url": url}
            if url
            else {"type": "image", "file_id": part.get("file_id")}
        )
        rest = {k: v for k, v in part.items() if k not in ("type", "image_url", "file_id")}
        if rest:
            block["extras"] = rest
        return block
    return {"type": "non_standard", "value": part}


def messages_from_items(items: list[Any], instructions: Any = None) -> list[Any]:
    """Responses items as messages: one assistant turn's reasoning, text and calls together."""
    from ..model import SystemMessage

    reading = _Items()
    if instructions:
        reading.out.append(
            SystemMessage(instructions, additional_kwargs={"source": "instructions"})
        )
    for item in items:
        reading.item(item)
    reading.close()
    return reading.out


class _Items:
    """Responses items read in order into messages: an assistant turn gathers its
    reasoning, text and calls (``turn``) until an item of another turn closes it."""

    def __init__(self) -> None:
        self.out: list[Any] = []
        self.turn: dict[str, Any] | None = None  # the assistant turn being gathered

    def item(self, item: Any) -> None:
        if isinstance(item, str):
            from ..model import HumanMessage

            self.close()
            self.out.append(HumanMessage(item))
            return
        kind = item.get("type", "message")
        if kind == "message":
            if item.get("role") == "assistant":
                self.assistant_message(item)
            else:
                self.message(item)
        elif kind == "reasoning":
            self.reasoning(item)
        elif kind in ("function_call", "custom_tool_call"):
            self.call(item, kind)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            self.output(item, kind)
        else:  # built-in tools, item references: kept whole in the assistant turn
            self.assistant()["blocks"].append({"type": "non_standard", "value": item})

    def assistant(self) -> dict[str, Any]:
        if self.turn is None:
            self.turn = {"blocks": [], "calls": [], "kwargs": {}}
        return self.turn

    def close(self) -> None:
        from ..model import AIMessage

        turn, self.turn = self.turn, None
        if turn is not None:
            self.out.append(
                AIMessage(
                    turn["blocks"],
                    tool_calls=turn["calls"],
                    id=turn.get("id"),
                    additional_kwargs=turn["kwargs"],
                )
            )

    def assistant_message(self, item: dict[str, Any]) -> None:
        current = self.assistant()
        content = item.get("content")
        parts = content if isinstance(content, list) else [{"type": "output_text", "text": content}]
        for part in parts:
            if isinstance(part, dict) and part.get("type") == "refusal":
                current["kwargs"]["refusal"] = part.get("refusal")
            current["blocks"].append(_part_block(part))
        current.setdefault("id", item.get("id"))
        rest = {k: v for k, v in item.items() if k not in ("type", "role", "content", "id")}
        if rest:
            current["kwargs"].setdefault("items", []).append({"id": item.get("id"), **rest})

    def message(self, item: dict[str, Any]) -> None:
        from ..model import HumanMessage, SystemMessage

        self.close()
        content = item.get("content")
        content = [_part_block(p) for p in content] if isinstance(content, list) else content
        role = item.get("role")
        extra = {k: v for k, v in item.items() if k not in ("type", "role", "content")}
        if role in ("system", "developer"):
            kwargs = {"__openai_role__": "developer", **extra} if role == "developer" else extra
            self.out.append(SystemMessage(content or "", additional_kwargs=kwargs))
        else:
            self.out.append(HumanMessage(content or "", additional_kwargs=extra))

    def reasoning(self, item: dict[str, Any]) -> None:
        summary = "".join(
            s.get("text", "") for s in item.get("summary") or () if isinstance(s, dict)
        )
        extras = {k: v for k, v in item.items() if k not in ("type",)}
        self.assistant()["blocks"].append(
            {"type": "reasoning", "reasoning": summary, "extras": extras}
        )

    def call(self, item: dict[str, Any], kind: str) -> None:
        current = self.assistant()
        if kind == "function_call":
            from .openai import parse_arguments

            args, _ = parse_arguments(item.get("arguments"))
            args = args if isinstance(args, dict) else {"arguments": item.get("arguments")}
        else:
            args = {"input": item.get("input")}
        current["calls"].append(
            {"name": item.get("name") or "", "args": args, "id": item.get("call_id")}
        )
        current["kwargs"].setdefault("items", []).append(
            {k: v for k, v in item.items() if k not in ("arguments", "input", "name")}
        )

    def output(self, item: dict[str, Any], kind: str) -> None:
        from ..model import ToolMessage

        self.close()
        output = item.get("output")
        extra = {k: v for k, v in item.items() if k not in ("type", "call_id", "output")}
        if kind != "function_call_output":
            extra["type"] = kind
        self.out.append(
            ToolMessage(
                output if output is not None else "",
                tool_call_id=item.get("call_id") or "",
                additional_kwargs=extra,
            )
        )


def _responses_usage(usage: Any) -> Any:
    if not isinstance(usage, dict):
        return None
    out = {
        "input_tokens": usage.get("input_tokens") or 0,
        "output_tokens": usage.get("output_tokens") or 0,
        "total_tokens": usage.get("total_tokens") or 0,
    }
    cached = (usage.get("input_tokens_details") or {}).get("cached_tokens")
    reasoning = (usage.get("output_tokens_details") or {}).get("reasoning_tokens")
    if cached:
        out["input_token_details"] = {"cache_read": cached}
    if reasoning:
        out["output_token_details"] = {"reasoning": reasoning}
    return out


def conversation_from_response(value: dict[str, Any], location: Location) -> Conversation:
    messages = messages_from_items(value.get("output") or [])
    usage = _responses_usage(value.get("usage"))
    for message in messages:
        if message.type == "ai":
            message.response_metadata = {
                "id": value.get("id"),
                "model_name": value.get("model"),
                "status": value.get("status"),
                "model_provider": "openai",
            }
            if message.id is None:
                message.id = value.get("id")
    ais = [m for m in messages if m.type == "ai"]
    if ais and usage:
        ais[-1].usage_metadata = usage
    meta = {k: v for k, v in value.items() if k != "output"}
    return Conversation(messages, meta, location)


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


def _listed_items(value: dict[str, Any], location: Location) -> Conversation:
    """A listed page of items as its conversation, oldest first: a page listed newest
    first (the default) is turned round, and says so with ``"order": "desc"``."""
    items = value["data"]
    meta = {k: (None if k == "data" else v) for k, v in value.items()}
    if newest_first(items):
        items = items[::-1]
        meta.setdefault("order", "desc")
    return Conversation(messages_from_items(items), meta, location, "data")
