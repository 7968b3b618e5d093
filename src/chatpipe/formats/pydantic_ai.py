"""pydantic-ai message histories: what ``ModelMessagesTypeAdapter`` dumps, a list of
requests and responses, each a list of parts (``part_kind``).

A request's parts become several messages (system prompt, user prompt, tool returns), so
its records are read as a stream: the messages of a dump (a JSON array, or one message a
JSONL line, as a store keeps them) make one conversation, read as they come; a JSONL file
of whole dumps (a list a line, as chatpipe writes several) makes one conversation a line.
What a part holds besides its content (timestamps, ids, a request's run id) stays in
``response_metadata``, so that a history is written back as it came.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, DataError, Location, ValidationError
from ..model import (
    AIMessage,
    AnyMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from .base import Conversation, StreamDialect
from .pydantic_ai_writer import JSON_CONTENT, URL_KINDS, write_history
from .record_errors import keys_hint

KINDS = ("request", "response")


def is_model_message(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("kind") in KINDS
        and isinstance(value.get("parts"), list)
        and all(isinstance(p, dict) and "part_kind" in p for p in value["parts"][:1])
    )


def _rest(part: dict[str, Any], *taken: str) -> dict[str, Any]:
    """A part's other fields, those that hold something."""
    return {k: v for k, v in part.items() if k not in taken and k != "part_kind" and v is not None}


def _as_text(content: Any) -> tuple[str, bool]:
    """Content as message text, and whether it was JSON of another kind."""
    if isinstance(content, str):
        return content, False
    return json.dumps(content, ensure_ascii=False), True


def _media_kind(mime: Any) -> str:
    head = mime.split("/")[0] if isinstance(mime, str) else ""
    return head if head in ("image", "audio", "video") else "file"


def _user_item(item: Any) -> Any:
    if isinstance(item, str):
        return {"type": "text", "text": item}
    if not isinstance(item, dict):
        return {"type": "non_standard", "value": item}
    kind = item.get("kind")
    if kind in URL_KINDS:
        block: dict[str, Any] = {"type": URL_KINDS[kind], "url": item.get("url")}
        extras = _rest(item, "kind", "url")
    elif kind == "binary":
        block = {
            "type": _media_kind(item.get("media_type")),
            "base64": item.get("data"),
            "mime_type": item.get("media_type"),
        }
        extras = {"kind": "binary", **_rest(item, "kind", "data", "media_type")}
    else:
        return {"type": "non_standard", "value": item}
    if extras:
        block["extras"] = extras
    return block


def _request(value: dict[str, Any], state: dict[str, Any]) -> list[AnyMessage]:
    out: list[AnyMessage] = []
    instructions = value.get("instructions")
    if isinstance(instructions, str) and instructions and instructions != state.get("said"):
        out.append(SystemMessage(instructions, additional_kwargs={"source": "instructions"}))
        state["said"] = instructions
    for part in value["parts"]:
        out.append(_request_part(part))
    fields = _rest(value, "parts", "kind", "instructions")
    if fields and out:  # the request's own fields, with the first of its parts
        first = next((m for m in out if m.additional_kwargs.get("source") != "instructions"), None)
        first = first or out[0]
        first.response_metadata = {**first.response_metadata, "request": fields}
    return out


