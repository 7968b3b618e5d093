"""OpenAI ``chat.completion.chunk`` captures (JSONL or SSE) reassembled into messages.

Deltas are summed as ``AIMessageChunk``s, by langchain's chunk addition, so tool-call
argument fragments join by index; a capture may hold several streams, split where the
chunk id changes. Identities a provider repeats in every chunk (a tool call's name,
``reasoning_details[].format``) are kept once (``STREAM_IDENTITY_KEYS``, model/chunk_merge.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import Location
from ..model import AIMessageChunk, message_chunk_to_message
from ..model.chunk_merge import STREAM_IDENTITY_KEYS
from ..model.chunks import add_ai_message_chunks
from ..model.tool_calls import chunks_from_openai
from .base import Conversation, StreamDialect
from .openai_messages import reasoning_parts, usage_from_openai


def is_openai_chunk(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if value.get("object") == "chat.completion.chunk":
        return True
    choices = value.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        return "delta" in choices[0]
    return "prompt_filter_results" in value and choices == []


def _chunk(value: dict[str, Any]) -> AIMessageChunk | None:
    choices = value.get("choices") or []
    choice = next((c for c in choices if isinstance(c, dict) and c.get("index", 0) == 0), None)
    usage = value.get("usage")
    if choice is None and not usage:
        return None
    delta = (choice or {}).get("delta") or {}
    kwargs = {
        k: v
        for k, v in delta.items()
        if k not in ("role", "content", "tool_calls") and v is not None
    }
    return AIMessageChunk(
        delta.get("content") or "",
        additional_kwargs=kwargs,
        tool_call_chunks=chunks_from_openai(delta.get("tool_calls") or []),
        usage_metadata=usage_from_openai(usage) if isinstance(usage, dict) else None,
    )


def assemble_openai(values: Iterable[dict[str, Any]]) -> Iterator[Any]:
    """The AI messages a chunk capture spells, one per stream."""
    total: AIMessageChunk | None = None
    metadata: dict[str, Any] = {}
    current_id: str | None = None
    for value in values:
        chunk_id = value.get("id") or None
        if chunk_id is not None and current_id is not None and chunk_id != current_id:
            if total is not None:
                yield _finish(total, metadata)
            total, metadata = None, {}
        if chunk_id is not None:
            current_id = chunk_id
        for key, target in (
            ("id", "id"),
            ("model", "model_name"),
            ("system_fingerprint", "system_fingerprint"),
            ("service_tier", "service_tier"),
            ("created", "created"),
        ):
            if value.get(key):
                metadata[target] = value[key]
        for choice in value.get("choices") or ():
            if isinstance(choice, dict) and choice.get("finish_reason"):
                metadata["finish_reason"] = choice["finish_reason"]
        chunk = _chunk(value)
        if chunk is not None:
            total = (
                chunk
                if total is None
                else add_ai_message_chunks(total, chunk, identities=STREAM_IDENTITY_KEYS)
            )
    if total is not None:
        yield _finish(total, metadata)


def _finish(total: AIMessageChunk, metadata: dict[str, Any]) -> Any:
    message = message_chunk_to_message(total)
    if isinstance(message.content, list):  # (Mistral's thinking chunks, one a delta)
        message.content = _joined(reasoning_parts(message.content))
    message.id = metadata.get("id")
    message.response_metadata = {**metadata, "model_provider": "openai"}
    return message


def _joined(content: list[Any]) -> list[Any]:
    """Content whose reasoning (and text) pieces, one a delta, are joined into one block
    each, in order."""
    joined: list[Any] = []
    for part in content:
        last = joined[-1] if joined else None
        kind = part.get("type") if isinstance(part, dict) else None
        if (
            kind in ("reasoning", "text")
            and isinstance(last, dict)
            and last.get("type") == kind
            and set(part) == set(last) == {"type", kind}
        ):
            joined[-1] = {"type": kind, kind: last[kind] + part[kind]}
        else:
            joined.append(part)
    return joined


class OpenAIStreamDialect(StreamDialect):
    name = "openai-stream"
    description = "OpenAI chat.completion.chunk captures (JSONL or SSE), reassembled"
    example = "openai_stream__pydanticai_parallel_tool_calls_index0_index1.jsonl"
    stream = True

    def is_stream_event(self, value: Any) -> bool:
        return is_openai_chunk(value)

    def read_stream(self, values: Iterable[Any], location: Location) -> Iterator[Conversation]:
        for message in assemble_openai(v for v in values if isinstance(v, dict)):
            yield Conversation([message], {}, location)
