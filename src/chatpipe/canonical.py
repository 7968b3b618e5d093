"""The canonical flat dict of a message, and the compact JSON line it is written as.

One object per message, langchain's flat shape, keys in a fixed order and omitted when
they hold their default (docs/ARCHITECTURE.md, "Canonical JSONL"). ``HumanMessage(**rest)``
rebuilds a message from its dict, and reading canonical JSONL then writing it again gives
the same bytes.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from .errors import ConversionError, ValidationError
from .messages import (
    CHUNK_TO_MESSAGE,
    AIMessage,
    AnyMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
    message_chunk_to_message,
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


def message_from_plain(item: dict[str, Any]) -> AnyMessage:
    """The message of a plain canonical dict from the fast lane (formats.lane), whose
    values the lane has checked already."""
    fields = {k: v for k, v in item.items() if k != "type" and k != "content"}
    return CANONICAL_TYPES[item["type"]]._plain(item["content"], **fields)


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


# -- JSON lines ---------------------------------------------------------------------

# Characters some readers take as line breaks: written escaped, never raw. Each with its
# last byte, which a quick scan for one byte finds first when it is there at all.
_LINE_BREAKS = (
    (b"\xa8", b"\xe2\x80\xa8", b"\\u2028"),
    (b"\xa9", b"\xe2\x80\xa9", b"\\u2029"),
    (b"\x85", b"\xc2\x85", b"\\u0085"),
)


def _escape_line_breaks(data: bytes) -> bytes:
    for last, raw, escaped in _LINE_BREAKS:
        if last in data and raw in data:
            data = data.replace(raw, escaped)
    return data


def dumps(value: Any) -> bytes:
    """Compact JSON as chatpipe writes it: UTF-8, no spaces, U+2028/2029/0085 escaped."""
    try:
        data = orjson.dumps(value)
    except TypeError:
        # integers past 64 bits: the standard library writes them exactly; a byte a
        # command line gave that is not UTF-8 (\udcff) is written back as it came
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        try:
            data = text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            raise ConversionError(
                "text with half a character (a lone surrogate) cannot be written as UTF-8"
            ) from None
    return _escape_line_breaks(data)


# orjson takes no str near 2 GiB (it crashed the process at 2.2 GB): longer texts, rare,
# are written by the standard library, which gives the same bytes
LONGEST_FOR_ORJSON = 1 << 30


def dumps_text(text: str) -> bytes:
    """A str as a JSON string, as orjson writes it, whatever its size; bytes escaped from a
    command line (``\udcff``, a separator that is not UTF-8) are written as they were."""
    if len(text) < LONGEST_FOR_ORJSON:
        try:
            return orjson.dumps(text)
        except TypeError:  # a lone surrogate
            pass
    return json.dumps(text, ensure_ascii=False).encode("utf-8", "surrogateescape")


def dumps_lines(records: list[Any], joiner: bytes = b"\n") -> bytes:
    """Records as JSON lines, each as ``dumps`` writes it, joined by newlines (or by
    ``joiner``: commas, inside an array)."""
    try:
        data = joiner.join(map(orjson.dumps, records))
    except TypeError:
        return joiner.join(map(dumps, records))
    return _escape_line_breaks(data)