def _request_part(part: dict[str, Any]) -> AnyMessage:
    kind = part.get("part_kind")
    content = part.get("content")
    if kind == "system-prompt":
        return SystemMessage(_as_text(content)[0], response_metadata=_rest(part, "content"))
    if kind == "retry-feedback":  # a retry asked of the model's output: a user turn
        kwargs = {"part_kind": kind}
        return HumanMessage(
            _as_text(content)[0], additional_kwargs=kwargs, response_metadata=_rest(part, "content")
        )
    if kind == "user-prompt":
        body = content if isinstance(content, str) else [_user_item(i) for i in content or ()]
        return HumanMessage(body, response_metadata=_rest(part, "content"))
    if kind in ("tool-return", "retry-prompt"):
        text, was_json = _as_text(content)
        kwargs = {JSON_CONTENT: True} if was_json else {}
        metadata = _rest(part, "content", "tool_name", "tool_call_id", "metadata")
        if kind == "retry-prompt":
            kwargs["part_kind"] = kind
            if not part.get("tool_name"):  # a retry asked of the model's text: a user turn
                metadata.update(_rest(part, "content", "tool_name"))
                return HumanMessage(text, additional_kwargs=kwargs, response_metadata=metadata)
        failed = kind == "retry-prompt" or part.get("outcome") not in (None, "success")
        return ToolMessage(
            text,
            tool_call_id=part.get("tool_call_id") or "",
            name=part.get("tool_name"),
            artifact=part.get("metadata"),
            status="error" if failed else "success",
            additional_kwargs=kwargs,
            response_metadata=metadata,
        )
    return HumanMessage([{"type": "non_standard", "value": part}])


def _response(value: dict[str, Any]) -> AIMessage:
    blocks: list[Any] = []
    calls: list[dict[str, Any]] = []
    invalid: list[dict[str, Any]] = []
    extras: list[dict[str, Any]] = []  # the tool-call parts' other fields
    for part in value["parts"]:
        kind = part.get("part_kind")
        if kind == "text":
            block: dict[str, Any] = {"type": "text", "text": part.get("content") or ""}
            rest = _rest(part, "content")
            if rest:
                block["extras"] = rest
            blocks.append(block)
        elif kind == "thinking":
            block = {"type": "reasoning", "reasoning": part.get("content") or ""}
            rest = _rest(part, "content")
            if rest:
                block["extras"] = rest
            blocks.append(block)
        elif kind == "tool-call":
            _call(part, calls, invalid, extras)
        else:  # built-in tools' calls and returns, files: kept whole
            blocks.append({"type": "non_standard", "value": part})
    if all(b["type"] == "text" and "extras" not in b for b in blocks):
        content: Any = "".join(b["text"] for b in blocks)
    else:
        content = blocks
    metadata = _rest(value, "parts", "kind")
    kwargs = {"tool_call_parts": extras} if extras else {}
    return AIMessage(
        content,
        tool_calls=calls,
        invalid_tool_calls=invalid,
        id=value.get("provider_response_id"),
        usage_metadata=_usage(value.get("usage")),
        response_metadata=metadata,
        additional_kwargs=kwargs,
    )


def _call(part: dict[str, Any], calls: list[Any], invalid: list[Any], extras: list[Any]) -> None:
    args = given = part.get("args")
    ident = part.get("tool_call_id")
    name = part.get("tool_name") or ""
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except ValueError:
            invalid.append(
                {
                    "type": "invalid_tool_call",
                    "id": ident,
                    "name": name,
                    "args": args,
                    "error": None,
                }
            )
            return
    if args is None:
        args = {}
    if not isinstance(args, dict):
        args = {"args": args}
    calls.append({"name": name, "args": args, "id": ident})
    rest = _rest(part, "tool_name", "args", "tool_call_id")
    if isinstance(given, str):  # arguments given as JSON text are written back as that text
        rest["args"] = given
    if rest:
        extras.append({"tool_call_id": ident, **rest})


def _usage(usage: Any) -> dict[str, Any] | None:
    if not isinstance(usage, dict):
        return None
    counts = [usage.get(k) or 0 for k in ("input_tokens", "output_tokens")]
    if not all(isinstance(n, int) for n in counts):
        return None
    out: dict[str, Any] = {
        "input_tokens": counts[0],
        "output_tokens": counts[1],
        "total_tokens": counts[0] + counts[1],
    }
    read, wrote = usage.get("cache_read_tokens"), usage.get("cache_write_tokens")
    details = {k: v for k, v in (("cache_read", read), ("cache_creation", wrote)) if v}
    if details:
        out["input_token_details"] = details
    reasoning = usage.get("output_reasoning_tokens") or (usage.get("details") or {}).get(
        "reasoning_tokens"
    )
    if reasoning:
        out["output_token_details"] = {"reasoning": reasoning}
    return out


