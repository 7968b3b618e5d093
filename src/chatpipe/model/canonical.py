"""The canonical flat dict of a message, and the compact JSON line it is written as.

One object per message, langchain's flat shape, keys in a fixed order and omitted when
they hold their default (docs/architecture.md, "Canonical JSONL"). ``HumanMessage(**rest)``
rebuilds a message from its dict, and reading canonical JSONL then writing it again gives
the same bytes.
"""

from __future__ import annotations

from typing import Any

from ..errors import ValidationError
from .chunks import CHUNK_TO_MESSAGE, message_chunk_to_message
from .messages import (
    AIMessage,
    AnyMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)

CANONICAL_TYPES: dict[str, type[AnyMessage]] = {
    "human": HumanMessage,
    "ai": AIMessage,
    "system": SystemMessage,
    "tool": ToolMessage,
    "function": FunctionMessage,
    "chat": ChatMessage,
    "remove": RemoveMessage,
}


def message_to_canonical(message: AnyMessage) -> dict[str, Any]:
    """The flat dict: type, content, name, id, then the class's fields, then the maps."""
    if type(message) in CHUNK_TO_MESSAGE:
        message = message_chunk_to_message(message)
    out: dict[str, Any] = {"type": message.type, "content": message.content}
    if message.name is not None:
        out["name"] = message.name
    if message.id is not None:
        out["id"] = message.id
    kind = message.type
    if kind == "chat":
        out["role"] = message.role
    elif kind == "tool":
        out["tool_call_id"] = message.tool_call_id
        if message.status != "success":
            out["status"] = message.status
        if message.artifact is not None:
            out["artifact"] = message.artifact
    elif kind == "ai":
        if message.tool_calls:
            out["tool_calls"] = message.tool_calls
        if message.invalid_tool_calls:
            out["invalid_tool_calls"] = message.invalid_tool_calls
        if message.usage_metadata is not None:
            out["usage_metadata"] = message.usage_metadata
    if message.additional_kwargs:
        out["additional_kwargs"] = message.additional_kwargs
    if message.response_metadata:
        out["response_metadata"] = message.response_metadata
    if message.extra:
        out.update(message.extra)
    return out


def message_from_canonical(record: dict[str, Any]) -> AnyMessage:
    """Build the message a canonical (or langchain flat ``model_dump``) dict describes."""
    kind = record.get("type")
    cls = CANONICAL_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValidationError(
            f"unknown message type {kind!r}",
            hint="expected one of " + ", ".join(CANONICAL_TYPES),
        )
    fields = {k: v for k, v in record.items() if k != "type"}
    if cls is RemoveMessage:
        fields.pop("content", None)
    elif "content" not in fields:
        raise ValidationError(f"a {kind} message needs 'content'")
    try:
        return cls(**fields)
    except TypeError as exc:  # a malformed tool call and the like
        raise ValidationError(str(exc)) from None
