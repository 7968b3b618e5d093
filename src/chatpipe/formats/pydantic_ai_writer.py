"""Messages as a pydantic-ai message history, the list ``ModelMessagesTypeAdapter`` loads:
runs of system, user and tool messages become a request of parts, each AI message a
response. What the reader (pydantic_ai.py) kept of each part is written back."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable
from typing import Any

from ..model import AIMessage, AnyMessage, SystemMessage, ToolMessage

# a user prompt's media: pydantic-ai's kind and the standard block it is read as
URL_KINDS = {
    "image-url": "image",
    "audio-url": "audio",
    "video-url": "video",
    "document-url": "file",
}
_KIND_OF_BLOCK = {v: k for k, v in URL_KINDS.items()}
# a tool return's content that was not text, kept as JSON text in the message
JSON_CONTENT = "content_is_json"

# the fields of a ModelResponse besides its parts (kept in response_metadata by the reader)
_RESPONSE_FIELDS = (
    "usage",
    "model_name",
    "timestamp",
    "provider_name",
    "provider_details",
    "provider_response_id",
    "finish_reason",
    "run_id",
    "conversation_id",
    "metadata",
    "state",
)


def write_history(messages: Iterable[AnyMessage]) -> list[dict[str, Any]]:
    history: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    request: dict[str, Any] = {}  # the fields of the request being gathered
    instructions: str | None = None
    names: dict[Any, str] = {}  # tool call ids and their tools' names, for tool returns

    def close() -> None:
        nonlocal request
        if parts or request:
            history.append(
                {
                    "parts": list(parts),
                    **request,
                    "instructions": instructions,
                    "kind": "request",
                }
            )
        parts.clear()
        request = {}

    for message in messages:
        if isinstance(message, AIMessage):
            close()
            history.append(_response(message))
            names.update((c["id"], c["name"]) for c in message.tool_calls)
            continue
        if message.additional_kwargs.get("source") == "instructions":
            close()
            instructions = _text(message.content)
            continue
        metadata = dict(message.response_metadata)
        fields = metadata.pop("request", None)
        if isinstance(fields, dict) and parts:  # a new request begins here
            close()
        if isinstance(fields, dict):
            request = {k: v for k, v in fields.items() if k not in ("parts", "kind")}
        part = _request_part(message, metadata)
        if part.get("tool_name") == "":
            part["tool_name"] = names.get(part.get("tool_call_id"), "")
        parts.append(part)
    close()
    return history


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(
        b if isinstance(b, str) else str(b.get("text", "")) for b in content if _is_text(b)
    )


def _is_text(block: Any) -> bool:
    return isinstance(block, str) or (isinstance(block, dict) and block.get("type") == "text")


def _request_part(message: AnyMessage, metadata: dict[str, Any]) -> dict[str, Any]:
    kwargs = message.additional_kwargs
    content: Any = message.content
    if kwargs.get(JSON_CONTENT) and isinstance(content, str):
        with contextlib.suppress(ValueError):
            content = json.loads(content)
    if isinstance(message, SystemMessage):
        return {"content": _text(content), **metadata, "part_kind": "system-prompt"}
    if isinstance(message, ToolMessage):
        part: dict[str, Any] = {"tool_name": message.name or "", "content": content}
        part["tool_call_id"] = message.tool_call_id
        if kwargs.get("part_kind") == "retry-prompt":
            return {**part, **metadata, "part_kind": "retry-prompt"}
        if message.artifact is not None:
            part["metadata"] = message.artifact
        return {**part, **metadata, "part_kind": "tool-return"}
    if kwargs.get("part_kind") == "retry-prompt":
        return {"content": content, "tool_name": None, **metadata, "part_kind": "retry-prompt"}
    if kwargs.get("part_kind") == "retry-feedback":
        return {"content": content, **metadata, "part_kind": "retry-feedback"}
    if not isinstance(content, str):
        content = [_user_item(b) for b in content]
        if len(content) == 1 and isinstance(content[0], dict) and "part_kind" in content[0]:
            return content[0]  # a part the reader kept whole
    return {"content": content, **metadata, "part_kind": "user-prompt"}


def _user_item(block: Any) -> Any:
    if isinstance(block, str):
        return block
    kind = block.get("type")
    extras = dict(block.get("extras") or {})
    if kind == "text":
        return block.get("text", "")
    if kind == "non_standard":
        return block.get("value")
    if kind in _KIND_OF_BLOCK and block.get("url"):
        return {"url": block["url"], **extras, "kind": extras.pop("kind", _KIND_OF_BLOCK[kind])}
    if kind in _KIND_OF_BLOCK and block.get("base64"):
        extras.pop("kind", None)
        return {
            "data": block["base64"],
            "media_type": block.get("mime_type"),
            **extras,
            "kind": "binary",
        }
    if kind == "image_url":  # an OpenAI chat part
        image = block.get("image_url")
        url = image.get("url") if isinstance(image, dict) else image
        return {"url": url, "kind": "image-url"}
    return block


def _response(message: AIMessage) -> dict[str, Any]:
    parts: list[Any] = []
    content = message.content
    for block in [content] if isinstance(content, str) else content:
        if isinstance(block, str):
            if block:
                parts.append({"content": block, "part_kind": "text"})
            continue
        kind = block.get("type")
        extras = block.get("extras") or {}
        if kind == "text":
            parts.append({"content": block.get("text", ""), **extras, "part_kind": "text"})
        elif kind == "reasoning":
            parts.append({"content": block.get("reasoning", ""), **extras, "part_kind": "thinking"})
        elif kind == "thinking":  # an Anthropic block
            parts.append(
                {
                    "content": block.get("thinking", ""),
                    "signature": block.get("signature"),
                    "provider_name": "anthropic",
                    "part_kind": "thinking",
                }
            )
        elif kind == "non_standard":
            parts.append(block.get("value"))
    given = message.additional_kwargs.get("tool_call_parts") or ()
    kept = {e.get("tool_call_id"): e for e in given if isinstance(e, dict)}
    for call in message.tool_calls:
        rest = {k: v for k, v in (kept.get(call["id"]) or {}).items() if k != "tool_call_id"}
        parts.append(
            {
                "tool_name": call["name"],
                "args": call["args"],
                "tool_call_id": call["id"],
                **rest,
                "part_kind": "tool-call",
            }
        )
    for bad in message.invalid_tool_calls:
        parts.append(
            {
                "tool_name": bad.get("name") or "",
                "args": bad.get("args"),
                "tool_call_id": bad.get("id"),
                "part_kind": "tool-call",
            }
        )
    metadata = message.response_metadata
    response: dict[str, Any] = {"parts": parts}
    for key in _RESPONSE_FIELDS:
        if key in metadata:
            response[key] = metadata[key]
    if "usage" not in response and message.usage_metadata:
        response["usage"] = _usage(message.usage_metadata)
    if "provider_response_id" not in response and message.id:
        response["provider_response_id"] = message.id
    response["kind"] = "response"
    return response


def _usage(usage: dict[str, Any]) -> dict[str, Any]:
    out = {"input_tokens": usage.get("input_tokens", 0)}
    details = usage.get("input_token_details") or {}
    if details.get("cache_read"):
        out["cache_read_tokens"] = details["cache_read"]
    if details.get("cache_creation"):
        out["cache_write_tokens"] = details["cache_creation"]
    out["output_tokens"] = usage.get("output_tokens", 0)
    reasoning = (usage.get("output_token_details") or {}).get("reasoning")
    if reasoning:
        out["details"] = {"reasoning_tokens": reasoning}
    return out