def messages_of(values: Iterable[Any]) -> Iterator[AnyMessage]:
    """The messages of a history's model messages, as they come."""
    state: dict[str, Any] = {}
    for index, value in enumerate(values):
        if not is_model_message(value):
            raise ValidationError(
                f"model message {index + 1} is not a pydantic-ai request or response",
                hint=keys_hint(value),
            )
        try:
            if value["kind"] == "request":
                yield from _request(value, state)
            else:
                yield _response(value)
        except (TypeError, AttributeError, KeyError, ValueError):
            raise ValidationError(
                f"model message {index + 1} has a part of a shape pydantic-ai does not write",
                hint="check it against pydantic-ai's ModelMessagesTypeAdapter",
            ) from None


def _cannot_hold(message: AnyMessage) -> list[str]:
    found = []
    if message.type in ("chat", "function"):
        found.append("chat and function roles (written as user prompts)")
    if message.name and message.type != "tool":
        found.append("message names")
    return found


class PydanticAIDialect(StreamDialect):
    name = "pydantic-ai"
    writable = True
    conversation_records = True
    description = "pydantic-ai message histories (ModelMessagesTypeAdapter dumps)"
    example = "pydantic_ai__afarntrog_gemini_dice_tool_calls.json"

    def losses(self) -> Any:
        return _cannot_hold

    def is_stream_event(self, value: Any) -> bool:
        if isinstance(value, list):
            return bool(value) and is_model_message(value[0])
        return is_model_message(value)

    def read_stream(self, values: Iterable[Any], location: Location) -> Iterator[Conversation]:
        return _histories(iter(values), location, lambda: location)

    def read_records(
        self,
        records: Iterable[Any],
        location: Location,
        options: Any = None,
        handle: Callable[[ChatpipeError], None] | None = None,
    ) -> Iterator[Conversation]:
        """As ``read_stream``, each message placed at the model message it came from (a
        history a record: at its record), for ``validate`` to name the line."""
        from ..io.records import BadRecord

        at = [location]

        def values() -> Iterator[Any]:
            for record in records:
                if isinstance(record, BadRecord):
                    if handle is None:
                        raise record.error
                    handle(record.error)
                else:
                    at[0] = record.location
                    yield record.value

        return _histories(values(), location, lambda: at[0])

    def write_messages(self, messages: Iterable[AnyMessage]) -> Iterator[Any]:
        return iter(write_history(messages))

    def write_conversation(self, conversation: Conversation) -> list[dict[str, Any]]:
        return write_history(conversation.messages)


def _histories(
    values: Iterator[Any], location: Location, where: Callable[[], Location]
) -> Iterator[Conversation]:
    """The conversations of model messages (one history) or of histories (one a value);
    ``where()`` is the place of the value read last."""
    for value in values:
        if isinstance(value, list):  # one dump a record: a conversation each
            place = where()
            messages = _located(messages_of(value), location)
            yield _placed(messages, location, lambda place=place: place)
            continue
        rest = (v for v in values if not isinstance(v, list) or _mixed(location))
        yield _placed(_located(messages_of(_chain(value, rest)), location), location, where)
        return


def _placed(
    messages: Iterator[AnyMessage], location: Location, where: Callable[[], Location]
) -> Conversation:
    """A conversation whose places fill in as its messages are read."""
    places: list[Location] = []

    def placing() -> Iterator[AnyMessage]:
        for message in messages:
            places.append(where())
            yield message

    conversation = Conversation(placing(), {}, location)
    conversation.places = places
    return conversation


def _chain(first: Any, rest: Iterator[Any]) -> Iterator[Any]:
    yield first
    yield from rest


def _mixed(location: Location) -> bool:
    raise DataError(
        "a whole history among the model messages of one history",
        location,
        hint="give one model message a record, or one history a record, not both",
    )


def _located(messages: Iterator[AnyMessage], location: Location) -> Iterator[AnyMessage]:
    try:
        yield from messages
    except ValidationError as exc:
        raise exc.located(location) from None
