"""What redact leaves as it is (ops/redact.py): the keys whose strings name things (ids,
types, models, roles), and binary data: the base64 payload of a media block (a ``data`` or
``base64`` field beside a MIME type or a base64 source type) and of a
``data:<mime>;base64,`` URL."""

from __future__ import annotations

import re
from typing import Any

# keys whose strings are names of things, not text: never scanned
SKIP = frozenset(
    (
        "type",
        "id",
        "uuid",
        "tool_call_id",
        "mime_type",
        "source_type",
        "signature",
        "thought_signatures",
        "parent",
        "parent_id",
        "parent_message_uuid",
        "current_node",
        "model",
        "model_name",
        "model_slug",
        "default_model_slug",
        "model_provider",
        "finish_reason",
        "stop_reason",
        "status",
        "role",
        "__openai_role__",
        "content_type",
        "recipient",
        "object",
    )
)
# a data URL's head, up to the base64 payload that follows it
_DATA_URL = re.compile(r"data:[\w.+-]+/[\w.+-]+(?:;[\w.+-]+=[^;,\s]*)*;base64,")
_BASE64 = re.compile(r"[A-Za-z0-9+/=_\-]*")
_BASE64_LINES = re.compile(r"[A-Za-z0-9+/=_\-\s]*")  # (MIME's base64 breaks its lines)
# what says a block's ``data`` (or ``base64``) is a binary payload: a MIME type beside it
# (not text/*: Anthropic's plain-text document source says text/plain), a base64 source
# type, pydantic-ai's binary kind, an OpenAI input_audio (its data and format alone)
_MIME_KEYS = ("mime_type", "mimeType", "media_type", "mediaType")


def payload_end(text: str) -> int:
    """Where the base64 payload a ``data:<mime>;base64,`` URL starts ``text`` with ends
    (0 when the text is no such URL): the rest is text, and scanned."""
    head = _DATA_URL.match(text)
    if head is None:
        return 0
    return _BASE64.match(text, head.end()).end()  # type: ignore[union-attr]


def _binary(block: dict[str, Any], key: str) -> bool:
    """Whether ``block[key]`` (``data`` or ``base64``) is a media block's base64 payload."""
    value = block[key]
    if not isinstance(value, str) or _BASE64_LINES.fullmatch(value) is None:
        return False
    if key == "base64":  # (a v1 data block's payload, by its name)
        return True
    if block.get("type") == "base64" or block.get("source_type") == "base64":
        return True
    if block.get("kind") == "binary":
        return True
    if isinstance(block.get("format"), str) and block.keys() <= {"data", "format"}:
        return True  # (OpenAI's input_audio)
    for name in _MIME_KEYS:
        mime = block.get(name)
        if isinstance(mime, str) and mime and not mime.lower().startswith("text/"):
            return True
    return False


def is_payload(block: dict[str, Any], key: Any) -> bool:
    return (key == "data" or key == "base64") and _binary(block, key)
